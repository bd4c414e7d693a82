// The lock this user's processes share on one machine (the credential probe's, the token creates'):
// one holder at a time, a holder that died or stopped refreshing the file is taken over by exactly
// one waiter, a long hold is never taken for a dead one, and a stop while waiting takes nothing.
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import fsPromises from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ProxyAccountClient } from '../../src/sdk';
import { LockPathBlockedError, takeMachineLock } from '../../src/sdk/machine-lock';
import { BASE, PASSWORD, USER } from './harness';

// A pid above the kernel's pid_max: no process has it.
const GONE_PID = 4194305;

let dir: string;
let file: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'proxyaccount-lock-'));
  file = join(dir, '.x.lock');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Runs `n` takers at once; each holds the lock for `holdMs`. Returns the most that held it at once. */
async function contend(n: number, holdMs: number, timing = {}): Promise<{ most: number; took: number }> {
  let holding = 0;
  let most = 0;
  let took = 0;
  await Promise.all(
    Array.from({ length: n }, async () => {
      const release = await takeMachineLock(file, undefined, { pollMs: 2, ...timing });
      expect(release).toBeDefined();
      took++;
      holding++;
      most = Math.max(most, holding);
      await sleep(holdMs);
      holding--;
      await release!();
    }),
  );
  return { most, took };
}

describe('takeMachineLock', () => {
  it('lets one holder at a time, and leaves no file behind', async () => {
    expect(await contend(6, 5)).toEqual({ most: 1, took: 6 });
    expect(readdirSync(dir)).toEqual([]);
  });

  it('hands a dead holder’s lock to exactly one of the waiters that found it dead', async () => {
    for (let round = 0; round < 40; round++) {
      writeFileSync(file, `${GONE_PID} ${Date.now()}\n`, { mode: 0o600 });
      expect(await contend(8, 2)).toEqual({ most: 1, took: 8 });
      expect(readdirSync(dir)).toEqual([]);
    }
  });

  it('takes over a lock it watched go unrefreshed for the stale time, whatever its pid says', async () => {
    // Our own pid (alive), as after a holder froze or its pid was reused.
    writeFileSync(file, `${process.pid} ${Date.now()}\n`, { mode: 0o600 });
    const release = await takeMachineLock(file, undefined, { staleMs: 150, pollMs: 2 });
    expect(release).toBeDefined();
    await release!();
  });

  it('does not take a live holder’s lock whose time looks old (a clock step): only watching decides', async () => {
    const held = await takeMachineLock(file);
    const old = new Date(Date.now() - 3_600_000);
    utimesSync(file, old, old);
    let taken = false;
    const stop = new AbortController();
    const waiting = takeMachineLock(file, stop.signal, { staleMs: 60_000, pollMs: 2 }).then(() => {
      taken = true;
    });
    await sleep(150);
    expect(taken).toBe(false);
    stop.abort(new Error('stopped'));
    await expect(waiting).rejects.toThrow('stopped');
    await held!();
  });

  it('takes over at once a file no lock of ours can be (writable by others), even with a live pid', async () => {
    writeFileSync(file, `${process.pid} ${Date.now()} x\n`);
    chmodSync(file, 0o620);
    const release = await takeMachineLock(file, undefined, { pollMs: 2 });
    expect(release).toBeDefined();
    expect(statSync(file).mode & 0o777).toBe(0o600);
    await release!();
  });

  it('keeps a live holder’s lock fresh, so a hold longer than the stale time is not taken over', async () => {
    const timing = { heartbeatMs: 10, staleMs: 300, pollMs: 5 };
    const first = await takeMachineLock(file, undefined, timing);
    let second: (() => Promise<void>) | undefined;
    const waiting = takeMachineLock(file, undefined, timing).then((r) => {
      second = r;
    });
    await sleep(900);
    expect(second).toBeUndefined();
    await first!();
    await waiting;
    expect(second).toBeDefined();
    await second!();
  });

  it('takes nothing when stopped while waiting', async () => {
    const held = await takeMachineLock(file);
    const stop = new AbortController();
    const waiting = takeMachineLock(file, stop.signal);
    stop.abort(new Error('stopped'));
    await expect(waiting).rejects.toThrow('stopped');
    await held!();
    expect(readdirSync(dir)).toEqual([]);
  });

  it('leaves no empty lock behind when its text cannot be written (a full disk), so the next run is not held up', async () => {
    // A file-size limit of 0 makes the write fail with EFBIG after the file was created.
    const script = `require(${JSON.stringify(join(__dirname, '..', '..', 'dist', 'sdk', 'machine-lock.js'))}).takeMachineLock(${JSON.stringify(file)}).then((r) => console.log(r === undefined ? 'none' : 'held'))`;
    const child = spawnSync('sh', ['-c', 'ulimit -f 0 && exec "$0" -e "$1"', process.execPath, script], { encoding: 'utf8' });
    expect({ status: child.status, out: child.stdout.trim() }).toEqual({ status: 0, out: 'none' });
    expect(readdirSync(dir)).toEqual([]);
    const release = await takeMachineLock(file, undefined, { pollMs: 2 });
    expect(release).toBeDefined();
    await release!();
  });

  it('gives up with an error naming the entry in the way when it is no lock and cannot be removed (a directory)', async () => {
    mkdirSync(file);
    const taking = takeMachineLock(file, undefined, { pollMs: 2, blockedMs: 0 });
    await expect(taking).rejects.toBeInstanceOf(LockPathBlockedError);
    await expect(taking).rejects.toThrow(`${file} is where a lock file of proxyaccount's goes, but a directory is there and cannot be removed`);
    await expect(taking).rejects.toThrow(/: remove it$/);
    // Its takeover lock is gone, and the directory is left to its owner.
    expect(readdirSync(dir)).toEqual(['.x.lock']);
  });

  it('pauses between takeovers that fail, instead of trying again at once', async () => {
    mkdirSync(file);
    const rm = jest.spyOn(fsPromises, 'rm');
    try {
      await expect(takeMachineLock(file, undefined, { pollMs: 50, blockedMs: 300 })).rejects.toBeInstanceOf(LockPathBlockedError);
      // Each takeover removes the directory (and fails) and its own takeover lock. A pause of 50 ms
      // between them allows a few in 300 ms; without one, thousands.
      const tries = rm.mock.calls.filter(([path]) => path === file).length;
      expect(tries).toBeGreaterThan(0);
      expect(tries).toBeLessThan(20);
    } finally {
      rm.mockRestore();
    }
  });

  it('removes a takeover lock a killed process left behind, once it holds the lock', async () => {
    const guard = `${file}.takeover`;
    writeFileSync(guard, '4194305\n', { mode: 0o600 });
    const old = new Date(Date.now() - 60_000);
    utimesSync(guard, old, old);
    const release = await takeMachineLock(file, undefined, { pollMs: 2 });
    expect(existsSync(guard)).toBe(false);
    await release!();
    expect(readdirSync(dir)).toEqual([]);
  });

  it('resolves with nothing when the lock cannot be made', async () => {
    await expect(takeMachineLock(join(dir, 'absent', '.x.lock'))).resolves.toBeUndefined();
  });
});

