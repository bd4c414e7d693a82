// The provider as a single executable (Node's SEA), run by the real terraform with a PATH that
// holds terraform only: a runner without Node. Create, plan empty, import, destroy. The whole
// e2e suite can run against it: `npm run test:e2e:sea` (see docs/release.md).
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { startAccount, type E2eAccount } from './helpers/account';
import { expectNoChanges } from './helpers/steps';
import { SEA_PROVIDER, type Workspace } from './helpers/terraform';

jest.setTimeout(240_000);

let account: E2eAccount;
let ws: Workspace;

beforeAll(async () => {
  // Built here when missing (about 10 s); `npm run build:sea` builds it by hand.
  if (!fs.existsSync(SEA_PROVIDER)) execFileSync(process.execPath, [path.resolve(__dirname, '..', '..', 'scripts', 'sea.js')], { stdio: 'ignore' });
  account = await startAccount();
  ws = await account.workspace({ provider: SEA_PROVIDER });
});

afterAll(async () => {
  await account?.stop();
});

describe('the single-executable provider', () => {
  it('is a native executable, not a Node script', () => {
    expect(fs.readFileSync(SEA_PROVIDER).subarray(0, 4)).toEqual(Buffer.from([0x7f, 0x45, 0x4c, 0x46]));
  });

  it('runs where PATH has no node: apply, plan empty, import, destroy', async () => {
    expect(() => execFileSync('sh', ['-c', 'command -v node'], { env: { PATH: ws.env.PATH } })).toThrow();
    ws.config(
      'resource "proxyaccount_sub_account" "sea" {\n  username = "sea-user"\n}\n\nresource "proxyaccount_authorized_ip" "sea" {\n  ip       = "203.0.113.90"\n  username = proxyaccount_sub_account.sea.username\n}\n',
    );
    const applied = await ws.apply();
    expect(applied.stdout).toMatch(/Resources: 2 added/);
    await expectNoChanges(ws);
    await ws.stateRm('proxyaccount_authorized_ip.sea');
    expect((await ws.importCli('proxyaccount_authorized_ip.sea', 'sea-user/203.0.113.90')).stdout).toContain('Import successful');
    await expectNoChanges(ws);
    await ws.destroy();
    await expect(account.client.subAccounts.get('sea-user')).rejects.toMatchObject({ code: 'ERR_NOT_FOUND' });
  });
});
