// The authoritative lists (proxyaccount_authorized_ips, _hostnames, _proxies) under the real
// terraform binary: each owns a whole list, so entries added outside Terraform are drift to
// remove and entries removed outside Terraform are drift to restore. One emulator, reset
// between the three types.
import { requestLogOf, useAccount } from './helpers/account';
import { expectChanges, expectNoChanges, importWithBlock, importWithCli, planCounts } from './helpers/steps';
import { resourceValues, type Workspace } from './helpers/terraform';

jest.setTimeout(120_000);

const SUB = 'e2e-listsub';
const account = useAccount({ resetEach: false });

/** Resets the emulator, creates the sub-account, and returns a fresh workspace and the snapshot to come back to. */
async function freshAccount(): Promise<{ ws: Workspace; before: unknown }> {
  await account.reset();
  await account.client.subAccounts.create({ username: SUB });
  return { before: await account.snapshot(), ws: await account.workspace() };
}

describe('proxyaccount_authorized_ips resource', () => {
  let ws: Workspace;
  let before: unknown;
  beforeAll(async () => ({ ws, before } = await freshAccount()));

  const self = (entries: string): string => `resource "proxyaccount_authorized_ips" "self" {\n  entries = [\n${entries}  ]\n}\n`;
  const sub = `resource "proxyaccount_authorized_ips" "sub" {\n  username = ${JSON.stringify(SUB)}\n  entries  = [{ ip = "198.51.100.1" }]\n}\n`;
  const V1 = self('    { ip = "203.0.113.1", label = "office" },\n    { ip = "203.0.113.2" },\n');
  const V2 = self('    { ip = "203.0.113.2", label = "vpn" },\n    { ip = "203.0.113.3" },\n');
  const parentIps = async () => (await account.client.ips.listWithLabels()).sort((a, b) => a.ip.localeCompare(b.ip));

  it('makes each list exactly the declared entries, and a second plan is empty', async () => {
    ws.config(V1, sub);
    await ws.apply();

    expect(await parentIps()).toEqual([
      { ip: '203.0.113.1', label: 'office' },
      { ip: '203.0.113.2', label: '' },
    ]);
    expect(await account.client.ips.listWithLabels({ username: SUB })).toEqual([{ ip: '198.51.100.1', label: '' }]);
    const state = await ws.state();
    expect(resourceValues(state, 'proxyaccount_authorized_ips.self')).toMatchObject({ id: '_self', username: null });
    expect(resourceValues(state, 'proxyaccount_authorized_ips.sub')).toMatchObject({ id: SUB, username: SUB });
    await expectNoChanges(ws);
  });

  it('adds, removes and relabels entries in place', async () => {
    ws.config(V2, sub);
    const plan = await expectChanges(ws, /proxyaccount_authorized_ips\.self will be updated in-place/);
    expect(planCounts(plan.stdout)).toEqual({ import: 0, add: 0, change: 1, destroy: 0 });
    await ws.apply();

    expect(await parentIps()).toEqual([
      { ip: '203.0.113.2', label: 'vpn' },
      { ip: '203.0.113.3', label: '' },
    ]);
    await expectNoChanges(ws);
  });

  it('shows an address added outside Terraform as drift, and apply removes it', async () => {
    await account.client.ips.add({ ip: '192.0.2.50', label: 'intruder', username: SUB });
    await expectChanges(ws, /proxyaccount_authorized_ips\.sub will be updated in-place/, /- ip\s+= "192\.0\.2\.50"/);
    await ws.apply();

    expect(await account.client.ips.listWithLabels({ username: SUB })).toEqual([{ ip: '198.51.100.1', label: '' }]);
    await expectNoChanges(ws);
  });

  it('shows an address removed outside Terraform as drift, and apply restores it', async () => {
    await account.client.ips.delete({ ip: '203.0.113.3' });
    await expectChanges(ws, /proxyaccount_authorized_ips\.self will be updated in-place/, /\+ ip\s+= "203\.0\.113\.3"/);
    await ws.apply();

    expect(await parentIps()).toEqual([
      { ip: '203.0.113.2', label: 'vpn' },
      { ip: '203.0.113.3', label: '' },
    ]);
    await expectNoChanges(ws);
  });

  it('imports with terraform import (_self) and with an import block (USERNAME)', async () => {
    const prior = await ws.state();
    await importWithCli(ws, 'proxyaccount_authorized_ips.self', '_self');
    expect(resourceValues(await ws.state(), 'proxyaccount_authorized_ips.self')).toEqual(resourceValues(prior, 'proxyaccount_authorized_ips.self'));
    await expectNoChanges(ws);

    const generated = await importWithBlock(ws, { address: 'proxyaccount_authorized_ips.sub', id: SUB, otherBlocks: [V2] });
    expect(generated).toMatch(new RegExp(`username\\s+= "${SUB}"`));
    expect(generated).toMatch(/ip\s+= "198\.51\.100\.1"/);
    ws.remove('generated.tf');
    ws.config(V2, sub);
    await expectNoChanges(ws);
  });

  it('removes an address a per-entry resource also managed, dropping both in one apply, without stopping the list', async () => {
    // A teammate's per-entry resource beside the list (managed twice): the list comes to hold the
    // address, then the resource goes. Its destroy and the list's update run in the same apply.
    const extra = `resource "proxyaccount_authorized_ip" "extra" {\n  ip = "203.0.113.9"\n  depends_on = [proxyaccount_authorized_ips.self]\n}\n`;
    ws.config(V2, sub, extra);
    await ws.apply();
    ws.config(V2, sub);
    const plan = await expectChanges(ws, /proxyaccount_authorized_ip\.extra will be destroyed/, /- ip\s+= "203\.0\.113\.9"/);
    expect(planCounts(plan.stdout)).toEqual({ import: 0, add: 0, change: 1, destroy: 1 });
    // The destroy runs first: the plan Terraform makes while applying finds the address gone.
    await ws.apply();

    expect(await parentIps()).toEqual([
      { ip: '203.0.113.2', label: 'vpn' },
      { ip: '203.0.113.3', label: '' },
    ]);
    await expectNoChanges(ws);
  });

  it('destroy empties the lists, leaving the account as it was', async () => {
    await ws.destroy();
    expect(await account.snapshot()).toEqual(before);
  });
});

