// What drift says of a managed object that is not in the account when Terraform's own apply
// removed it: a list resource of the same account whose latest change removed its key (an entry
// resource and a list of one account undo each other at every apply), or its sub-account, deleted
// (the API deletes a sub-account's objects with it). Said when the plan shows it; otherwise the
// report says only that it is not in the account, never that it was deleted outside Terraform.
// The plans mirror the reviewer's (`terraform show -json` of Terraform 1.11, after the applies of
// the plans that deleted sub-account 'bob' and added a parent list over per-entry IPs).
import { driftMarkdown } from '../../src/gitops/drift-render';
import { parsePlanJson } from '../../src/gitops/plan-json';
import { driftOfPlan } from '../../src/gitops/use-cases';
import { FakeAccount } from './fake-account';
import { change } from './plan-changes';

const NOW = Date.parse('2026-06-01T00:00:00Z');
const LIST = 'proxyaccount_authorized_ips.parent';
const ENTRY = 'proxyaccount_authorized_ip.self_ip_2';

interface Res {
  readonly type: string;
  readonly name: string;
  readonly values: Record<string, unknown>;
}

const res = (type: string, name: string, values: Record<string, unknown>): Res => ({ type, name, values });
const ip = (username: string | null, addr: string, label: string | null = null) => ({
  id: username === null ? addr : `${username}/${addr}`,
  ip: addr,
  label,
  username,
});
const address = (r: Res): string => `${r.type}.${r.name}`;

/** A normal plan's JSON: `state` the prior state (each a no-op unless `changes` says), `drift` its resource_drift. */
function planJson(state: readonly Res[], opts: { changes?: unknown[]; drift?: unknown[] } = {}): Record<string, unknown> {
  const changed = new Set((opts.changes ?? []).map((c) => (c as { address: string }).address));
  const all = [...state.filter((r) => !changed.has(address(r))).map((r) => change(r.type, r.name, ['no-op'], r.values, r.values)), ...(opts.changes ?? [])];
  return {
    format_version: '1.2',
    resource_drift: opts.drift ?? [],
    resource_changes: all,
    configuration: {
      provider_config: { proxyaccount: { name: 'proxyaccount' } },
      root_module: {
        resources: all.map((c) => {
          const { address: a, type, name } = c as { address: string; type: string; name: string };
          return { address: a, mode: 'managed', type, name, provider_config_key: 'proxyaccount' };
        }),
      },
    },
    prior_state: { values: { root_module: { resources: state.map((r) => ({ address: address(r), mode: 'managed', ...r })) } } },
    applyable: (opts.changes ?? []).length > 0,
    complete: true,
    errored: false,
  };
}

function drift(json: Record<string, unknown>, fake?: FakeAccount) {
  const plan = parsePlanJson(json, { errored: 'read' });
  return fake === undefined ? driftOfPlan(plan, { scan: false }) : driftOfPlan(plan, { store: fake.store(), json, plannedHere: true, now: NOW });
}

// After the apply of a parent list that leaves out 203.0.113.2, which an entry resource declares.
const SELF_IP_1 = res('proxyaccount_authorized_ip', 'self_ip_1', ip(null, '203.0.113.1', 'office-hq'));
const PARENT_LIST = res('proxyaccount_authorized_ips', 'parent', {
  id: '_self',
  username: null,
  entries: [{ ip: '203.0.113.1', label: 'office-hq' }],
  removed_entries: ['203.0.113.2'],
});

describe('an entry resource whose IP the list of its account removed', () => {
  const json = () =>
    planJson([SELF_IP_1, PARENT_LIST], {
      drift: [change('proxyaccount_authorized_ip', 'self_ip_2', ['delete'], ip(null, '203.0.113.2'), null)],
      changes: [change('proxyaccount_authorized_ip', 'self_ip_2', ['create'], null, { ...ip(null, '203.0.113.2'), id: null }, { after_unknown: { id: true } })],
    });

  it("is reported as removed by Terraform's own apply of that list, named in removed_by", async () => {
    const report = await drift(json());
    expect(report.drifted).toBe(true);
    expect(report.deleted).toEqual([
      {
        address: ENTRY,
        type: 'proxyaccount_authorized_ip',
        removed_by: LIST,
        reason:
          `removed by Terraform's own apply of ${LIST}, which manages the whole IP list of the parent account and removes what it does not declare ` +
          '(its latest change removed it: removed_entries); this resource adds it back at every apply: never combine both for one account',
      },
    ]);
  });

  it('its pending create is said to be undone by the list at every apply, not to put back a change outside Terraform', async () => {
    const report = await drift(json());
    expect(report.pending).toEqual([expect.objectContaining({ address: ENTRY, kind: 'create', undone_by: [LIST] })]);
    const md = driftMarkdown(report);
    expect(md).toContain('### Not in the account (1)');
    expect(md).toContain(`(undone by \`${LIST}\` at every apply: a list resource and entry resources of one account's list undo each other)`);
    expect(md.split('### Limits')[0]).not.toMatch(/outside Terraform/);
  });

  it('found missing by the scan of a plan made without refreshing, it says the same', async () => {
    const noRefresh = planJson([SELF_IP_1, res('proxyaccount_authorized_ip', 'self_ip_2', ip(null, '203.0.113.2')), PARENT_LIST]);
    const fake = new FakeAccount();
    fake.lists('').ips.push({ ip: '203.0.113.1', label: 'office-hq' });
    const report = await drift(noRefresh, fake);
    expect(report.deleted).toEqual([
      {
        address: ENTRY,
        type: 'proxyaccount_authorized_ip',
        value: '203.0.113.2',
        removed_by: LIST,
        reason: expect.stringMatching(
          /^this IP was not found in the IPs of the parent account when the account was scanned: removed by Terraform's own apply of /,
        ),
      },
    ]);
  });

  it('a list of the account whose latest change did not remove it is named, without saying it removed it', async () => {
    const other = res('proxyaccount_authorized_ips', 'parent', { ...PARENT_LIST.values, removed_entries: [] });
    const report = await drift(
      planJson([SELF_IP_1, other], { drift: [change('proxyaccount_authorized_ip', 'self_ip_2', ['delete'], ip(null, '203.0.113.2'), null)] }),
    );
    expect(report.deleted).toEqual([
      {
        address: ENTRY,
        type: 'proxyaccount_authorized_ip',
        reason: `${LIST} manages the whole IP list of the parent account as well, and removes what it does not declare: never combine both for one account`,
      },
    ]);
  });
});

