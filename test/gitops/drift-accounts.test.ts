// drift reads one account, the PROXYACCOUNT_* one: only the resources of the provider
// configuration that uses it count as managed there, never merged with another configuration's,
// even one that names the same account. Resources of an aliased provider (directly or through a
// module's `providers` map) are reported as not scanned, which leaves the check incomplete unless
// --provider said the others are checked elsewhere; an object whose key a configuration not
// proven to be another account declares is held by it, never unmanaged. A provider block that
// names another account (a constant, or exactly one root variable) is refused before anything is
// read; one whose account cannot be told (an expression, a setting left to the environment of a
// plan drift did not make) leaves the account unconfirmed, and the check incomplete.
// The plan JSON mirrors `terraform show -json` of Terraform 1.11.4 (provider_config_key resolved
// through module calls' `providers`, module instance keys in the state's addresses).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { blockOf, planProviderSource, readProviderSource } from '../../src/gitops/provider-source';
import { driftMarkdown } from '../../src/gitops/drift-render';
import { parsePlanJson } from '../../src/gitops/plan-json';
import { driftOfPlan } from '../../src/gitops/use-cases';
import { FakeAccount, token } from './fake-account';

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

/** The error a promise rejects with, or undefined. */
function failure(p: Promise<unknown>): Promise<Error | undefined> {
  return p.then(
    () => undefined,
    (e: unknown) => e as Error,
  );
}

/** A root module of these files, in a new directory (removed after the tests). */
const dirs: string[] = [];
function rootModule(files: Record<string, string>): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'drift-source-'));
  dirs.push(dir);
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(dir, name), text);
  return dir;
}
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A Terraform interpolation of `expr`, as a file holds it. */
const ref = (expr: string): string => `\${${expr}}`;

const OFFICE = { type: 'proxyaccount_authorized_ip', name: 'office', provider: 'proxyaccount', values: { ip: '192.0.2.1' } };

