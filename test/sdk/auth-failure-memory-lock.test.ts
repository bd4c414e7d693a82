// The failed-authentication memory's own lock when its holder does not let go: a holder that froze
// (Ctrl-Z, a paused container) holds a change up only a moment, a stop ends the wait at once, and
// neither loses a change: each change replaces only the file it read. An entry in the lock's way
// that is no lock gives a clear reason instead of a wait without end.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { AuthFailureMemory } from '../../src/sdk/failure-memory';

const ORIGIN = 'https://api.example.test';
const TTL_MS = 60 * 60 * 1000;

let dir: string;
let cache: string;
let file: string;
let lockFile: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'proxyaccount-authmem-lock-'));
  cache = join(dir, 'cache');
  mkdirSync(cache, { mode: 0o700 });
  file = join(cache, 'auth-failures.json');
  lockFile = join(cache, '.auth-failures.json.lock');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

interface Written {
  failures: Record<string, number>;
  origins: Record<string, number[]>;
}

function written(): Written {
  return JSON.parse(readFileSync(file, 'utf8')) as Written;
}

/** The credential key as the client makes it (origin, then the Authorization value). */
function credential(n: number): string {
  return `${ORIGIN}\nBasic ${Buffer.from(`user${n}:Password-${n}`).toString('base64')}`;
}

/** What remember() returns when it wrote the 401, the origin's count then being `originCount`. */
function rememberedAs(originCount: number): { until: Date; originCount: number } {
  return { until: expect.any(Date) as Date, originCount };
}

/** A lock held by a live process (this one) that never refreshes it: a holder that froze. */
function frozenHolder(): string {
  const text = `${process.pid} ${Date.now()} abcdefabcdef\n`;
  writeFileSync(lockFile, text, { mode: 0o600 });
  return text;
}

it('waits for a frozen holder only a moment, then makes the change without the lock: a 401 and a forget', async () => {
  const memory = new AuthFailureMemory(file, TTL_MS, Date.now, { waitMs: 50, pollMs: 5 });
  await memory.remember(ORIGIN, credential(1));
  const holder = frozenHolder();
  // Without the bound, each would wait the 60 s after which a lock is judged dead.
  const r = await memory.remember(ORIGIN, credential(2));
  expect(r).toEqual(rememberedAs(2));
  // A success forgets all the same: a 401 left behind would refuse these credentials next run.
  await memory.forget(credential(1));
  expect((await memory.check(ORIGIN, credential(1))).credential).toBeUndefined();
  expect((await memory.check(ORIGIN, credential(2))).credential).toBeDefined();
  expect(written().origins[ORIGIN]).toHaveLength(2);
  // The holder's lock is left to it (or to the stale time).
  expect(readFileSync(lockFile, 'utf8')).toBe(holder);
});

it('ends the wait for the lock at a stop, and still remembers the 401', async () => {
  const memory = new AuthFailureMemory(file, TTL_MS, Date.now, { waitMs: 600_000, pollMs: 5 });
  frozenHolder();
  const stop = new AbortController();
  const remembering = memory.remember(ORIGIN, credential(1), stop.signal);
  // Once it waits (if not, the stop is seen before the wait: the same outcome).
  await sleep(50);
  stop.abort(new Error('stopped'));
  expect(await remembering).toEqual(rememberedAs(1));
  expect((await memory.check(ORIGIN, credential(1))).credential).toBeDefined();
});

it('ends at a stop the wait behind this process’s earlier change, which is kept too', async () => {
  const memory = new AuthFailureMemory(file, TTL_MS, Date.now, { waitMs: 600_000, pollMs: 5 });
  frozenHolder();
  const first = memory.remember(ORIGIN, credential(1));
  const stop = new AbortController();
  const second = memory.remember(ORIGIN, credential(2), stop.signal);
  await sleep(50);
  stop.abort(new Error('stopped'));
  expect(await second).toEqual(rememberedAs(1));
  // The holder lets go: the first change takes the lock, over the file the second one wrote.
  rmSync(lockFile);
  expect(await first).toEqual(rememberedAs(2));
  expect(Object.keys(written().failures)).toHaveLength(2);
});