describe('a list changed by an entry resource that adds back what it leaves out', () => {
  it('names the entry resource beside the change, and on the pending change', async () => {
    const entries = [
      { ip: '203.0.113.1', label: 'office-hq' },
      { ip: '203.0.113.2', label: null },
    ];
    const refreshed = res('proxyaccount_authorized_ips', 'parent', { ...PARENT_LIST.values, entries });
    const report = await drift(
      planJson([SELF_IP_1, res('proxyaccount_authorized_ip', 'self_ip_2', ip(null, '203.0.113.2')), refreshed], {
        drift: [change('proxyaccount_authorized_ips', 'parent', ['update'], PARENT_LIST.values, refreshed.values)],
        changes: [change('proxyaccount_authorized_ips', 'parent', ['update'], refreshed.values, PARENT_LIST.values)],
      }),
    );
    expect(report.pending).toEqual([expect.objectContaining({ address: LIST, undone_by: [ENTRY] })]);
    const md = driftMarkdown(report);
    expect(md).toContain(`\`entries\` +\`203.0.113.2\` (\`${ENTRY}\` declares an entry this list leaves out, and adds it back at every apply)`);
    expect(md).not.toContain('puts back the change outside Terraform');
  });
});

describe('objects of a sub-account that is gone', () => {
  const bobIp = ip('bob', '198.51.100.12', 'bob-laptop');
  const pendingCreate = change('proxyaccount_authorized_ip', 'bob_ip', ['create'], null, { ...bobIp, id: null }, { after_unknown: { id: true } });

  it('no resource manages the sub-account any more (an apply deleted it): said, without blaming a change outside Terraform', async () => {
    const report = await drift(
      planJson([res('proxyaccount_sub_account', 'alice', { id: 'alice', username: 'alice' })], {
        drift: [change('proxyaccount_authorized_ip', 'bob_ip', ['delete'], bobIp, null)],
        changes: [pendingCreate],
      }),
    );
    expect(report.deleted).toEqual([
      {
        address: 'proxyaccount_authorized_ip.bob_ip',
        type: 'proxyaccount_authorized_ip',
        reason:
          "no resource of this configuration manages sub-account 'bob': if it was deleted (by an apply that stopped declaring it, or outside Terraform), the API deleted this with it",
      },
    ]);
    const md = driftMarkdown(report);
    expect(md).toContain('### Not in the account (1)');
    expect(md).toContain('(puts back what is not in the account above)');
  });

  it("the plan's own drift deletes the sub-account: its objects went with it", async () => {
    const report = await drift(
      planJson([], {
        drift: [
          change('proxyaccount_sub_account', 'bob', ['delete'], { id: 'bob', username: 'bob' }, null),
          change('proxyaccount_authorized_ip', 'bob_ip', ['delete'], bobIp, null),
        ],
      }),
    );
    expect(report.deleted).toEqual([
      { address: 'proxyaccount_sub_account.bob', type: 'proxyaccount_sub_account' },
      {
        address: 'proxyaccount_authorized_ip.bob_ip',
        type: 'proxyaccount_authorized_ip',
        reason: "sub-account 'bob' is not in the account either: the API deletes a sub-account's IPs, hostnames and tokens with it",
      },
    ]);
  });

  it('a managed sub-account that is there says nothing of where the object went', async () => {
    const report = await drift(
      planJson([res('proxyaccount_sub_account', 'bob', { id: 'bob', username: 'bob' })], {
        drift: [change('proxyaccount_authorized_ip', 'bob_ip', ['delete'], bobIp, null)],
      }),
    );
    expect(report.deleted).toEqual([{ address: 'proxyaccount_authorized_ip.bob_ip', type: 'proxyaccount_authorized_ip' }]);
  });
});

