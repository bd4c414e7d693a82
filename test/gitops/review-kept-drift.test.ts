// A normal plan's drift that its changes do not change back (ignore_changes, or code that already
// matches) is written into the state by the apply of any change, after which no refresh shows it:
// the review lists it as accepted, with attention (the reviewer's finding: an IP added outside
// Terraform to a list whose entries are ignored rode along, unseen, with an unrelated hostname).
// The fixtures are real: terraform 1.11.4 against the emulator. kept-drift.plan.json: team-a's IP
// list (ignore_changes = [entries]) got 192.0.2.66, its monthly limit (ignored) was raised to 200,
// the parent IP (ignore_changes = all) relabelled, and the code adds a hostname.
// kept-drift-update.plan.json: later, 192.0.2.99 added to the same list, and a token and a
// sub-account deactivated outside Terraform, which the plan activates again (changes them back).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parsePlanJson } from '../../src/gitops/plan-json';
import { failsOn, hasChanges, reviewPlan } from '../../src/gitops/review';
import { reviewJson, reviewMarkdown } from '../../src/gitops/review-render';
import { change } from './plan-changes';

const fixture = (name: string): Record<string, unknown> => JSON.parse(fs.readFileSync(path.join(__dirname, 'fixtures', name), 'utf8'));
const KEPT = 'changed outside Terraform, kept by this plan (ignore_changes, or code that already matches): ';

describe('a normal plan that keeps changes made outside Terraform', () => {
  it('lists each kept change under its account, beside its own changes, with attention', () => {
    const r = reviewPlan(parsePlanJson(fixture('kept-drift.plan.json')));
    expect(r.refresh_only).toBeUndefined();
    expect(r.summary).toEqual({ add: 1, change: 0, destroy: 0, replace: 0, import: 0, forget: 0 });
    expect(r.accounts.map((a) => [a.account, a.changes.map((c) => [c.action, c.address, c.description])])).toEqual([
      [
        '(parent)',
        [
          ['create', 'proxyaccount_authorized_hostname.ci', '+hostname ci.example.com'],
          ['changed_outside', 'proxyaccount_authorized_ip.parent_office', `${KEPT}IP 198.51.100.5 (hq) → 198.51.100.5 (evil), the same IP with another label`],
        ],
      ],
      [
        'team-a',
        [
          ['changed_outside', 'proxyaccount_authorized_ips.team', `${KEPT}+1 IP (192.0.2.66 (colleague))`],
          ['changed_outside', 'proxyaccount_sub_account.team', `${KEPT}monthly limit 50 GB → 200 GB`],
        ],
      ],
    ]);
    expect(r.attention.filter((a) => a.kind === 'kept_outside').map((a) => [a.address, a.message])).toEqual([
      ['proxyaccount_authorized_ip.parent_office', expect.stringContaining('in the parent account, a change made outside Terraform (IP 198.51.100.5 (hq) → ')],
      [
        'proxyaccount_authorized_ips.team',
        "in sub-account 'team-a', a change made outside Terraform (+1 IP (192.0.2.66 (colleague))) is kept by this plan (ignore_changes, or code that already matches): " +
          'applying it makes the state accept it, after which a refresh no longer shows it as drift. If the code should not allow it, ' +
          'declare the value in the code without ignore_changes, and the next plan changes it back',
      ],
      ['proxyaccount_sub_account.team', expect.stringContaining('(monthly limit 50 GB → 200 GB) is kept by this plan')],
    ]);
    expect(failsOn(r, 'attention')).toBe(true);
    expect(failsOn(r, 'destroy')).toBe(false);
  });

  it('says so under the counts, and never shows a secret', () => {
    const raw = fixture('kept-drift.plan.json');
    const r = reviewPlan(parsePlanJson(raw));
    const md = reviewMarkdown(r);
    expect(md).toContain(
      '**Plan:** 1 to add, 0 to change, 0 to destroy; it accepts 3 changes made outside Terraform into the state.\n\n' +
        '**⚠️ This plan does not change back the changes made outside Terraform listed below as kept by it (ignore_changes, or code that already matches): ' +
        'applying it makes the state accept them, after which a refresh no longer shows them as changed outside Terraform (drift still reports an IP or hostname a list keeps that its code does not declare).**',
    );
    expect(md).not.toContain('refresh-only');
    expect(md).toContain(`- ${KEPT.replace('ignore_changes', 'ignore\\_changes')}+1 IP (192.0.2.66 (colleague)) — \`proxyaccount_authorized_ips.team\``);
    expect(JSON.stringify(raw)).toMatch(/pxa_/);
    for (const out of [reviewJson(r), md]) expect(out).not.toMatch(/pxa_/);
  });

  it('leaves out what the plan changes back, and keeps what it does not', () => {
    // The token and the sub-account deactivated outside Terraform are activated again: their own changes show it.
    const r = reviewPlan(parsePlanJson(fixture('kept-drift-update.plan.json')));
    expect(r.accounts.flatMap((a) => a.changes.map((c) => [c.action, c.address]))).toEqual([
      ['update', 'proxyaccount_bearer_token.ci'],
      ['changed_outside', 'proxyaccount_authorized_ips.team'],
      ['update', 'proxyaccount_sub_account.keep'],
    ]);
    expect(r.accounts.flatMap((a) => a.changes).find((c) => c.action === 'changed_outside')?.description).toBe(`${KEPT}+1 IP (192.0.2.99 (x))`);
    expect(r.attention.map((a) => [a.kind, a.address])).toEqual([
      ['activation', 'proxyaccount_bearer_token.ci'],
      ['activation', 'proxyaccount_sub_account.keep'],
      ['kept_outside', 'proxyaccount_authorized_ips.team'],
    ]);
  });

  it('lists nothing of a plan Terraform marks not applyable: applying it writes nothing', () => {
    const raw = fixture('kept-drift.plan.json');
    const changes = (raw.resource_changes as Array<{ change: { actions: string[] } }>).filter((c) => c.change.actions[0] === 'no-op');
    const r = reviewPlan(parsePlanJson({ ...raw, applyable: false, resource_changes: changes }));
    expect(hasChanges(r)).toBe(false);
    expect(reviewMarkdown(r)).toContain('No changes.');
    // The same no-ops beside something to apply (a changed output) make an applyable plan: its apply writes the drift.
    const applyable = reviewPlan(parsePlanJson({ ...raw, applyable: true, resource_changes: changes }));
    expect(applyable.accounts.flatMap((a) => a.changes.map((c) => c.action))).toEqual(['changed_outside', 'changed_outside', 'changed_outside']);
  });
});

