// The memory of rejected credentials across processes: a 401 is remembered (salted, never the
// secret) and later clients refuse to send the same credentials until it expires.
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  AuthenticationError,
  CredentialsRememberedRejectedError,
  DEFAULT_AUTH_FAILURE_TTL_MS,
  defaultCacheDir,
  InvalidArgumentError,
  ProxyAccountClient,
} from '../../src/sdk';
import { authFailureMemoryFrom } from '../../src/sdk/auth-failure-options';
import { AuthFailureMemory } from '../../src/sdk/failure-memory';
import { BASE, caught, harness, ok, PASSWORD, status, USER } from './harness';

let dir: string;
let file: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'proxyaccount-authmem-'));
  file = join(dir, 'nested', 'auth-failures.json');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('across clients (as across scheduled runs)', () => {
  it('sends the first time, then refuses the same credentials without sending', async () => {
    const first = harness({ authFailureCache: file });
    first.reply(status(401, 'invalid credentials'));
    expect(await caught(() => first.client.ips.list())).toBeInstanceOf(AuthenticationError);
    await first.done();

    const second = harness({ authFailureCache: file });
    const before = Date.now();
    const err = await caught(() => second.client.subAccounts.get('alice'));
    expect(err).toBeInstanceOf(CredentialsRememberedRejectedError);
    expect(err.code).toBe('ERR_CREDENTIALS_REMEMBERED_REJECTED');
    const until = (err as unknown as CredentialsRememberedRejectedError).until.getTime();
    expect(until).toBeGreaterThan(before + DEFAULT_AUTH_FAILURE_TTL_MS - 60_000);
    expect(until).toBeLessThanOrEqual(before + DEFAULT_AUTH_FAILURE_TTL_MS + 1000);
    // Says why, until when, and how to clear it.
    expect(err.message).toContain('rejected these same credentials with 401');
    expect(err.message).toContain(new Date(until).toISOString());
    expect(err.message).toContain(file);
    expect(err.message).toContain('PROXYACCOUNT_AUTH_FAILURE_CACHE=off');
    expect(err.message).not.toContain(PASSWORD);
    expect(second.seen()).toHaveLength(0);
    await second.done();
  });

  it('keeps other credentials and other APIs out of it', async () => {
    const first = harness({ authFailureCache: file });
    first.reply(status(401, 'invalid credentials'));
    await caught(() => first.client.ips.list());
    await first.done();

    const otherPassword = harness({ authFailureCache: file, auth: { username: USER, password: 'another-Password-9' } });
    otherPassword.reply(ok({ ips: [] }));
    await expect(otherPassword.client.ips.list()).resolves.toEqual([]);
    await otherPassword.done();

    const otherApi = harness({ authFailureCache: file, baseUrl: 'https://other.example.test' });
    otherApi.reply(ok({ ips: [] }));
    await expect(otherApi.client.ips.list()).resolves.toEqual([]);
    await otherApi.done();
  });

  it('stores a salted fingerprint, never the secret, readable by the user only', async () => {
    const h = harness({ authFailureCache: file });
    h.reply(status(401, 'invalid credentials'));
    await caught(() => h.client.ips.list());
    await h.done();
    const text = readFileSync(file, 'utf8');
    const base64 = Buffer.from(`${USER}:${PASSWORD}`).toString('base64');
    expect(text).not.toContain(PASSWORD);
    expect(text).not.toContain(base64);
    const parsed = JSON.parse(text) as { salt: string; failures: Record<string, number> };
    expect(Object.keys(parsed.failures)).toHaveLength(1);
    if (process.platform !== 'win32') expect(statSync(file).mode & 0o777).toBe(0o600);

    // Another cache gets another salt, so the same credentials give another fingerprint.
    const file2 = join(dir, 'other.json');
    const h2 = harness({ authFailureCache: file2 });
    h2.reply(status(401, 'invalid credentials'));
    await caught(() => h2.client.ips.list());
    await h2.done();
    const parsed2 = JSON.parse(readFileSync(file2, 'utf8')) as { salt: string; failures: Record<string, number> };
    expect(parsed2.salt).not.toBe(parsed.salt);
    expect(Object.keys(parsed2.failures)[0]).not.toBe(Object.keys(parsed.failures)[0]);
  });

  it('tries again once the memory has expired, and forgets credentials that then succeed', async () => {
    const first = harness({ authFailureCache: file, authFailureTtlMs: 60_000 });
    first.reply(status(401, 'invalid credentials'));
    await caught(() => first.client.ips.list());
    await first.done();
    // Age the entry as if its time had passed.
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as { failures: Record<string, number> };
    for (const k of Object.keys(parsed.failures)) parsed.failures[k] = Date.now() - 1;
    writeFileSync(file, JSON.stringify(parsed));

    const second = harness({ authFailureCache: file });
    second.reply(ok({ ips: [] }));
    await expect(second.client.ips.list()).resolves.toEqual([]);
    await second.done();
    const after = JSON.parse(readFileSync(file, 'utf8')) as { failures: Record<string, number> };
    expect(after.failures).toEqual({});
  });

  it('a credential that succeeds is forgotten (memory written by another process meanwhile)', async () => {
    const key = `${new URL(BASE).origin}\n${`Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString('base64')}`}`;
    const memory = new AuthFailureMemory(file, 60_000);
    await memory.remember(BASE, key);
    await memory.remember('https://x.test', 'https://x.test\nBearer other');
    expect((await memory.check(BASE, key)).credential).toBeDefined();
    await memory.forget(key);
    expect((await memory.check(BASE, key)).credential).toBeUndefined();
    expect((await memory.check('https://x.test', 'https://x.test\nBearer other')).credential).toBeDefined();
  });

  it('with authFailureCache: false writes nothing and refuses nothing', async () => {
    const first = harness({ authFailureCache: false });
    first.reply(status(401, 'invalid credentials'));
    await caught(() => first.client.ips.list());
    await first.done();
    const second = harness({ authFailureCache: false });
    second.reply(status(401, 'invalid credentials'));
    expect(await caught(() => second.client.ips.list())).toBeInstanceOf(AuthenticationError);
    await second.done();
    expect(() => statSync(file)).toThrow();
  });
});

