// export's own unit tests: the live account read through the store (each account once, a missing
// sub-account named), and written as HCL whose every resource has its import block with the
// catalogue's import ID (`alice/203.0.113.7`, `_self`, `alice/42`), in both list styles, and whose
// children of an exported sub-account name it by reference.
import { type LiveAccount, resourceName, toHcl } from '../../src/gitops/export';
import { toRoster } from '../../src/gitops/export-roster';
import { exportAccount } from '../../src/gitops/use-cases';
import { ForbiddenError } from '../../src/sdk';
import { FakeAccount, token } from './fake-account';

function live(): LiveAccount {
  return {
    accounts: [
      { username: null, details: undefined, ips: [{ ip: '198.51.100.9', label: 'vpn' }], hostnames: ['parent.example.com'], tokens: [] },
      {
        username: 'alice',
        details: {
          username: 'alice',
          active: false,
          monthlyBandwidth: 3,
          monthlyBandwidthLimit: 50,
          totalBandwidth: 3,
          totalBandwidthLimit: 0,
          email: 'a@example.com',
        },
        ips: [{ ip: '203.0.113.7', label: '' }],
        hostnames: ['ci.example.com'],
        tokens: [token(42, 'deploy', new Date('2026-01-01T00:00:00Z'), new Date('2027-02-03T00:00:00Z'))],
      },
    ],
    proxies: ['us-ny.proxy.example.net:8080'],
  };
}

/** The `to` and `id` of every import block. */
function importsOf(text: string): Array<[string, string]> {
  return [...text.matchAll(/to\s+= (\S+)\n\s+id\s+= "([^"]*)"/g)].map((m) => [m[1]!, m[2]!]);
}

/** The `username` each resource of account.tf is written with, by address (absent when it has none). */
function usernamesOf(tf: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of tf.matchAll(/^resource "(\S+)" "(\S+)" \{\n([\s\S]*?)\n\}/gm)) {
    const username = /^ {2}username\s+= (.+)$/m.exec(m[3]!);
    if (username !== null) out[`${m[1]}.${m[2]}`] = username[1]!;
  }
  return out;
}

