// Changes of the failed-authentication memory made at once: each is a read, a change and a
// replacement of the file, so without taking turns two 401s remembered together leave one, and the
// guard that stops at the budget counts fewer failures than the API did. Within a process and
// between processes (through the build in dist/, as machine-lock.test.ts runs its child).
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AuthFailureMemory } from '../../src/sdk/failure-memory';

const ORIGIN = 'https://api.example.test';
const TTL_MS = 60 * 60 * 1000;

let dir: string;
let file: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'proxyaccount-authmem-races-'));
  file = join(dir, 'cache', 'auth-failures.json');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

interface Written {
  failures: Record<string, number>;
  origins: Record<string, number[]>;
  unanswered: Record<string, unknown[]>;
}

function written(): Written {
  return JSON.parse(readFileSync(file, 'utf8')) as Written;
}

/** The credential key as the client makes it (origin, then the Authorization value). */
function credential(n: number): string {
  return `${ORIGIN}\nBasic ${Buffer.from(`user${n}:Password-${n}`).toString('base64')}`;
}

it('remembers every one of N 401s remembered at once, and each reports its own count', async () => {
  const memory = new AuthFailureMemory(file, TTL_MS);
  const n = 8;
  // Two credentials between them: each new one costs a hash of tens of milliseconds.
  const results = await Promise.all(Array.from({ length: n }, (_, i) => memory.remember(ORIGIN, credential(i % 2))));
  expect(results.map((r) => r.notRemembered)).toEqual(Array(n).fill(undefined));
  // The counts are those of the file after each change: 1, 2, … N, never one seen twice.
  expect(results.map((r) => r.originCount).sort((a, b) => a - b)).toEqual(Array.from({ length: n }, (_, i) => i + 1));
  expect(written().origins[ORIGIN]).toHaveLength(n);
  expect(Object.keys(written().failures)).toHaveLength(2);
  const check = await memory.check(ORIGIN, credential(0));
  expect(check.origin.count).toBe(n);
  expect(check.credential).toBeDefined();
  // The lock beside the file is gone.
  expect(readdirSync(join(dir, 'cache')).filter((f) => f.endsWith('.lock'))).toEqual([]);
});

it('loses nothing when two memories of the same file change it at once: 401s, unanswered probes, a forget', async () => {
  const a = new AuthFailureMemory(file, TTL_MS);
  const b = new AuthFailureMemory(file, TTL_MS);
  const forgotten = credential(99);
  await a.remember(ORIGIN, forgotten);
  await Promise.all([
    a.remember(ORIGIN, credential(1)),
    b.rememberUnanswered(ORIGIN, credential(2)),
    b.forget(forgotten),
    a.rememberUnanswered(ORIGIN, credential(3)),
    b.remember(ORIGIN, credential(4)),
  ]);
  const check = await a.check(ORIGIN, credential(1));
  // The forgotten credential's 401 still counts for the origin (the API counted it); its key is gone.
  expect({ count: check.origin.count, unanswered: check.origin.unanswered }).toEqual({ count: 3, unanswered: 2 });
  expect(check.credential).toBeDefined();
  expect((await b.check(ORIGIN, credential(4))).credential).toBeDefined();
  expect((await b.check(ORIGIN, forgotten)).credential).toBeUndefined();
  expect(Object.keys(written().failures)).toHaveLength(2);
});

/** Starts a process that remembers `count` 401s one after another once `go` exists; resolves with its exit. */
function rememberingProcess(count: number, ready: string, go: string): Promise<{ code: number | null; stderr: string }> {
  const sdk = JSON.stringify(join(__dirname, '..', '..', 'dist', 'sdk', 'failure-memory.js'));
  const script = `
    const { existsSync, writeFileSync } = require('node:fs');
    const { AuthFailureMemory } = require(${sdk});
    const memory = new AuthFailureMemory(${JSON.stringify(file)}, ${TTL_MS});
    writeFileSync(${JSON.stringify(ready)}, '');
    const start = setInterval(async () => {
      if (!existsSync(${JSON.stringify(go)})) return;
      clearInterval(start);
      for (let i = 0; i < ${count}; i++) {
        const r = await memory.remember(${JSON.stringify(ORIGIN)}, 'credential of ' + process.pid);
        if (r.notRemembered !== undefined) throw new Error(r.notRemembered);
      }
    }, 2);`;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => {
    stderr += d;
  });
  return new Promise((done) => child.on('close', (code) => done({ code, stderr })));
}

it('loses nothing when two processes remember 401s at the same time', async () => {
  const count = 15;
  const go = join(dir, 'go');
  const ready = [join(dir, 'ready-1'), join(dir, 'ready-2')];
  const children = ready.map((r) => rememberingProcess(count, r, go));
  // Both start their changes together, once both are loaded.
  while (!ready.every((r) => existsSync(r))) await new Promise((r) => setTimeout(r, 5));
  writeFileSync(go, '');
  expect(await Promise.all(children)).toEqual([
    { code: 0, stderr: '' },
    { code: 0, stderr: '' },
  ]);
  expect(written().origins[ORIGIN]).toHaveLength(2 * count);
  expect(Object.keys(written().failures)).toHaveLength(2);
});
