// proxyaccount_authorized_proxy under the real terraform binary: proxies of the parent account in
// two of the forms the API accepts (bare host, domain:port), with the computed full domain,
// through create, replace, drift, import and destroy.
import { startAccount, type E2eAccount } from './helpers/account';
import { expectChanges, expectNoChanges, generatedAttributes, importWithBlock, importWithCli, planCounts } from './helpers/steps';
import { resourceValues, type Workspace } from './helpers/terraform';

jest.setTimeout(120_000);

let account: E2eAccount;
let ws: Workspace;
let before: unknown;

function proxy(name: string, value: string): string {
  return `resource "proxyaccount_authorized_proxy" ${JSON.stringify(name)} {\n  proxy = ${JSON.stringify(value)}\n}\n`;
}

const listed = async (): Promise<string[]> => (await account.client.proxies.list()).sort();

beforeAll(async () => {
  account = await startAccount();
  // A proxy Terraform does not manage: a per-entry resource must leave it alone.
  await account.client.proxies.add('jp-tyo');
  before = await account.snapshot();
  ws = await account.workspace();
});

afterAll(async () => {
  await account?.stop();
});

describe('proxyaccount_authorized_proxy resource', () => {
  it('authorizes proxies given in different forms, keeps the form, computes the domain; a second plan is empty', async () => {
    ws.config(proxy('ny', 'us-ny'), proxy('lon', 'gb-lon.proxy.example.net:1080'));
    await ws.apply();

    expect(await listed()).toEqual(['gb-lon.proxy.example.net:1080', 'jp-tyo.proxy.example.net:3128', 'us-ny.proxy.example.net:8080']);
    const state = await ws.state();
    expect(resourceValues(state, 'proxyaccount_authorized_proxy.ny')).toEqual({ id: 'us-ny', proxy: 'us-ny', domain: 'us-ny.proxy.example.net' });
    expect(resourceValues(state, 'proxyaccount_authorized_proxy.lon')).toEqual({
      id: 'gb-lon.proxy.example.net:1080',
      proxy: 'gb-lon.proxy.example.net:1080',
      domain: 'gb-lon.proxy.example.net',
    });
    await expectNoChanges(ws);
  });

  it('replaces an entry when its proxy changes', async () => {
    ws.config(proxy('ny', 'us-la.proxy.example.net'), proxy('lon', 'gb-lon.proxy.example.net:1080'));
    const plan = await expectChanges(
      ws,
      /proxyaccount_authorized_proxy\.ny must be replaced/,
      /proxy\s+= "us-ny" -> "us-la\.proxy\.example\.net" # forces replacement/,
    );
    expect(planCounts(plan.stdout)).toEqual({ import: 0, add: 1, change: 0, destroy: 1 });
    await ws.apply();

    expect(await listed()).toEqual(['gb-lon.proxy.example.net:1080', 'jp-tyo.proxy.example.net:3128', 'us-la.proxy.example.net:8080']);
    await expectNoChanges(ws);
  });

  it('ignores proxies added outside Terraform (it owns only its own entry)', async () => {
    await account.client.proxies.add('de-fra');
    await expectNoChanges(ws);
    await account.client.proxies.delete('de-fra');
  });

  it('shows a proxy removed outside Terraform as one to create, and apply restores it', async () => {
    await account.client.proxies.delete('gb-lon.proxy.example.net');
    const plan = await expectChanges(ws, /proxyaccount_authorized_proxy\.lon will be created/);
    expect(planCounts(plan.stdout)).toEqual({ import: 0, add: 1, change: 0, destroy: 0 });
    await ws.apply();

    expect(await listed()).toContain('gb-lon.proxy.example.net:1080');
    await expectNoChanges(ws);
  });

  it('imports with terraform import by the configured form', async () => {
    const prior = await ws.state();
    await importWithCli(ws, 'proxyaccount_authorized_proxy.ny', 'us-la.proxy.example.net');
    await importWithCli(ws, 'proxyaccount_authorized_proxy.lon', 'gb-lon.proxy.example.net:1080');

    const state = await ws.state();
    for (const address of ['proxyaccount_authorized_proxy.ny', 'proxyaccount_authorized_proxy.lon']) {
      expect(resourceValues(state, address)).toEqual(resourceValues(prior, address));
    }
    await expectNoChanges(ws);
  });

  it('imports with an import block, and the generated configuration applies without changes', async () => {
    const generated = await importWithBlock(ws, {
      address: 'proxyaccount_authorized_proxy.ny',
      id: 'us-la.proxy.example.net',
      otherBlocks: [proxy('lon', 'gb-lon.proxy.example.net:1080')],
    });
    expect(generatedAttributes(generated)).toEqual({ proxy: '"us-la.proxy.example.net"' });

    ws.remove('generated.tf');
    ws.config(proxy('ny', 'us-la.proxy.example.net'), proxy('lon', 'gb-lon.proxy.example.net:1080'));
    await expectNoChanges(ws);
  });

  it('writes a proxy another way in place, with create_before_destroy too: the proxy stays authorized', async () => {
    // Replaced, the old object's destroy (after the new one's add, which changes nothing) would remove it.
    const cbd = `resource "proxyaccount_authorized_proxy" "ny" {\n  proxy = "us-la.proxy.example.net:8080"\n  lifecycle {\n    create_before_destroy = true\n  }\n}\n`;
    ws.config(cbd, proxy('lon', 'gb-lon.proxy.example.net:1080'));
    const plan = await expectChanges(
      ws,
      /proxyaccount_authorized_proxy\.ny will be updated in-place/,
      /proxy\s+= "us-la\.proxy\.example\.net" -> "us-la\.proxy\.example\.net:8080"/,
    );
    expect(planCounts(plan.stdout)).toEqual({ import: 0, add: 0, change: 1, destroy: 0 });
    await ws.apply();

    expect(await listed()).toEqual(['gb-lon.proxy.example.net:1080', 'jp-tyo.proxy.example.net:3128', 'us-la.proxy.example.net:8080']);
    expect(resourceValues(await ws.state(), 'proxyaccount_authorized_proxy.ny')).toEqual({
      id: 'us-la.proxy.example.net:8080',
      proxy: 'us-la.proxy.example.net:8080',
      domain: 'us-la.proxy.example.net',
    });
    await expectNoChanges(ws);
  });

  it('refuses at plan a proxy written at another port than the one listed, naming the listed form, and removes nothing', async () => {
    ws.config(proxy('ny', 'us-la.proxy.example.net:8080'), proxy('lon', 'gb-lon.proxy.example.net:8080'));
    const res = await ws.expect(['plan', '-no-color', '-input=false'], [1]);
    const stderr = res.stderr.replace(/[│\s]+/g, ' ');
    expect(stderr).toContain('Error: Wrong proxy port with proxyaccount_authorized_proxy.lon,');
    expect(stderr).toContain(
      '"gb-lon.proxy.example.net:8080" names gb-lon.proxy.example.net, which the account lists at port 1080, and the API refuses another port: ' +
        'write "gb-lon.proxy.example.net:1080", or the proxy without a port ("gb-lon.proxy.example.net" or "gb-lon").',
    );
    expect(await listed()).toEqual(['gb-lon.proxy.example.net:1080', 'jp-tyo.proxy.example.net:3128', 'us-la.proxy.example.net:8080']);
    ws.config(proxy('ny', 'us-la.proxy.example.net:8080'), proxy('lon', 'gb-lon.proxy.example.net:1080'));
    await expectNoChanges(ws);
  });

  it('destroys only its own entries, leaving the account as it was', async () => {
    await ws.destroy();
    expect(await account.snapshot()).toEqual(before);
  });
});
