// proxyaccount_sub_account under the real terraform binary, step by step in one workspace:
// create, empty second plan, update in place, password rotation, replace, drift (change and
// deletion made through the API), import (CLI and import block), destroy.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { NotFoundError, ProxyAccountClient } from '../../src/sdk';
import { startAccount, type E2eAccount } from './helpers/account';
import { expectChanges, expectNoChanges, generatedAttributes, importWithBlock, importWithCli, planCounts } from './helpers/steps';
import { resourceValues, type Workspace } from './helpers/terraform';

jest.setTimeout(120_000);

let account: E2eAccount;
let ws: Workspace;
let before: unknown;

interface AliceConfig {
  firstName?: string;
  lastName?: string;
  passwordWo: string;
  version: number;
  totalLimit?: number;
  active?: boolean;
}

function alice(c: AliceConfig): string {
  return [
    'resource "proxyaccount_sub_account" "alice" {',
    '  username            = "e2e-alice"',
    `  password_wo         = ${JSON.stringify(c.passwordWo)}`,
    `  password_wo_version = ${c.version}`,
    c.firstName !== undefined ? `  first_name          = ${JSON.stringify(c.firstName)}` : '',
    c.lastName !== undefined ? `  last_name           = ${JSON.stringify(c.lastName)}` : '',
    '  email               = "alice@example.com"',
    '  monthly_limit       = 5',
    c.totalLimit !== undefined ? `  total_limit         = ${c.totalLimit}` : '',
    c.active !== undefined ? `  active              = ${c.active}` : '',
    '}',
    '',
  ]
    .filter((l) => l !== '')
    .join('\n');
}

function bob(username: string, active: boolean): string {
  return `resource "proxyaccount_sub_account" "bob" {\n  username = ${JSON.stringify(username)}\n  password = "bob-password-1"\n  active   = ${active}\n}\n`;
}

/** True when the sub-account can authenticate with `password` (listing its IPs needs nothing else). */
async function canLogIn(username: string, password: string): Promise<boolean> {
  const c = new ProxyAccountClient({ baseUrl: account.em.url, auth: { username, password }, dispatcher: account.em.dispatcher, maxRetries: 0 });
  try {
    await c.ips.list();
    return true;
  } catch {
    return false;
  }
}

const V1 = { firstName: 'Alice', passwordWo: 'first-password-1', version: 1 };
const V2 = { lastName: 'Liddell', passwordWo: 'first-password-1', version: 1, totalLimit: 10, active: false };
const V3 = { ...V2, passwordWo: 'second-password-2', version: 2 };

beforeAll(async () => {
  account = await startAccount();
  before = await account.snapshot();
  ws = await account.workspace();
});

afterAll(async () => {
  await account?.stop();
});

