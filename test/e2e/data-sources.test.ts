// Every data source under the real terraform binary, in one workspace whose outputs expose what
// they read: values match the API, a second plan is empty, changed arguments read other objects,
// changes and deletions made outside Terraform show up in the next plan (exit 2, or an error on
// the argument's line for a sub-account that is gone), and reading never changes the account.
// A data source read after another provider configuration's write in the same run sees it, and
// a required argument set to null is refused at validation.
import { startAccount, type E2eAccount } from './helpers/account';
import { expectChanges, expectNoChanges } from './helpers/steps';
import { REQUIRED_PROVIDERS, type Workspace } from './helpers/terraform';

jest.setTimeout(120_000);

const SUB = 'e2e-dsub';
const SUB2 = 'e2e-dsub2';
let account: E2eAccount;
let ws: Workspace;

interface Args {
  subAccount: string;
  ipsOf?: string;
  hostnamesOf?: string;
  tokensOf?: string;
  pool: string;
}

function config(a: Args): string {
  const username = (u?: string): string => (u === undefined ? '' : `  username = ${JSON.stringify(u)}\n`);
  return `${REQUIRED_PROVIDERS}
data "proxyaccount_sub_account" "sub" {
  username = ${JSON.stringify(a.subAccount)}
}

data "proxyaccount_authorized_ips" "ips" {
${username(a.ipsOf)}}

data "proxyaccount_authorized_hostnames" "hostnames" {
${username(a.hostnamesOf)}}

data "proxyaccount_bearer_tokens" "tokens" {
${username(a.tokensOf)}}

data "proxyaccount_proxies" "proxies" {}

data "proxyaccount_geoips" "pool" {
  pool = ${JSON.stringify(a.pool)}
}

output "sub_account" { value = data.proxyaccount_sub_account.sub }
output "ips"         { value = data.proxyaccount_authorized_ips.ips }
output "hostnames"   { value = data.proxyaccount_authorized_hostnames.hostnames }
output "tokens"      { value = data.proxyaccount_bearer_tokens.tokens }
output "proxies"     { value = data.proxyaccount_proxies.proxies }
output "geoips"      { value = data.proxyaccount_geoips.pool }
`;
}

/** The outputs the API's current contents should produce, computed through the SDK. */
async function expected(a: Args): Promise<Record<string, unknown>> {
  const c = account.client;
  const target = (u?: string) => (u === undefined ? {} : { username: u });
  const sub = await c.subAccounts.get(a.subAccount);
  const ipNumber = (ip: string): number => ip.split('.').reduce((n, part) => n * 256 + Number(part), 0);
  const ips = (await c.ips.listWithLabels(target(a.ipsOf))).sort((x, y) => ipNumber(x.ip) - ipNumber(y.ip));
  const tokens = (await c.tokens.list(target(a.tokensOf))).sort((x, y) => x.id - y.id);
  const rfc3339 = (d: Date): string => d.toISOString().replace(/\.\d{3}Z$/, 'Z');
  return {
    sub_account: {
      username: a.subAccount,
      id: sub.username,
      active: sub.active,
      first_name: sub.firstName ?? null,
      last_name: sub.lastName ?? null,
      email: sub.email ?? null,
      monthly_limit: sub.monthlyBandwidthLimit,
      total_limit: sub.totalBandwidthLimit,
      monthly_bandwidth: sub.monthlyBandwidth,
      total_bandwidth: sub.totalBandwidth,
    },
    ips: { username: a.ipsOf ?? null, id: a.ipsOf ?? '_self', entries: ips.map((e) => ({ ip: e.ip, label: e.label === '' ? null : e.label })) },
    hostnames: { username: a.hostnamesOf ?? null, id: a.hostnamesOf ?? '_self', domains: (await c.hostnames.list(target(a.hostnamesOf))).sort() },
    tokens: {
      username: a.tokensOf ?? null,
      id: a.tokensOf ?? '_self',
      tokens: tokens.map((t) => ({
        token_id: t.id,
        label: t.label === '' ? null : t.label,
        active: t.isActive,
        expires_at: t.expiresAt === null ? null : rfc3339(t.expiresAt),
        created_at: rfc3339(t.createdAt),
      })),
    },
    proxies: { id: '_self', proxies: (await c.proxies.list()).sort() },
    geoips: { id: a.pool, pool: a.pool, counts: a.pool === 'world' ? await c.geoIps.world() : await c.geoIps.open() },
  };
}

