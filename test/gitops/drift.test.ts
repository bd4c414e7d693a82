// drift's own unit tests: attribute drift and out-of-band deletions from a plan, the changes of the
// code a normal plan still makes, the scan for objects nobody manages (each account and collection
// read once, through the store), a sub-account the scan does not find, a token list the plan
// refuses, expired tokens on the API's clock and ephemeral leftovers, the error for a type the
// catalogue lacks, the working directory checked first, and the runner: a normal plan, a
// refresh-only one when the code cannot be planned, terraform's whole diagnostic when both fail.
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { EPHEMERAL_TOKEN_PREFIX } from '../../src/account';
import type { ScanProgress } from '../../src/gitops/drift';
import { planDrift } from '../../src/gitops/drift-deleted';
import { managedByAccount, scanUnmanaged } from '../../src/gitops/drift-scan';
import { parsePlanJson, type StateResource } from '../../src/gitops/plan-json';
import { driftJson, driftMarkdown } from '../../src/gitops/drift-render';
import { driftOfPlan, runDrift, SILENT_PROGRESS } from '../../src/gitops/use-cases';
import { NotFoundError } from '../../src/sdk';
import { FakeAccount, token } from './fake-account';

const NOW = Date.parse('2026-06-01T00:00:00Z');

function resource(type: string, name: string, values: Record<string, unknown>): StateResource {
  return { address: `${type}.${name}`, type, mode: 'managed', values, sensitive: new Set() };
}

/** A progress that records its calls. */
function recording(): { progress: ScanProgress & { note(message: string): void }; lines: string[] } {
  const lines: string[] = [];
  return {
    lines,
    progress: {
      start: (n) => void lines.push(`start ${n}`),
      step: (a, c) => void lines.push(`step ${a} ${c}`),
      stop: () => undefined,
      note: (m) => void lines.push(`note ${m}`),
    },
  };
}

/** A prior state of plan JSON holding these resources at the root. */
function priorState(resources: StateResource[]): unknown {
  return {
    values: {
      root_module: { resources: resources.map((r) => ({ address: r.address, type: r.type, name: r.address.split('.')[1], mode: r.mode, values: r.values })) },
    },
  };
}

/** Plan JSON of these resources, all of the default provider configuration, as `terraform show -json` gives it. */
function planOf(resources: StateResource[], rest: Record<string, unknown> = {}): Record<string, unknown> {
  const configured = resources.map((r) => ({
    address: r.address,
    mode: r.mode,
    type: r.type,
    name: r.address.split('.')[1],
    provider_config_key: 'proxyaccount',
  }));
  return {
    configuration: { provider_config: { proxyaccount: { name: 'proxyaccount' } }, root_module: { resources: configured } },
    prior_state: priorState(resources),
    ...rest,
  };
}

/** An account whose sub-account lookup answers 404 once for `username`, as a gateway does during a deploy, while its lists answer. */
class FlakyAccount extends FakeAccount {
  constructor(private readonly flaky: string) {
    super();
  }

  override lists(username: string | undefined): ReturnType<FakeAccount['lists']> {
    if (username === this.flaky && this.requests.at(-1) === `sub-account ${username}` && !this.requests.slice(0, -1).includes(`sub-account ${username}`)) {
      throw new NotFoundError({ method: 'GET', path: '/api/sub/get/', operation: `get sub-account '${username}'`, status: 404, responseText: 'Not Found' });
    }
    return super.lists(username);
  }
}

const STATE: StateResource[] = [
  resource('proxyaccount_sub_account', 'alice', { username: 'alice', monthly_limit: 50 }),
  resource('proxyaccount_authorized_ip', 'office', { username: 'alice', ip: '203.0.113.7', label: 'office' }),
  resource('proxyaccount_authorized_hostnames', 'alice', { username: 'alice', domains: ['CI.example.com'] }),
  resource('proxyaccount_authorized_ips', 'parent', { entries: [{ ip: '198.51.100.1', label: null }] }),
  resource('proxyaccount_bearer_token', 'deploy', { username: 'alice', token_id: 7, label: 'deploy' }),
  resource('proxyaccount_authorized_proxy', 'ny', { proxy: 'us-ny', domain: 'us-ny.proxy.example.net' }),
  resource('terraform_data', 'other', { input: 'x' }),
];

