// drift's own unit tests: attribute drift and out-of-band deletions from a refresh-only plan, the
// scan for objects nobody manages (each account and collection read once, through the store),
// expired tokens and ephemeral leftovers, the error for a type the catalogue lacks, and the
// runner keeping terraform's whole diagnostic when the plan fails.
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { EPHEMERAL_TOKEN_PREFIX } from '../../src/account';
import { managedByAccount, planDrift, scanUnmanaged } from '../../src/gitops/drift';
import { parsePlanJson, type StateResource } from '../../src/gitops/plan-json';
import { driftOfPlan, runDrift, SILENT_PROGRESS } from '../../src/gitops/use-cases';
import { FakeAccount, token } from './fake-account';

const NOW = Date.parse('2026-06-01T00:00:00Z');

function resource(type: string, name: string, values: Record<string, unknown>): StateResource {
  return { address: `${type}.${name}`, type, mode: 'managed', values, sensitive: new Set() };
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

  it('skips a sub-account deleted out of band (its deletion is drift already)', async () => {
    const fake = new FakeAccount();
    const scan = await scanUnmanaged(fake.store(), [resource('proxyaccount_sub_account', 'gone', { username: 'gone' })], SILENT_PROGRESS, NOW);
    expect(scan.unmanaged).toEqual([]);
    expect(fake.requests).not.toContain('ips gone');
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
  const planJson = {
    resource_drift: [],
    prior_state: { values: { root_module: { resources: STATE.map((r) => ({ address: r.address, type: r.type, mode: 'managed', values: r.values })) } } },
  };

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

  it('reads a given plan file without running terraform', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'drift-test-'));
    try {
      writeFileSync(path.join(dir, 'plan.json'), JSON.stringify(planJson));
      const report = await runDrift({ dir, plan: path.join(dir, 'plan.json'), store: account().store(), now: NOW, terraform: '/nonexistent/terraform' });
      expect(report.unmanaged.map((u) => u.value)).toContain('192.0.2.99');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("keeps terraform's whole diagnostic when the plan fails: the line naming the 401 is not cut", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'drift-test-'));
    try {
      // A stand-in for terraform whose plan fails with a long diagnostic, as a provider's 401 does.
      const filler = Array.from({ length: 30 }, (_, i) => `│ advice line ${i + 1} of a long explanation that terraform wraps`).join('\n');
      const fake = path.join(dir, 'terraform');
      writeFileSync(
        fake,
        `#!/bin/sh\nmkdir -p .terraform\ncase "$1" in plan) cat >&2 <<'EOF'\n╷\n│ Error: Unable to read sub-account\n│\n│ GET /api/sub/alice/ failed with 401 Unauthorized: the credentials were refused.\n${filler}\n╵\nEOF\nexit 1;; esac\nexit 0\n`,
      );
      chmodSync(fake, 0o755);
      const err = await runDrift({ dir, terraform: fake, scan: false }).then(
        () => undefined,
        (e: unknown) => e as Error,
      );
      expect(err?.message).toMatch(/`terraform plan -refresh-only .*` in .* exited 1:/);
      expect(err?.message).toContain('│ Error: Unable to read sub-account');
      expect(err?.message).toContain('GET /api/sub/alice/ failed with 401 Unauthorized: the credentials were refused.');
      expect(err?.message).toContain('advice line 30 of a long explanation that terraform wraps');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
