// proxyaccount_bearer_token under the real terraform binary: a token of the parent account and
// one of a sub-account (made outside Terraform), through create (the raw token works), in-place
// activation toggle, replace, drift, import (the raw token is not importable) and destroy.
import { ProxyAccountClient } from '../../src/sdk';
import { startAccount, type E2eAccount } from './helpers/account';
import { expectChanges, expectNoChanges, generatedAttributes, importWithBlock, importWithCli, planCounts } from './helpers/steps';
import { resourceValues, type Workspace } from './helpers/terraform';

jest.setTimeout(120_000);

const SUB = 'e2e-toksub';
// A date the emulator (real clock here) accepts: after today.
const EXPIRES = new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10);
let account: E2eAccount;
let ws: Workspace;
let before: unknown;

function ci(opts: { label: string; active?: boolean }): string {
  return [
    'resource "proxyaccount_bearer_token" "ci" {',
    `  label      = ${JSON.stringify(opts.label)}`,
    `  expires_at = ${JSON.stringify(EXPIRES)}`,
    opts.active !== undefined ? `  active     = ${opts.active}` : '',
    '}',
    '',
  ]
    .filter((l) => l !== '')
    .join('\n');
}

const SUB_TOKEN = `resource "proxyaccount_bearer_token" "sub" {\n  username = ${JSON.stringify(SUB)}\n  label    = "deploy"\n}\n`;

/** The token metadata the API lists for the parent (or `username`). */
const tokens = async (username?: string) => account.client.tokens.list(username === undefined ? {} : { username });

/** True when the raw token authenticates (listing IPs accepts any valid token). */
async function tokenWorks(token: string): Promise<boolean> {
  const c = new ProxyAccountClient({ baseUrl: account.em.url, auth: { token }, dispatcher: account.em.dispatcher, maxRetries: 0 });
  try {
    await c.ips.list();
    return true;
  } catch {
    return false;
  }
}

beforeAll(async () => {
  account = await startAccount();
  await account.client.subAccounts.create({ username: SUB });
  before = await account.snapshot();
  ws = await account.workspace();
});

afterAll(async () => {
  await account?.stop();
});

