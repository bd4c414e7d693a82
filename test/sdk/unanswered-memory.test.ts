// Probes that got no answer are remembered across runs as possible failures of the origin, counted
// like 401s: behind an API that counts a failed authentication but answers after the client's
// timeout, runs must stop at the budget (2) that leaves room for a racing run below the ban (4),
// and a correct password after an outage is paused until the entries expire or are cleared.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CredentialsRememberedRejectedError, TimeoutError } from '../../src/sdk';
import { AUTH_FAILURE_BUDGET, AuthFailureMemory } from '../../src/sdk/failure-memory';
import { BASE, caught, harness, ok, type Reply, USER } from './harness';

let dir: string;
let file: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'proxyaccount-unanswered-'));
  file = join(dir, 'mem', 'auth-failures.json');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** The API's 401, counted at once but answered long after the client's timeout. */
const lateRejection = (): Reply => ({ status: 401, body: 'invalid username or password', delayMs: 10_000 });

/** One run (a client of its own, as a process would be) whose every answer comes too late. */
async function slowRun(password: string, replies: Reply[]): Promise<{ err: Error; sent: number }> {
  const h = harness({ authFailureCache: file, auth: { username: USER, password }, timeoutMs: 50, maxRetries: 3 });
  h.reply(...replies);
  const err = await caught(() => h.client.ips.list());
  const sent = h.seen().length;
  await h.client.close();
  await h.agent.close();
  return { err, sent };
}

/** Makes every entry of the memory file expired, as the TTL would (no waiting in a test). */
function expireAll(): void {
  const stored = JSON.parse(readFileSync(file, 'utf8')) as {
    failures: Record<string, number>;
    origins: Record<string, number[]>;
    unanswered: Record<string, { until: number; key: string }[]>;
  };
  const past = Date.now() - 1;
  for (const k of Object.keys(stored.failures)) stored.failures[k] = past;
  for (const k of Object.keys(stored.origins)) stored.origins[k] = stored.origins[k]!.map(() => past);
  for (const k of Object.keys(stored.unanswered)) stored.unanswered[k] = stored.unanswered[k]!.map((p) => ({ ...p, until: past }));
  writeFileSync(file, JSON.stringify(stored));
}

