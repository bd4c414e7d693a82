// Six scheduled runs in a row with a wrong password (six clients, as six processes would be) must
// leave the runner unbanned: the first sends and fails, the others refuse to send.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { AuthenticationError, CredentialsRememberedRejectedError, TimeoutError } from '../../src/sdk';
import { ACME, useEmulator } from './setup';

const { emu, client } = useEmulator();

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'proxyaccount-authmem-e-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

async function bans(): Promise<unknown[]> {
  const e = emu();
  const res = await request(`${e.url}/_emulator/state`, {
    headers: { authorization: `Bearer ${e.adminToken}` },
    dispatcher: e.dispatcher,
  });
  const state = (await res.body.json()) as { bans: unknown[] };
  return state.bans;
}

it('six runs with a wrong password: one 401 on the server, no ban, and good credentials still work', async () => {
  const file = join(dir, 'auth-failures.json');
  const lines: string[] = [];
  const stop = emu().onStderrLine((l) => lines.push(l));
  try {
    const wrong = { username: ACME.username, password: 'wrong-Password-9' };
    const errors: unknown[] = [];
    for (let run = 0; run < 6; run++) {
      const c = client(wrong, { authFailureCache: file });
      // Each run reads a little, as a plan would.
      const settled = await Promise.allSettled([c.ips.list(), c.hostnames.list(), c.subAccounts.get('alice')]);
      errors.push(settled.map((s) => (s.status === 'rejected' ? s.reason : s.value)));
      await c.close();
    }
    // The first run: one request answered 401, the two waiting for it refused unsent.
    expect((errors[0] as unknown[]).filter((e) => e instanceof AuthenticationError)).toHaveLength(1);
    for (const run of errors.slice(1)) {
      for (const e of run as unknown[]) expect(e).toBeInstanceOf(CredentialsRememberedRejectedError);
    }
    expect(lines.filter((l) => / 401 /.test(l))).toHaveLength(1);
    expect(lines.filter((l) => / 429 /.test(l))).toHaveLength(0);
  } finally {
    stop();
  }
  expect(await bans()).toEqual([]);
  await expect(client(ACME, { authFailureCache: file }).ips.list()).resolves.toEqual([]);
});

it('three runs behind an API that counts the failure but answers after the timeout: 2 requests, no ban; a good password is paused until the memory is cleared', async () => {
  const file = join(dir, 'auth-failures.json');
  // The API authenticates (and counts the failed login) at once, and answers after the client gave up.
  await emu().control.fault({ path: '/api/ips/', delayAfterMs: 1500, count: 100 });
  const lines: string[] = [];
  const stop = emu().onStderrLine((l) => lines.push(l));
  const errors: unknown[] = [];
  try {
    for (let run = 0; run < 3; run++) {
      const c = client({ username: ACME.username, password: 'wrong-Password-9' }, { authFailureCache: file, timeoutMs: 300 });
      errors.push(await c.ips.list().catch((e: unknown) => e));
      await c.close();
    }
    // The log line of a request comes when it ends: wait for the two that were sent.
    while (lines.filter((l) => l.startsWith('GET /api/ips/')).length < 2) await new Promise((r) => setTimeout(r, 50));
  } finally {
    stop();
  }
  expect(lines.filter((l) => l.startsWith('GET /api/ips/'))).toHaveLength(2);
  expect(errors[0]).toBeInstanceOf(TimeoutError);
  for (const e of errors.slice(1)) {
    expect(e).toBeInstanceOf(CredentialsRememberedRejectedError);
    expect((e as CredentialsRememberedRejectedError).unansweredProbes).toBe(2);
    expect((e as CredentialsRememberedRejectedError).credentialsRejected).toBe(false);
  }
  expect(await bans()).toEqual([]);
  await emu().control.reset();
  // The unanswered probes pause every credential of the origin, the right one too, until they
  // expire; with them cleared (as the refusal says), the right password is sent and works.
  const paused = await client(ACME, { authFailureCache: file })
    .ips.list()
    .catch((e: unknown) => e);
  expect(paused).toBeInstanceOf(CredentialsRememberedRejectedError);
  expect((paused as Error).message).toContain('is paused');
  rmSync(file);
  await expect(client(ACME, { authFailureCache: file }).ips.list()).resolves.toEqual([]);
});

it('without the memory, the same six runs get the address banned (what the memory prevents)', async () => {
  const wrong = { username: ACME.username, password: 'wrong-Password-9' };
  for (let run = 0; run < 6; run++) {
    const c = client(wrong, { authFailureCache: false });
    await c.ips.list().catch(() => undefined);
    await c.close();
  }
  expect(await bans()).toHaveLength(1);
});