describe("a token's expiry, which the API makes by itself (the fixes reviewer's finding 1)", () => {
  const TOKEN = { id: 'team-a/1', token_id: 1, label: 'ci', username: 'team-a', active: true, expires_at: '2026-11-20', created_at: '2026-01-01T00:00:00Z' };
  const inactive = { ...TOKEN, active: false };
  const plan = (timestamp: string, expires: string) =>
    reviewPlan(
      parsePlanJson({
        format_version: '1.2',
        timestamp,
        applyable: true,
        complete: true,
        errored: false,
        resource_drift: [change('proxyaccount_bearer_token', 'ci', ['update'], { ...TOKEN, expires_at: expires }, { ...inactive, expires_at: expires })],
        // The provider keeps an expired token as it is (it cannot activate it again): a no-op, though the code says active = true.
        resource_changes: [
          change('proxyaccount_bearer_token', 'ci', ['no-op'], { ...inactive, expires_at: expires }, { ...inactive, expires_at: expires }),
          change('proxyaccount_authorized_hostname', 'ci', ['create'], null, { domain: 'ci.example.com', username: null }, { after_unknown: { id: true } }),
        ],
      }),
    );

  it('is not a change made outside Terraform once the plan was made on or after its expiry date', () => {
    const r = plan('2026-11-27T23:56:48Z', '2026-11-20');
    expect(r.accounts.flatMap((a) => a.changes.map((c) => c.action))).toEqual(['create']);
    expect(r.attention.map((a) => a.kind)).toEqual(['parent_access_opened']);
  });

  it('a token made inactive before its expiry date still is', () => {
    const r = plan('2026-11-27T23:56:48Z', '2030-01-01');
    expect(r.attention.map((a) => a.kind)).toEqual(['parent_access_opened', 'kept_outside', 'deactivation']);
  });
});