describe('proxyaccount_bearer_token resource', () => {
  it('creates tokens whose raw value (kept in state) authenticates, and a second plan is empty', async () => {
    ws.config(ci({ label: 'ci' }), SUB_TOKEN);
    await ws.apply();

    const state = await ws.state();
    const parent = resourceValues(state, 'proxyaccount_bearer_token.ci')!;
    const sub = resourceValues(state, 'proxyaccount_bearer_token.sub')!;
    const [remote] = await tokens();
    expect(parent).toMatchObject({ id: String(remote.id), token_id: remote.id, label: 'ci', expires_at: EXPIRES, active: true, username: null });
    expect(parent.created_at).toBe(remote.createdAt.toISOString().replace(/\.\d{3}Z$/, 'Z'));
    expect(sub).toMatchObject({ id: `${SUB}/${String(sub.token_id)}`, label: 'deploy', expires_at: null, username: SUB });
    expect((await tokens(SUB)).map((t) => t.id)).toEqual([sub.token_id]);
    expect(typeof parent.token).toBe('string');
    expect(await tokenWorks(parent.token as string)).toBe(true);
    await expectNoChanges(ws);
  });

  it('deactivates in place, keeping the token', async () => {
    const id = resourceValues(await ws.state(), 'proxyaccount_bearer_token.ci')!.token_id;
    ws.config(ci({ label: 'ci', active: false }), SUB_TOKEN);
    const plan = await expectChanges(ws, /proxyaccount_bearer_token\.ci will be updated in-place/, /~ active\s+= true -> false/);
    expect(planCounts(plan.stdout)).toEqual({ import: 0, add: 0, change: 1, destroy: 0 });
    await ws.apply();

    expect(await tokens()).toEqual([expect.objectContaining({ id, isActive: false })]);
    await expectNoChanges(ws);
  });

  it('replaces the token when its label changes', async () => {
    const old = resourceValues(await ws.state(), 'proxyaccount_bearer_token.ci')!;
    ws.config(ci({ label: 'ci-2', active: false }), SUB_TOKEN);
    const plan = await expectChanges(ws, /proxyaccount_bearer_token\.ci must be replaced/, /label\s+= "ci" -> "ci-2" # forces replacement/);
    expect(planCounts(plan.stdout)).toEqual({ import: 0, add: 1, change: 0, destroy: 1 });
    await ws.apply();

    const now = resourceValues(await ws.state(), 'proxyaccount_bearer_token.ci')!;
    expect(now.token_id).not.toBe(old.token_id);
    expect(await tokens()).toEqual([expect.objectContaining({ id: now.token_id, label: 'ci-2', isActive: false })]);
    await expectNoChanges(ws);
  });

  it('shows a token activated outside Terraform as an update, and apply deactivates it again', async () => {
    const id = resourceValues(await ws.state(), 'proxyaccount_bearer_token.ci')!.token_id as number;
    await account.client.tokens.activate({ id });
    await expectChanges(ws, /~ active\s+= true -> false/);
    await ws.apply();

    expect(await tokens()).toEqual([expect.objectContaining({ id, isActive: false })]);
    await expectNoChanges(ws);
  });

  it('shows a token deleted outside Terraform as one to create, and apply creates a new one', async () => {
    const id = resourceValues(await ws.state(), 'proxyaccount_bearer_token.sub')!.token_id as number;
    await account.client.tokens.delete({ id, username: SUB });
    const plan = await expectChanges(ws, /proxyaccount_bearer_token\.sub will be created/);
    expect(planCounts(plan.stdout)).toEqual({ import: 0, add: 1, change: 0, destroy: 0 });
    await ws.apply();

    const fresh = resourceValues(await ws.state(), 'proxyaccount_bearer_token.sub')!;
    expect((await tokens(SUB)).map((t) => t.id)).toEqual([fresh.token_id]);
    await expectNoChanges(ws);
  });

  it('imports with terraform import by TOKEN_ID and USERNAME/TOKEN_ID; the raw token is null after import', async () => {
    const prior = await ws.state();
    const ciId = String(resourceValues(prior, 'proxyaccount_bearer_token.ci')!.token_id);
    const subId = String(resourceValues(prior, 'proxyaccount_bearer_token.sub')!.token_id);
    await importWithCli(ws, 'proxyaccount_bearer_token.ci', ciId);
    await importWithCli(ws, 'proxyaccount_bearer_token.sub', `${SUB}/${subId}`);

    const state = await ws.state();
    for (const address of ['proxyaccount_bearer_token.ci', 'proxyaccount_bearer_token.sub']) {
      expect(resourceValues(state, address)).toEqual({ ...resourceValues(prior, address), token: null });
    }
    await expectNoChanges(ws);
  });

  it('imports with an import block, and the generated configuration applies without changes', async () => {
    const subId = String(resourceValues(await ws.state(), 'proxyaccount_bearer_token.sub')!.token_id);
    const generated = await importWithBlock(ws, {
      address: 'proxyaccount_bearer_token.sub',
      id: `${SUB}/${subId}`,
      otherBlocks: [ci({ label: 'ci-2', active: false })],
    });
    // Only configurable attributes are generated: no id, token_id, created_at or token.
    expect(generatedAttributes(generated)).toEqual({ active: 'true', expires_at: 'null', label: '"deploy"', username: `"${SUB}"` });

    ws.remove('generated.tf');
    ws.config(ci({ label: 'ci-2', active: false }), SUB_TOKEN);
    await expectNoChanges(ws);
  });

  it('destroys the tokens, leaving the account as it was', async () => {
    await ws.destroy();
    expect(await account.snapshot()).toEqual(before);
  });
});