const FIRST: Args = { subAccount: SUB, pool: 'open' };
const SECOND: Args = { subAccount: SUB2, ipsOf: SUB, hostnamesOf: SUB, tokensOf: SUB, pool: 'world' };

beforeAll(async () => {
  account = await startAccount();
  const c = account.client;
  await c.subAccounts.create({ username: SUB, firstName: 'Dana', email: 'dana@example.com', monthlyLimit: 7 });
  await c.subAccounts.create({ username: SUB2, lastName: 'Second' });
  await account.em.control.usage(SUB, 1.5);
  // .10 after .9: sorted by address, not as text.
  await c.ips.add({ ip: '203.0.113.10' });
  await c.ips.add({ ip: '203.0.113.9', label: 'nine' });
  await c.ips.add({ ip: '198.51.100.7', username: SUB });
  await c.hostnames.add({ domain: 'z.example.com' });
  await c.hostnames.add({ domain: 'a.example.com' });
  await c.hostnames.add({ domain: 'sub.example.com', username: SUB });
  await c.proxies.add('us-ny');
  await c.proxies.add('gb-lon');
  await c.tokens.create({ label: 'read-only' });
  await c.tokens.create({ username: SUB, expiresAt: new Date(Date.now() + 10 * 86_400_000).toISOString().slice(0, 10) });
  ws = await account.workspace();
});

afterAll(async () => {
  await account?.stop();
});