describe('proxyaccount_authorized_hostnames resource', () => {
  let ws: Workspace;
  let before: unknown;
  beforeAll(async () => ({ ws, before } = await freshAccount()));

  const lists = (self: string[], sub: string[]): string =>
    `resource "proxyaccount_authorized_hostnames" "self" {\n  domains = ${JSON.stringify(self)}\n}\n\n` +
    `resource "proxyaccount_authorized_hostnames" "sub" {\n  username = ${JSON.stringify(SUB)}\n  domains  = ${JSON.stringify(sub)}\n}\n`;
  const hostnames = async (username?: string) => (await account.client.hostnames.list(username === undefined ? {} : { username })).sort();

  it('makes each list exactly the declared hostnames, and a second plan is empty', async () => {
    ws.config(lists(['a.example.com', 'b.example.com'], ['sub.example.com']));
    await ws.apply();

    expect(await hostnames()).toEqual(['a.example.com', 'b.example.com']);
    expect(await hostnames(SUB)).toEqual(['sub.example.com']);
    expect(resourceValues(await ws.state(), 'proxyaccount_authorized_hostnames.self')).toMatchObject({ id: '_self' });
    await expectNoChanges(ws);
  });

  it('adds and removes hostnames in place', async () => {
    ws.config(lists(['b.example.com', 'c.example.com'], ['sub.example.com']));
    const plan = await expectChanges(ws, /- "a\.example\.com"/, /\+ "c\.example\.com"/);
    expect(planCounts(plan.stdout)).toEqual({ import: 0, add: 0, change: 1, destroy: 0 });
    await ws.apply();

    expect(await hostnames()).toEqual(['b.example.com', 'c.example.com']);
    await expectNoChanges(ws);
  });

  it('shows a hostname added outside Terraform as drift, and apply removes it', async () => {
    await account.client.hostnames.add({ domain: 'rogue.example.com' });
    await expectChanges(ws, /- "rogue\.example\.com"/);
    await ws.apply();

    expect(await hostnames()).toEqual(['b.example.com', 'c.example.com']);
    await expectNoChanges(ws);
  });

  it('shows a hostname removed outside Terraform as drift, and apply restores it', async () => {
    await account.client.hostnames.delete({ domain: 'sub.example.com', username: SUB });
    await expectChanges(ws, /\+ "sub\.example\.com"/);
    await ws.apply();

    expect(await hostnames(SUB)).toEqual(['sub.example.com']);
    await expectNoChanges(ws);
  });

  it('imports with terraform import (USERNAME) and with an import block (_self)', async () => {
    const prior = await ws.state();
    await importWithCli(ws, 'proxyaccount_authorized_hostnames.sub', SUB);
    expect(resourceValues(await ws.state(), 'proxyaccount_authorized_hostnames.sub')).toEqual(resourceValues(prior, 'proxyaccount_authorized_hostnames.sub'));
    await expectNoChanges(ws);

    const sub = `resource "proxyaccount_authorized_hostnames" "sub" {\n  username = ${JSON.stringify(SUB)}\n  domains  = ["sub.example.com"]\n}\n`;
    const generated = await importWithBlock(ws, { address: 'proxyaccount_authorized_hostnames.self', id: '_self', otherBlocks: [sub] });
    expect(generated).toMatch(/domains\s+= \["b\.example\.com", "c\.example\.com"\]/);
    expect(generated).toMatch(/username\s+= null/);
    ws.remove('generated.tf');
    ws.config(lists(['b.example.com', 'c.example.com'], ['sub.example.com']));
    await expectNoChanges(ws);
  });

  it('destroy empties the lists, leaving the account as it was', async () => {
    await ws.destroy();
    expect(await account.snapshot()).toEqual(before);
  });
});