function account(): FakeAccount {
  const a = new FakeAccount().sub('alice', {
    ips: [
      { ip: '203.0.113.7', label: 'office' },
      { ip: '192.0.2.99', label: 'who added this?' },
    ],
    hostnames: ['ci.example.com', 'extra.example.com'],
    tokens: [token(7, 'deploy', undefined, new Date('2026-05-01T00:00:00Z')), token(8, 'laptop'), token(9, `${EPHEMERAL_TOKEN_PREFIX}run-1`)],
  });
  a.lists('').ips.push({ ip: '198.51.100.1', label: '' });
  a.proxies = ['us-ny.proxy.example.net:8080', 'de-fra.proxy.example.net:8080'];
  return a;
}

/** A refresh-only plan of STATE, as JSON. */
const planJson = planOf(STATE, { resource_drift: [] });

describe('planDrift', () => {
  it('reports changed attributes, hidden ones without their values, and out-of-band deletions', () => {
    const plan = parsePlanJson({
      resource_drift: [
        {
          address: 'proxyaccount_sub_account.alice',
          type: 'proxyaccount_sub_account',
          mode: 'managed',
          change: {
            actions: ['update'],
            before: { username: 'alice', monthly_limit: 50, password: 'old-pw' },
            after: { username: 'alice', monthly_limit: 75, password: 'new-pw' },
          },
        },
        {
          address: 'proxyaccount_authorized_ip.office',
          type: 'proxyaccount_authorized_ip',
          mode: 'managed',
          change: { actions: ['delete'], before: { ip: '203.0.113.7' }, after: null },
        },
      ],
    });
    const { changed, deleted } = planDrift(plan);
    expect(changed).toEqual([
      { address: 'proxyaccount_sub_account.alice', attribute: 'monthly_limit', recorded: 50, live: 75 },
      { address: 'proxyaccount_sub_account.alice', attribute: 'password', recorded: '(sensitive)', live: '(sensitive)' },
    ]);
    expect(deleted).toEqual([{ address: 'proxyaccount_authorized_ip.office', type: 'proxyaccount_authorized_ip' }]);
    expect(JSON.stringify(changed)).not.toMatch(/old-pw|new-pw/);
  });
});