describe('drift with several provider configurations', () => {
  it("does not merge an alias's resources into the environment's account: the backdoor shows, and the alias's account is a gap of the check", async () => {
    const json = planJson(
      [
        { type: 'proxyaccount_authorized_ip', name: 'acme_office', provider: 'proxyaccount', values: { ip: '203.0.113.60' } },
        { type: 'proxyaccount_authorized_ip', name: 'other_office', provider: 'proxyaccount.other', values: { ip: '198.51.100.77' } },
        { type: 'proxyaccount_authorized_hostname', name: 'other', provider: 'proxyaccount.other', values: { domain: 'other.example.com' } },
      ],
      OTHER,
    );
    const report = await driftOfPlan(parsePlanJson(json), { store: acme().store(), env: ENV, json, plannedHere: true, now: NOW });
    expect(report.unmanaged).toEqual([
      { account: '(parent)', kind: 'ip', value: '198.51.100.77', label: 'backdoor' },
      { account: '(parent)', kind: 'hostname', value: 'other.example.com', label: '' },
    ]);
    expect(report).toEqual(expect.objectContaining({ drifted: true, complete: false, scanned_provider: 'proxyaccount', account_confirmed: true }));
    expect(report.not_scanned).toEqual([{ provider: 'proxyaccount.other', resources: 2 }]);
    expect(report.incomplete).toEqual([
      '2 resources of provider configuration proxyaccount.other: its account was not scanned for objects no resource manages (their drift and pending changes are above). ' +
        "Scan it in a run of its own (proxyaccount drift --plan PLAN --provider proxyaccount.other, with that account's credentials in PROXYACCOUNT_*), " +
        'and give this run --provider proxyaccount: the other configurations then count as checked elsewhere',
    ]);
    const md = driftMarkdown(report);
    expect(md).toMatch(/### Not checked \(1\)\n\n- 2 resources of provider configuration proxyaccount\.other: its account was not scanned/);
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
    const report = await driftOfPlan(parsePlanJson(json), { store: fake.store(), env: ENV, json, plannedHere: true, now: NOW });
    expect(report.unmanaged.map((u) => u.value)).toEqual(['198.51.100.77', 'other.example.com']);
    expect(report.not_scanned).toEqual([{ provider: 'proxyaccount.other', resources: 3 }]);
    expect(fake.requests.filter((r) => r.includes('osub'))).toEqual([]);
    expect(report.deleted).toEqual([]);
  });

  it('with --provider, the other configurations count as checked elsewhere: listed under "Not checked here", and a clean run is clean', async () => {
    const json = planJson(
      [
        { type: 'proxyaccount_authorized_ip', name: 'acme_office', provider: 'proxyaccount', values: { ip: '203.0.113.60' } },
        { type: 'proxyaccount_authorized_ip', name: 'other_office', provider: 'proxyaccount.other', values: { ip: '198.51.100.77' } },
      ],
      OTHER,
    );
    const clean = (): FakeAccount => {
      const a = new FakeAccount();
      a.lists('').ips.push({ ip: '203.0.113.60', label: '' });
      return a;
    };
    const implicit = await driftOfPlan(parsePlanJson(json), { store: clean().store(), env: ENV, json, plannedHere: true, now: NOW });
    expect(implicit).toEqual(expect.objectContaining({ drifted: false, complete: false, others_checked_elsewhere: false }));
    expect(driftMarkdown(implicit)).toContain('**No drift found, but the check is incomplete (see "Not checked"): this is not a clean report.**');
    const told = await driftOfPlan(parsePlanJson(json), { store: clean().store(), env: ENV, json, plannedHere: true, provider: 'proxyaccount', now: NOW });
    expect(told).toEqual(expect.objectContaining({ drifted: false, complete: true, others_checked_elsewhere: true, incomplete: [] }));
    const md = driftMarkdown(told);
    expect(md).toContain('**No drift: the account of provider configuration `proxyaccount` matches the Terraform state.');
    expect(md).toContain(
      '### Not checked here (1)\n\n- 1 resource of provider configuration `proxyaccount.other`: its account is checked by a run of its own (`--provider proxyaccount.other`), ' +
        'as this run was told by `--provider proxyaccount`; their drift and pending changes are above.',
    );
    expect(md).not.toContain('### Not checked (');
  });

  it('with --plan, scans the configuration --provider selects; what the default configuration, whose account that plan does not say, declares is held by it, never unmanaged', async () => {
    const json = planJson(
      [
        { type: 'proxyaccount_authorized_ip', name: 'acme_office', provider: 'proxyaccount', values: { ip: '203.0.113.60' } },
        { type: 'proxyaccount_authorized_ip', name: 'other_office', provider: 'proxyaccount.other', values: { ip: '198.51.100.77' } },
      ],
      {
        ...DEFAULT,
        'proxyaccount.other': {
          ...OTHER['proxyaccount.other'],
          expressions: { ...OTHER['proxyaccount.other'].expressions, base_url: { constant_value: ENV.PROXYACCOUNT_BASE_URL } },
        },
      },
    );
    // The account `other`, scanned with its own credentials; the plan was made with terraform's usual environment.
    const other = new FakeAccount();
    other.lists('').ips.push({ ip: '198.51.100.77', label: '' }, { ip: '203.0.113.60', label: 'copied' }, { ip: '192.0.2.200', label: '' });
    const env = { ...ENV, PROXYACCOUNT_USERNAME: 'other', PROXYACCOUNT_PASSWORD: 'other-secret-pw' };
    const report = await driftOfPlan(parsePlanJson(json), { store: other.store(), env, json, provider: 'proxyaccount.other', now: NOW });
    expect(report.unmanaged.map((u) => u.value)).toEqual(['192.0.2.200']);
    expect(report.held_by_other_configurations).toEqual([
      { account: '(parent)', kind: 'ip', value: '203.0.113.60', label: 'copied', provider: 'proxyaccount', provider_account: 'unknown' },
    ]);
    expect(report).toEqual(expect.objectContaining({ scanned_provider: 'proxyaccount.other', account_confirmed: true, complete: false }));
    expect(report.not_scanned).toEqual([{ provider: 'proxyaccount', resources: 1 }]);
    expect(report.incomplete).toEqual([
      '1 object of the scanned account matches resources of provider configuration proxyaccount, whose account could not be confirmed ' +
        '(its username and base_url are left to the environment terraform planned with, which drift does not see when it is given the plan (--plan)): ' +
        'listed as held by it, neither managed nor unmanaged',
    ]);
    expect(driftMarkdown(report)).toContain(
      '### Held by a resource of another provider configuration (1)\n\n- (parent): ip `203.0.113.60` (label `copied`): held by a resource of provider configuration `proxyaccount`, whose account could not be confirmed\n',
    );
  });

  it('with --plan, a selected configuration that leaves its account to the environment is not confirmed: the documented recipe without --provider is never clean (finding: merged again)', async () => {
    // wsB: the default configuration inherits acme's credentials; the alias names `other`. The plan was made
    // with acme's environment, and drift is given it with other's: the default configuration is selected.
    const json = planJson(
      [
        { type: 'proxyaccount_authorized_ip', name: 'acme_office', provider: 'proxyaccount', values: { ip: '203.0.113.60' } },
        { type: 'proxyaccount_authorized_ip', name: 'other_office', provider: 'proxyaccount.other', values: { ip: '198.51.100.77' } },
        { type: 'proxyaccount_authorized_hostname', name: 'other', provider: 'proxyaccount.other', values: { domain: 'other.example.com' } },
      ],
      OTHER,
    );
    const other = new FakeAccount();
    other.lists('').ips.push({ ip: '198.51.100.77', label: '' }, { ip: '203.0.113.60', label: 'backdoor' });
    other.lists('').hostnames.push('other.example.com');
    const env = { ...ENV, PROXYACCOUNT_USERNAME: 'other', PROXYACCOUNT_PASSWORD: 'other-secret-pw' };
    const report = await driftOfPlan(parsePlanJson(json), { store: other.store(), env, json, now: NOW });
    expect(report).toEqual(expect.objectContaining({ drifted: false, complete: false, account_confirmed: false }));
    expect(report.incomplete[0]).toMatch(
      /^the scanned account could not be confirmed to be the one provider configuration proxyaccount uses: its username and base_url are left to the environment terraform planned with, which drift does not see when it is given the plan \(--plan\)\. /,
    );
    // The alias's keys are never merged in: what they declare is held (the alias's base_url is the plan's environment's), not managed.
    expect(report.held_by_other_configurations.map((h) => [h.value, h.provider])).toEqual([
      ['198.51.100.77', 'proxyaccount.other'],
      ['other.example.com', 'proxyaccount.other'],
    ]);
    expect(driftMarkdown(report)).toContain('**No drift found, but the check is incomplete (see "Not checked"): this is not a clean report.**');
  });

  it('never merges an alias of the same account: what it declares is held, checked by its own run, and with --provider the run is clean', async () => {
    const json = planJson(
      [
        { type: 'proxyaccount_authorized_ip', name: 'a', provider: 'proxyaccount', values: { ip: '203.0.113.60' } },
        { type: 'proxyaccount_authorized_ip', name: 'b', provider: 'proxyaccount.slow', values: { ip: '198.51.100.77' } },
        { type: 'proxyaccount_bearer_token', name: 't', provider: 'proxyaccount.slow', values: { token_id: 5 } },
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
    fake.lists('').tokens.push(token(5, 'deploy', undefined, new Date('2026-05-01T00:00:00Z')));
    const report = await driftOfPlan(parsePlanJson(json), { store: fake.store(), env: ENV, json, plannedHere: true, provider: 'proxyaccount', now: NOW });
    expect(report.unmanaged).toEqual([]);
    expect(report.held_by_other_configurations).toEqual([
      { account: '(parent)', kind: 'ip', value: '198.51.100.77', label: '', provider: 'proxyaccount.slow', provider_account: 'this' },
      { account: '(parent)', kind: 'token', value: '5', label: 'deploy', provider: 'proxyaccount.slow', provider_account: 'this' },
    ]);
    expect(report.expired_tokens).toEqual([expect.objectContaining({ token_id: 5, managed: false, held_by: 'proxyaccount.slow' })]);
    expect(report).toEqual(expect.objectContaining({ drifted: false, complete: true }));
    const md = driftMarkdown(report);
    expect(md).toContain(
      '- (parent): ip `198.51.100.77`: held by a resource of provider configuration `proxyaccount.slow`, which uses this account too (its own run checks it: `--provider proxyaccount.slow`)',
    );
    expect(md).toContain('expired 2026-05-01T00:00:00.000Z (held by a resource of provider configuration `proxyaccount.slow`)');
  });

  it('a configuration whose account cannot be told (a token in its block) holds what it declares even with --provider: never unmanaged, never clean, its hidden labels not shown', async () => {
    // The least-privilege example: the default configuration's resources, and an alias authenticating with a token.
    const json = planJson([OFFICE, { type: 'proxyaccount_authorized_ip', name: 'runner', provider: 'proxyaccount.scoped', values: { ip: '203.0.113.50' } }], {
      ...DEFAULT,
      'proxyaccount.scoped': {
        name: 'proxyaccount',
        alias: 'scoped',
        expressions: { token: { references: ['ephemeral.proxyaccount_bearer_token.ci.token'] } },
      },
    });
    // The runner's label comes from a sensitive variable: the state hides it, and so must the report.
    (json.prior_state as { values: { root_module: { resources: Array<Record<string, unknown>> } } }).values.root_module.resources[1]!.sensitive_values = {
      label: true,
    };
    const fake = new FakeAccount();
    fake.lists('').ips.push({ ip: '192.0.2.1', label: '' }, { ip: '203.0.113.50', label: 'secret-runner-label' });
    const report = await driftOfPlan(parsePlanJson(json), { store: fake.store(), env: ENV, json, plannedHere: true, provider: 'proxyaccount', now: NOW });
    expect(report.unmanaged).toEqual([]);
    expect(report.held_by_other_configurations).toEqual([
      { account: '(parent)', kind: 'ip', value: '203.0.113.50', label: '(sensitive)', provider: 'proxyaccount.scoped', provider_account: 'unknown' },
    ]);
    expect(report).toEqual(expect.objectContaining({ drifted: false, complete: false }));
    expect(report.incomplete).toEqual([
      expect.stringMatching(
        /^1 object of the scanned account matches resources of provider configuration proxyaccount\.scoped, whose account could not be confirmed \(.*its block sets a token/,
      ),
    ]);
    expect(driftMarkdown(report)).not.toContain('secret-runner-label');
  });

  it("a collection where another configuration's resource hides its keys is not listed: which objects it holds cannot be told", async () => {
    const json = planJson(
      [
        OFFICE,
        { type: 'proxyaccount_authorized_ips', name: 'list', provider: 'proxyaccount.scoped', values: { entries: [{ ip: '203.0.113.50', label: 'x' }] } },
      ],
      { ...DEFAULT, 'proxyaccount.scoped': { name: 'proxyaccount', alias: 'scoped', expressions: { token: { references: ['var.token'] } } } },
    );
    (json.prior_state as { values: { root_module: { resources: Array<Record<string, unknown>> } } }).values.root_module.resources[1]!.sensitive_values = {
      entries: true,
    };
    const fake = new FakeAccount();
    fake.lists('').ips.push({ ip: '192.0.2.1', label: '' }, { ip: '203.0.113.50', label: 'x' });
    const report = await driftOfPlan(parsePlanJson(json), { store: fake.store(), env: ENV, json, plannedHere: true, provider: 'proxyaccount', now: NOW });
    expect({ unmanaged: report.unmanaged, held: report.held_by_other_configurations, complete: report.complete }).toEqual({
      unmanaged: [],
      held: [],
      complete: false,
    });
    expect(report.incomplete).toEqual([
      expect.stringMatching(
        /^the IPs of the parent account were not checked for objects no resource manages: the state marks the entries of proxyaccount_authorized_ips\.list sensitive/,
      ),
    ]);
    expect(fake.requests).not.toContain('ips (parent)');
  });

  it('refuses when no resource uses the default configuration, naming the configurations and the --provider to pass (finding: managed objects shown unmanaged)', async () => {
    const scoped = planJson([{ type: 'proxyaccount_authorized_ip', name: 'runner', provider: 'proxyaccount.scoped', values: { ip: '203.0.113.50' } }], {
      proxyaccount: { name: 'proxyaccount', expressions: { username: { references: ['var.username'] } } },
      'proxyaccount.scoped': {
        name: 'proxyaccount',
        alias: 'scoped',
        expressions: { token: { references: ['ephemeral.proxyaccount_bearer_token.ci.token'] } },
      },
    });
    const legacy = planJson(
      [{ module: 'module.legacy', type: 'proxyaccount_authorized_ip', name: 'office', provider: 'module.legacy:proxyaccount', values: { ip: '203.0.113.21' } }],
      { 'module.legacy:proxyaccount': { name: 'proxyaccount', module_address: 'module.legacy', expressions: { username: { references: ['var.username'] } } } },
    );
    for (const [json, provider] of [
      [scoped, 'proxyaccount.scoped'],
      [legacy, 'module.legacy:proxyaccount'],
    ] as const) {
      const fake = new FakeAccount();
      const err = await failure(driftOfPlan(parsePlanJson(json), { store: fake.store(), env: ENV, json, plannedHere: true, now: NOW }));
      expect(err?.message).toBe(
        `no resource of this provider uses the default provider configuration (proxyaccount), so its account has nothing to be compared with: they use ${provider}. ` +
          `One run scans the account of one configuration: run drift once per configuration, with its account's credentials in PROXYACCOUNT_*: --provider ${provider}.`,
      );
      expect(fake.requests).toEqual([]);
      // Selected, the configuration's own resources are managed; its account is not confirmed (a token, a module's variable).
      fake.lists('').ips.push({ ip: '203.0.113.50', label: 'ci runner' }, { ip: '203.0.113.21', label: '' });
      const report = await driftOfPlan(parsePlanJson(json), { store: fake.store(), env: ENV, json, plannedHere: true, provider, now: NOW });
      expect(report.unmanaged.map((u) => u.value)).toEqual(provider === 'proxyaccount.scoped' ? ['203.0.113.21'] : ['203.0.113.50']);
      expect(report).toEqual(expect.objectContaining({ account_confirmed: false, complete: false }));
    }
  });

  it('refuses, before reading anything, a provider block that names another account than the environment, as a constant or exactly one root variable', async () => {
    const constant = planJson([OFFICE], {
      proxyaccount: { name: 'proxyaccount', expressions: { username: { constant_value: 'other' }, password: { references: ['var.password'] } } },
    });
    const variable = planJson(
      [OFFICE],
      { proxyaccount: { name: 'proxyaccount', expressions: { username: { references: ['var.user'] }, password: { references: ['var.password'] } } } },
      { user: { value: 'other' }, password: { value: 'other-secret-pw' } },
    );
    const source = { blocks: new Map([['proxyaccount', { username: 'user' }]]) };
    for (const json of [constant, variable]) {
      const fake = acme();
      const err = await failure(driftOfPlan(parsePlanJson(json), { store: fake.store(), env: ENV, json, source, now: NOW }));
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
    const json = planJson([OFFICE], {
      proxyaccount: { name: 'proxyaccount', expressions: { base_url: { constant_value: 'https://staging.example.com' } } },
    });
    await expect(driftOfPlan(parsePlanJson(json), { store: acme().store(), env: ENV, json })).rejects.toThrow(
      /its base_url names another API than PROXYACCOUNT_BASE_URL does/,
    );
    // The same API spelt with a trailing slash is the same API.
    const same = planJson([OFFICE], {
      proxyaccount: { name: 'proxyaccount', expressions: { base_url: { constant_value: 'https://API.example.com/' } } },
    });
    await expect(driftOfPlan(parsePlanJson(same), { store: acme().store(), env: ENV, json: same, plannedHere: true, now: NOW })).resolves.toEqual(
      expect.objectContaining({ account_confirmed: true }),
    );
  });

  it('an expression the plan does not resolve (a local) leaves the account unconfirmed: not a clean run', async () => {
    const json = planJson([{ type: 'proxyaccount_authorized_ip', name: 'office', provider: 'proxyaccount', values: { ip: '203.0.113.60' } }], {
      proxyaccount: { name: 'proxyaccount', expressions: { username: { references: ['local.user'] } } },
    });
    const fake = new FakeAccount();
    fake.lists('').ips.push({ ip: '203.0.113.60', label: '' });
    const report = await driftOfPlan(parsePlanJson(json), { store: fake.store(), env: ENV, json, plannedHere: true, now: NOW });
    expect(report).toEqual(expect.objectContaining({ drifted: false, account_confirmed: false, complete: false }));
    expect(report.incomplete).toEqual([
      expect.stringMatching(
        /^the scanned account could not be confirmed to be the one provider configuration proxyaccount uses: its username is an expression drift does not resolve \(only a constant is, or exactly one root variable, as in username = var\.NAME\)/,
      ),
    ]);
    expect(driftMarkdown(report)).toContain('**No drift found, but the check is incomplete (see "Not checked"): this is not a clean report.**');
  });

  it('resolves a root variable only where the source sets the setting to exactly it: var.team with text around it references var.team too, and is not resolved (finding: wrong account confirmed)', async () => {
    const json = planJson(
      [OFFICE],
      { proxyaccount: { name: 'proxyaccount', expressions: { username: { references: ['var.team'] }, password: { references: ['var.password'] } } } },
      { team: { value: 'acme' }, password: { value: 'acme2-secret-pw' } },
    );
    const provider = (username: string): string =>
      `terraform {\n  required_providers {\n    proxyaccount = { source = "proxyaccount/proxyaccount" }\n  }\n}\nprovider "proxyaccount" {\n  username = ${username}\n  password = var.password\n}\n`;
    const run = (dir: string) => {
      const fake = new FakeAccount();
      fake.lists('').ips.push({ ip: '192.0.2.1', label: 'backdoor' });
      return driftOfPlan(parsePlanJson(json), { store: fake.store(), env: ENV, json, plannedHere: true, source: readProviderSource(dir), now: NOW });
    };
    // The workspace manages acme2: its provider says "${var.team}2". Its account is not the environment's, and not confirmed.
    const suffixed = await run(rootModule({ 'main.tf': provider(`"${ref('var.team')}2"`) }));
    expect(suffixed).toEqual(expect.objectContaining({ account_confirmed: false, complete: false }));
    expect(suffixed.incomplete[0]).toMatch(/its username is an expression drift does not resolve/);
    // `username = var.team` is the variable itself.
    await expect(run(rootModule({ 'main.tf': provider('var.team') }))).resolves.toEqual(expect.objectContaining({ account_confirmed: true, complete: true }));
  });
});

describe('the provider blocks read from the root module', () => {
  const tf = (body: string, label = '"proxyaccount"'): string => `provider ${label} {\n${body}\n}\n`;

  it('follows strings inside interpolations and directives, in any file: they do not stop the blocks being read (finding: username = var.NAME unresolved)', () => {
    const tags = [
      `output "office" {\n  value = "office ${ref('lookup(var.sites, "hq", "none")')}"\n}`,
      `output "env" {\n  value = "${ref('var.e == "p" ? "a" : "b"')}" # "${ref('not read')}\n}`,
      `output "flags" {\n  value = "%{ if var.x == "y" }yes%{ else }${ref('format("%02d", 3)')}%{ endif }"\n}`,
      `output "nested" {\n  value = "${ref(`join(",", [for s in var.l : "${ref('s')}-${ref('jsonencode({ a = "}" })')}"])`)}"\n}`,
      `resource "proxyaccount_authorized_ip" "x" {\n  provider = proxyaccount.other\n  ip       = "${ref('var.ips["office"]')}"\n}`,
    ].join('\n');
    const dir = rootModule({
      'main.tf': `${tf('  username = var.username')}${tf(`  alias    = "other"\n  username = var.other # "${ref('x')}"`)}`,
      'tags.tf': `${tags}\n`,
    });
    expect(readProviderSource(dir)).toEqual({
      blocks: new Map([
        ['proxyaccount', { username: 'username' }],
        ['proxyaccount.other', { username: 'other' }],
      ]),
    });
  });

  it('says which file and line it could not follow, and ignores such a line in a file that never says provider', () => {
    const open = `output "x" {\n  value = "${ref('upper(\n    var.a)')}"\n}\n`;
    const main = tf('  username = var.username');
    // The file may hold a provider block the reader did not see: no block of the directory is known.
    const saysProvider = readProviderSource(rootModule({ 'main.tf': main, 'out.tf': `# the provider's outputs\n${open}` }));
    expect(saysProvider).toEqual({
      blocks: new Map(),
      unread: 'out.tf line 3: a quoted string this reader does not follow: it does not end on its line, or an interpolation in it holds a comment or a heredoc',
    });
    expect(blockOf(saysProvider, 'proxyaccount')).toBe(saysProvider.unread);
    const comment = readProviderSource(rootModule({ 'main.tf': `${main}locals {\n  provider = "${ref('var.a # a comment }')}"\n}\n` }));
    expect(comment.unread).toMatch(/^main\.tf line 5: a quoted string this reader does not follow/);
    // Without the word `provider`, no block can be written there.
    expect(readProviderSource(rootModule({ 'main.tf': main, 'out.tf': open })).blocks.get('proxyaccount')).toEqual({ username: 'username' });
  });

  it('carries why the block was not read to "Not checked", instead of calling the setting an expression', async () => {
    const json = planJson(
      [OFFICE],
      { proxyaccount: { name: 'proxyaccount', expressions: { username: { references: ['var.username'] } } } },
      { username: { value: 'acme' } },
    );
    const run = (files: Record<string, string>) => {
      const fake = new FakeAccount();
      fake.lists('').ips.push({ ip: '192.0.2.1', label: '' });
      return driftOfPlan(parsePlanJson(json), {
        store: fake.store(),
        env: ENV,
        json,
        plannedHere: true,
        source: readProviderSource(rootModule(files)),
        now: NOW,
      });
    };
    const main = tf('  username = var.username');
    const unread = await run({ 'main.tf': main, 'tags.tf': `# the provider's tags\nlocals {\n  note = "${ref('upper(\n  var.a)')}"\n}\n` });
    expect(unread).toEqual(expect.objectContaining({ account_confirmed: false, complete: false }));
    expect(unread.incomplete).toEqual([
      'the scanned account could not be confirmed to be the one provider configuration proxyaccount uses: its username references one root variable, ' +
        "but the provider block could not be read from the root module's files to tell whether it is exactly that variable (as in username = var.NAME): " +
        'tags.tf line 3: a quoted string this reader does not follow: it does not end on its line, or an interpolation in it holds a comment or a heredoc. ' +
        "Its objects were compared with that configuration's resources all the same, so what is reported managed or not may be another account's",
    ]);
    const absent = await run({ 'other.tf': tf('  alias = "other"') });
    expect(absent.incomplete[0]).toMatch(/: no provider block of proxyaccount was found in the root module's \*\.tf and \*\.tf\.json files\. /);
    // The same block, with a lookup in another file: read, and the account confirmed.
    const tags = `output "o" {\n  value = "${ref('lookup(var.sites, "hq", "none")')}" # provider-independent\n}\n`;
    await expect(run({ 'main.tf': main, 'tags.tf': tags })).resolves.toEqual(expect.objectContaining({ account_confirmed: true, complete: true }));
  });

  it('reads a setting that is exactly one variable, per configuration key, from .tf and .tf.json files', () => {
    const dir = rootModule({
      'main.tf': `${tf('  username = var.team # the team account\n  password = var.password')}${tf('  alias    = "other"\n  username = "other"\n  base_url = var.api')}`,
      'b.tf.json': JSON.stringify({
        provider: {
          proxyaccount: [
            { alias: 'json', username: ref('var.json_user') },
            { alias: 'text', username: `${ref('var.u')}x` },
          ],
        },
      }),
    });
    expect(readProviderSource(dir)).toEqual({
      blocks: new Map([
        ['proxyaccount', { username: 'team' }],
        ['proxyaccount.other', { base_url: 'api' }],
        ['proxyaccount.json', { username: 'json_user' }],
        ['proxyaccount.text', {}],
      ]),
    });
    // An empty block on one line, as a default configuration that takes the environment's account often is.
    const inherits = rootModule({
      'main.tf': `provider "proxyaccount" {} # the environment's\n${tf('  alias = "other" // its own\n  username = var.other_user')}`,
    });
    expect(readProviderSource(inherits)).toEqual({
      blocks: new Map([
        ['proxyaccount', {}],
        ['proxyaccount.other', { username: 'other_user' }],
      ]),
    });
  });

  it('does not take a block in a comment or a heredoc for one, and knows no key two blocks claim', () => {
    const commented = rootModule({ 'main.tf': tf(`  username = "${ref('var.team')}2"`), 'old.tf': `/*\n${tf('  username = var.team')}*/\n` });
    expect(readProviderSource(commented).blocks.get('proxyaccount')).toEqual({});
    const heredoc = rootModule({
      'main.tf': `${tf('  username = lower(var.team)')}locals {\n  doc = <<-EOT\n${tf('  username = var.team')}  EOT\n}\n`,
    });
    expect(readProviderSource(heredoc).blocks.get('proxyaccount')).toEqual({});
    const twice = rootModule({ 'a.tf': tf('  username = var.a'), 'b.tf': tf('  username = var.b') });
    expect(readProviderSource(twice).blocks.get('proxyaccount')).toBe('two provider blocks configure proxyaccount (a.tf line 1, b.tf line 1)');
  });

  it('does not follow a heredoc whose interpolation runs over lines: a line holding the marker there does not end it for Terraform (finding: a crafted file confirmed the wrong account)', () => {
    // For Terraform, the first EOT below is inside the interpolation (a for expression's variable),
    // so the heredoc goes on, the block after it is heredoc text, and the real block is the last one.
    const crafted = [
      'locals {',
      '  banner = [<<EOT',
      `${ref('[for EOT in ["x"] :')}`.slice(0, -1),
      'EOT',
      '][0]}',
      tf('  username = var.team').trimEnd(),
      'EOT',
      '  ]',
      '}',
      tf('  username = replace(var.team, "acme", "beta")'),
    ].join('\n');
    expect(readProviderSource(rootModule({ 'main.tf': crafted }))).toEqual({
      blocks: new Map(),
      unread: `main.tf line 3: a heredoc line whose interpolation or directive (\${…}, %{…}) does not end on it`,
    });
    // One that ends on its line is followed, quotes and backslashes being heredoc text.
    const plain = `locals {\n  doc = <<-EOT\n    say "${ref('lookup(var.m, "k", "}")')}" \\ done\n  EOT\n}\n${tf('  username = var.team')}`;
    expect(readProviderSource(rootModule({ 'main.tf': plain })).blocks.get('proxyaccount')).toEqual({ username: 'team' });
  });

  it("reads a saved plan's own copy of the root module, whatever --dir holds; plan JSON, --dir's files", async () => {
    // A saved plan is a zip holding the files Terraform planned (tfconfig/m-/ for the root module).
    const yazl = require('yazl') as { ZipFile: new () => { addBuffer(b: Buffer, name: string): void; end(): void; outputStream: NodeJS.ReadableStream } };
    const zip = new yazl.ZipFile();
    zip.addBuffer(Buffer.from(tf('  username = var.team')), 'tfconfig/m-/main.tf');
    zip.addBuffer(Buffer.from(tf('  username = var.hidden')), 'tfconfig/m-/.hidden.tf');
    // A CDKTF stack's one file is easily megabytes: read all the same.
    zip.addBuffer(Buffer.from(`{"locals": {"big": "${'x'.repeat(1_500_000)}"}}`), 'tfconfig/m-/cdk.tf.json');
    zip.addBuffer(Buffer.from(tf('  username = var.nested')), 'tfconfig/m-mod/main.tf');
    zip.addBuffer(Buffer.from('{}'), 'tfplan');
    zip.end();
    const chunks: Buffer[] = [];
    for await (const c of zip.outputStream) chunks.push(c as Buffer);
    // --dir holds other code (a checkout of another commit, say): the plan's copy is what was planned.
    const dir = rootModule({ 'main.tf': tf(`  username = "${ref('var.team')}2"`) });
    writeFileSync(path.join(dir, 'saved.tfplan'), Buffer.concat(chunks));
    writeFileSync(path.join(dir, 'plan.json'), '{}');
    expect(await planProviderSource(path.join(dir, 'saved.tfplan'), dir)).toEqual({ blocks: new Map([['proxyaccount', { username: 'team' }]]) });
    expect(await planProviderSource(path.join(dir, 'plan.json'), dir)).toEqual(readProviderSource(dir));
    expect(readProviderSource(dir).blocks.get('proxyaccount')).toEqual({});
    // A zip without the copy says so rather than reading --dir.
    const bare = new yazl.ZipFile();
    bare.addBuffer(Buffer.from('{}'), 'tfplan');
    bare.end();
    const bareChunks: Buffer[] = [];
    for await (const c of bare.outputStream) bareChunks.push(c as Buffer);
    writeFileSync(path.join(dir, 'bare.tfplan'), Buffer.concat(bareChunks));
    expect(await planProviderSource(path.join(dir, 'bare.tfplan'), dir)).toEqual({
      blocks: new Map(),
      unread: "the saved plan holds no copy of the root module's files",
    });
  });

  it('reads the files Terraform reads: a name starting with # is one of them, and its override is not missed (finding: wrong account confirmed)', () => {
    // Terraform skips hidden files, names ending with ~, and names with # at both ends (never a .tf file).
    const dir = rootModule({ 'main.tf': tf('  username = var.team'), '#ops_override.tf': tf('  username = var.ops'), '.hidden.tf': 'not HCL {' });
    expect(readProviderSource(dir)).toEqual({
      blocks: new Map(),
      unread: "#ops_override.tf is an override file, whose settings Terraform merges into the other files' blocks",
    });
    expect(
      readProviderSource(rootModule({ 'main.tf': tf('  username = var.team'), 'main.tf~': tf('  username = var.old') })).blocks.get('proxyaccount'),
    ).toEqual({ username: 'team' });
  });

  it('knows nothing it does not read plainly: a setting over several lines, a block on one line, an override file', () => {
    const multiline = rootModule({ 'main.tf': tf('  password = (\n    var.password\n  )\n  username = var.team') });
    expect(blockOf(readProviderSource(multiline), 'proxyaccount')).toBe(
      'main.tf line 2: a setting over several lines, or a nested block, in the provider block of line 1, so which configuration of proxyaccount it is cannot be told',
    );
    const oneLine = readProviderSource(
      rootModule({ 'main.tf': `provider "proxyaccount" { username = var.team }\n${tf('  alias = "b"\n  username = var.b')}` }),
    );
    for (const key of ['proxyaccount', 'proxyaccount.b']) {
      expect(blockOf(oneLine, key)).toBe('main.tf line 1: a block with settings on one line, so which configuration of proxyaccount it is cannot be told');
    }
    expect(readProviderSource(rootModule({ 'main.tf': tf('  username = var.team'), 'main_override.tf': '' }))).toEqual({
      blocks: new Map(),
      unread: "main_override.tf is an override file, whose settings Terraform merges into the other files' blocks",
    });
    expect(readProviderSource(path.join(os.tmpdir(), 'no-such-drift-dir')).unread).toBe('the directory could not be listed (ENOENT)');
  });
});