describe('ProxyAccountClient.lockOnThisMachine', () => {
  const auth = { username: USER, password: PASSWORD };

  it('is shared by clients of the same origin and scope, beside the memory, and by them only', async () => {
    const cache = join(dir, 'cache', 'auth-failures.json');
    const a = new ProxyAccountClient({ baseUrl: BASE, auth, authFailureCache: cache });
    const b = new ProxyAccountClient({ baseUrl: BASE, auth, authFailureCache: cache });
    const release = await a.lockOnThisMachine('token-create\u0000alice\u0000ci');
    expect(readdirSync(join(dir, 'cache')).filter((f) => f.endsWith('.lock'))).toHaveLength(1);
    // Another scope, or another API, is not held up.
    const other = await b.lockOnThisMachine('token-create\u0000alice\u0000deploy');
    const elsewhere = new ProxyAccountClient({ baseUrl: 'https://api.other.example', auth, authFailureCache: cache });
    const otherApi = await elsewhere.lockOnThisMachine('token-create\u0000alice\u0000ci');
    await other!();
    await otherApi!();
    let got = false;
    const same = b.lockOnThisMachine('token-create\u0000alice\u0000ci').then((r) => {
      got = true;
      return r;
    });
    await sleep(100);
    expect(got).toBe(false);
    await release!();
    await (await same)!();
    expect(readdirSync(join(dir, 'cache')).filter((f) => f.endsWith('.lock'))).toEqual([]);
  });

  it('is none without a memory, or with a memory in a directory others can write', async () => {
    const none = new ProxyAccountClient({ baseUrl: BASE, auth, authFailureCache: false });
    await expect(none.lockOnThisMachine('x')).resolves.toBeUndefined();
    const shared = join(dir, 'shared');
    const client = new ProxyAccountClient({ baseUrl: BASE, auth, authFailureCache: join(shared, 'auth-failures.json') });
    // Made by the check, then opened to the group: not ours to trust.
    await client.lockOnThisMachine('x').then((r) => r?.());
    const { chmodSync } = await import('node:fs');
    chmodSync(shared, 0o775);
    const again = new ProxyAccountClient({ baseUrl: BASE, auth, authFailureCache: join(shared, 'auth-failures.json') });
    await expect(again.lockOnThisMachine('x')).resolves.toBeUndefined();
  });

  it('refuses a scope that names nothing and options other than { signal }, with or without a memory, taking no lock', async () => {
    const cache = join(dir, 'checked', 'auth-failures.json');
    for (const client of [
      new ProxyAccountClient({ baseUrl: BASE, auth, authFailureCache: cache }),
      new ProxyAccountClient({ baseUrl: BASE, auth, authFailureCache: false }),
    ]) {
      await expect(client.lockOnThisMachine('')).rejects.toMatchObject({ code: 'ERR_INVALID_ARGUMENT', field: 'scope' });
      await expect(client.lockOnThisMachine(42 as unknown as string)).rejects.toMatchObject({ code: 'ERR_INVALID_ARGUMENT', field: 'scope' });
      // A misspelt option would otherwise leave the wait unstoppable, silently.
      await expect(client.lockOnThisMachine('x', { sginal: AbortSignal.abort() } as never)).rejects.toMatchObject({ code: 'ERR_INVALID_ARGUMENT' });
      await expect(client.lockOnThisMachine('x', AbortSignal.abort() as never)).rejects.toMatchObject({ code: 'ERR_INVALID_ARGUMENT', field: 'options' });
      await expect(client.lockOnThisMachine('x', { signal: 'stop' } as never)).rejects.toMatchObject({ code: 'ERR_INVALID_ARGUMENT', field: 'signal' });
    }
    expect(existsSync(join(dir, 'checked')) ? readdirSync(join(dir, 'checked')).filter((f) => f.endsWith('.lock')) : []).toEqual([]);
  });
});
