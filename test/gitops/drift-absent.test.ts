// A plan made without refreshing (`terraform plan -refresh=false`, given with --plan, or forced by
// TF_CLI_ARGS_plan) holds no drift, and nothing in its JSON says so: the scan checks that each
// managed object is still in its account's list, and reports what is gone as deleted outside
// Terraform (never twice, never an object whose list was not read, never one the plan's own
// change stops managing), with the spelling rules the other direction uses. It compares the IPs'
// labels too, which the lists carry; and a report of a given plan says what it cannot see.
// The plan JSON mirrors `terraform show -json` of Terraform 1.11.4 for a -refresh=false plan:
// `no-op` changes, no `resource_drift`, the state as last applied.
import { EPHEMERAL_TOKEN_PREFIX } from '../../src/account';
import { givenPlanLimit } from '../../src/gitops/drift';
import { driftMarkdown } from '../../src/gitops/drift-render';
import { parsePlanJson } from '../../src/gitops/plan-json';
import { driftOfPlan } from '../../src/gitops/use-cases';
import { FakeAccount, token } from './fake-account';
import { change } from './plan-changes';

const NOW = Date.parse('2026-06-01T00:00:00Z');

/** A resource of the state: its type, name and values, and what the state marks sensitive. */
interface Res {
  readonly type: string;
  readonly name: string;
  readonly values: Record<string, unknown>;
  readonly sensitive_values?: Record<string, unknown>;
}

const res = (type: string, name: string, values: Record<string, unknown>, sensitive_values?: Record<string, unknown>): Res => ({
  type,
  name,
  values,
  ...(sensitive_values !== undefined ? { sensitive_values } : {}),
});

/**
 * The JSON of a normal plan of `state` (every resource of the default configuration) made with
 * -refresh=false: each resource a `no-op`, unless `changes` gives its change; `drift` its
 * `resource_drift` (none: it did not refresh).
 */
function planJson(state: readonly Res[], opts: { changes?: Record<string, unknown>; drift?: unknown[] } = {}): Record<string, unknown> {
  const address = (r: Res): string => `${r.type}.${r.name}`;
  return {
    format_version: '1.2',
    ...(opts.drift !== undefined ? { resource_drift: opts.drift } : {}),
    resource_changes: state.map((r) => opts.changes?.[address(r)] ?? change(r.type, r.name, ['no-op'], r.values, r.values)),
    configuration: {
      provider_config: { proxyaccount: { name: 'proxyaccount' } },
      root_module: { resources: state.map((r) => ({ address: address(r), mode: 'managed', type: r.type, name: r.name, provider_config_key: 'proxyaccount' })) },
    },
    prior_state: { values: { root_module: { resources: state.map((r) => ({ address: address(r), mode: 'managed', ...r })) } } },
    // Terraform's own verdict: nothing to apply when every change is a no-op.
    applyable: Object.keys(opts.changes ?? {}).length > 0,
    complete: true,
    errored: false,
  };
}

/** The report of `json` against `fake`, as drift's own run gives it (planned here, with the environment's account). */
function drift(json: Record<string, unknown>, fake: FakeAccount) {
  return driftOfPlan(parsePlanJson(json, { errored: 'read' }), { store: fake.store(), json, plannedHere: true, now: NOW });
}

const OFFICE = res('proxyaccount_authorized_hostname', 'office', { domain: 'office.example.com', username: null });

