// Retries: which failures, which calls, how many, how long to wait (full jitter, Retry-After),
// per-attempt timeouts, and what is never retried.
import type { ProxyAccountClient } from '../../src/sdk';
import { AbortedError, ClientClosedError, NetworkError, ServiceUnavailableError, TimeoutError, ValidationError } from '../../src/sdk';
import { caught, harness, netError, ok, status, type Reply } from './harness';

const DETAILS = {
  username: 'alice',
  active: true,
  monthly_bandwidth: 0,
  monthly_bandwidth_limit: 0,
  total_bandwidth: 0,
  total_bandwidth_limit: 0,
};
const TOKEN_META = { id: 1, label: '', is_active: true, expires_at: null, created_at: '2024-01-01T00:00:00' };

interface Call {
  readonly name: string;
  readonly run: (c: ProxyAccountClient) => Promise<unknown>;
  readonly success: Reply;
}

/** Calls that may be repeated after the request may have reached the server. */
const REPEATABLE: Call[] = [
  { name: 'subAccounts.get', run: (c) => c.subAccounts.get('alice'), success: ok(DETAILS) },
  { name: 'subAccounts.edit', run: (c) => c.subAccounts.edit({ username: 'alice', totalLimit: 3 }), success: ok(DETAILS) },
  { name: 'subAccounts.activate', run: (c) => c.subAccounts.activate('alice'), success: ok(DETAILS) },
  { name: 'subAccounts.deactivate', run: (c) => c.subAccounts.deactivate('alice'), success: ok(DETAILS) },
  { name: 'ips.list', run: (c) => c.ips.list(), success: ok({ ips: [] }) },
  { name: 'ips.listWithLabels', run: (c) => c.ips.listWithLabels(), success: ok([]) },
  { name: 'hostnames.list', run: (c) => c.hostnames.list(), success: ok({ domains: [] }) },
  { name: 'proxies.list', run: (c) => c.proxies.list(), success: ok({ proxies: [] }) },
  { name: 'proxies.add', run: (c) => c.proxies.add('us-ny'), success: ok({ proxy: 'us-ny.proxy.example.net' }) },
  { name: 'proxies.delete', run: (c) => c.proxies.delete('us-ny'), success: status(204) },
  { name: 'tokens.list', run: (c) => c.tokens.list(), success: ok({ tokens: [] }) },
  { name: 'tokens.activate', run: (c) => c.tokens.activate({ id: 1 }), success: ok(TOKEN_META) },
  { name: 'tokens.deactivate', run: (c) => c.tokens.deactivate({ id: 1 }), success: ok(TOKEN_META) },
  { name: 'geoIps.open', run: (c) => c.geoIps.open(), success: ok({}) },
  { name: 'geoIps.world', run: (c) => c.geoIps.world(), success: ok({}) },
];

/** Calls whose repeat after a lost answer would fail or duplicate. */
const NOT_REPEATABLE: Call[] = [
  { name: 'subAccounts.create', run: (c) => c.subAccounts.create({ username: 'alice' }), success: ok(DETAILS) },
  { name: 'subAccounts.delete', run: (c) => c.subAccounts.delete('alice'), success: ok('') },
  { name: 'ips.add', run: (c) => c.ips.add({ ip: '203.0.113.7' }), success: ok({ ip: '203.0.113.7' }) },
  { name: 'ips.delete', run: (c) => c.ips.delete({ ip: '203.0.113.7' }), success: status(204) },
  { name: 'hostnames.add', run: (c) => c.hostnames.add({ domain: 'a.example' }), success: ok({ domain: 'a.example' }) },
  { name: 'hostnames.delete', run: (c) => c.hostnames.delete({ domain: 'a.example' }), success: status(204) },
  { name: 'tokens.create', run: (c) => c.tokens.create(), success: ok({ ...TOKEN_META, token: 'pxa_x' }) },
  { name: 'tokens.delete', run: (c) => c.tokens.delete({ id: 1 }), success: status(204) },
];

describe('repeatable calls', () => {
  it.each(REPEATABLE)('$name is retried after 503, 500 and a reset connection', async (call) => {
    const h = harness();
    h.reply(status(503, 'plan lookup failed'), status(500), netError('ECONNRESET', 'socket hang up'), call.success);
    await expect(call.run(h.client)).resolves.not.toBeInstanceOf(Error);
    expect(h.seen()).toHaveLength(4);
    expect(h.sleeps).toHaveLength(3);
    await h.done();
  });
});

