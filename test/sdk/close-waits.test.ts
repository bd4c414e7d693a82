// close() ends the calls that wait (for another process's probe, for a retry's backoff): they fail
// with ClientClosedError at once and send nothing, then or later.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ClientClosedError } from '../../src/sdk';
import { AuthFailureMemory, DEFAULT_AUTH_FAILURE_TTL_MS } from '../../src/sdk/failure-memory';
import { BASE, caught, deferred, harness, ok, settle, status } from './harness';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'proxyaccount-close-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('close() while a call waits', () => {
  it("for another process's probe: the call fails unsent and sends nothing when the lock frees", async () => {
    const file = join(dir, 'auth-failures.json');
    // Another process of this user holds the machine's probe lock for the API.
    const release = await new AuthFailureMemory(file, DEFAULT_AUTH_FAILURE_TTL_MS).lockProbe(BASE);
    expect(release).toBeDefined();
    const h = harness({ authFailureCache: file });
    h.reply(ok({ ip: '198.51.100.9' }));
    const waiting = caught(() => h.client.ips.add({ ip: '198.51.100.9' }));
    await settle();
    await h.client.close();
    await release!();
    const err = await waiting;
    expect(err).toBeInstanceOf(ClientClosedError);
    expect(err.mayHaveReachedServer).toBe(false);
    await settle();
    expect(h.seen()).toHaveLength(0);
    await h.agent.close();
  });

  it('out a retry backoff: the call fails with ClientClosedError as soon as close() is called', async () => {
    const sleeping = deferred();
    const h = harness({
      // A backoff that only a signal ends (a Retry-After of minutes, say).
      sleep: (_ms, signal) =>
        new Promise((_resolve, reject) => {
          signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
          sleeping.resolve();
        }),
    });
    h.reply(status(503, 'try later', { 'retry-after': '600' }));
    const call = caught(() => h.client.ips.list());
    await sleeping.promise;
    await h.client.close();
    const err = await call;
    expect(err).toBeInstanceOf(ClientClosedError);
    // The 503 was an answer: the call's earlier attempt reached the server.
    expect(err.mayHaveReachedServer).toBe(true);
    expect(h.seen()).toHaveLength(1);
    await h.done();
  });
});