describe('proxyaccount_sub_account resource', () => {
  it('creates sub-accounts with the configured fields, and a second plan is empty', async () => {
    ws.config(alice(V1), bob('e2e-bob', false));
    await ws.apply();

    const a = await account.client.subAccounts.get('e2e-alice');
    expect(a).toMatchObject({
      username: 'e2e-alice',
      firstName: 'Alice',
      email: 'alice@example.com',
      monthlyBandwidthLimit: 5,
      totalBandwidthLimit: 0,
      active: true,
    });
    expect(a.lastName).toBeUndefined();
    expect((await account.client.subAccounts.get('e2e-bob')).active).toBe(false);
    expect(await canLogIn('e2e-alice', 'first-password-1')).toBe(true);
    const state = await ws.state();
    expect(resourceValues(state, 'proxyaccount_sub_account.alice')).toMatchObject({ id: 'e2e-alice', password_wo: null, password_wo_version: 1 });

    await expectNoChanges(ws);
  });

  it('updates in place with the complete field set (a removed name is cleared) and toggles activation', async () => {
    ws.config(alice(V2), bob('e2e-bob', true));
    const plan = await expectChanges(ws, /proxyaccount_sub_account\.alice will be updated in-place/, /proxyaccount_sub_account\.bob will be updated in-place/);
    expect(planCounts(plan.stdout)).toEqual({ import: 0, add: 0, change: 2, destroy: 0 });
    await ws.apply();

    const a = await account.client.subAccounts.get('e2e-alice');
    expect(a).toMatchObject({ lastName: 'Liddell', totalBandwidthLimit: 10, active: false });
    expect(a.firstName).toBeUndefined();
    expect((await account.client.subAccounts.get('e2e-bob')).active).toBe(true);
    await expectNoChanges(ws);
  });

  it('sends the write-only password again when password_wo_version changes, and never stores it', async () => {
    ws.config(alice(V3), bob('e2e-bob', true));
    await expectChanges(ws, /~ password_wo_version\s+= 1 -> 2/);
    await ws.apply();

    expect(await canLogIn('e2e-alice', 'second-password-2')).toBe(true);
    const stateFile = fs.readFileSync(path.join(ws.dir, 'terraform.tfstate'), 'utf8');
    expect(stateFile).not.toContain('second-password-2');
    expect(stateFile).not.toContain('first-password-1');
    await expectNoChanges(ws);
  });

  it('replaces the sub-account when its username changes', async () => {
    ws.config(alice(V3), bob('e2e-robert', true));
    const plan = await expectChanges(ws, /proxyaccount_sub_account\.bob must be replaced/, /username\s+= "e2e-bob" -> "e2e-robert" # forces replacement/);
    expect(planCounts(plan.stdout)).toEqual({ import: 0, add: 1, change: 0, destroy: 1 });
    await ws.apply();

    await expect(account.client.subAccounts.get('e2e-bob')).rejects.toBeInstanceOf(NotFoundError);
    expect((await account.client.subAccounts.get('e2e-robert')).active).toBe(true);
    await expectNoChanges(ws);
  });

  it('shows a change made outside Terraform as an update, and apply puts it back', async () => {
    await account.client.subAccounts.edit({ username: 'e2e-alice', lastName: 'Changed', monthlyLimit: 99 });
    await expectChanges(ws, /~ last_name\s+= "Changed" -> "Liddell"/, /~ monthly_limit\s+= 99 -> 5/);
    await ws.apply();

    expect(await account.client.subAccounts.get('e2e-alice')).toMatchObject({ lastName: 'Liddell', monthlyBandwidthLimit: 5 });
    await expectNoChanges(ws);
  });

  it('shows a sub-account deleted outside Terraform as one to create, and apply recreates it', async () => {
    await account.client.subAccounts.delete('e2e-robert');
    const plan = await expectChanges(ws, /proxyaccount_sub_account\.bob will be created/);
    expect(planCounts(plan.stdout)).toEqual({ import: 0, add: 1, change: 0, destroy: 0 });
    await ws.apply();

    expect((await account.client.subAccounts.get('e2e-robert')).username).toBe('e2e-robert');
    await expectNoChanges(ws);
  });

  it('imports with terraform import; only the write-only password version is not imported', async () => {
    const prior = resourceValues(await ws.state(), 'proxyaccount_sub_account.alice');
    await importWithCli(ws, 'proxyaccount_sub_account.alice', 'e2e-alice');

    const imported = resourceValues(await ws.state(), 'proxyaccount_sub_account.alice');
    expect(imported).toEqual({ ...prior, password_wo_version: null });
    // Nothing tells Terraform which password version the remote holds: the next apply sends it.
    const plan = await expectChanges(ws, /\+ password_wo_version\s+= 2/);
    expect(planCounts(plan.stdout)).toEqual({ import: 0, add: 0, change: 1, destroy: 0 });
    expect(plan.stdout).not.toMatch(/~ (first_name|last_name|email|monthly_limit|total_limit|active)\s/);
    await ws.apply();
    await expectNoChanges(ws);
  });

  it('imports with an import block and generated configuration that applies without changes', async () => {
    const generated = await importWithBlock(ws, { address: 'proxyaccount_sub_account.bob', id: 'e2e-robert', otherBlocks: [alice(V3)] });

    const attrs = generatedAttributes(generated);
    expect(attrs).toMatchObject({ username: '"e2e-robert"', active: 'true', monthly_limit: '0', total_limit: '0', first_name: 'null' });
    // Terraform cannot read back secrets: it writes them as null and marks them.
    expect(attrs.password).toBe('null # sensitive');
    expect(attrs.password_wo).toBe('null # sensitive');
    expect(attrs.id).toBeUndefined();

    // Back to the hand-written configuration: its password is not in the imported state.
    ws.remove('generated.tf');
    ws.config(alice(V3), bob('e2e-robert', true));
    const plan = await expectChanges(ws, /\+ password\s+= \(sensitive value\)/);
    expect(planCounts(plan.stdout)).toEqual({ import: 0, add: 0, change: 1, destroy: 0 });
    await ws.apply();
    await expectNoChanges(ws);
  });

  it('destroys everything it created, leaving the account as it was', async () => {
    await ws.destroy();
    expect(await account.snapshot()).toEqual(before);
  });
});