describe('which drift a plan keeps', () => {
  const ACCOUNT = { id: 'team-a', username: 'team-a', active: true, monthly_limit: 50, total_limit: 500 };
  const drifted = { ...ACCOUNT, active: false, monthly_limit: 200 };
  const drift = change('proxyaccount_sub_account', 'team', ['update'], ACCOUNT, drifted);
  const plan = (...changes: unknown[]) =>
    reviewPlan(parsePlanJson({ format_version: '1.2', applyable: true, complete: true, errored: false, resource_drift: [drift], resource_changes: changes }));
  const outside = (r: ReturnType<typeof plan>) => r.accounts.flatMap((a) => a.changes.filter((c) => c.action === 'changed_outside').map((c) => c.description));

  it('keeps of an update only the attributes it leaves as the account holds them', () => {
    // The code activates the sub-account again (its change shows it) and ignores the limit.
    const r = plan(change('proxyaccount_sub_account', 'team', ['update'], drifted, { ...drifted, active: true }));
    expect(outside(r)).toEqual([`${KEPT}monthly limit 50 GB → 200 GB`]);
    expect(r.attention.map((a) => a.kind)).toEqual(['activation', 'kept_outside']);
  });

  it('keeps a deactivation with its risk, said to be kept', () => {
    const r = plan(change('proxyaccount_sub_account', 'team', ['update'], drifted, { ...drifted, monthly_limit: 50 }));
    expect(outside(r)).toEqual([`${KEPT}deactivated`]);
    expect(r.attention.map((a) => [a.kind, a.message])).toEqual([
      ['kept_outside', expect.stringContaining("in sub-account 'team-a', a change made outside Terraform (deactivated) is kept by this plan")],
      [
        'deactivation',
        "changed outside Terraform and kept by this plan (ignore_changes, or code that already matches), which accepts it into the state: sub-account 'team-a' is deactivated: its proxy requests get 402",
      ],
    ]);
  });

  it('keeps nothing of a resource it changes all back, deletes or replaces', () => {
    expect(outside(plan(change('proxyaccount_sub_account', 'team', ['update'], drifted, { ...drifted, total_limit: 600 })))).toHaveLength(1);
    expect(outside(plan(change('proxyaccount_sub_account', 'team', ['update'], drifted, ACCOUNT)))).toEqual([]);
    expect(outside(plan(change('proxyaccount_sub_account', 'team', ['delete'], drifted, null)))).toEqual([]);
    expect(outside(plan(change('proxyaccount_sub_account', 'team', ['delete', 'create'], drifted, { ...ACCOUNT, username: 'team-b' })))).toEqual([]);
  });

  it('keeps a deletion of what the code no longer declares, which the state forgets', () => {
    const ip = { id: 'team-a/192.0.2.66', ip: '192.0.2.66', label: 'old', username: 'team-a' };
    const gone = change('proxyaccount_authorized_ip', 'old', ['delete'], ip, null);
    const of = (changes: unknown[]) =>
      reviewPlan(
        parsePlanJson({
          format_version: '1.2',
          applyable: true,
          resource_drift: [gone],
          resource_changes: [change('proxyaccount_sub_account', 'team', ['no-op'], ACCOUNT, ACCOUNT), ...changes],
        }),
      );
    const r = of([]);
    expect(r.accounts.flatMap((a) => a.changes.map((c) => [c.action, c.description]))).toEqual([
      ['deleted_outside', 'IP 192.0.2.66 (old) deleted outside Terraform'],
    ]);
    expect(r.attention.map((a) => a.kind)).toEqual(['deleted_outside']);
    // Declared still, it is created again: its change shows it.
    expect(of([change('proxyaccount_authorized_ip', 'old', ['create'], null, ip)]).accounts.flatMap((a) => a.changes.map((c) => c.action))).toEqual(['create']);
  });

  it('keeps it all when the change is a no-op', () => {
    expect(outside(plan(change('proxyaccount_sub_account', 'team', ['no-op'], drifted, drifted)))).toEqual([
      `${KEPT}monthly limit 50 GB → 200 GB, deactivated`,
    ]);
  });
});