describe('a damaged memory never breaks a client', () => {
  it.each([
    ['garbage', 'not json {'],
    ['wrong shape', '[1,2,3]'],
    ['bad salt', JSON.stringify({ version: 1, salt: 'x', failures: {} })],
    ['bad entries', JSON.stringify({ version: 1, salt: 'AAAAAAAAAAAAAAAAAAAAAA==', failures: { zz: 'later', ['a'.repeat(64)]: null } })],
    ['empty', ''],
  ])('%s: treated as empty, then replaced by a good file after a 401', async (_name, content) => {
    const path = join(dir, 'auth-failures.json');
    writeFileSync(path, content);
    const h = harness({ authFailureCache: path });
    h.reply(status(401, 'invalid credentials'));
    expect(await caught(() => h.client.ips.list())).toBeInstanceOf(AuthenticationError);
    await h.done();
    const after = JSON.parse(readFileSync(path, 'utf8')) as { failures: Record<string, number> };
    expect(Object.keys(after.failures)).toHaveLength(1);
  });

  it('an unwritable location: the 401 is still reported, nothing crashes', async () => {
    const blocker = join(dir, 'a-file');
    writeFileSync(blocker, 'x');
    const h = harness({ authFailureCache: join(blocker, 'sub', 'auth-failures.json') });
    h.reply(status(401, 'invalid credentials'));
    expect(await caught(() => h.client.ips.list())).toBeInstanceOf(AuthenticationError);
    await h.done();
  });
});

