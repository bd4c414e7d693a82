// Drift the code does not put back. With ignore_changes, a change made outside Terraform is a no-op
// in the plan: drift marks it kept by the plan (the reviewer's finding: a nightly alarm on an
// ignored limit said nothing of why). And once an apply of anything has written it into the state,
// an IP added to a list whose entries are ignored counted as managed, and no report showed it
// again: where the code gives the list's entries as a constant, the scan reports such an IP as
// managed by no resource, kept by the list. The fixtures are real (review-kept-drift.test.ts):
// kept-drift.plan.json before the apply that accepted 192.0.2.66 into the state,
// kept-drift-update.plan.json after it, when 192.0.2.99 was added too.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { driftJson, driftMarkdown } from '../../src/gitops/drift-render';
import { parsePlanJson } from '../../src/gitops/plan-json';
import { driftOfPlan } from '../../src/gitops/use-cases';
import { FakeAccount, token } from './fake-account';

const NOW = Date.parse('2026-06-01T00:00:00Z');
const fixture = (name: string): Record<string, unknown> => JSON.parse(fs.readFileSync(path.join(__dirname, 'fixtures', name), 'utf8'));

/** The emulator's account as the reviewer left it, with `extra` IPs in team-a's list (and the hostname the first plan creates, once applied). */
function account(...extra: Array<{ ip: string; label: string }>): FakeAccount {
  const fake = new FakeAccount();
  fake.lists('').ips.push({ ip: '198.51.100.5', label: 'evil' });
  if (extra.length > 0) fake.lists('').hostnames.push('ci.example.com');
  fake.sub('team-a', { ips: [{ ip: '203.0.113.7', label: 'office' }, { ip: '192.0.2.66', label: 'colleague' }, ...extra], tokens: [token(1, 'ci')] });
  fake.sub('team-keep');
  return fake;
}

const drift = (json: Record<string, unknown>, fake: FakeAccount) =>
  driftOfPlan(parsePlanJson(json), { store: fake.store(), json, plannedHere: true, now: NOW });

describe('drift the plan keeps', () => {
  it('is marked kept by the plan, and still counts', async () => {
    const r = await drift(fixture('kept-drift.plan.json'), account());
    expect(r.changed.map((c) => [c.address, c.attribute, c.kept_by_plan])).toEqual([
      ['proxyaccount_authorized_ip.parent_office', 'label', true],
      ['proxyaccount_authorized_ips.team', 'entries', true],
      ['proxyaccount_sub_account.team', 'monthly_limit', true],
    ]);
    // Reported once: the scan does not list again what the plan's drift shows added.
    expect(r.unmanaged).toEqual([]);
    expect(r.drifted).toBe(true);
    const md = driftMarkdown(r);
    expect(md).toContain('**The account differs from the code.**');
    expect(md).toContain('- `proxyaccount_sub_account.team`: `monthly_limit` `50` → `200` (kept by the plan: ignore_changes, or code that already matches)');
    expect(md).toContain('_Kept by the plan_: `terraform plan` does not change it back (`ignore_changes`, or code that already matches)');
    expect(JSON.parse(driftJson(r)).changed[2]).toEqual({
      address: 'proxyaccount_sub_account.team',
      attribute: 'monthly_limit',
      recorded: 50,
      live: 200,
      kept_by_plan: true,
    });
  });

  it('is not marked when the plan changes it back', async () => {
    // The token and team-keep, deactivated outside Terraform, are activated again by the plan.
    const r = await drift(fixture('kept-drift-update.plan.json'), account({ ip: '192.0.2.99', label: 'x' }));
    expect(r.changed.map((c) => [c.address, c.attribute, c.kept_by_plan])).toEqual([
      ['proxyaccount_authorized_ips.team', 'entries', true],
      ['proxyaccount_bearer_token.ci', 'active', undefined],
      ['proxyaccount_sub_account.keep', 'active', undefined],
    ]);
  });

  it('reports an IP the state accepted into a list whose code does not declare it, naming the list', async () => {
    const r = await drift(fixture('kept-drift-update.plan.json'), account({ ip: '192.0.2.99', label: 'x' }));
    // 192.0.2.99 is the plan's own drift; 192.0.2.66, already in the state, only the scan can show.
    expect(r.unmanaged).toEqual([{ account: 'team-a', kind: 'ip', value: '192.0.2.66', label: 'colleague', kept_by: 'proxyaccount_authorized_ips.team' }]);
    expect(driftMarkdown(r)).toContain(
      '- team-a: ip `192.0.2.66` (label `colleague`): kept in the state of `proxyaccount_authorized_ips.team`, whose code does not declare it (kept by the plan: ignore_changes)',
    );
    // Once the code declares it, it is managed.
    const json = fixture('kept-drift-update.plan.json');
    const declared = JSON.parse(
      JSON.stringify(json).replace(
        '"constant_value":[{"ip":"203.0.113.7","label":"office"}]',
        '"constant_value":[{"ip":"192.0.2.66","label":"colleague"},{"ip":"203.0.113.7","label":"office"}]',
      ),
    );
    expect(JSON.stringify(declared)).not.toEqual(JSON.stringify(json));
    expect((await drift(declared, account({ ip: '192.0.2.99', label: 'x' }))).unmanaged).toEqual([]);
  });
});

describe("the code's constants, as the plan's configuration gives them", () => {
  it('by address, modules included, never a credential nor an instance of count or for_each', () => {
    const r = (address: string, expressions: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
      address,
      mode: 'managed',
      expressions,
      ...extra,
    });
    const plan = parsePlanJson({
      format_version: '1.2',
      resource_changes: [],
      configuration: {
        root_module: {
          resources: [
            r('proxyaccount_sub_account.a', {
              username: { constant_value: 'a' },
              password: { constant_value: 'hunter2-secret' },
              monthly_limit: { references: ['var.x'] },
            }),
            r('proxyaccount_authorized_ip.n', { ip: { constant_value: '192.0.2.1' } }, { count_expression: { constant_value: 2 } }),
          ],
          module_calls: {
            m: { module: { resources: [r('proxyaccount_authorized_ips.l', { entries: { constant_value: [{ ip: '192.0.2.2', label: null }] } })] } },
            each: {
              for_each_expression: { references: ['var.s'] },
              module: { resources: [r('proxyaccount_authorized_ip.e', { ip: { constant_value: '192.0.2.3' } })] },
            },
          },
        },
      },
    });
    expect([...plan.constants]).toEqual([
      ['proxyaccount_sub_account.a', { username: 'a' }],
      ['module.m.proxyaccount_authorized_ips.l', { entries: [{ ip: '192.0.2.2', label: null }] }],
    ]);
  });
});
