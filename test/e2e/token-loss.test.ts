// Bearer tokens created while the emulator loses create answers (`dropResponse`: the token is
// made, the connection drops before the answer), with the real terraform. Several tokens of one
// label (or none) created at once, two lost answers in a row, and a Ctrl-C while an answer is
// being lost: in every case no token under a resource is deleted, no token is left that the state
// does not hold, and one more apply leaves an empty plan.
import { useAccount } from './helpers/account';
import type { Workspace } from './helpers/terraform';

jest.setTimeout(240_000);

const account = useAccount();

const lose = (count: number, extra: { delayAfterMs?: number } = {}): Promise<void> =>
  account.em.control.fault({ path: '/api/token/create/', method: 'POST', dropResponse: true, count, ...extra });

function tokens(count: number, label: string | null): string {
  return `
resource "proxyaccount_bearer_token" "ci" {
  count = ${count}
${label === null ? '' : `  label = "${label}"\n`}}
`;
}

/** Token ids in the account and in the state, sorted. */
async function compare(ws: Workspace): Promise<{ account: number[]; state: number[] }> {
  const live = (await account.client.tokens.list()).map((t) => t.id);
  const show = await ws.state();
  const held = (show.values?.root_module?.resources ?? []).filter((r) => r.type === 'proxyaccount_bearer_token').map((r) => Number(r.values['token_id']));
  const sort = (a: number[]): number[] => [...a].sort((x, y) => x - y);
  return { account: sort(live), state: sort(held) };
}

/** The apply exits 0 and the state holds exactly the account's `n` tokens; then a re-apply plans nothing. */
async function expectSettled(ws: Workspace, n: number): Promise<void> {
  const { account: live, state } = await compare(ws);
  // 0 deleted under their resources (every token in state exists), 0 orphaned (the reverse).
  expect(live).toEqual(state);
  expect(live).toHaveLength(n);
  await ws.apply();
  expect(await compare(ws)).toEqual({ account: live, state });
  expect((await ws.planExitCode()).code).toBe(0);
}

describe('lost create answers', () => {
  it.each([
    ['one among 3 parallel creates of one label', 3, 'ci', 1],
    ['one among 3 parallel creates without a label', 3, null, 1],
    // Each lost token must be found and deleted before the create is sent again.
    ['two in a row for one token', 1, 'deploy', 2],
  ])('delete no token of another resource and orphan none (%s)', async (_name, count, label, losses) => {
    const ws = await account.workspace();
    ws.config(tokens(count, label));
    await lose(losses);
    const applied = await ws.apply();
    await expectSettled(ws, count);
    // Each deletion is said, since another process's token of the same label would be taken for ours.
    expect((applied.stdout.match(/A lost answer: a token with this label was deleted/g) ?? []).length).toBe(1);
    const ids = /was found by its label\s+and deleted \(token ([\d, ]+)\)/.exec(applied.stdout.replace(/\s+/g, ' '));
    expect((ids?.[1] ?? '').split(', ')).toHaveLength(losses);
  });
});

describe('Ctrl-C while a create answer is being lost', () => {
  it('still deletes the token the lost request made, so nothing is orphaned', async () => {
    const ws = await account.workspace();
    ws.config(tokens(1, 'deploy'));
    // The token is made at once; its answer is held for 3 s, then the connection drops.
    await lose(1, { delayAfterMs: 3000 });
    const child = ws.spawnDetached(['apply', '-no-color', '-input=false', '-auto-approve']);
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    // Interrupt once the token exists, i.e. while its answer is held.
    while ((await account.client.tokens.list()).length === 0) await new Promise((r) => setTimeout(r, 50));
    process.kill(-child.pid!, 'SIGINT');
    const code = await exited;
    expect(code).not.toBe(0);
    expect(out).toMatch(/Interrupt received|Stopping operation/i);
    const after = await compare(ws);
    expect(after.account).toEqual(after.state);
    expect(after.account).toEqual([]);
    await ws.apply();
    await expectSettled(ws, 1);
  });
});