describe('managed objects the account no longer holds, whatever the plan says', () => {
  it('reports a hostname deleted outside Terraform as not in the account, where the plan made without refreshing says nothing (finding: "No drift", exit 0)', async () => {
    const json = planJson([OFFICE]);
    const kept = new FakeAccount();
    kept.lists('').hostnames.push('office.example.com');
    expect(await drift(json, kept)).toEqual(expect.objectContaining({ drifted: false, complete: true, deleted: [] }));

    const report = await drift(json, new FakeAccount());
    expect(report).toEqual(expect.objectContaining({ drifted: true, complete: true }));
    expect(report.deleted).toEqual([
      {
        address: 'proxyaccount_authorized_hostname.office',
        type: 'proxyaccount_authorized_hostname',
        value: 'office.example.com',
        reason:
          'this hostname was not found in the hostnames of the parent account when the account was scanned: removed since the state last recorded it ' +
          '(a plan made without refreshing does not show it), or after the plan',
      },
    ]);
    const md = driftMarkdown(report);
    expect(md).toContain('**The account differs from the code.**');
    expect(md).toContain(
      '### Not in the account (1)\n\n- `proxyaccount_authorized_hostname.office` `office.example.com`: this hostname was not found in the hostnames of the parent account',
    );
  });

  it("checks every collection of the parent and of each sub-account, entries and lists' entries, with the spelling rules of the other direction", async () => {
    const state = [
      res('proxyaccount_sub_account', 'alice', { username: 'alice' }),
      res('proxyaccount_authorized_ips', 'parent', {
        username: null,
        entries: [
          { ip: '198.51.100.1', label: null },
          { ip: '198.51.100.2', label: null },
        ],
      }),
      res('proxyaccount_authorized_ip', 'office', { username: 'alice', ip: '203.0.113.7', label: null }),
      res('proxyaccount_authorized_ip', 'home', { username: 'alice', ip: '203.0.113.8', label: null }),
      // Hostnames match ignoring case, as the provider matches them.
      res('proxyaccount_authorized_hostnames', 'alice', { username: 'alice', domains: ['CI.example.com', 'Gone.example.com'] }),
      res('proxyaccount_bearer_token', 'deploy', { username: 'alice', token_id: 7, label: 'deploy' }),
      res('proxyaccount_bearer_token', 'kept', { username: 'alice', token_id: 8, label: 'kept' }),
      // A proxy matches by its domain, or a bare name by the domain's first label.
      res('proxyaccount_authorized_proxy', 'ny', { proxy: 'us-ny', domain: 'us-ny.proxy.example.net' }),
      res('proxyaccount_authorized_proxies', 'all', { proxies: ['de-fra', 'uk-lon'] }),
    ];
    const fake = new FakeAccount().sub('alice', {
      ips: [{ ip: '203.0.113.8', label: '' }],
      hostnames: ['ci.EXAMPLE.com'],
      tokens: [token(8, 'kept'), token(9, `${EPHEMERAL_TOKEN_PREFIX}x`)],
    });
    fake.lists('').ips.push({ ip: '198.51.100.1', label: '' });
    fake.proxies = ['us-ny.proxy.example.net:8080', 'uk-lon.proxy.example.net:8080'];
    const report = await drift(planJson(state), fake);
    expect(report.deleted.map((d) => [d.address, d.value])).toEqual([
      ['proxyaccount_authorized_ips.parent', '198.51.100.2'],
      ['proxyaccount_authorized_ip.office', '203.0.113.7'],
      ['proxyaccount_authorized_hostnames.alice', 'gone.example.com'],
      ['proxyaccount_bearer_token.deploy', '7'],
      ['proxyaccount_authorized_proxies.all', 'de-fra'],
    ]);
    expect(report.deleted[0]?.reason).toMatch(/^this entry of the list was not found in the IPs of the parent account when the account was scanned/);
    expect(report.deleted[1]?.reason).toMatch(/^this IP was not found in the IPs of sub-account 'alice' when the account was scanned/);
    expect(report.deleted[3]?.reason).toMatch(/^this token was not found in the tokens of sub-account 'alice'/);
    // The other direction as ever: the leftover is listed, nothing managed is called unmanaged.
    expect(report.unmanaged).toEqual([]);
    expect(report.ephemeral_leftovers.map((o) => o.value)).toEqual(['9']);
  });

  it("never reports one object twice: what the plan's own drift reports deleted, or a sub-account not found, is reported there", async () => {
    const bob = res('proxyaccount_authorized_ip', 'bob', { username: 'bob', ip: '192.0.2.5', label: null });
    const drifted = {
      address: 'proxyaccount_authorized_hostname.office',
      type: 'proxyaccount_authorized_hostname',
      mode: 'managed',
      change: { actions: ['delete'], before: OFFICE.values, after: null },
    };
    const report = await drift(planJson([OFFICE, bob], { drift: [drifted] }), new FakeAccount());
    expect(report.deleted).toEqual([
      { address: 'proxyaccount_authorized_hostname.office', type: 'proxyaccount_authorized_hostname' },
      expect.objectContaining({ address: 'proxyaccount_authorized_ip.bob', reason: expect.stringMatching(/^sub-account 'bob' was not found/) }),
    ]);
  });

  it('leaves out an object the plan itself stops managing (a delete, a list leaving the entry out): that change is pending already', async () => {
    const list = res('proxyaccount_authorized_ips', 'parent', {
      username: null,
      entries: [
        { ip: '198.51.100.1', label: null },
        { ip: '198.51.100.2', label: null },
      ],
    });
    const old = res('proxyaccount_authorized_hostname', 'old', { domain: 'old.example.com', username: null });
    const json = planJson([list, old, OFFICE], {
      changes: {
        // The code drops .2 from the list, and the old hostname altogether.
        'proxyaccount_authorized_ips.parent': change(list.type, list.name, ['update'], list.values, {
          username: null,
          entries: [{ ip: '198.51.100.1', label: null }],
        }),
        'proxyaccount_authorized_hostname.old': change(old.type, old.name, ['delete'], old.values, null),
      },
    });
    const report = await drift(json, new FakeAccount());
    expect(report.deleted.map((d) => [d.address, d.value])).toEqual([
      ['proxyaccount_authorized_ips.parent', '198.51.100.1'],
      ['proxyaccount_authorized_hostname.office', 'office.example.com'],
    ]);
    expect(report.pending.map((p) => p.address)).toEqual(['proxyaccount_authorized_ips.parent', 'proxyaccount_authorized_hostname.old']);
  });

  it('never counts an object of a list it did not read as deleted: the tokens of a plan without them (402), keys the state hides', async () => {
    const state = [
      res('proxyaccount_bearer_token', 'ci', { token_id: 5, label: 'ci' }),
      res('proxyaccount_authorized_ips', 'hidden', { entries: [{ ip: '198.51.100.24', label: 'x' }] }, { entries: true }),
    ];
    const report = await drift(planJson(state), new FakeAccount().planWithoutTokens());
    expect(report).toEqual(expect.objectContaining({ drifted: false, complete: false, deleted: [] }));
    expect(report.incomplete).toEqual([
      expect.stringMatching(/^the IPs of the parent account were not checked/),
      expect.stringMatching(/^the tokens of the parent account could not be listed/),
    ]);
  });
});