describe('configuration', () => {
  const opts = { baseUrl: BASE, auth: { username: USER, password: PASSWORD } };

  it('env PROXYACCOUNT_AUTH_FAILURE_CACHE picks the file or turns the memory off; the option wins', () => {
    expect(authFailureMemoryFrom(undefined, undefined, { PROXYACCOUNT_AUTH_FAILURE_CACHE: '/tmp/x.json' })?.file).toBe('/tmp/x.json');
    expect(authFailureMemoryFrom(undefined, undefined, { PROXYACCOUNT_AUTH_FAILURE_CACHE: 'off' })).toBeUndefined();
    expect(authFailureMemoryFrom('/tmp/y.json', undefined, { PROXYACCOUNT_AUTH_FAILURE_CACHE: 'off' })?.file).toBe('/tmp/y.json');
    expect(authFailureMemoryFrom(false, undefined, { PROXYACCOUNT_AUTH_FAILURE_CACHE: '/tmp/x.json' })).toBeUndefined();
    expect(() => authFailureMemoryFrom(undefined, undefined, { PROXYACCOUNT_AUTH_FAILURE_CACHE: 'relative.json' })).toThrow(/PROXYACCOUNT_AUTH_FAILURE_CACHE/);
  });

  it('env PROXYACCOUNT_AUTH_FAILURE_TTL is in seconds; bad values are refused by name', async () => {
    const memory = authFailureMemoryFrom(file, undefined, { PROXYACCOUNT_AUTH_FAILURE_TTL: '120' });
    const before = Date.now();
    const until = (await memory?.remember('https://x.test', 'k'))?.until;
    expect(until?.getTime()).toBeGreaterThanOrEqual(before + 120_000);
    expect(until?.getTime()).toBeLessThan(before + 125_000);
    for (const bad of ['1e9', '-1', 'ten', '99999999']) {
      expect(() => authFailureMemoryFrom(file, undefined, { PROXYACCOUNT_AUTH_FAILURE_TTL: bad })).toThrow(/PROXYACCOUNT_AUTH_FAILURE_TTL/);
    }
  });

  it('client options are checked', () => {
    expect(() => new ProxyAccountClient({ ...opts, authFailureCache: 'relative' })).toThrow(InvalidArgumentError);
    expect(() => new ProxyAccountClient({ ...opts, authFailureCache: 'x' as never, authFailureTtlMs: 1 })).toThrow(/authFailureCache/);
    expect(() => new ProxyAccountClient({ ...opts, authFailureCache: false, authFailureTtlMs: -1 })).toThrow(/authFailureTtlMs/);
    expect(() => new ProxyAccountClient({ ...opts, authFailureCache: file, authFailureTtlMs: -1 })).toThrow(/authFailureTtlMs/);
  });

  it('the default directory follows each platform', () => {
    expect(defaultCacheDir({ XDG_CACHE_HOME: '/xdg' }, 'linux', '/home/u')).toBe(join('/xdg', 'proxyaccount'));
    expect(defaultCacheDir({ XDG_CACHE_HOME: 'relative' }, 'linux', '/home/u')).toBe(join('/home/u', '.cache', 'proxyaccount'));
    expect(defaultCacheDir({}, 'linux', '/home/u')).toBe(join('/home/u', '.cache', 'proxyaccount'));
    expect(defaultCacheDir({}, 'darwin', '/Users/u')).toBe(join('/Users/u', 'Library', 'Caches', 'proxyaccount'));
    expect(defaultCacheDir({ LOCALAPPDATA: 'C:\\Users\\u\\AppData\\Local' }, 'win32', 'C:\\Users\\u')).toBe(
      join('C:\\Users\\u\\AppData\\Local', 'proxyaccount', 'Cache'),
    );
  });
});