describe('data sources', () => {
  it('read what the API holds, change nothing, and a second plan is empty', async () => {
    const before = await account.snapshot();
    ws.write('main.tf', config(FIRST));
    await ws.apply();

    const outputs = await ws.outputs();
    expect(outputs).toEqual(await expected(FIRST));
    // The checks above are only as good as the setup: make sure it is not trivially empty.
    expect((outputs.ips as { entries: Array<{ ip: string }> }).entries.map((e) => e.ip)).toEqual(['203.0.113.9', '203.0.113.10']);
    expect((outputs.sub_account as { monthly_bandwidth: number }).monthly_bandwidth).toBe(1.5);
    await expectNoChanges(ws);
    expect(await account.snapshot()).toEqual(before);
  });

  it('read other objects when their arguments change', async () => {
    ws.write('main.tf', config(SECOND));
    await expectChanges(ws, /Changes to Outputs/);
    await ws.apply();

    const outputs = await ws.outputs();
    expect(outputs).toEqual(await expected(SECOND));
    expect((outputs.geoips as { counts: Record<string, number> }).counts.US).toBeGreaterThan((await account.client.geoIps.open()).US);
    await expectNoChanges(ws);
  });

  it('show changes made outside Terraform in the next plan (exit 2)', async () => {
    const c = account.client;
    await c.subAccounts.edit({ username: SUB2, lastName: 'Renamed' });
    await c.ips.add({ ip: '198.51.100.8', label: 'new', username: SUB });
    await c.hostnames.add({ domain: 'more.example.com', username: SUB });
    await c.proxies.add('de-fra');
    const [token] = await c.tokens.list({ username: SUB });
    await c.tokens.deactivate({ id: token.id, username: SUB });

    const plan = await expectChanges(ws, /Changes to Outputs/, /"Renamed"/, /"198\.51\.100\.8"/, /"more\.example\.com"/, /"de-fra\.proxy\.example\.net:1080"/);
    expect(plan.stdout).toMatch(/active\s+= true -> false/);
    await ws.apply();
    expect(await ws.outputs()).toEqual(await expected(SECOND));
    await expectNoChanges(ws);
  });

  it('show objects removed outside Terraform in the next plan (exit 2)', async () => {
    const c = account.client;
    await c.ips.delete({ ip: '198.51.100.7', username: SUB });
    await c.hostnames.delete({ domain: 'sub.example.com', username: SUB });
    await c.proxies.delete('us-ny');
    const [token] = await c.tokens.list({ username: SUB });
    await c.tokens.delete({ id: token.id, username: SUB });

    await expectChanges(ws, /Changes to Outputs/, /"198\.51\.100\.7"/, /"sub\.example\.com"/, /"us-ny\.proxy\.example\.net:8080"/);
    await ws.apply();
    const outputs = await ws.outputs();
    expect(outputs).toEqual(await expected(SECOND));
    expect((outputs.tokens as { tokens: unknown[] }).tokens).toEqual([]);
    await expectNoChanges(ws);
  });

  it('fail on the username line when the sub-account read is deleted outside Terraform', async () => {
    await account.client.subAccounts.delete(SUB2);
    const text = config(SECOND);
    const line = text.split('\n').findIndex((l) => l.includes(`username = "${SUB2}"`)) + 1;

    const res = await ws.run(['plan', '-no-color', '-input=false', '-detailed-exitcode']);
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('Error: Sub-account not found');
    expect(res.stderr).toContain(`on main.tf line ${line}, in data "proxyaccount_sub_account" "sub"`);
    expect(res.stderr).toContain(`The parent account has no sub-account '${SUB2}'.`);
  });

  it('leave the account untouched when the configuration is destroyed', async () => {
    ws.write('main.tf', config(FIRST));
    const before = await account.snapshot();
    await ws.destroy();
    expect(await account.snapshot()).toEqual(before);
  });

  it("see another provider configuration's write made earlier in the same apply", async () => {
    // Each provider configuration is a process of its own: `before` fills the default one's
    // list cache, `other` is written by the second, and `after` must read the account anew.
    const other = await account.workspace();
    other.write(
      'main.tf',
      `${REQUIRED_PROVIDERS}
provider "proxyaccount" {}
provider "proxyaccount" {
  alias = "second"
}
resource "proxyaccount_authorized_hostname" "trigger" {
  domain = "trigger.example.org"
}
data "proxyaccount_authorized_ips" "before" {
  depends_on = [proxyaccount_authorized_hostname.trigger]
}
resource "proxyaccount_authorized_ip" "other" {
  provider   = proxyaccount.second
  ip         = "192.0.2.77"
  depends_on = [data.proxyaccount_authorized_ips.before]
}
data "proxyaccount_authorized_ips" "after" {
  depends_on = [proxyaccount_authorized_ip.other]
}
output "before" { value = data.proxyaccount_authorized_ips.before.entries[*].ip }
output "after"  { value = data.proxyaccount_authorized_ips.after.entries[*].ip }
`,
    );
    await other.apply();
    const outputs = await other.outputs();
    expect(outputs.before).not.toContain('192.0.2.77');
    expect(outputs.after).toContain('192.0.2.77');
    await other.destroy();
  });

  it('refuse a required argument set to null at validation, on its line', async () => {
    const nulls = await account.workspace();
    nulls.write('main.tf', `${REQUIRED_PROVIDERS}\ndata "proxyaccount_geoips" "x" {\n  pool = null\n}\n`);
    const res = await nulls.run(['validate', '-no-color']);
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('Error: Missing required argument');
    expect(res.stderr).toContain('Attribute pool is required, but its value is null');
    expect(res.stderr).toMatch(/on main\.tf line \d+, in data "proxyaccount_geoips" "x"/);
  });
});
