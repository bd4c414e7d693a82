// A ban answer (429, or a 403 about a ban) stops the client: nothing more is sent, because each
// request from a banned address could extend the ban; later calls say the client is banned.
import { BannedError, ClientBannedError, ForbiddenError } from '../../src/sdk';
import { caught, deferred, harness, ok, settle, status } from './harness';

describe('after a ban answer', () => {
  it('refuses every later call without sending it, saying for how long', async () => {
    const h = harness();
    h.reply(status(429, 'client address banned; retry in 10800 s', { 'retry-after': '10800' }));
    const first = await caught(() => h.client.ips.list());
    expect(first).toBeInstanceOf(BannedError);
    const later = await caught(() => h.client.subAccounts.create({ username: 'alice', password: 'x-Password-1' }));
    expect(later).toBeInstanceOf(ClientBannedError);
    expect(later.code).toBe('ERR_BANNED');
    expect(later.retryAfterSeconds).toBeGreaterThan(10790);
    expect(later.retryAfterSeconds).toBeLessThanOrEqual(10800);
    expect(later.message).toContain('not sent');
    expect(later.message).toMatch(/about 10[78]\d\d more seconds/);
    expect(h.seen()).toHaveLength(1);
    await h.done();
  });

  it('without Retry-After the refusal lasts for the client and says the time is unknown', async () => {
    const h = harness();
    h.reply(status(403, 'You are banned'));
    await caught(() => h.client.ips.list());
    const later = await caught(() => h.client.hostnames.list());
    expect(later).toBeInstanceOf(ClientBannedError);
    expect(later.retryAfterSeconds).toBeUndefined();
    expect(later.message).toContain('for an unknown time');
    expect(h.seen()).toHaveLength(1);
    await h.done();
  });

  it('a 403 that only repeats a value of the request (a sub-account named "ban") is not a ban', async () => {
    const h = harness();
    h.reply(status(403, 'ban is not one of your sub-accounts'));
    h.reply(ok({ ips: [] }));
    const refused = await caught(() => h.client.ips.list({ username: 'ban' }));
    expect(refused).toBeInstanceOf(ForbiddenError);
    // The client goes on: its next call is sent.
    await expect(h.client.ips.list()).resolves.toEqual([]);
    expect(h.seen()).toHaveLength(2);
    await h.done();
  });

  it('never retries a ban, even for a repeatable call', async () => {
    const h = harness({ maxRetries: 5 });
    h.reply(status(429, 'banned', { 'retry-after': '1' }));
    expect(await caught(() => h.client.ips.list())).toBeInstanceOf(BannedError);
    expect(h.sleeps).toEqual([]);
    expect(h.seen()).toHaveLength(1);
    await h.done();
  });

  it('callers waiting for the first answer are refused, not sent', async () => {
    const h = harness();
    const gate = deferred();
    h.reply({ status: 429, body: 'banned', headers: { 'retry-after': '60' }, until: gate.promise });
    const calls = [h.client.ips.list(), h.client.hostnames.list(), h.client.proxies.list()];
    gate.resolve();
    const results = await Promise.allSettled(calls);
    const reasons = results.map((r) => (r.status === 'rejected' ? (r.reason as Error).constructor.name : 'ok'));
    expect(reasons).toEqual(['BannedError', 'ClientBannedError', 'ClientBannedError']);
    expect(h.seen()).toHaveLength(1);
    await h.done();
  });

  it('a retry waiting out a 503 backoff is not sent once a parallel call saw a ban', async () => {
    const backoff = deferred();
    const h = harness({ maxRetries: 3, sleep: () => backoff.promise });
    // First a success proves the credentials, so the next two run in parallel.
    h.reply(ok({ ips: [] }));
    await h.client.ips.list();
    const gate = deferred();
    h.reply(status(503, 'plan lookup failed'), { status: 429, body: 'banned', until: gate.promise });
    const retried = h.client.ips.list();
    const banned = h.client.hostnames.list();
    await settle();
    gate.resolve();
    const b = await banned.catch((e: unknown) => e);
    expect(b).toBeInstanceOf(BannedError);
    // Only now does the retry's backoff end.
    backoff.resolve();
    expect(await retried.catch((e: unknown) => e)).toBeInstanceOf(ClientBannedError);
    expect(h.seen()).toHaveLength(3);
    await h.done();
  });

  it('a ban of known length ends for the client when the server said', async () => {
    const h = harness();
    h.reply(status(429, 'banned', { 'retry-after': '0' }), ok({ ips: [] }));
    expect(await caught(() => h.client.ips.list())).toBeInstanceOf(BannedError);
    await expect(h.client.ips.list()).resolves.toEqual([]);
    await h.done();
  });
});
