// proxyaccount_authorized_hostname under the real terraform binary: one hostname of the parent
// account and one of a sub-account (made outside Terraform), through create, replace, drift,
// import and destroy. A hostname entry has no field to edit: changes are replacements.
import { startAccount, type E2eAccount } from './helpers/account';
import { expectChanges, expectNoChanges, generatedAttributes, importWithBlock, importWithCli, planCounts } from './helpers/steps';
import { resourceValues, type Workspace } from './helpers/terraform';

jest.setTimeout(120_000);

const SUB = 'e2e-hostsub';
let account: E2eAccount;
let ws: Workspace;
let before: unknown;

function ci(domain: string): string {
  return `resource "proxyaccount_authorized_hostname" "ci" {\n  domain = ${JSON.stringify(domain)}\n}\n`;
}

function sub(domain: string): string {
  return `resource "proxyaccount_authorized_hostname" "sub" {\n  domain   = ${JSON.stringify(domain)}\n  username = ${JSON.stringify(SUB)}\n}\n`;
}

beforeAll(async () => {
  account = await startAccount();
  await account.client.subAccounts.create({ username: SUB });
  // A hostname Terraform does not manage: a per-entry resource must leave it alone.
  await account.client.hostnames.add({ domain: 'manual.example.org' });
  before = await account.snapshot();
  ws = await account.workspace();
});

afterAll(async () => {
  await account?.stop();
});

describe('proxyaccount_authorized_hostname resource', () => {
  it('authorizes the hostnames, with IDs DOMAIN and USERNAME/DOMAIN, and a second plan is empty', async () => {
    ws.config(ci('ci.example.com'), sub('app.example.com'));
    await ws.apply();

    expect((await account.client.hostnames.list()).sort()).toEqual(['ci.example.com', 'manual.example.org']);
    expect(await account.client.hostnames.list({ username: SUB })).toEqual(['app.example.com']);
    const state = await ws.state();
    expect(resourceValues(state, 'proxyaccount_authorized_hostname.ci')).toEqual({ id: 'ci.example.com', domain: 'ci.example.com', username: null });
    expect(resourceValues(state, 'proxyaccount_authorized_hostname.sub')).toEqual({ id: `${SUB}/app.example.com`, domain: 'app.example.com', username: SUB });
    await expectNoChanges(ws);
  });

  it('replaces an entry when its domain changes', async () => {
    ws.config(ci('build.example.com'), sub('app.example.com'));
    const plan = await expectChanges(
      ws,
      /proxyaccount_authorized_hostname\.ci must be replaced/,
      /domain\s+= "ci\.example\.com" -> "build\.example\.com" # forces replacement/,
    );
    expect(planCounts(plan.stdout)).toEqual({ import: 0, add: 1, change: 0, destroy: 1 });
    await ws.apply();

    expect((await account.client.hostnames.list()).sort()).toEqual(['build.example.com', 'manual.example.org']);
    await expectNoChanges(ws);
  });

  it('ignores hostnames added outside Terraform (it owns only its own entry)', async () => {
    await account.client.hostnames.add({ domain: 'other.example.com', username: SUB });
    await expectNoChanges(ws);
    await account.client.hostnames.delete({ domain: 'other.example.com', username: SUB });
  });

  it('shows a hostname removed outside Terraform as one to create, and apply restores it', async () => {
    await account.client.hostnames.delete({ domain: 'app.example.com', username: SUB });
    const plan = await expectChanges(ws, /proxyaccount_authorized_hostname\.sub will be created/);
    expect(planCounts(plan.stdout)).toEqual({ import: 0, add: 1, change: 0, destroy: 0 });
    await ws.apply();

    expect(await account.client.hostnames.list({ username: SUB })).toEqual(['app.example.com']);
    await expectNoChanges(ws);
  });

  it('imports with terraform import by DOMAIN and by USERNAME/DOMAIN', async () => {
    const prior = await ws.state();
    await importWithCli(ws, 'proxyaccount_authorized_hostname.ci', 'build.example.com');
    await importWithCli(ws, 'proxyaccount_authorized_hostname.sub', `${SUB}/app.example.com`);

    const state = await ws.state();
    for (const address of ['proxyaccount_authorized_hostname.ci', 'proxyaccount_authorized_hostname.sub']) {
      expect(resourceValues(state, address)).toEqual(resourceValues(prior, address));
    }
    await expectNoChanges(ws);
  });

  it('imports with an import block, and the generated configuration applies without changes', async () => {
    const generated = await importWithBlock(ws, {
      address: 'proxyaccount_authorized_hostname.sub',
      id: `${SUB}/app.example.com`,
      otherBlocks: [ci('build.example.com')],
    });
    expect(generatedAttributes(generated)).toEqual({ domain: '"app.example.com"', username: `"${SUB}"` });

    ws.remove('generated.tf');
    ws.config(ci('build.example.com'), sub('app.example.com'));
    await expectNoChanges(ws);
  });

  it('destroys only its own entries, leaving the account as it was', async () => {
    await ws.destroy();
    expect(await account.snapshot()).toEqual(before);
  });
});
