// Probes that got no answer are remembered across runs as possible failures of the origin: behind an
// API that counts a failed authentication but answers after the client's timeout, runs must not
// add up to the ban (4), and a correct password after an outage must not be refused for good.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CredentialsRememberedRejectedError, TimeoutError } from '../../src/sdk';
import { AuthFailureMemory, UNANSWERED_BUDGET } from '../../src/sdk/failure-memory';
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

describe('unanswered probes in the memory', () => {
  it('three runs behind an API that answers after the timeout send 3 requests in all, never the 4 that ban', async () => {
    const runs = [];
    for (let run = 0; run < 3; run++) runs.push(await slowRun('wrong-Password-9', [lateRejection(), lateRejection(), lateRejection()]));
    expect(runs.map((r) => r.sent)).toEqual([2, 1, 0]);
    expect(runs.reduce((n, r) => n + r.sent, 0)).toBe(UNANSWERED_BUDGET);
    expect(runs[0]!.err).toBeInstanceOf(TimeoutError);
    const refused = runs[2]!.err as CredentialsRememberedRejectedError;
    expect(refused).toBeInstanceOf(CredentialsRememberedRejectedError);
    expect(refused.unansweredProbes).toBe(3);
    expect(refused.originFailures).toBe(0);
    expect(refused.message).toContain('3 requests to it got no answer');
    expect(refused.message).toContain('may have counted as failed authentications');
    expect(refused.message).toContain(`delete ${file} or set PROXYACCOUNT_AUTH_FAILURE_CACHE=off`);
    // The second run's retry was refused under the probe lock too, having read the third entry.
    expect(runs[1]!.err).toBeInstanceOf(CredentialsRememberedRejectedError);
    // Nothing secret in the file: the credential is a salted fingerprint.
    expect(readFileSync(file, 'utf8')).not.toContain('wrong-Password-9');
    // Still format version 2, so a reader that predates unanswered probes keeps reading its 401s.
    const stored = JSON.parse(readFileSync(file, 'utf8')) as { version: number; unanswered: Record<string, unknown[]> };
    expect(stored.version).toBe(2);
    expect(stored.unanswered[BASE]).toHaveLength(3);
  });

  it('a 401 and unanswered probes count together: 1 + 2 stops the origin', async () => {
    const memory = new AuthFailureMemory(file, 60_000);
    await memory.remember(BASE, 'a');
    await memory.rememberUnanswered(BASE, 'b');
    expect((await memory.check(BASE, 'c')).origin).toMatchObject({ count: 1, unanswered: 1, budgetBackAt: undefined });
    await memory.rememberUnanswered(BASE, 'b');
    const { origin } = await memory.check(BASE, 'c');
    expect(origin.count + origin.unanswered).toBe(3);
    expect(origin.budgetBackAt).toBeInstanceOf(Date);
  });

  it('a correct password after an outage may send one probe, and its success forgets the unanswered probes', async () => {
    const password = 'right-Password-1';
    // The outage: both probes of the run are lost.
    const outage = await slowRun(password, [lateRejection(), lateRejection()]);
    expect(outage.sent).toBe(2);
    expect((await new AuthFailureMemory(file, 60_000).check(BASE, 'x')).origin).toMatchObject({ count: 0, unanswered: 2, budgetBackAt: undefined });
    // The next run may send one probe; it is answered and clears what the outage left.
    const h = harness({ authFailureCache: file, auth: { username: USER, password } });
    h.reply(ok({ ips: [] }));
    await expect(h.client.ips.list()).resolves.toEqual([]);
    expect(h.seen()).toHaveLength(1);
    await h.done();
    const memory = new AuthFailureMemory(file, 60_000);
    expect((await memory.check(BASE, 'x')).origin).toMatchObject({ count: 0, unanswered: 0, budgetBackAt: undefined });
    // So later outages start from nothing again: this run's two lost probes do not stop the next.
    const again = await slowRun(password, [lateRejection(), lateRejection()]);
    expect(again.sent).toBe(2);
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