describe('non-repeatable calls', () => {
  it.each(NOT_REPEATABLE)('$name is not retried after 500, 503 or a reset', async (call) => {
    const h = harness();
    h.reply(status(500, 'boom'), status(503), netError('ECONNRESET', 'socket hang up'));
    await expect(call.run(h.client)).rejects.toMatchObject({ code: 'ERR_SERVER', attempts: 1 });
    await expect(call.run(h.client)).rejects.toMatchObject({ code: 'ERR_SERVICE_UNAVAILABLE' });
    await expect(call.run(h.client)).rejects.toMatchObject({ code: 'ERR_NETWORK', errorCode: 'ECONNRESET' });
    expect(h.seen()).toHaveLength(3);
    expect(h.sleeps).toEqual([]);
    await h.done();
  });

  it.each(NOT_REPEATABLE)('$name is retried when the connection was refused (nothing was sent)', async (call) => {
    const h = harness();
    h.reply(netError('ECONNREFUSED'), call.success);
    await expect(call.run(h.client)).resolves.not.toBeInstanceOf(Error);
    expect(h.sleeps).toHaveLength(1);
    await h.done();
  });
});

describe('how many and how long', () => {
  it('makes 1 + maxRetries attempts and reports them', async () => {
    const h = harness({ maxRetries: 2 });
    h.reply(status(503), status(503), status(503, 'still down'));
    const err = await caught(() => h.client.ips.list());
    expect(err).toBeInstanceOf(ServiceUnavailableError);
    expect(err.attempts).toBe(3);
    expect(err.message).toBe('GET /api/ips/ (list IPs) failed with 503 Service Unavailable: still down (after 3 attempts)');
    expect(h.seen()).toHaveLength(3);
    await h.done();
  });

  it('defaults to 3 retries', async () => {
    const h = harness({ maxRetries: undefined });
    h.reply(status(500), status(500), status(500), status(500));
    await expect(h.client.ips.list()).rejects.toMatchObject({ attempts: 4 });
    expect(h.seen()).toHaveLength(4);
    await h.done();
  });

  it('maxRetries 0 disables retries', async () => {
    const h = harness({ maxRetries: 0 });
    h.reply(status(500));
    await expect(h.client.ips.list()).rejects.toMatchObject({ code: 'ERR_SERVER', attempts: 1 });
    await h.done();
  });

  it('waits random × base × 2^(n-1) (full jitter), capped by retryMaxDelayMs', async () => {
    const draws = [0.5, 0, 0.999, 0.999];
    const h = harness({ retryBaseDelayMs: 100, retryMaxDelayMs: 300, maxRetries: 4, random: () => draws.shift() ?? 0 });
    h.reply(status(503), status(503), status(503), status(503), ok({ ips: [] }));
    await h.client.ips.list();
    // ceilings 100, 200, 400→300, 800→300
    expect(h.sleeps).toEqual([50, 0, 299, 299]);
    await h.done();
  });

  it('uses the default base of 250 ms', async () => {
    const h = harness({ random: () => 0.999 });
    h.reply(status(500), status(500), ok({ ips: [] }));
    await h.client.ips.list();
    expect(h.sleeps).toEqual([249, 499]);
    await h.done();
  });

  it('honours Retry-After of a 503, capped by retryMaxDelayMs', async () => {
    const h = harness({ retryMaxDelayMs: 5000 });
    h.reply(status(503, '', { 'retry-after': '2' }), status(503, '', { 'retry-after': '3600' }), ok({ ips: [] }));
    await h.client.ips.list();
    expect(h.sleeps).toEqual([2000, 5000]);
    await h.done();
  });

  it.each([400, 401, 402, 403, 404, 405, 429])('never retries %i, even on a read', async (code) => {
    const h = harness();
    h.reply(status(code, 'no'));
    await expect(h.client.ips.list()).rejects.toMatchObject({ status: code, attempts: 1 });
    expect(h.seen()).toHaveLength(1);
    expect(h.sleeps).toEqual([]);
    await h.done();
  });

  it('does not retry certificate errors and says how to fix them', async () => {
    const h = harness();
    h.reply(netError('DEPTH_ZERO_SELF_SIGNED_CERT', 'self-signed certificate'));
    const err = await caught(() => h.client.ips.list());
    expect(err).toBeInstanceOf(NetworkError);
    expect(err.errorCode).toBe('DEPTH_ZERO_SELF_SIGNED_CERT');
    expect(err.message).toContain('caCert');
    expect(h.seen()).toHaveLength(1);
    await h.done();
  });

  it('reads an AggregateError (every address refused) and retries even a non-repeatable write', async () => {
    const h = harness({ maxRetries: 1 });
    const refused = () => new AggregateError([Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' })], '');
    h.reply({ error: refused() }, { error: refused() });
    const err = await caught(() => h.client.ips.add({ ip: '203.0.113.7' }));
    expect(err).toBeInstanceOf(NetworkError);
    expect(err.errorCode).toBe('ECONNREFUSED');
    expect(err.message).toBe("POST /api/ip/add/ (add IP '203.0.113.7') failed: connect ECONNREFUSED 127.0.0.1:9 (after 2 attempts)");
    await h.done();
  });

  it('keeps the network error as cause', async () => {
    const h = harness({ maxRetries: 1 });
    h.reply(netError('ECONNRESET', 'socket hang up'), netError('ECONNRESET', 'socket hang up'));
    const err = await caught(() => h.client.ips.list());
    expect(err).toBeInstanceOf(NetworkError);
    expect((err.cause as { code?: string }).code).toBe('ECONNRESET');
    expect(err.message).toBe('GET /api/ips/ (list IPs) failed: socket hang up (ECONNRESET) (after 2 attempts)');
    await h.done();
  });
});

describe('timeouts', () => {
  it('turns a slow answer into TimeoutError and retries a read', async () => {
    const h = harness({ timeoutMs: 250, maxRetries: 1 });
    h.reply({ status: 200, body: { ips: [] }, delayMs: 10_000 }, { status: 200, body: { ips: ['203.0.113.7'] } });
    await expect(h.client.ips.list()).resolves.toEqual(['203.0.113.7']);
    expect(h.sleeps).toHaveLength(1);
    await h.done();
  });

  it('gives up with TimeoutError after the last attempt', async () => {
    const h = harness({ timeoutMs: 50, maxRetries: 1 });
    h.reply({ status: 200, body: { ips: [] }, delayMs: 10_000 }, { status: 200, body: { ips: [] }, delayMs: 10_000 });
    const err = await caught(() => h.client.ips.list());
    expect(err).toBeInstanceOf(TimeoutError);
    expect(err.code).toBe('ERR_TIMEOUT');
    expect(err.attempts).toBe(2);
    expect(err.message).toBe('GET /api/ips/ (list IPs) timed out after 50 ms (after 2 attempts)');
    await h.done();
  });

  it('does not retry a timed-out non-repeatable write', async () => {
    const h = harness({ timeoutMs: 50 });
    h.reply({ status: 200, body: { ip: '203.0.113.7' }, delayMs: 10_000 });
    await expect(h.client.ips.add({ ip: '203.0.113.7' })).rejects.toBeInstanceOf(TimeoutError);
    expect(h.sleeps).toEqual([]);
    await h.done();
  });
});

describe('cancellation and close', () => {
  it('an abort during the backoff wait stops the call', async () => {
    const controller = new AbortController();
    const h = harness({
      sleep: (_ms, signal) =>
        new Promise((_resolve, reject) => {
          signal?.addEventListener('abort', () => reject(signal.reason));
          controller.abort(new Error('stop'));
        }),
    });
    h.reply(status(503));
    const err = await caught(() => h.client.ips.list({}, { signal: controller.signal }));
    expect(err).toBeInstanceOf(AbortedError);
    expect(h.seen()).toHaveLength(1);
    await h.done();
  });

  it('an already aborted signal sends nothing', async () => {
    const h = harness();
    const err = await caught(() => h.client.proxies.list({ signal: AbortSignal.abort() }));
    expect(err).toBeInstanceOf(AbortedError);
    expect(h.seen()).toHaveLength(0);
    await h.done();
  });

  it('an abort in flight ends the request without retry', async () => {
    const h = harness();
    h.reply({ status: 200, body: { proxies: [] }, delayMs: 10_000 });
    const controller = new AbortController();
    const pending = h.client.proxies.list({ signal: controller.signal });
    setTimeout(() => controller.abort(), 10);
    await expect(pending).rejects.toBeInstanceOf(AbortedError);
    expect(h.sleeps).toEqual([]);
    await h.done();
  });

  it('after close() calls fail without a request', async () => {
    const h = harness();
    await h.client.close();
    await expect(h.client.ips.list()).rejects.toBeInstanceOf(ClientClosedError);
    expect(h.seen()).toHaveLength(0);
    await h.done();
  });

  it('a 400 is a ValidationError on the first attempt', async () => {
    const h = harness();
    h.reply(status(400, 'IP already authorized'));
    await expect(h.client.ips.add({ ip: '203.0.113.7' })).rejects.toBeInstanceOf(ValidationError);
    await h.done();
  });
});
