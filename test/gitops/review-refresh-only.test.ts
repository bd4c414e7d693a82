// A refresh-only plan (`terraform plan -refresh-only -out X`) proposes no change to the account,
// yet applying it makes the state accept what changed outside Terraform: an object deleted there
// is forgotten, a deactivation becomes what the state records. Its JSON has no resource_changes,
// and a resource_drift (the reviewer's finding: review said "No changes." and exited 0). The
// fixture is real: terraform 1.11.4 against the emulator, after an IP and a token were deleted, a
// token and a sub-account deactivated and an IP added to the parent's list, all outside Terraform.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parsePlanJson } from '../../src/gitops/plan-json';
import { failsOn, hasChanges, reviewPlan } from '../../src/gitops/review';
import { reviewJson, reviewMarkdown } from '../../src/gitops/review-render';
import { change } from './plan-changes';

const FIXTURE = path.join(__dirname, 'fixtures', 'refresh-only.plan.json');
const raw = fs.readFileSync(FIXTURE, 'utf8');
const real = () => reviewPlan(parsePlanJson(JSON.parse(raw)));
const ACCEPTED = 'changed outside Terraform, which this plan accepts into the state: ';

describe('a refresh-only plan that accepts changes made outside Terraform', () => {
  it('is said to be refresh-only, with each change made outside Terraform under its account', () => {
    const r = real();
    expect(r.refresh_only).toBe(true);
    expect(r.summary).toEqual({ add: 0, change: 0, destroy: 0, replace: 0, import: 0, forget: 0 });
    expect(r.accounts.map((a) => [a.account, a.changes.map((c) => [c.action, c.description])])).toEqual([
      ['(parent)', [['changed_outside', 'changed outside Terraform: +1 IP (192.0.2.50 (someone))']]],
      [
        'gg-alice',
        [
          ['deleted_outside', 'IP 203.0.113.7 (office) deleted outside Terraform'],
          ['deleted_outside', "token 2 'ci' deleted outside Terraform"],
          ['changed_outside', "changed outside Terraform: token 'deploy' deactivated"],
        ],
      ],
      ['gg-bob', [['changed_outside', 'changed outside Terraform: deactivated']]],
    ]);
  });

  it('needs attention for what the state forgets and for what is (de)activated or opened', () => {
    expect(real().attention.map((a) => [a.kind, a.address, a.message])).toEqual([
      [
        'deleted_outside',
        'proxyaccount_authorized_ip.office',
        "IP 203.0.113.7 (office) of sub-account 'gg-alice' was deleted outside Terraform: applying this plan makes the state forget it. " +
          'Where the code still declares it, the next plan creates it again; where it does not, the deletion is never shown again',
      ],
      [
        'parent_access_opened',
        'proxyaccount_authorized_ips.parent',
        `${ACCEPTED}1 IP (192.0.2.50 (someone)) may use the parent account's proxies without credentials`,
      ],
      [
        'deleted_outside',
        'proxyaccount_bearer_token.ci',
        "token 2 'ci' of sub-account 'gg-alice' was deleted outside Terraform: applying this plan makes the state forget it. " +
          'Where the code still declares it, the next plan creates it again; where it does not, the deletion is never shown again',
      ],
      ['deactivation', 'proxyaccount_bearer_token.deploy', `${ACCEPTED}token 'deploy' of sub-account 'gg-alice' is deactivated: clients using it stop working`],
      ['deactivation', 'proxyaccount_sub_account.bob', `${ACCEPTED}sub-account 'gg-bob' is deactivated: its proxy requests get 402`],
    ]);
  });

  it('is never "No changes": the Markdown says what applying it does, and the exit codes follow', () => {
    const r = real();
    const md = reviewMarkdown(r);
    expect(md).not.toContain('No changes.');
    expect(md).toContain(
      '**Plan:** 0 to add, 0 to change, 0 to destroy; refresh-only: it accepts 5 changes made outside Terraform into the state.\n\n' +
        '**⚠️ A plan that changes nothing in the account (a refresh-only plan, or one whose code declares nothing that changed): applying it makes the state accept the changes made outside Terraform listed below, ' +
        'after which drift no longer reports them. An object deleted outside Terraform is forgotten; where the code still declares what changed, the next plan changes it back.**',
    );
    expect(md).toContain('### gg-alice — 3 changes\n\n- IP 203.0.113.7 (office) deleted outside Terraform — `proxyaccount_authorized_ip.office`');
    expect(hasChanges(r)).toBe(true);
    expect(failsOn(r, 'attention')).toBe(true);
    // It accepts deletions: the state forgets objects, which --fail-on destroy exists to stop.
    expect(failsOn(r, 'destroy')).toBe(true);
    expect(failsOn(r, 'replace')).toBe(false);
    expect(JSON.parse(reviewJson(r)).refresh_only).toBe(true);
    // Never a secret the plan carries in clear: a token value, a password.
    expect(raw).toMatch(/"token": "pxa_/);
    expect(raw).toContain('golden-secret-pw-1');
    for (const out of [reviewJson(r), md]) expect(out).not.toMatch(/pxa_|golden-secret-pw-1/);
  });
});

describe('telling a refresh-only plan from others', () => {
  const deactivated = change(
    'proxyaccount_bearer_token',
    't',
    ['update'],
    { id: '4', token_id: 4, label: 'ci', username: null, active: true },
    { id: '4', token_id: 4, label: 'ci', username: null, active: false },
  );
  const plan = (json: Record<string, unknown>) =>
    reviewPlan(parsePlanJson({ format_version: '1.2', applyable: true, complete: true, errored: false, ...json }));

  it('one that accepts no deletion passes --fail-on destroy, not --fail-on attention', () => {
    const r = plan({ resource_drift: [deactivated] });
    expect(r.refresh_only).toBe(true);
    expect(hasChanges(r)).toBe(true);
    expect(failsOn(r, 'destroy')).toBe(false);
    expect(failsOn(r, 'attention')).toBe(true);
    // A normal plan holding the same drift lists its changes, not the drift (a plan's changes already undo it or keep it).
    const normal = plan({
      resource_drift: [deactivated],
      resource_changes: [{ ...(deactivated as object), change: { ...(deactivated as { change: object }).change } }],
    });
    expect(normal.refresh_only).toBeUndefined();
    expect(normal.accounts.flatMap((a) => a.changes.map((c) => c.action))).toEqual(['update']);
    // Terraform marks a normal plan whose changes are all no-ops not applyable: its drift is not applied.
    const noop = change('proxyaccount_bearer_token', 't', ['no-op'], { id: '4', token_id: 4, username: null }, { id: '4', token_id: 4, username: null });
    const unapplyable = plan({ applyable: false, resource_drift: [deactivated], resource_changes: [noop] });
    expect(unapplyable.refresh_only).toBeUndefined();
    expect(reviewMarkdown(unapplyable)).toContain('No changes.');
    // Drift a normal plan keeps (ignore_changes) beside a changed output: applyable, no-ops only,
    // and still a normal plan, whose resource_changes list every resource.
    const ignored = plan({ applyable: true, resource_drift: [deactivated], resource_changes: [noop], output_changes: { o: { actions: ['create'] } } });
    expect(ignored.refresh_only).toBeUndefined();
    expect(reviewMarkdown(ignored)).not.toContain('refresh-only');
  });
});