describe("a proxy entry created again while the proxy list of the account leaves it out (the reviewer's d2)", () => {
  const PROXY_LIST = res('proxyaccount_authorized_proxies', 'all', { id: '_self', proxies: ['us-ny'], removed_entries: ['de-fra.proxy.example.net:1080'] });
  const FRA = 'proxyaccount_authorized_proxy.fra';
  const fra = { id: 'de-fra.proxy.example.net:1080', proxy: 'de-fra.proxy.example.net:1080', domain: 'de-fra.proxy.example.net:1080' };

  it('its pending create, whose domain is known only after apply, is undone by the list at every apply', async () => {
    const report = await drift(
      planJson([PROXY_LIST], {
        drift: [change('proxyaccount_authorized_proxy', 'fra', ['delete'], fra, null)],
        changes: [change('proxyaccount_authorized_proxy', 'fra', ['create'], null, { proxy: fra.proxy }, { after_unknown: { domain: true, id: true } })],
      }),
    );
    expect(report.deleted).toEqual([expect.objectContaining({ address: FRA, removed_by: 'proxyaccount_authorized_proxies.all' })]);
    expect(report.pending).toEqual([expect.objectContaining({ address: FRA, kind: 'create', undone_by: ['proxyaccount_authorized_proxies.all'] })]);
    const md = driftMarkdown(report);
    expect(md).toContain('(undone by `proxyaccount_authorized_proxies.all` at every apply');
    expect(md).not.toContain('puts back what is not in the account above');
  });
});

describe('the deposed object of a create_before_destroy replacement an earlier apply did not finish', () => {
  const token = (id: number, active = true) => ({ id: `alice/${id}`, token_id: id, label: 'tok-cbd', username: 'alice', active, expires_at: null });

  it('is the rest of that replacement, named with its token ID: never a change outside Terraform put back', async () => {
    // The current object changed outside Terraform (deactivated), and the old token waits to be deleted.
    const report = await drift(
      planJson([res('proxyaccount_bearer_token', 'cbd', token(9))], {
        drift: [change('proxyaccount_bearer_token', 'cbd', ['update'], token(9), token(9, false))],
        changes: [
          change('proxyaccount_bearer_token', 'cbd', ['update'], token(9, false), token(9)),
          { ...(change('proxyaccount_bearer_token', 'cbd', ['delete'], token(8), null) as object), deposed: '5f2a1c0e' },
        ],
      }),
    );
    expect(report.pending).toEqual([
      expect.objectContaining({ kind: 'update', description: "token 'tok-cbd' activated" }),
      expect.objectContaining({
        kind: 'delete',
        deposed: true,
        description: expect.stringMatching(/^token 8 'tok-cbd' deleted: the old object of a create_before_destroy replacement/),
      }),
    ]);
    const md = driftMarkdown(report);
    const lines = md.split('\n').filter((l) => l.startsWith('- `proxyaccount_bearer_token.cbd`'));
    expect(lines).toEqual([
      '- `proxyaccount_bearer_token.cbd`: `active` `true` → `false`',
      "- `proxyaccount_bearer_token.cbd`: token 'tok-cbd' activated (puts back the change outside Terraform above)",
      expect.stringMatching(
        /^- `proxyaccount_bearer_token\.cbd`: token 8 'tok-cbd' deleted: the old object of a create\\_before\\_destroy .*\(deposed\), which applying this plan removes$/,
      ),
    ]);
  });
});

describe('two resources of one object, nothing drifted (carried over from review: drift did not name them)', () => {
  const json = () =>
    planJson([
      SELF_IP_1,
      res('proxyaccount_authorized_ip', 'office_again', ip(null, '203.0.113.1', 'office-hq')),
      res('proxyaccount_authorized_ips', 'parent', { id: '_self', username: null, entries: [{ ip: '203.0.113.1', label: 'office-hq' }], removed_entries: [] }),
    ]);

  it('names each as a hazard, not drift, in the report and its markdown', async () => {
    const report = await drift(json());
    expect(report.drifted).toBe(false);
    expect(report.managed_twice.map((m) => [m.address, m.message.split(':')[0]])).toEqual([
      [
        'proxyaccount_authorized_ip.self_ip_1',
        'IP 203.0.113.1 is declared both by this resource and by proxyaccount_authorized_ips.parent, which manages the whole IP list of the parent account',
      ],
      [
        'proxyaccount_authorized_ip.office_again',
        'IP 203.0.113.1 is declared both by this resource and by proxyaccount_authorized_ips.parent, which manages the whole IP list of the parent account',
      ],
      [
        'proxyaccount_authorized_ip.office_again',
        'IP 203.0.113.1 of the parent account is declared both by this resource and by proxyaccount_authorized_ip.self_ip_1',
      ],
    ]);
    expect(driftMarkdown(report)).toContain('### Managed twice, a hazard, not drift (3)');
  });

  it('not in a refresh-only run, which compares with no code', async () => {
    const refreshOnly = { ...json(), resource_changes: [], applyable: false };
    expect((await drift(refreshOnly)).managed_twice).toEqual([]);
  });
});