describe('the unmanaged-object scan', () => {
  it('finds what no resource manages, in every account the state names, each collection read once', async () => {
    const fake = account();
    const store = fake.store();
    const scan = await scanUnmanaged(store, STATE, SILENT_PROGRESS, NOW);
    expect(scan.unmanaged).toEqual([
      { account: 'alice', kind: 'ip', value: '192.0.2.99', label: 'who added this?' },
      { account: 'alice', kind: 'hostname', value: 'extra.example.com', label: '' },
      { account: 'alice', kind: 'token', value: '8', label: 'laptop' },
      { account: '(parent)', kind: 'proxy', value: 'de-fra.proxy.example.net:8080', label: '' },
    ]);
    expect(scan.leftovers).toEqual([{ account: 'alice', kind: 'token', value: '9', label: `${EPHEMERAL_TOKEN_PREFIX}run-1` }]);
    expect(scan.expired).toEqual([{ account: 'alice', token_id: 7, label: 'deploy', expired_at: '2026-05-01T00:00:00.000Z', managed: true }]);
    const reads = fake.requests.filter((r) => !r.startsWith('sub-account'));
    expect(new Set(reads).size).toBe(reads.length);
    expect(reads.sort()).toEqual(['hostnames (parent)', 'hostnames alice', 'ips (parent)', 'ips alice', 'tokens (parent)', 'tokens alice']);
  });

  it('shows a second spelling of a managed hostname, which the API keeps as an entry of its own', async () => {
    const state = [
      resource('proxyaccount_authorized_hostname', 'ci', { username: null, domain: 'ci.example.com' }),
      resource('proxyaccount_authorized_hostnames', 'alice', { username: 'alice', domains: ['Build.example.com'] }),
      resource('proxyaccount_sub_account', 'alice', { username: 'alice' }),
    ];
    const fake = new FakeAccount().sub('alice', { hostnames: ['build.example.com', 'BUILD.EXAMPLE.COM'] });
    fake.lists('').hostnames.push('CI.EXAMPLE.COM', 'ci.example.com');
    const scan = await scanUnmanaged(fake.store(), state, SILENT_PROGRESS, NOW);
    // The parent's: the state's own spelling is the managed one. Alice's: neither spelling is the
    // state's, so the first listed stands for the managed name and the other is shown.
    expect(scan.unmanaged).toEqual([
      { account: '(parent)', kind: 'hostname', value: 'CI.EXAMPLE.COM', label: '' },
      { account: 'alice', kind: 'hostname', value: 'BUILD.EXAMPLE.COM', label: '' },
    ]);
  });

  it('does not scan a sub-account the API does not find, and says so instead of claiming the scan', async () => {
    const fake = new FakeAccount();
    const { progress, lines } = recording();
    const scan = await scanUnmanaged(fake.store(), [resource('proxyaccount_sub_account', 'gone', { username: 'gone' })], progress, NOW);
    expect(scan.unmanaged).toEqual([]);
    expect(scan.missing).toEqual(['gone']);
    expect(fake.requests).not.toContain('ips gone');
    expect(lines).toEqual([
      'note gone: not found, not scanned',
      'start 4',
      'step (parent) IPs',
      'step (parent) hostnames',
      'step (parent) tokens',
      'step (parent) proxies',
    ]);
  });

  it('lists the rest of the account when its plan has no bearer tokens (402), and says the tokens could not be listed', async () => {
    const fake = new FakeAccount().planWithoutTokens();
    fake.lists('').ips.push({ ip: '192.0.2.11', label: '' });
    const scan = await scanUnmanaged(fake.store(), [], SILENT_PROGRESS, NOW);
    expect(scan.unmanaged).toEqual([{ account: '(parent)', kind: 'ip', value: '192.0.2.11', label: '' }]);
    expect(scan.incomplete).toEqual([
      expect.stringMatching(/^the tokens of the parent account could not be listed \(.*402 Payment Required.*\): .*plan has no bearer tokens/),
    ]);
    expect(fake.requests).toContain('ips (parent)');
  });

  it('judges expiry on the API clock, not the runner clock', async () => {
    const now = Date.now();
    const day = 86_400_000;
    const fake = new FakeAccount();
    // Expires tomorrow by the runner's clock; the API's clock is three days ahead (its answers' Date).
    fake.lists('').tokens.push(token(1, 'soon', undefined, new Date(now + day)));
    fake.apiNow = now + 3 * day;
    const later = await scanUnmanaged(fake.store(), [], SILENT_PROGRESS);
    expect(later.expired.map((t) => t.token_id)).toEqual([1]);
    // The runner's clock ahead: a token the API still honours is not listed as expired.
    const behind = new FakeAccount();
    behind.lists('').tokens.push(token(2, 'working', undefined, new Date(now - day)));
    behind.apiNow = now - 2 * day;
    expect((await scanUnmanaged(behind.store(), [], SILENT_PROGRESS)).expired).toEqual([]);
  });

  it('lists an expired managed token whose label the state marks sensitive without its label', async () => {
    // `label = var.name` with a sensitive variable: the label is left out of the values, and marked.
    const state: StateResource[] = [{ ...resource('proxyaccount_bearer_token', 'ci', { token_id: 5 }), sensitive: new Set(['label']) }];
    const fake = new FakeAccount();
    fake
      .lists('')
      .tokens.push(token(5, 'secret-label', undefined, new Date('2026-05-01T00:00:00Z')), token(6, 'other', undefined, new Date('2026-05-01T00:00:00Z')));
    const scan = await scanUnmanaged(fake.store(), state, SILENT_PROGRESS, NOW);
    expect(scan.expired.map((t) => [t.token_id, t.label, t.managed])).toEqual([
      [5, '(sensitive)', true],
      [6, 'other', false],
    ]);
  });

  it('refuses an owning account the state marks sensitive, rather than scanning the wrong account or none', async () => {
    // `username = var.member` with a sensitive variable: the state's JSON carries the name with `sensitive_values` marking it.
    const plan = parsePlanJson({
      resource_drift: [],
      prior_state: {
        values: {
          root_module: {
            resources: [
              {
                address: 'proxyaccount_sub_account.m',
                type: 'proxyaccount_sub_account',
                mode: 'managed',
                values: { username: 'hank' },
                sensitive_values: { username: true },
              },
              {
                address: 'proxyaccount_authorized_ip.m',
                type: 'proxyaccount_authorized_ip',
                mode: 'managed',
                values: { username: 'hank', ip: '192.0.2.99' },
                sensitive_values: { username: true },
              },
            ],
          },
        },
      },
    });
    const fake = account();
    await expect(driftOfPlan(plan, { store: fake.store(), now: NOW })).rejects.toThrow(
      /proxyaccount_sub_account\.m: its username is marked sensitive in the state.*nonsensitive\(\).*--no-scan/,
    );
    expect(fake.requests).toEqual([]);
    // Without the scan nothing needs the name.
    await expect(driftOfPlan(plan, { store: fake.store(), scan: false })).resolves.toEqual(expect.objectContaining({ drifted: false }));
  });

  it('refuses a type of this provider the catalogue lacks, rather than calling its objects unmanaged', () => {
    expect(() => managedByAccount([resource('proxyaccount_blocked_ip', 'x', { ip: '192.0.2.99' })])).toThrow(
      /proxyaccount_blocked_ip has no descriptor in the resource-type catalogue/,
    );
  });
});

