// proxyaccount_authorized_ip under the real terraform binary: one address of the parent account
// and one of a sub-account (made outside Terraform), through create, replace (the API cannot
// edit an entry), drift, import and destroy.
import { startAccount, type E2eAccount } from './helpers/account';
import { expectChanges, expectNoChanges, generatedAttributes, importWithBlock, importWithCli, planCounts } from './helpers/steps';
import { resourceValues, type Workspace } from './helpers/terraform';

jest.setTimeout(120_000);

const SUB = 'e2e-ipsub';
let account: E2eAccount;
let ws: Workspace;
let before: unknown;

function office(ip: string, label: string): string {
  return `resource "proxyaccount_authorized_ip" "office" {\n  ip    = ${JSON.stringify(ip)}\n  label = ${JSON.stringify(label)}\n}\n`;
}

function sub(ip: string): string {
  return `resource "proxyaccount_authorized_ip" "sub" {\n  ip       = ${JSON.stringify(ip)}\n  username = ${JSON.stringify(SUB)}\n}\n`;
}

const parentIps = async (): Promise<Array<{ ip: string; label: string }>> => account.client.ips.listWithLabels();
const subIps = async (): Promise<Array<{ ip: string; label: string }>> => account.client.ips.listWithLabels({ username: SUB });

beforeAll(async () => {
  account = await startAccount();
  await account.client.subAccounts.create({ username: SUB });
  // An address Terraform does not manage: a per-entry resource must leave it alone.
  await account.client.ips.add({ ip: '192.0.2.99', label: 'not terraform' });
  before = await account.snapshot();
  ws = await account.workspace();
});

afterAll(async () => {
  await account?.stop();
});

describe('proxyaccount_authorized_ip resource', () => {
  it('authorizes the addresses, with IDs IP and USERNAME/IP, and a second plan is empty', async () => {
    ws.config(office('203.0.113.7', 'office'), sub('198.51.100.20'));
    await ws.apply();

    expect(await parentIps()).toEqual(
      expect.arrayContaining([
        { ip: '203.0.113.7', label: 'office' },
        { ip: '192.0.2.99', label: 'not terraform' },
      ]),
    );
    expect(await subIps()).toEqual([{ ip: '198.51.100.20', label: '' }]);
    const state = await ws.state();
    expect(resourceValues(state, 'proxyaccount_authorized_ip.office')).toEqual({ id: '203.0.113.7', ip: '203.0.113.7', label: 'office', username: null });
    expect(resourceValues(state, 'proxyaccount_authorized_ip.sub')).toEqual({ id: `${SUB}/198.51.100.20`, ip: '198.51.100.20', label: null, username: SUB });
    await expectNoChanges(ws);
  });

  it('replaces an entry when its label or address changes (the API cannot edit one)', async () => {
    ws.config(office('203.0.113.7', 'head office'), sub('198.51.100.21'));
    const plan = await expectChanges(
      ws,
      /proxyaccount_authorized_ip\.office must be replaced/,
      /label\s+= "office" -> "head office" # forces replacement/,
      /ip\s+= "198\.51\.100\.20" -> "198\.51\.100\.21" # forces replacement/,
    );
    expect(planCounts(plan.stdout)).toEqual({ import: 0, add: 2, change: 0, destroy: 2 });
    await ws.apply();

    expect(await parentIps()).toContainEqual({ ip: '203.0.113.7', label: 'head office' });
    expect(await subIps()).toEqual([{ ip: '198.51.100.21', label: '' }]);
    await expectNoChanges(ws);
  });

  it('shows a label changed outside Terraform, and apply puts it back', async () => {
    await account.client.ips.delete({ ip: '203.0.113.7' });
    await account.client.ips.add({ ip: '203.0.113.7', label: 'edited elsewhere' });
    await expectChanges(ws, /label\s+= "edited elsewhere" -> "head office" # forces replacement/);
    await ws.apply();

    expect(await parentIps()).toContainEqual({ ip: '203.0.113.7', label: 'head office' });
    await expectNoChanges(ws);
  });

  it('shows an address removed outside Terraform as one to create, and apply restores it', async () => {
    await account.client.ips.delete({ ip: '198.51.100.21', username: SUB });
    const plan = await expectChanges(ws, /proxyaccount_authorized_ip\.sub will be created/);
    expect(planCounts(plan.stdout)).toEqual({ import: 0, add: 1, change: 0, destroy: 0 });
    await ws.apply();

    expect(await subIps()).toEqual([{ ip: '198.51.100.21', label: '' }]);
    await expectNoChanges(ws);
  });

  it('imports with terraform import by IP and by USERNAME/IP', async () => {
    const prior = await ws.state();
    await importWithCli(ws, 'proxyaccount_authorized_ip.office', '203.0.113.7');
    await importWithCli(ws, 'proxyaccount_authorized_ip.sub', `${SUB}/198.51.100.21`);

    const state = await ws.state();
    for (const address of ['proxyaccount_authorized_ip.office', 'proxyaccount_authorized_ip.sub']) {
      expect(resourceValues(state, address)).toEqual(resourceValues(prior, address));
    }
    await expectNoChanges(ws);
  });

  it('imports with an import block, and the generated configuration applies without changes', async () => {
    const generated = await importWithBlock(ws, {
      address: 'proxyaccount_authorized_ip.sub',
      id: `${SUB}/198.51.100.21`,
      otherBlocks: [office('203.0.113.7', 'head office')],
    });
    expect(generatedAttributes(generated)).toEqual({ ip: '"198.51.100.21"', label: 'null', username: `"${SUB}"` });

    ws.remove('generated.tf');
    ws.config(office('203.0.113.7', 'head office'), sub('198.51.100.21'));
    await expectNoChanges(ws);
  });

  it('destroys only its own entries, leaving the account as it was', async () => {
    await ws.destroy();
    expect(await account.snapshot()).toEqual(before);
  });
});
