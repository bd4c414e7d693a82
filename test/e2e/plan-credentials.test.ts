// A plan proves the credentials even when none of its objects needs a request (an empty state:
// every resource is to be created), so a wrong password fails the pull request's plan rather than
// the apply after review. It costs one request, in the configured process only, and none when a
// refresh already proved the credentials; with a wrong password, exactly one request is made
// however many resources there are.
import { startAccount, requestLogOf, PARENT, type E2eAccount } from './helpers/account';
import type { Workspace } from './helpers/terraform';

jest.setTimeout(180_000);

const WRONG_PASSWORD = 'wrong-password-at-plan';
let account: E2eAccount;
let ws: Workspace;

/** 30 objects to create, none of which needs the API to be planned. */
function thirtyNew(): string {
  const blocks: string[] = [];
  for (let i = 1; i <= 20; i++) blocks.push(`resource "proxyaccount_sub_account" "s${i}" {\n  username = "plan-cred-${i}"\n}\n`);
  for (let i = 1; i <= 10; i++) blocks.push(`resource "proxyaccount_authorized_hostname" "h${i}" {\n  domain = "plan${i}.example.com"\n}\n`);
  return blocks.join('\n');
}

beforeAll(async () => {
  account = await startAccount();
  ws = await account.workspace();
  ws.config(thirtyNew());
});

afterAll(async () => {
  await account?.stop();
});

it('an empty state with a wrong password: the plan fails after exactly one request', async () => {
  const { result: res, lines } = await requestLogOf(account, () =>
    ws.run(['plan', '-no-color', '-input=false', '-detailed-exitcode'], { PROXYACCOUNT_PASSWORD: WRONG_PASSWORD }),
  );
  expect(res.code).toBe(1);
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/ 401 /);
  const output = `${res.stdout}\n${res.stderr}`.replace(/\s+/g, ' ');
  expect(output).toContain('Error: Authentication failed');
  expect(output).toContain('PROXYACCOUNT_PASSWORD');
  expect(output).toMatch(/so 3 more would ban it/);
  expect(output).not.toContain(WRONG_PASSWORD);
  expect(output).not.toContain(PARENT.password);
});

it('an empty state with the right password: one request proves it, and the plan shows the 30 creates', async () => {
  const { result: res, lines } = await requestLogOf(account, () => ws.run(['plan', '-no-color', '-input=false', '-detailed-exitcode']));
  expect(res.code).toBe(2);
  expect(res.stdout).toMatch(/Plan: 30 to add, 0 to change, 0 to destroy/);
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/^GET \/api\/\S+ 200 /);
});

it('once a refresh has proved the credentials, the plan makes no extra request', async () => {
  // Each object in state is refreshed before it is planned, so its read has proved the
  // credentials by the time the first plan asks. (A new object planned while the first read is
  // not yet out may still pay the one request: Terraform runs the two at once.)
  const kept = 'resource "proxyaccount_sub_account" "kept" {\n  username = "plan-cred-kept"\n}\n';
  ws.config(kept, 'resource "proxyaccount_authorized_hostname" "kept" {\n  domain = "kept.example.com"\n}\n');
  await ws.apply();
  const { result: res, lines } = await requestLogOf(account, () => ws.run(['plan', '-no-color', '-input=false', '-detailed-exitcode']));
  expect(res.code).toBe(0);
  // The two refreshes (the sub-account's with the IP list it starts for the entries that name
  // it), and no request to prove the credentials.
  expect(lines.map((l) => l.split(' ').slice(0, 3).join(' ')).sort()).toEqual(['GET /api/hostnames/ 200', 'GET /api/ip_labels/ 200', 'GET /api/sub/get/ 200']);
  await ws.destroy();
});