describe('toHcl', () => {
  it('per entry: one resource per object, each imported by its catalogue ID', () => {
    const files = toHcl(live(), 'per-entry');
    expect(importsOf(files['imports.tf'])).toEqual([
      ['proxyaccount_authorized_ip.self_ip_198_51_100_9', '198.51.100.9'],
      ['proxyaccount_authorized_hostname.self_host_parent_example_com', 'parent.example.com'],
      ['proxyaccount_authorized_proxy.proxy_us_ny_proxy_example_net_8080', 'us-ny.proxy.example.net:8080'],
      ['proxyaccount_sub_account.alice', 'alice'],
      ['proxyaccount_authorized_ip.alice_ip_203_0_113_7', 'alice/203.0.113.7'],
      ['proxyaccount_authorized_hostname.alice_host_ci_example_com', 'alice/ci.example.com'],
      ['proxyaccount_bearer_token.alice_token_42', 'alice/42'],
    ]);
    const tf = files['account.tf'];
    expect(tf).toContain('resource "proxyaccount_sub_account" "alice" {');
    expect(tf).toMatch(/monthly_limit = 50\n {2}total_limit {3}= 0\n {2}active {8}= false/);
    expect(tf).toMatch(/ip {4}= "198\.51\.100\.9"\n {2}label = "vpn"\n/);
    expect(tf).toMatch(/expires_at = "2027-02-03"/);
    expect(tf).toContain('The password cannot be read back');
    expect(tf).not.toContain('proxyaccount_authorized_ips');
  });

  it('authoritative: one list per account, imported by "_self" or the username', () => {
    const files = toHcl(live(), 'authoritative');
    expect(importsOf(files['imports.tf'])).toEqual([
      ['proxyaccount_authorized_ips.self_ips', '_self'],
      ['proxyaccount_authorized_hostnames.self_hostnames', '_self'],
      ['proxyaccount_authorized_proxies.proxies', '_self'],
      ['proxyaccount_sub_account.alice', 'alice'],
      ['proxyaccount_authorized_ips.alice_ips', 'alice'],
      ['proxyaccount_authorized_hostnames.alice_hostnames', 'alice'],
      ['proxyaccount_bearer_token.alice_token_42', 'alice/42'],
    ]);
    expect(files['account.tf']).toContain('  entries = [\n    { ip = "198.51.100.9", label = "vpn" },\n  ]');
    expect(files['account.tf']).toContain('  entries = [\n    { ip = "203.0.113.7", label = null },\n  ]');
  });

  it.each(['per-entry', 'authoritative'] as const)(
    '%s: the children of an exported sub-account name it by reference, so renaming it replaces them into the renamed one',
    (lists) => {
      const files = toHcl(live(), lists);
      const ref = 'proxyaccount_sub_account.alice.username';
      const children =
        lists === 'per-entry'
          ? ['proxyaccount_authorized_ip.alice_ip_203_0_113_7', 'proxyaccount_authorized_hostname.alice_host_ci_example_com']
          : ['proxyaccount_authorized_ips.alice_ips', 'proxyaccount_authorized_hostnames.alice_hostnames'];
      expect(usernamesOf(files['account.tf'])).toEqual({
        'proxyaccount_sub_account.alice': '"alice"',
        ...Object.fromEntries(children.map((c) => [c, ref])),
        'proxyaccount_bearer_token.alice_token_42': ref,
      });
      // The import IDs stay literal: they name the objects as they are now.
      expect(importsOf(files['imports.tf']).filter(([to]) => to.startsWith('proxyaccount_bearer_token.'))).toEqual([
        ['proxyaccount_bearer_token.alice_token_42', 'alice/42'],
      ]);
    },
  );

  it("refers to the account's own block when names fold together, and keeps the literal for a sub-account not exported", () => {
    const l = live();
    const sub = (username: string) => ({ ...l.accounts[1]!, username, details: { ...l.accounts[1]!.details!, username }, hostnames: [], tokens: [] });
    const unexported = { ...sub('carol'), details: undefined };
    const files = toHcl({ accounts: [sub('lo.a'), sub('lo-a'), unexported], proxies: [] }, 'per-entry');
    expect(usernamesOf(files['account.tf'])).toEqual({
      'proxyaccount_sub_account.lo_a': '"lo.a"',
      'proxyaccount_authorized_ip.lo_a_ip_203_0_113_7': 'proxyaccount_sub_account.lo_a.username',
      'proxyaccount_sub_account.lo_a_2': '"lo-a"',
      'proxyaccount_authorized_ip.lo_a_ip_203_0_113_7_2': 'proxyaccount_sub_account.lo_a_2.username',
      'proxyaccount_authorized_ip.carol_ip_203_0_113_7': '"carol"',
    });
  });

  it('says in imports.tf to delete it after the adopting apply, since a kept import block fails the plan of removing its resource', () => {
    const files = toHcl(live(), 'per-entry');
    expect(files['imports.tf']).toContain(
      '# Once the apply has imported everything, delete this file: a kept import block makes removing its resource a plan error.\n',
    );
    expect(files['account.tf']).not.toContain('delete this file');
  });

  it('gives objects whose names fold to the same one a number each, so every object is written once', () => {
    const l = live();
    const sub = (username: string) => ({ ...l.accounts[1]!, username, details: { ...l.accounts[1]!.details!, username }, ips: [], tokens: [], hostnames: [] });
    const parent = { ...l.accounts[0]!, ips: [], hostnames: ['my-app.example.com', 'my.app.example.com'] };
    const files = toHcl({ accounts: [parent, sub('lo.a'), sub('lo-a')], proxies: [] }, 'per-entry');
    expect(importsOf(files['imports.tf'])).toEqual([
      ['proxyaccount_authorized_hostname.self_host_my_app_example_com', 'my-app.example.com'],
      ['proxyaccount_authorized_hostname.self_host_my_app_example_com_2', 'my.app.example.com'],
      ['proxyaccount_sub_account.lo_a', 'lo.a'],
      ['proxyaccount_sub_account.lo_a_2', 'lo-a'],
    ]);
    const names = [...files['account.tf'].matchAll(/^resource "(\S+)" "(\S+)"/gm)].map((m) => `${m[1]}.${m[2]}`);
    expect(new Set(names).size).toBe(names.length);
  });

  it("leaves the ephemeral resource's leftover tokens out: adopted, tokens prune would delete a managed token", () => {
    const l = live();
    const alice = { ...l.accounts[1]!, tokens: [...l.accounts[1]!.tokens, token(43, 'tf-ephemeral:runner', new Date('2026-01-01T00:00:00Z'))] };
    const files = toHcl({ ...l, accounts: [l.accounts[0]!, alice] }, 'per-entry');
    expect(importsOf(files['imports.tf']).filter(([to]) => to.startsWith('proxyaccount_bearer_token.'))).toEqual([
      ['proxyaccount_bearer_token.alice_token_42', 'alice/42'],
    ]);
    expect(files['account.tf']).not.toContain('tf-ephemeral:');
    // Left out, but said: on the command's stderr and at the top of account.tf.
    const line = "token 43 of sub-account 'alice': a leftover of the ephemeral resource; `proxyaccount tokens prune` deletes it";
    expect(files.skipped).toEqual([line]);
    expect(files['account.tf']).toContain(`# Not exported (each line says why):\n# - ${line}\n`);
  });

  it('authoritative: stops naming hostnames that differ only in case, which the provider refuses in one list', () => {
    const l = live();
    const parent = { ...l.accounts[0]!, hostnames: ['CI.Example.COM', 'ci.example.com', 'ok.example.com'] };
    const twins = { accounts: [parent, l.accounts[1]!], proxies: l.proxies };
    expect(() => toHcl(twins, 'authoritative')).toThrow(
      '--lists authoritative cannot write the hostname list of the parent account: it holds "CI.Example.COM" and "ci.example.com", ' +
        'spellings the provider takes for one hostname (host names are case-insensitive), so it refuses the list. ' +
        'Export with --lists per-entry (it imports every spelling), or remove all but one spelling from the account',
    );
    // Per entry, each spelling is its own resource: both are imported.
    expect(importsOf(toHcl(twins, 'per-entry')['imports.tf']).filter(([to]) => to.startsWith('proxyaccount_authorized_hostname.'))).toEqual([
      ['proxyaccount_authorized_hostname.self_host_ci_example_com', 'CI.Example.COM'],
      ['proxyaccount_authorized_hostname.self_host_ci_example_com_2', 'ci.example.com'],
      ['proxyaccount_authorized_hostname.self_host_ok_example_com', 'ok.example.com'],
      ['proxyaccount_authorized_hostname.alice_host_ci_example_com', 'alice/ci.example.com'],
    ]);
  });

  it('quotes what HCL would interpolate, and names resources validly', () => {
    const l = live();
    const files = toHcl({ ...l, accounts: [{ ...l.accounts[0]!, ips: [{ ip: '198.51.100.9', label: ['$', '{var.x} %{y}'].join('') }] }] }, 'per-entry');
    expect(files['account.tf']).toContain('label = "$${var.x} %%{y}"');
    expect(resourceName('9lives', 'a.b')).toBe('x_9lives_a_b');
  });
});