describe('unanswered probes in the memory', () => {
  it('three clients behind an API that answers after the timeout send 2 requests in all, then are refused', async () => {
    const runs = [];
    for (let run = 0; run < 3; run++) runs.push(await slowRun('wrong-Password-9', [lateRejection(), lateRejection(), lateRejection()]));
    expect(runs.map((r) => r.sent)).toEqual([2, 0, 0]);
    expect(runs.reduce((n, r) => n + r.sent, 0)).toBe(AUTH_FAILURE_BUDGET);
    expect(runs[0]!.err).toBeInstanceOf(TimeoutError);
    for (const r of runs.slice(1)) {
      const refused = r.err as CredentialsRememberedRejectedError;
      expect(refused).toBeInstanceOf(CredentialsRememberedRejectedError);
      expect(refused.unansweredProbes).toBe(2);
      expect(refused.originFailures).toBe(0);
      // No 401 was seen: the credentials were not rejected, the client only refuses to send.
      expect(refused.credentialsRejected).toBe(false);
      expect(refused.clientRefusesRequests).toBe(true);
      expect(refused.mayHaveReachedServer).toBe(false);
      expect(refused.message).toContain(`2 requests to ${BASE} got no answer`);
      expect(refused.message).toContain('may have counted each as a failed authentication');
      expect(refused.message).toContain(`Every credential, right ones included, is paused for ${BASE} on this machine until ${refused.until.toISOString()}`);
      expect(refused.message).toContain(`delete ${file} or set PROXYACCOUNT_AUTH_FAILURE_CACHE=off`);
    }
    // Nothing secret in the file: the credential is a salted fingerprint.
    expect(readFileSync(file, 'utf8')).not.toContain('wrong-Password-9');
    // Still format version 2, so a reader that predates unanswered probes keeps reading its 401s.
    const stored = JSON.parse(readFileSync(file, 'utf8')) as { version: number; unanswered: Record<string, unknown[]> };
    expect(stored.version).toBe(2);
    expect(stored.unanswered[BASE]).toHaveLength(2);
  });

  it("a run's own probes are bounded by what the memory holds: after one remembered failure, one probe, then refused", async () => {
    // One failure of the origin is remembered already (another credential's 401, or a lost probe).
    for (const earlier of [(m: AuthFailureMemory) => m.remember(BASE, 'other'), (m: AuthFailureMemory) => m.rememberUnanswered(BASE, 'other')]) {
      rmSync(file, { force: true });
      await earlier(new AuthFailureMemory(file, 60_000));
      const run = await slowRun('wrong-Password-9', [lateRejection(), lateRejection()]);
      // The retry's probe read the memory under the lock and saw the first probe recorded.
      expect(run.sent).toBe(1);
      const refused = run.err as CredentialsRememberedRejectedError;
      expect(refused).toBeInstanceOf(CredentialsRememberedRejectedError);
      expect((refused.originFailures ?? 0) + (refused.unansweredProbes ?? 0)).toBe(2);
      // The refused retry follows an attempt that may have reached the server.
      expect(refused.mayHaveReachedServer).toBe(true);
    }
  });

  it('a 401 and an unanswered probe count together: 1 + 1 stops the origin', async () => {
    const memory = new AuthFailureMemory(file, 60_000);
    await memory.remember(BASE, 'a');
    expect((await memory.check(BASE, 'c')).origin).toMatchObject({ count: 1, unanswered: 0, budgetBackAt: undefined });
    await memory.rememberUnanswered(BASE, 'b');
    const { origin } = await memory.check(BASE, 'c');
    expect(origin).toMatchObject({ count: 1, unanswered: 1 });
    expect(origin.budgetBackAt).toBeInstanceOf(Date);
  });

  it('a correct password after an outage is paused, and works once the entries expire or are cleared', async () => {
    const password = 'right-Password-1';
    // The outage: both probes of the run are lost.
    const outage = await slowRun(password, [lateRejection(), lateRejection()]);
    expect(outage.sent).toBe(2);
    const paused = await slowRun(password, [ok({ ips: [] })]);
    expect(paused.sent).toBe(0);
    expect(paused.err).toBeInstanceOf(CredentialsRememberedRejectedError);
    expect(paused.err.message).toContain('is paused');
    expect((paused.err as CredentialsRememberedRejectedError).credentialsRejected).toBe(false);
    // The entries expire (as after the TTL): the right password is sent and works.
    expireAll();
    const h = harness({ authFailureCache: file, auth: { username: USER, password } });
    h.reply(ok({ ips: [] }));
    await expect(h.client.ips.list()).resolves.toEqual([]);
    await h.done();
    // Another outage, then the memory is cleared as the refusal says: it works again.
    await slowRun(password, [lateRejection(), lateRejection()]);
    expect((await slowRun(password, [ok({ ips: [] })])).sent).toBe(0);
    rmSync(file);
    const after = harness({ authFailureCache: file, auth: { username: USER, password } });
    after.reply(ok({ ips: [] }));
    await expect(after.client.ips.list()).resolves.toEqual([]);
    await after.done();
  });

  it('an answer accepting the credentials forgets the unanswered probe they left', async () => {
    const password = 'right-Password-1';
    // One probe lost, its retry answered: the run succeeds and clears what it left.
    const h = harness({ authFailureCache: file, auth: { username: USER, password }, timeoutMs: 50, maxRetries: 3 });
    h.reply(lateRejection(), ok({ ips: [] }));
    await expect(h.client.ips.list()).resolves.toEqual([]);
    expect(h.seen()).toHaveLength(2);
    await h.client.close();
    await h.agent.close();
    expect((await new AuthFailureMemory(file, 60_000).check(BASE, 'x')).origin).toMatchObject({ count: 0, unanswered: 0, budgetBackAt: undefined });
  });

  it('another credential that succeeds does not forget unanswered probes it did not leave', async () => {
    const memory = new AuthFailureMemory(file, 60_000);
    await memory.rememberUnanswered(BASE, 'someone else');
    await memory.forget('mine');
    expect((await memory.check(BASE, 'mine')).origin.unanswered).toBe(1);
    await memory.forget('someone else');
    expect((await memory.check(BASE, 'mine')).origin.unanswered).toBe(0);
  });

  it('unanswered probes expire with the memory', async () => {
    await new AuthFailureMemory(file, 1000, () => 1_000_000).rememberUnanswered(BASE, 'a');
    expect((await new AuthFailureMemory(file, 1000, () => 1_000_999).check(BASE, 'a')).origin.unanswered).toBe(1);
    expect((await new AuthFailureMemory(file, 1000, () => 1_001_000).check(BASE, 'a')).origin.unanswered).toBe(0);
  });
});
