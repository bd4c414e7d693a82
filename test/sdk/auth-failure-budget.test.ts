// The ban budget per API origin (whatever the credentials), the warning the first 401 carries, and
// a memory that another user cannot plant or redirect.
import { chmodSync, chownSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AuthenticationError, CredentialsRememberedRejectedError, type RequestLogFields } from '../../src/sdk';
import { AUTH_FAILURE_BUDGET, AuthFailureMemory } from '../../src/sdk/failure-memory';
import { BASE, caught, harness, ok, status, USER } from './harness';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'proxyaccount-budget-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** One run with its own password: what it threw and how many requests reached the API. */
async function run(file: string, password: string): Promise<{ err: Error & { code?: string }; sent: number }> {
  const h = harness({ authFailureCache: file, auth: { username: USER, password } });
  h.reply(status(401, 'invalid username or password'));
  const err = await caught(() => h.client.ips.list());
  const sent = h.seen().length;
  // An unused reply means the run sent nothing; clear it so done() checks only the client.
  if (sent === 0) await h.agent.close();
  else await h.done();
  return { err, sent };
}

describe('the ban budget per origin', () => {
  it('four different wrong passwords: two are sent, then nothing reaches the origin, and the error says how to clear it', async () => {
    const file = join(dir, 'mem', 'auth-failures.json');
    const runs = [];
    for (const password of ['wrong-One-1', 'wrong-Two-2', 'wrong-Three-3', 'wrong-Four-4']) runs.push(await run(file, password));
    expect(runs.map((r) => r.sent)).toEqual([1, 1, 0, 0]);
    expect(AUTH_FAILURE_BUDGET).toBe(2);
    expect(runs[0]!.err).toBeInstanceOf(AuthenticationError);
    expect(runs[0]!.err.message).toContain('after 4 failed authentications: 1 from this machine are remembered, so 3 more would ban it');
    expect(runs[1]!.err.message).toContain('2 from this machine are remembered, so 2 more would ban it');
    const refused = runs[2]!.err as CredentialsRememberedRejectedError;
    expect(refused).toBeInstanceOf(CredentialsRememberedRejectedError);
    expect(refused.originFailures).toBe(2);
    expect(refused.message).toContain(`${BASE} rejected 2 authentications from this machine`);
    expect(refused.message).toContain(file);
    expect(refused.message).toContain('PROXYACCOUNT_AUTH_FAILURE_CACHE=off');
    expect(refused.message).toContain(refused.until.toISOString());
    for (const r of runs) expect(r.err.message).not.toMatch(/wrong-(One|Two|Three|Four)/);
  });

  it('another origin keeps its own budget', async () => {
    const file = join(dir, 'auth-failures.json');
    await run(file, 'wrong-One-1');
    await run(file, 'wrong-Two-2');
    const other = harness({ authFailureCache: file, baseUrl: 'https://other.example.test', auth: { username: USER, password: 'wrong-Three-3' } });
    other.reply(ok({ ips: [] }));
    await expect(other.client.ips.list()).resolves.toEqual([]);
    await other.done();
  });

  it('the count expires with the memory', async () => {
    const file = join(dir, 'auth-failures.json');
    const memory = new AuthFailureMemory(file, 1000, () => 1_000_000);
    await memory.remember(BASE, 'a');
    await memory.remember(BASE, 'b');
    expect((await memory.check(BASE, 'c')).origin).toEqual({ count: 2, unanswered: 0, budgetBackAt: new Date(1_001_000) });
    const later = new AuthFailureMemory(file, 1000, () => 1_001_001);
    expect((await later.check(BASE, 'c')).origin).toEqual({ count: 0, unanswered: 0, budgetBackAt: undefined });
  });

  it('without a memory the first 401 still says how many more failures would ban the address', async () => {
    const h = harness({ authFailureCache: false });
    h.reply(status(401, 'invalid username or password'));
    const err = await caught(() => h.client.ips.list());
    expect(err.message).toContain('the API bans the client address for 3 hours after 4 failed authentications: this client has had 1, so 3 more would ban it');
    await h.done();
  });
});

describe('a memory that cannot be planted', () => {
  /** A run against a memory at `file` that the API answers 401; returns the debug notes. */
  async function rejectedRun(file: string): Promise<{ notes: string[]; sent: number }> {
    const notes: string[] = [];
    const logger = { debug: (message: string, f: RequestLogFields) => (f.error === 'ERR_UNTRUSTED_FILE' ? notes.push(message) : undefined) };
    const h = harness({ authFailureCache: file, auth: { username: USER, password: 'wrong-One-1' }, logger });
    h.reply(status(401, 'invalid username or password'));
    await caught(() => h.client.ips.list());
    const sent = h.seen().length;
    await h.done();
    return { notes, sent };
  }

  /** A memory file that refuses everything for BASE, written by someone else into `where`. */
  function plant(where: string): string {
    mkdirSync(where, { recursive: true });
    const until = Date.now() + 3600_000;
    const file = join(where, 'auth-failures.json');
    writeFileSync(file, JSON.stringify({ version: 2, salt: 'AAAAAAAAAAAAAAAAAAAAAA==', failures: {}, origins: { [BASE]: [until, until, until] } }));
    return file;
  }

  it('a directory owned by another user is neither read nor written, with a DEBUG note', async () => {
    const other = join(dir, 'other');
    const file = plant(other);
    chownSync(file, 12345, 12345);
    chownSync(other, 12345, 12345);
    const before = readFileSync(file, 'utf8');
    const { notes, sent } = await rejectedRun(file);
    expect(sent).toBe(1);
    expect(notes.join('\n')).toContain('owned by uid 12345');
    expect(readFileSync(file, 'utf8')).toBe(before);
  });

  it('a directory writable by group or others (0777) is not trusted, even when it is ours', async () => {
    const shared = join(dir, 'shared');
    const file = plant(shared);
    chmodSync(shared, 0o777);
    const before = readFileSync(file, 'utf8');
    const { notes, sent } = await rejectedRun(file);
    expect(sent).toBe(1);
    expect(notes.join('\n')).toContain('writable by group or others (mode 0777)');
    expect(readFileSync(file, 'utf8')).toBe(before);
  });

  it('a planted symbolic link is neither followed to read nor written through', async () => {
    const mine = join(dir, 'mine');
    mkdirSync(mine, { mode: 0o700 });
    const target = plant(join(dir, 'elsewhere'));
    const before = readFileSync(target, 'utf8');
    const file = join(mine, 'auth-failures.json');
    symlinkSync(target, file);
    const { sent } = await rejectedRun(file);
    // The planted content would have refused the request; it was not read, and not overwritten.
    expect(sent).toBe(1);
    expect(readFileSync(target, 'utf8')).toBe(before);
    // The link itself was replaced by the user's own file.
    expect(lstatSync(file).isSymbolicLink()).toBe(false);
    expect(lstatSync(file).mode & 0o777).toBe(0o600);
  });

  it('a memory directory that is a symbolic link is not used', async () => {
    const real = join(dir, 'real');
    mkdirSync(real, { mode: 0o700 });
    const link = join(dir, 'link');
    symlinkSync(real, link);
    const { notes, sent } = await rejectedRun(join(link, 'auth-failures.json'));
    expect(sent).toBe(1);
    expect(notes.join('\n')).toContain('is a symbolic link');
    expect(() => readFileSync(join(real, 'auth-failures.json'))).toThrow();
  });
});