describe('exportAccount', () => {
  it('reads the parent and each named sub-account once', async () => {
    const fake = new FakeAccount().sub('alice', { ips: [{ ip: '203.0.113.7', label: '' }] });
    fake.proxies = ['us-ny.proxy.example.net:8080'];
    const steps: string[] = [];
    const got = await exportAccount(['alice', 'alice'], { store: fake.store(), onStep: (s) => steps.push(s) });
    expect(got.accounts.map((a) => a.username)).toEqual([null, 'alice']);
    expect(got.accounts[1]!.ips).toEqual([{ ip: '203.0.113.7', label: '' }]);
    expect(got.proxies).toEqual(['us-ny.proxy.example.net:8080']);
    expect(steps).toEqual(['(parent)', 'alice', 'proxies']);
  });

  it('fails naming a sub-account that does not exist', async () => {
    await expect(exportAccount(['nobody'], { store: new FakeAccount().store() })).rejects.toThrow("the parent account has no sub-account 'nobody'");
  });

  it('on a plan without bearer tokens (402) exports the rest, and says in both formats that tokens may exist', async () => {
    const fake = new FakeAccount().sub('alice', { ips: [{ ip: '203.0.113.7', label: '' }] });
    fake.lists('').ips.push({ ip: '10.9.9.9', label: '' });
    fake.planWithoutTokens();
    const got = await exportAccount(['alice'], { store: fake.store() });
    expect(got.accounts.map((a) => [a.username, a.ips.length, a.tokensUnread !== undefined])).toEqual([
      [null, 1, true],
      ['alice', 1, true],
    ]);
    const unread = (who: string) =>
      `the tokens of ${who} could not be read: the API refused to list them (402 Payment Required: a plan without bearer tokens); tokens may exist, and none is adopted`;
    const lines = [unread('the parent account'), unread("sub-account 'alice'")];
    const hcl = toHcl(got, 'per-entry');
    expect(hcl.skipped).toEqual(lines);
    expect(hcl['account.tf']).toContain(`# - ${lines[0]}\n# - ${lines[1]}\n`);
    expect(importsOf(hcl['imports.tf']).map(([, id]) => id)).toEqual(['10.9.9.9', 'alice', 'alice/203.0.113.7']);
    const roster = toRoster(got, 'per-entry');
    expect(roster.skipped).toEqual(lines);
    expect(roster['roster.yaml']).toContain(`# - ${lines[0]}\n# - ${lines[1]}\n`);
  });

  it('fails on any other refusal of the token list', async () => {
    const fake = new FakeAccount();
    fake.tokenListError = () => new ForbiddenError({ method: 'GET', path: '/api/tokens/', operation: 'list tokens', status: 403, responseText: 'forbidden' });
    await expect(exportAccount([], { store: fake.store() })).rejects.toThrow(/403 Forbidden/);
  });
});