describe('proxyaccount_authorized_proxies resource', () => {
  let ws: Workspace;
  let before: unknown;
  beforeAll(async () => ({ ws, before } = await freshAccount()));

  const list = (proxies: string[]): string => `resource "proxyaccount_authorized_proxies" "all" {\n  proxies = ${JSON.stringify(proxies)}\n}\n`;
  const proxies = async () => (await account.client.proxies.list()).sort();

  it('makes the list exactly the declared proxies, in any accepted form, and a second plan is empty', async () => {
    ws.config(list(['us-ny', 'gb-lon.proxy.example.net', 'jp-tyo.proxy.example.net:3128']));
    await ws.apply();

    expect(await proxies()).toEqual(['gb-lon.proxy.example.net:1080', 'jp-tyo.proxy.example.net:3128', 'us-ny.proxy.example.net:8080']);
    expect(resourceValues(await ws.state(), 'proxyaccount_authorized_proxies.all')).toEqual({
      id: '_self',
      proxies: ['gb-lon.proxy.example.net', 'jp-tyo.proxy.example.net:3128', 'us-ny'],
      removed_entries: [],
    });
    await expectNoChanges(ws);
  });

  it('adds and removes proxies in place', async () => {
    ws.config(list(['us-ny', 'de-fra']));
    const plan = await expectChanges(ws, /- "gb-lon\.proxy\.example\.net"/, /\+ "de-fra"/);
    expect(planCounts(plan.stdout)).toEqual({ import: 0, add: 0, change: 1, destroy: 0 });
    await ws.apply();

    expect(await proxies()).toEqual(['de-fra.proxy.example.net:1080', 'us-ny.proxy.example.net:8080']);
    await expectNoChanges(ws);
  });

  it('shows a proxy added outside Terraform as drift (as domain:port), and apply removes it', async () => {
    await account.client.proxies.add('sg-sin');
    await expectChanges(ws, /- "sg-sin\.proxy\.example\.net:3128"/);
    await ws.apply();

    expect(await proxies()).toEqual(['de-fra.proxy.example.net:1080', 'us-ny.proxy.example.net:8080']);
    await expectNoChanges(ws);
  });

  it('shows a proxy removed outside Terraform as drift, and apply restores it', async () => {
    await account.client.proxies.delete('us-ny.proxy.example.net');
    await expectChanges(ws, /\+ "us-ny"/);
    await ws.apply();

    expect(await proxies()).toEqual(['de-fra.proxy.example.net:1080', 'us-ny.proxy.example.net:8080']);
    await expectNoChanges(ws);
  });

  it('imports with terraform import; the next apply adopts the configured forms without API writes', async () => {
    await importWithCli(ws, 'proxyaccount_authorized_proxies.all', '_self');
    expect(resourceValues(await ws.state(), 'proxyaccount_authorized_proxies.all')).toEqual({
      id: '_self',
      proxies: ['de-fra.proxy.example.net:1080', 'us-ny.proxy.example.net:8080'],
      removed_entries: [],
    });
    // The imported state holds the API's domain:port forms; the configuration writes others.
    await expectChanges(ws, /- "us-ny\.proxy\.example\.net:8080"/, /\+ "us-ny"/);
    const { lines } = await requestLogOf(account, () => ws.apply());
    expect(lines.filter((l) => !l.startsWith('GET '))).toEqual([]);
    await expectNoChanges(ws);
  });

  it('imports with an import block; the generated configuration (domain:port forms) applies without changes', async () => {
    const generated = await importWithBlock(ws, { address: 'proxyaccount_authorized_proxies.all', id: '_self' });
    expect(generated).toMatch(/proxies\s+= \["de-fra\.proxy\.example\.net:1080", "us-ny\.proxy\.example\.net:8080"\]/);
    ws.remove('generated.tf');
    ws.config(list(['us-ny', 'de-fra']));
    await ws.apply();
    await expectNoChanges(ws);
  });

  it('destroy empties the list, leaving the account as it was', async () => {
    await ws.destroy();
    expect(await account.snapshot()).toEqual(before);
  });
});