describe('clients that start at once on one machine (aliased providers, parallel jobs)', () => {
  it('send one request between them: each first request waits for the one before to be remembered', async () => {
    const clients = Array.from({ length: 4 }, () => harness({ authFailureCache: file }));
    // Whichever goes first gets the 401; nobody else may send at all.
    for (const h of clients) h.reply(status(401, 'invalid credentials'));
    const results = await Promise.allSettled(clients.map((h) => h.client.ips.list()));
    const names = results.map((r) => (r.status === 'rejected' ? (r.reason as Error).constructor.name : 'ok')).sort();
    expect(names).toEqual([
      'AuthenticationError',
      'CredentialsRememberedRejectedError',
      'CredentialsRememberedRejectedError',
      'CredentialsRememberedRejectedError',
    ]);
    expect(clients.reduce((n, h) => n + h.seen().length, 0)).toBe(1);
    // Every 401 that was sent is in the memory, and the lock is gone.
    const mem = JSON.parse(readFileSync(file, 'utf8')) as { origins: Record<string, number[]> };
    expect(Object.values(mem.origins).flat()).toHaveLength(1);
    expect(readdirSync(join(dir, 'nested')).filter((f) => f.endsWith('.lock'))).toEqual([]);
  });

  it('takes over a lock whose holder died', async () => {
    const memory = new AuthFailureMemory(file, DEFAULT_AUTH_FAILURE_TTL_MS);
    const release = await memory.lockProbe(BASE);
    const name = readdirSync(join(dir, 'nested')).find((f) => f.endsWith('.lock'))!;
    await release!();
    // Left by a process that is gone: a pid above the kernel's pid_max.
    writeFileSync(join(dir, 'nested', name), `4194305 ${Date.now()}\n`, { mode: 0o600 });
    const h = harness({ authFailureCache: file });
    h.reply(ok({ ips: [] }));
    await expect(h.client.ips.list()).resolves.toEqual([]);
    await h.done();
  });

  it('a stop while the memory is being checked (a hash of tens of milliseconds) sends nothing', async () => {
    // Another credential's 401 is remembered: the next client's check hashes its own credentials.
    const other = harness({ authFailureCache: file, auth: { username: USER, password: 'another-Password-9' } });
    other.reply(status(401, 'invalid credentials'));
    await caught(() => other.client.ips.list());
    await other.done();
    const h = harness({ authFailureCache: file });
    const stop = new AbortController();
    const call = caught(() => h.client.ips.list({}, { signal: stop.signal }));
    setTimeout(() => stop.abort(new Error('stopped')), 3);
    expect((await call).code).toBe('ERR_ABORTED');
    expect(h.seen()).toHaveLength(0);
    expect(readdirSync(join(dir, 'nested')).filter((f) => f.endsWith('.lock'))).toEqual([]);
  });

  it('waits for a live holder, and a stop while waiting sends nothing', async () => {
    const memory = new AuthFailureMemory(file, DEFAULT_AUTH_FAILURE_TTL_MS);
    const release = await memory.lockProbe(BASE);
    const h = harness({ authFailureCache: file });
    const stop = new AbortController();
    const waiting = h.client.ips.list({}, { signal: stop.signal });
    await new Promise((r) => setTimeout(r, 100));
    expect(h.seen()).toHaveLength(0);
    stop.abort(new Error('stopped'));
    expect(await waiting.catch((e: unknown) => (e as { code: string }).code)).toBe('ERR_ABORTED');
    expect(h.seen()).toHaveLength(0);
    await release!();
  });
});

describe('a platform without POSIX owners (Windows)', () => {
  it("keeps the memory although the directory's mode reads as writable by all, as Windows reports it", async () => {
    const open = join(dir, 'open');
    mkdirSync(open, { mode: 0o777 });
    chmodSync(open, 0o777);
    // Node on Windows has no process.getuid.
    const getuid = Object.getOwnPropertyDescriptor(process, 'getuid')!;
    Object.defineProperty(process, 'getuid', { value: undefined, configurable: true, writable: true });
    try {
      const first = harness({ authFailureCache: join(open, 'auth-failures.json') });
      first.reply(status(401, 'invalid credentials'));
      await caught(() => first.client.ips.list());
      await first.done();
      const second = harness({ authFailureCache: join(open, 'auth-failures.json') });
      expect(await caught(() => second.client.ips.list())).toBeInstanceOf(CredentialsRememberedRejectedError);
      expect(second.seen()).toHaveLength(0);
    } finally {
      Object.defineProperty(process, 'getuid', getuid);
    }
  });
});

describe('a memory that cannot be used', () => {
  it('makes the 401 say that the failure was not remembered and the next run sends again', async () => {
    const shared = join(dir, 'shared');
    mkdirSync(shared, { mode: 0o775 });
    chmodSync(shared, 0o775);
    const h = harness({ authFailureCache: join(shared, 'auth-failures.json') });
    h.reply(status(401, 'invalid credentials'));
    const err = await caught(() => h.client.ips.list());
    expect(err).toBeInstanceOf(AuthenticationError);
    expect(err.message).toMatch(
      /this failure could not be remembered \(.*writable by group or others.*\), so the next run will send these credentials again; 3 more failures would ban the address/,
    );
    expect(err.message).not.toMatch(/are remembered/);
    await h.done();
  });
});
