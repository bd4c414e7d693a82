// drift reads one account, the PROXYACCOUNT_* one: only the resources of the provider
// configuration that uses it count as managed there. Resources of an aliased provider (directly
// or through a module's `providers` map) are not merged into it, and are reported as not scanned;
// a provider block that names another account (a constant, or a root variable the plan holds) is
// refused before anything is read; one the plan cannot resolve is reported as not confirmed.
// The plan JSON mirrors `terraform show -json` of Terraform 1.11.4 (provider_config_key resolved
// through module calls' `providers`, module instance keys in the state's addresses).
import { driftMarkdown } from '../../src/gitops/drift-render';
import { parsePlanJson } from '../../src/gitops/plan-json';
import { driftOfPlan } from '../../src/gitops/use-cases';
import { FakeAccount } from './fake-account';

const NOW = Date.parse('2026-06-01T00:00:00Z');
const ENV = { PROXYACCOUNT_BASE_URL: 'https://api.example.com', PROXYACCOUNT_USERNAME: 'acme', PROXYACCOUNT_PASSWORD: 'acme-secret-pw' };

/** One resource of the plan: its module instance ('' the root), its provider configuration key, its values. */
interface Res {
  readonly module?: string;
  readonly type: string;
  readonly name: string;
  readonly provider: string;
  readonly values: Record<string, unknown>;
  readonly index?: number;
}

/** The configuration path of a module instance address: `module.a["x"].module.b` → ['a', 'b']. */
function pathOf(module: string): string[] {
  return module === '' ? [] : [...module.matchAll(/module\.([A-Za-z0-9_-]+)/g)].map((m) => m[1]!);
}

/** Plan JSON (a refresh-only plan) of these resources, provider configurations and root variables. */
function planJson(resources: Res[], providerConfig: Record<string, unknown>, variables: Record<string, unknown> = {}): Record<string, unknown> {
  const root: Record<string, unknown> = { resources: [] };
  const stateModules = new Map<string, Array<Record<string, unknown>>>();
  for (const r of resources) {
    let config = root;
    for (const name of pathOf(r.module ?? '')) {
      if (config.module_calls === undefined) config.module_calls = {};
      const calls = config.module_calls as Record<string, { module: Record<string, unknown> }>;
      if (calls[name] === undefined) calls[name] = { module: { resources: [] } };
      config = calls[name].module;
    }
    const configured = config.resources as Array<Record<string, unknown>>;
    if (!configured.some((c) => c.name === r.name && c.type === r.type)) {
      configured.push({ address: `${r.type}.${r.name}`, mode: 'managed', type: r.type, name: r.name, provider_config_key: r.provider });
    }
    const at = r.module ?? '';
    const address = `${at === '' ? '' : `${at}.`}${r.type}.${r.name}${r.index !== undefined ? `[${r.index}]` : ''}`;
    const list = stateModules.get(at) ?? [];
    list.push({ address, mode: 'managed', type: r.type, name: r.name, provider_name: 'registry.terraform.io/proxyaccount/proxyaccount', values: r.values });
    stateModules.set(at, list);
  }
  const children = [...stateModules].filter(([m]) => m !== '').map(([address, list]) => ({ address, resources: list }));
  return {
    format_version: '1.2',
    variables,
    configuration: { provider_config: providerConfig, root_module: root },
    prior_state: { values: { root_module: { resources: stateModules.get('') ?? [], child_modules: children } } },
    planned_values: {},
  };
}

const DEFAULT = { proxyaccount: { name: 'proxyaccount', full_name: 'registry.terraform.io/proxyaccount/proxyaccount' } };
const OTHER = {
  ...DEFAULT,
  'proxyaccount.other': {
    name: 'proxyaccount',
    full_name: 'registry.terraform.io/proxyaccount/proxyaccount',
    alias: 'other',
    expressions: { username: { constant_value: 'other' }, password: { constant_value: 'other-secret-pw' } },
  },
};

/** acme, the environment's account: its own IP, plus what a backdoor added with the alias's keys. */
function acme(): FakeAccount {
  const a = new FakeAccount();
  a.lists('').ips.push({ ip: '203.0.113.60', label: '' }, { ip: '198.51.100.77', label: 'backdoor' });
  a.lists('').hostnames.push('other.example.com');
  return a;
}