/** The state letter of a process (T: stopped), where /proc says; undefined elsewhere. */
function processState(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0];
  } catch {
    return undefined;
  }
}

it('loses no 401 to a holder frozen past the stale time, taken over, then resumed (through the build in dist/)', async () => {
  const dist = join(__dirname, '..', '..', 'dist', 'sdk');
  const read = join(dir, 'read');
  // The holder stops itself (SIGSTOP) once it has read the memory under its lock: a Ctrl-Z or a
  // `docker pause` in the middle of its change.
  const script = `
    const { writeFileSync } = require('node:fs');
    const files = require(${JSON.stringify(join(dist, 'private-file.js'))});
    const { AuthFailureMemory } = require(${JSON.stringify(join(dist, 'failure-memory.js'))});
    const readPrivateFile = files.readPrivateFile;
    let frozen = false;
    files.readPrivateFile = async (path, max) => {
      const text = await readPrivateFile(path, max);
      if (path === ${JSON.stringify(file)} && !frozen) {
        frozen = true;
        writeFileSync(${JSON.stringify(read)}, '');
        process.kill(process.pid, 'SIGSTOP');
      }
      return text;
    };
    new AuthFailureMemory(${JSON.stringify(file)}, ${TTL_MS}).remember(${JSON.stringify(ORIGIN)}, 'credential of the frozen holder')
      .then((r) => process.stdout.write(JSON.stringify(r)));`;
  const holder = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  holder.stdout.setEncoding('utf8').on('data', (d: string) => {
    out += d;
  });
  const exited = new Promise((done) => holder.on('close', done));
  try {
    while (!existsSync(read) || (processState(holder.pid!) ?? 'T') !== 'T') await sleep(5);
    const other = new AuthFailureMemory(file, TTL_MS, Date.now, { staleMs: 100, pollMs: 5 });
    // Takes the frozen holder's lock over once it has seen it unrefreshed for the stale time.
    expect(await other.remember(ORIGIN, credential(2))).toEqual(rememberedAs(1));
    holder.kill('SIGCONT');
    await exited;
  } finally {
    holder.kill('SIGKILL');
  }
  // The resumed holder found the file moved since it read it, and made its change again on it.
  expect(JSON.parse(out)).toMatchObject({ originCount: 2 });
  expect(written().origins[ORIGIN]).toHaveLength(2);
  expect(Object.keys(written().failures)).toHaveLength(2);
});

it('says, instead of waiting without end, that an entry in the way of the memory’s lock must be removed', async () => {
  mkdirSync(lockFile);
  const memory = new AuthFailureMemory(file, TTL_MS, Date.now, { pollMs: 2, blockedMs: 0 });
  const r = await memory.remember(ORIGIN, credential(1));
  expect(r.notRemembered).toBe(
    `${lockFile} is where a lock file of proxyaccount's goes, but a directory is there and cannot be removed (ERR_FS_EISDIR): remove it`,
  );
  expect((await memory.rememberUnanswered(ORIGIN, credential(1))).notRemembered).toBe(r.notRemembered);
  // Nothing else was left behind: no takeover lock, no memory written unlocked.
  expect(readdirSync(cache)).toEqual(['.auth-failures.json.lock']);
});

it('lets a probe go on without the machine’s probe lock when an entry that is no lock is in its way', async () => {
  const probeLock = join(cache, `.probe-${createHash('sha256').update(ORIGIN).digest('hex').slice(0, 16)}.lock`);
  mkdirSync(probeLock);
  const memory = new AuthFailureMemory(file, TTL_MS);
  await expect(memory.lockProbe(ORIGIN)).resolves.toBeUndefined();
  expect(readdirSync(cache)).toEqual([`.probe-${createHash('sha256').update(ORIGIN).digest('hex').slice(0, 16)}.lock`]);
});