describe('driftOfPlan and runDrift', () => {
  it('reports drift when the scan finds unmanaged objects, and states its limits', async () => {
    const report = await driftOfPlan(parsePlanJson(planJson), { store: account().store(), now: NOW });
    expect(report.drifted).toBe(true);
    expect(report.unmanaged).toHaveLength(4);
    expect(report.limits.join(' ')).toMatch(/cannot list sub-accounts/);
  });

  it('with scan off reads no account and says the scan did not run', async () => {
    const fake = account();
    const report = await driftOfPlan(parsePlanJson(planJson), { store: fake.store(), scan: false });
    expect(report.drifted).toBe(false);
    expect(fake.requests).toEqual([]);
    expect(report.limits[0]).toMatch(/scan did not run/);
  });

  it('reports a sub-account the refreshed state holds but the scan does not find (a 404 given by mistake) as deleted: never a clean run', async () => {
    const fake = new FlakyAccount('alice');
    fake.sub('alice', { ips: [{ ip: '203.0.113.7', label: 'office' }], hostnames: ['ci.example.com', 'evil.example.com'], tokens: [token(7, 'deploy')] });
    fake.lists('').ips.push({ ip: '198.51.100.1', label: '' });
    fake.proxies = ['us-ny.proxy.example.net:8080'];
    const { progress, lines } = recording();
    const report = await driftOfPlan(parsePlanJson(planJson), { store: fake.store(), now: NOW, progress, json: planJson });
    expect(report.drifted).toBe(true);
    expect(report.deleted[0]).toEqual({
      address: 'proxyaccount_sub_account.alice',
      type: 'proxyaccount_sub_account',
      reason: expect.stringMatching(/^sub-account 'alice' was not found when the account was scanned \(deleted after the plan, or a 404 given by mistake\)/),
    });
    expect(report.deleted.slice(1).map((d) => d.address)).toEqual([
      'proxyaccount_authorized_ip.office',
      'proxyaccount_authorized_hostnames.alice',
      'proxyaccount_bearer_token.deploy',
    ]);
    // The progress never claims a scan of alice.
    expect(lines.filter((l) => l.includes('alice'))).toEqual(['note alice: not found, not scanned']);
    expect(driftMarkdown(report)).toContain('**The account differs from the Terraform state.**');
  });

  it("does not repeat a sub-account whose deletion the plan's own drift reports", async () => {
    const plan = parsePlanJson({
      resource_drift: [
        {
          address: 'proxyaccount_sub_account.alice',
          type: 'proxyaccount_sub_account',
          mode: 'managed',
          change: { actions: ['delete'], before: { username: 'alice' }, after: null },
        },
      ],
      prior_state: priorState([resource('proxyaccount_authorized_ip', 'office', { username: 'alice', ip: '203.0.113.7' })]),
    });
    const report = await driftOfPlan(plan, { store: new FakeAccount().store(), now: NOW });
    expect(report.deleted).toEqual([{ address: 'proxyaccount_sub_account.alice', type: 'proxyaccount_sub_account' }]);
  });

  it('counts the changes a normal plan still makes (the code not applied yet) as drift, in words', async () => {
    const plan = parsePlanJson({
      resource_changes: [
        {
          address: 'proxyaccount_authorized_ips.parent',
          type: 'proxyaccount_authorized_ips',
          mode: 'managed',
          change: {
            actions: ['update'],
            before: {
              entries: [
                { ip: '198.51.100.1', label: null },
                { ip: '192.0.2.77', label: 'contractor' },
              ],
            },
            after: { entries: [{ ip: '198.51.100.1', label: null }] },
          },
        },
        {
          address: 'proxyaccount_authorized_proxy.ny',
          type: 'proxyaccount_authorized_proxy',
          mode: 'managed',
          change: { actions: ['no-op'], before: {}, after: {} },
        },
        {
          address: 'terraform_data.other',
          type: 'terraform_data',
          mode: 'managed',
          change: { actions: ['update'], before: { input: 'a' }, after: { input: 'b' } },
        },
      ],
      prior_state: priorState(STATE),
    });
    const report = await driftOfPlan(plan, { scan: false });
    expect(report).toEqual(expect.objectContaining({ drifted: true, compared_with: 'code' }));
    expect(report.pending).toEqual([
      {
        address: 'proxyaccount_authorized_ips.parent',
        type: 'proxyaccount_authorized_ips',
        kind: 'update',
        description: expect.stringContaining('192.0.2.77'),
        deferred: false,
      },
    ]);
    const md = driftMarkdown(report);
    expect(md).toContain('### Not applied: the code differs from the account (1 change)');
    expect(md).toContain('**The account differs from the code.**');
  });

  it('says a refresh-only plan was compared with the state only, never that the account matches the code', async () => {
    const state = [resource('proxyaccount_authorized_ip', 'office', { ip: '203.0.113.7' })];
    const fake = new FakeAccount();
    fake.lists('').ips.push({ ip: '203.0.113.7', label: '' });
    const json = planOf(state, { planned_values: {} });
    const report = await driftOfPlan(parsePlanJson(json), { store: fake.store(), now: NOW, json, plannedHere: true });
    expect(report).toEqual(expect.objectContaining({ drifted: false, complete: true, compared_with: 'state', pending: [] }));
    const md = driftMarkdown(report);
    expect(md).toContain('**No drift: the account matches the Terraform state. Changes of the code not yet applied were not checked.**');
    expect(md).not.toContain('matches the code');
  });

  it("a list whose entries the state marks sensitive: its account's collection is not listed (no false drift, no hidden value shown), and the report says so", async () => {
    // `entries = [{ ip = "198.51.100.24", label = var.note }]` with a sensitive variable: the state's
    // JSON (terraform 1.11.4) carries the entries in clear and marks the whole set sensitive.
    const list = {
      address: 'proxyaccount_authorized_ips.parent',
      mode: 'managed',
      type: 'proxyaccount_authorized_ips',
      name: 'parent',
      values: {
        entries: [
          { ip: '198.51.100.24', label: 'secret-note' },
          { ip: '203.0.113.7', label: 'office' },
        ],
        id: '_self',
        removed_entries: ['192.0.2.77 (oob)'],
        username: null,
      },
      sensitive_values: { entries: true, removed_entries: [false] },
    };
    const hostnames = {
      address: 'proxyaccount_authorized_hostname.ci',
      mode: 'managed',
      type: 'proxyaccount_authorized_hostname',
      name: 'ci',
      values: { domain: 'ci.example.com' },
    };
    const configured = [list, hostnames].map((r) => ({ address: r.address, mode: 'managed', type: r.type, name: r.name, provider_config_key: 'proxyaccount' }));
    const json = {
      resource_changes: [],
      configuration: { provider_config: { proxyaccount: { name: 'proxyaccount' } }, root_module: { resources: configured } },
      prior_state: { values: { root_module: { resources: [list, hostnames] } } },
    };
    const fake = new FakeAccount();
    fake.lists('').ips.push({ ip: '198.51.100.24', label: 'secret-note' }, { ip: '203.0.113.7', label: 'office' });
    fake.lists('').hostnames.push('ci.example.com', 'stray.example.com');
    const report = await driftOfPlan(parsePlanJson(json), { store: fake.store(), now: NOW, json, plannedHere: true });
    // The other collections are scanned as ever.
    expect(report.unmanaged).toEqual([{ account: '(parent)', kind: 'hostname', value: 'stray.example.com', label: '' }]);
    expect(report.complete).toBe(false);
    expect(report.incomplete).toEqual([
      'the IPs of the parent account were not checked for objects no resource manages: the state marks the entries of proxyaccount_authorized_ips.parent sensitive, ' +
        "so which of the account's IPs it manages cannot be read without showing them; an authoritative list still shows IPs added outside Terraform as its own drift, or as a pending change",
    ]);
    for (const out of [driftJson(report), driftMarkdown(report)]) expect(out).not.toMatch(/secret-note|198\.51\.100\.24/);
    expect(fake.requests).not.toContain('ips (parent)');
  });

  it('a plan whose planning failed (given with --plan) is reported for what it holds, and incomplete: never a clean report', async () => {
    // Real: a new IP's precondition failed; terraform saved the plan, marked errored, without it.
    const file = path.join(__dirname, 'fixtures', 'errored.plan.json');
    const report = await runDrift({ dir: __dirname, plan: file, scan: false });
    expect(report).toEqual(expect.objectContaining({ drifted: false, complete: false, compared_with: 'code' }));
    expect(report.incomplete).toEqual([
      expect.stringMatching(/^the plan is incomplete because planning failed \(Terraform marks it errored\).*run drift with --dir/),
    ]);
    expect(driftMarkdown(report)).toContain('**No drift found, but the check is incomplete (see "Not checked"): this is not a clean report.**');
  });

  it('a plan Terraform marks incomplete (-target) leaves the rest unchecked, and says so', async () => {
    const file = path.join(__dirname, 'fixtures', 'target.plan.json');
    const report = await runDrift({ dir: __dirname, plan: file, scan: false });
    expect(report.pending.map((p) => p.address)).toEqual(['proxyaccount_authorized_ip.newone']);
    expect(report.complete).toBe(false);
    expect(report.incomplete).toEqual([
      expect.stringMatching(/^Terraform marks the plan incomplete \(made with -target, or deferring changes to a later plan\)/),
    ]);
  });

  it('an incomplete scan (the tokens could not be listed) is not a clean report', async () => {
    const state = [resource('proxyaccount_authorized_ip', 'office', { ip: '203.0.113.7' })];
    const fake = new FakeAccount().planWithoutTokens();
    fake.lists('').ips.push({ ip: '203.0.113.7', label: '' });
    const json = planOf(state, { resource_changes: [] });
    const report = await driftOfPlan(parsePlanJson(json), { store: fake.store(), now: NOW, json, plannedHere: true, comparesWithCode: true });
    expect(report).toEqual(expect.objectContaining({ drifted: false, complete: false }));
    expect(report.incomplete).toEqual([expect.stringContaining('the tokens of the parent account could not be listed')]);
    const md = driftMarkdown(report);
    expect(md).toContain('**No drift found, but the check is incomplete (see "Not checked"): this is not a clean report.**');
    expect(md).toMatch(/### Not checked \(1\)\n\n- the tokens of the parent account could not be listed/);
  });
});

describe('runDrift and terraform', () => {
  let dir: string;
  let bin: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'drift-test-'));
    bin = mkdtempSync(path.join(os.tmpdir(), 'drift-test-bin-'));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
    rmSync(bin, { recursive: true, force: true });
  });

  /** A stand-in for terraform: logs its arguments, fails `plan` of the given kinds with `error`, and shows `json` for any plan. */
  function fakeTerraform(opts: { fails: Array<'normal' | 'refresh-only'>; error?: string; json?: unknown }): string {
    const script = path.join(bin, 'terraform');
    writeFileSync(path.join(bin, 'plan.json'), JSON.stringify(opts.json ?? { resource_changes: [], prior_state: priorState([]) }));
    writeFileSync(path.join(bin, 'error.txt'), opts.error ?? '╷\n│ Error: the plan failed\n╵\n');
    const failing = (kind: string): string => (opts.fails.includes(kind as 'normal') ? `cat '${bin}/error.txt' >&2; exit 1` : ':');
    writeFileSync(
      script,
      `#!/bin/sh\necho "$@" >> '${bin}/log'\ncase "$1" in\n` +
        'init) mkdir -p .terraform;;\n' +
        `plan) case " $* " in *" -refresh-only "*) ${failing('refresh-only')};; *) ${failing('normal')};; esac\n` +
        '  for a in "$@"; do case "$a" in -out=*) : > "$(echo "$a" | cut -c6-)";; esac; done;;\n' +
        `show) cat '${bin}/plan.json';;\nesac\nexit 0\n`,
    );
    chmodSync(script, 0o755);
    return script;
  }

  const calls = (): string[] => readFileSync(path.join(bin, 'log'), 'utf8').trim().split('\n');

  it('reads a given plan file without running terraform', async () => {
    writeFileSync(path.join(dir, 'plan.json'), JSON.stringify(planJson));
    const report = await runDrift({ dir, plan: path.join(dir, 'plan.json'), store: account().store(), now: NOW, terraform: '/nonexistent/terraform' });
    expect(report.unmanaged.map((u) => u.value)).toContain('192.0.2.99');
  });

  it('refuses a --dir that does not exist, or is not a directory, before terraform runs', async () => {
    const terraform = fakeTerraform({ fails: [] });
    await expect(runDrift({ dir: path.join(dir, 'nope'), terraform, scan: false })).rejects.toThrow(/^--dir .*nope: no such directory$/);
    writeFileSync(path.join(dir, 'main.tf'), '');
    await expect(runDrift({ dir: path.join(dir, 'main.tf'), terraform, scan: false })).rejects.toThrow(/^--dir .*main\.tf: not a directory$/);
    expect(existsSync(path.join(bin, 'log'))).toBe(false);
  });

  it('runs a normal plan, whose pending changes count as drift', async () => {
    const update = {
      address: 'proxyaccount_authorized_hostname.ci',
      type: 'proxyaccount_authorized_hostname',
      mode: 'managed',
      change: { actions: ['delete'], before: { domain: 'ci.example.com' }, after: null },
    };
    const terraform = fakeTerraform({ fails: [], json: { resource_changes: [update], prior_state: priorState([]) } });
    const report = await runDrift({ dir, terraform, scan: false });
    expect(report).toEqual(expect.objectContaining({ drifted: true, compared_with: 'code', complete: true }));
    expect(report.pending.map((p) => p.address)).toEqual(['proxyaccount_authorized_hostname.ci']);
    expect(calls().filter((c) => c.startsWith('plan'))).toEqual([
      expect.stringMatching(/^plan -refresh=true -destroy=false -detailed-exitcode=false -refresh-only=false -input=false -no-color -out=\S+$/),
    ]);
  });

  it('makes its plans normal, refreshing ones whatever TF_CLI_ARGS_plan says: its own flags come after them, and win (findings: -refresh=false made every run clean; -destroy hid the drift; -detailed-exitcode failed every run with changes)', async () => {
    // Terraform puts TF_CLI_ARGS and TF_CLI_ARGS_plan before the command line's flags, and the last
    // of a flag wins (checked with terraform 1.11.4): so drift's own flags must be on each plan's
    // command line, for the normal plan and for the refresh-only one it falls back to (which
    // terraform refuses beside an inherited -refresh=false).
    const terraform = fakeTerraform({ fails: ['normal'], json: planJson });
    await runDrift({ dir, terraform, scan: false });
    const plans = calls().filter((c) => c.startsWith('plan'));
    expect(plans).toEqual([
      expect.stringMatching(/^plan -refresh=true -destroy=false -detailed-exitcode=false -refresh-only=false -input=false /),
      expect.stringMatching(/^plan -refresh-only -refresh=true -destroy=false -detailed-exitcode=false -input=false /),
    ]);
  });

  it('falls back to a refresh-only plan when the code cannot be planned: the drift is still reported, the report incomplete', async () => {
    const terraform = fakeTerraform({
      fails: ['normal'],
      error: '╷\n│ Error: Expiry date not in the future\n│\n│ expires_at 2001-01-01 is not after today\n╵\n',
      json: planJson,
    });
    const report = await runDrift({ dir, terraform, store: account().store(), now: NOW });
    expect(report).toEqual(expect.objectContaining({ drifted: true, complete: false, compared_with: 'state' }));
    expect(report.unmanaged.map((u) => u.value)).toContain('192.0.2.99');
    expect(report.incomplete).toEqual([
      expect.stringMatching(/^the code could not be planned \(`terraform plan` failed: Error: Expiry date not in the future\)/),
    ]);
    expect(
      calls()
        .filter((c) => c.startsWith('plan'))
        .map((c) => / -refresh-only( |$)/.test(c)),
    ).toEqual([false, true]);
  });

  it("keeps terraform's whole diagnostic when the plans fail: the line naming the 401 is not cut", async () => {
    // A stand-in for terraform whose plans fail with a long diagnostic, as a provider's 401 does.
    const filler = Array.from({ length: 30 }, (_, i) => `│ advice line ${i + 1} of a long explanation that terraform wraps`).join('\n');
    const terraform = fakeTerraform({
      fails: ['normal', 'refresh-only'],
      error: `╷\n│ Error: Unable to read sub-account\n│\n│ GET /api/sub/alice/ failed with 401 Unauthorized: the credentials were refused.\n${filler}\n╵\n`,
    });
    const err = await runDrift({ dir, terraform, scan: false }).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    // The first plan's failure (a refused credential's message comes from the first run), and that the second failed too.
    expect(err?.message).toMatch(
      /^`terraform plan -refresh=true -destroy=false -detailed-exitcode=false -refresh-only=false -input=false -no-color -out=\S+` in .* exited 1:/,
    );
    expect(err?.message).toContain('│ Error: Unable to read sub-account');
    expect(err?.message).toContain('GET /api/sub/alice/ failed with 401 Unauthorized: the credentials were refused.');
    expect(err?.message).toContain('advice line 30 of a long explanation that terraform wraps');
    expect(err?.message).toMatch(/\(then `terraform plan -refresh-only` failed too: Error: Unable to read sub-account\)$/);
  });
});