describe('drift with several provider configurations', () => {
  it("does not merge an alias's resources into the environment's account: the backdoor shows, and the alias is reported not scanned", async () => {
    const json = planJson(
      [
        { type: 'proxyaccount_authorized_ip', name: 'acme_office', provider: 'proxyaccount', values: { ip: '203.0.113.60' } },
        { type: 'proxyaccount_authorized_ip', name: 'other_office', provider: 'proxyaccount.other', values: { ip: '198.51.100.77' } },
        { type: 'proxyaccount_authorized_hostname', name: 'other', provider: 'proxyaccount.other', values: { domain: 'other.example.com' } },
      ],
      OTHER,
    );
    const report = await driftOfPlan(parsePlanJson(json), { store: acme().store(), env: ENV, json, now: NOW });
    expect(report.unmanaged).toEqual([
      { account: '(parent)', kind: 'ip', value: '198.51.100.77', label: 'backdoor' },
      { account: '(parent)', kind: 'hostname', value: 'other.example.com', label: '' },
    ]);
    expect(report).toEqual(expect.objectContaining({ drifted: true, scanned_provider: 'proxyaccount', account_confirmed: true }));
    expect(report.not_scanned).toEqual([{ provider: 'proxyaccount.other', resources: 2 }]);
    const md = driftMarkdown(report);
    expect(md).toContain(
      '- 2 resources of provider configuration `proxyaccount.other`: its account was not scanned for objects no resource manages (their drift and pending changes are above). ' +
        "Scan it with `proxyaccount drift --plan PLAN --provider proxyaccount.other` and that account's credentials in PROXYACCOUNT_*.",
    );
    expect(md).not.toContain('other-secret-pw');
  });

  it("follows a module call's providers map, and never looks the alias's sub-account up in the environment's account", async () => {
    const json = planJson(
      [
        { type: 'proxyaccount_authorized_ip', name: 'a', provider: 'proxyaccount', values: { ip: '203.0.113.60' } },
        // module "viaother" { for_each = ...; providers = { proxyaccount = proxyaccount.other } }, and a module inside it.
        { module: 'module.viaother["x"]', type: 'proxyaccount_authorized_ip', name: 'm', provider: 'proxyaccount.other', values: { ip: '198.51.100.77' } },
        { module: 'module.viaother["x"]', type: 'proxyaccount_sub_account', name: 's', provider: 'proxyaccount.other', values: { username: 'osub' } },
        {
          module: 'module.viaother["x"].module.inner',
          type: 'proxyaccount_authorized_hostname',
          name: 'i',
          provider: 'proxyaccount.other',
          index: 0,
          values: { domain: 'other.example.com' },
        },
        // module "inherit": the default configuration, inherited.
        { module: 'module.inherit', type: 'proxyaccount_authorized_hostname', name: 'h', provider: 'proxyaccount', values: { domain: 'inherit.example.com' } },
      ],
      OTHER,
    );
    const fake = acme();
    fake.lists('').hostnames.push('inherit.example.com');
    const report = await driftOfPlan(parsePlanJson(json), { store: fake.store(), env: ENV, json, now: NOW });
    expect(report.unmanaged.map((u) => u.value)).toEqual(['198.51.100.77', 'other.example.com']);
    expect(report.not_scanned).toEqual([{ provider: 'proxyaccount.other', resources: 3 }]);
    expect(fake.requests.filter((r) => r.includes('osub'))).toEqual([]);
    expect(report.deleted).toEqual([]);
  });

  it('scans the configuration --provider selects, with its account in the environment, and leaves the default one out', async () => {
    const json = planJson(
      [
        { type: 'proxyaccount_authorized_ip', name: 'acme_office', provider: 'proxyaccount', values: { ip: '203.0.113.60' } },
        { type: 'proxyaccount_authorized_ip', name: 'other_office', provider: 'proxyaccount.other', values: { ip: '198.51.100.77' } },
      ],
      OTHER,
    );
    // The account `other`, scanned with its own credentials; the plan was made with terraform's usual environment.
    const other = new FakeAccount();
    other.lists('').ips.push({ ip: '198.51.100.77', label: '' }, { ip: '203.0.113.60', label: 'copied' }, { ip: '192.0.2.200', label: '' });
    const env = { ...ENV, PROXYACCOUNT_USERNAME: 'other', PROXYACCOUNT_PASSWORD: 'other-secret-pw' };
    const report = await driftOfPlan(parsePlanJson(json), { store: other.store(), env, json, provider: 'proxyaccount.other', now: NOW });
    expect(report.unmanaged.map((u) => u.value)).toEqual(['203.0.113.60', '192.0.2.200']);
    expect(report).toEqual(expect.objectContaining({ scanned_provider: 'proxyaccount.other', account_confirmed: true }));
    expect(report.not_scanned).toEqual([{ provider: 'proxyaccount', resources: 1 }]);
  });

  it('counts an alias that names the same account (a constant equal to the environment) as managed there', async () => {
    const json = planJson(
      [
        { type: 'proxyaccount_authorized_ip', name: 'a', provider: 'proxyaccount', values: { ip: '203.0.113.60' } },
        { type: 'proxyaccount_authorized_ip', name: 'b', provider: 'proxyaccount.slow', values: { ip: '198.51.100.77' } },
      ],
      {
        ...DEFAULT,
        'proxyaccount.slow': {
          name: 'proxyaccount',
          alias: 'slow',
          expressions: { username: { constant_value: 'acme' }, request_timeout: { constant_value: 600 } },
        },
      },
    );
    const fake = new FakeAccount();
    fake.lists('').ips.push({ ip: '203.0.113.60', label: '' }, { ip: '198.51.100.77', label: '' });
    const report = await driftOfPlan(parsePlanJson(json), { store: fake.store(), env: ENV, json, now: NOW });
    expect(report.unmanaged).toEqual([]);
    expect(report.not_scanned).toEqual([]);
  });

  it('refuses, before reading anything, a provider block that names another account than the environment, as a constant or a root variable', async () => {
    const resources = [{ type: 'proxyaccount_authorized_ip', name: 'office', provider: 'proxyaccount', values: { ip: '192.0.2.1' } }];
    const constant = planJson(resources, {
      proxyaccount: { name: 'proxyaccount', expressions: { username: { constant_value: 'other' }, password: { references: ['var.password'] } } },
    });
    const variable = planJson(
      resources,
      { proxyaccount: { name: 'proxyaccount', expressions: { username: { references: ['var.user'] }, password: { references: ['var.password'] } } } },
      { user: { value: 'other' }, password: { value: 'other-secret-pw' } },
    );
    for (const json of [constant, variable]) {
      const fake = acme();
      const err = await driftOfPlan(parsePlanJson(json), { store: fake.store(), env: ENV, json, now: NOW }).then(
        () => undefined,
        (e: unknown) => e as Error,
      );
      expect(err?.message).toMatch(
        /^provider configuration proxyaccount \(the default\): its username names another account than PROXYACCOUNT_USERNAME does, .*--provider.*--no-scan/,
      );
      expect(err?.message).not.toMatch(/other-secret-pw|acme-secret-pw|'other'/);
      expect(fake.requests).toEqual([]);
    }
    // Without the scan, nothing is read and nothing needs the account.
    await expect(driftOfPlan(parsePlanJson(constant), { store: acme().store(), env: ENV, json: constant, scan: false })).resolves.toEqual(
      expect.objectContaining({ drifted: false }),
    );
  });

  it('refuses a base_url that names another API', async () => {
    const json = planJson([{ type: 'proxyaccount_authorized_ip', name: 'office', provider: 'proxyaccount', values: { ip: '192.0.2.1' } }], {
      proxyaccount: { name: 'proxyaccount', expressions: { base_url: { constant_value: 'https://staging.example.com' } } },
    });
    await expect(driftOfPlan(parsePlanJson(json), { store: acme().store(), env: ENV, json })).rejects.toThrow(
      /its base_url names another API than PROXYACCOUNT_BASE_URL does/,
    );
    // The same API spelt with a trailing slash is the same API.
    const same = planJson([{ type: 'proxyaccount_authorized_ip', name: 'office', provider: 'proxyaccount', values: { ip: '192.0.2.1' } }], {
      proxyaccount: { name: 'proxyaccount', expressions: { base_url: { constant_value: 'https://API.example.com/' } } },
    });
    await expect(driftOfPlan(parsePlanJson(same), { store: acme().store(), env: ENV, json: same, now: NOW })).resolves.toEqual(
      expect.objectContaining({ account_confirmed: true }),
    );
  });

  it('says so when the username is an expression the plan does not resolve: the account is not confirmed', async () => {
    const json = planJson([{ type: 'proxyaccount_authorized_ip', name: 'office', provider: 'proxyaccount', values: { ip: '203.0.113.60' } }], {
      proxyaccount: { name: 'proxyaccount', expressions: { username: { references: ['local.user'] } } },
    });
    const fake = new FakeAccount();
    fake.lists('').ips.push({ ip: '203.0.113.60', label: '' });
    const report = await driftOfPlan(parsePlanJson(json), { store: fake.store(), env: ENV, json, now: NOW });
    expect(report).toEqual(expect.objectContaining({ drifted: false, account_confirmed: false }));
    expect(report.limits[0]).toMatch(
      /could not be confirmed to be the one provider configuration proxyaccount uses: its username is an expression the plan does not resolve/,
    );
    expect(driftMarkdown(report)).toContain(
      '**No drift found, but the scanned account could not be confirmed to be the one provider configuration `proxyaccount` uses',
    );
  });

  it('refuses a --provider no resource uses, naming the ones there are', async () => {
    const json = planJson([{ type: 'proxyaccount_authorized_ip', name: 'a', provider: 'proxyaccount', values: { ip: '203.0.113.60' } }], OTHER);
    await expect(driftOfPlan(parsePlanJson(json), { store: acme().store(), env: ENV, json, provider: 'proxyaccount.nope' })).rejects.toThrow(
      /^--provider proxyaccount\.nope: no resource of this provider uses that provider configuration \(they use proxyaccount\)$/,
    );
  });
});