describe("the IPs' labels, which the live list carries", () => {
  it('reports a label that differs from the state as changed outside Terraform, exactly ("" is no label), for entries and lists', async () => {
    const state = [
      res('proxyaccount_authorized_ip', 'office', { ip: '203.0.113.7', label: 'office', username: null }),
      res('proxyaccount_authorized_ip', 'plain', { ip: '203.0.113.8', label: null, username: null }),
      res('proxyaccount_authorized_ips', 'alice', {
        username: 'alice',
        entries: [
          { ip: '198.51.100.1', label: 'vpn' },
          { ip: '198.51.100.2', label: null },
          { ip: '198.51.100.3', label: 'same' },
        ],
      }),
      res('proxyaccount_sub_account', 'alice', { username: 'alice' }),
    ];
    const fake = new FakeAccount().sub('alice', {
      ips: [
        { ip: '198.51.100.1', label: '' },
        { ip: '198.51.100.2', label: 'added later' },
        { ip: '198.51.100.3', label: 'same' },
      ],
    });
    fake.lists('').ips.push({ ip: '203.0.113.7', label: 'office (moved)' }, { ip: '203.0.113.8', label: '' });
    const report = await drift(planJson(state), fake);
    expect(report.changed).toEqual([
      { address: 'proxyaccount_authorized_ip.office', attribute: 'label', recorded: 'office', live: 'office (moved)' },
      {
        address: 'proxyaccount_authorized_ips.alice',
        attribute: 'entries',
        recorded: [
          { ip: '198.51.100.1', label: 'vpn' },
          { ip: '198.51.100.2', label: null },
        ],
        live: [
          { ip: '198.51.100.1', label: null },
          { ip: '198.51.100.2', label: 'added later' },
        ],
      },
    ]);
    expect(report).toEqual(expect.objectContaining({ drifted: true, deleted: [] }));
    expect(driftMarkdown(report)).toContain('- `proxyaccount_authorized_ip.office`: `label` `office` → `office (moved)`');
  });

  it('takes a label the account keeps decomposed for the composed one Terraform holds, which no apply could change', async () => {
    const composed = 'caf\u00e9';
    const decomposed = 'cafe\u0301';
    const state = [
      res('proxyaccount_authorized_ip', 'cafe', { ip: '203.0.113.7', label: composed, username: null }),
      res('proxyaccount_authorized_ips', 'alice', { username: 'alice', entries: [{ ip: '198.51.100.1', label: composed }] }),
      res('proxyaccount_sub_account', 'alice', { username: 'alice' }),
    ];
    const fake = new FakeAccount().sub('alice', { ips: [{ ip: '198.51.100.1', label: decomposed }] });
    fake.lists('').ips.push({ ip: '203.0.113.7', label: decomposed });
    const report = await drift(planJson(state), fake);
    expect(report.changed).toEqual([]);
    expect(report.drifted).toBe(false);
  });

  it("compares no label the state hides, and repeats none the plan's own drift reports", async () => {
    const secret = res('proxyaccount_authorized_ip', 'secret', { ip: '203.0.113.9', username: null }, { label: true });
    const office = res('proxyaccount_authorized_ip', 'office', { ip: '203.0.113.7', label: 'office', username: null });
    const drifted = {
      address: 'proxyaccount_authorized_ip.office',
      type: 'proxyaccount_authorized_ip',
      mode: 'managed',
      change: { actions: ['update'], before: office.values, after: { ...office.values, label: 'new' } },
    };
    const fake = new FakeAccount();
    fake.lists('').ips.push({ ip: '203.0.113.9', label: 'whatever-secret' }, { ip: '203.0.113.7', label: 'new' });
    const report = await drift(planJson([secret, office], { drift: [drifted] }), fake);
    expect(report.changed).toEqual([{ address: 'proxyaccount_authorized_ip.office', attribute: 'label', recorded: 'office', live: 'new' }]);
    expect(JSON.stringify(report)).not.toContain('whatever-secret');
  });
});

describe('a given plan', () => {
  it('says what a plan drift did not make may hide: whether it refreshed cannot be told', async () => {
    const fake = new FakeAccount();
    fake.lists('').hostnames.push('office.example.com');
    const json = planJson([OFFICE]);
    const given = await driftOfPlan(parsePlanJson(json), { store: fake.store(), json, now: NOW });
    expect(given.limits).toContain(givenPlanLimit(true));
    expect(givenPlanLimit(true)).toMatch(
      /^The plan was given \(--plan\), and whether it refreshed cannot be told from it: .*no other attribute changed outside Terraform is seen\.$/,
    );
    const noScan = await driftOfPlan(parsePlanJson(json), { json, scan: false });
    expect(noScan.limits).toContain(givenPlanLimit(false));
    expect((await drift(json, fake)).limits.join(' ')).not.toMatch(/was given/);
  });
});
