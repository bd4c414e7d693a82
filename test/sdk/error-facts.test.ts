// The facts every SDK error states about the call it ended (mayHaveReachedServer, outcomeUnknown,
// credentialsRejected, clientRefusesRequests), checked against what happened on the (mocked) wire:
// the account store, the provider and the CLI read these instead of matching codes.
import {
  AbortedError,
  AuthenticationError,
  BannedError,
  ClientBannedError,
  ClientClosedError,
  CredentialsRejectedError,
  type ErrorFacts,
  InvalidArgumentError,
  isProxyAccountError,
  NetworkError,
  NotFoundError,
  ProxyAccountClient,
  ResponseParseError,
  ServerError,
  ServiceUnavailableError,
  TimeoutError,
  ValidationError,
} from '../../src/sdk';
import { BASE, caught, deferred, harness, netError, ok, settle, status } from './harness';

function factsOf(err: unknown): ErrorFacts {
  if (!isProxyAccountError(err)) throw new Error(`not an SDK error: ${String(err)}`);
  const { mayHaveReachedServer, outcomeUnknown, credentialsRejected, clientRefusesRequests } = err;
  return { mayHaveReachedServer, outcomeUnknown, credentialsRejected, clientRefusesRequests };
}

const NOTHING_SENT: ErrorFacts = { mayHaveReachedServer: false, outcomeUnknown: false, credentialsRejected: false, clientRefusesRequests: false };
const ANSWERED: ErrorFacts = { mayHaveReachedServer: true, outcomeUnknown: false, credentialsRejected: false, clientRefusesRequests: false };
const LOST: ErrorFacts = { mayHaveReachedServer: true, outcomeUnknown: true, credentialsRejected: false, clientRefusesRequests: false };

describe('whether the request may have reached the server', () => {
  it('a refused connection proves nothing was sent, even after every retry of a write', async () => {
    const h = harness({ maxRetries: 2 });
    h.reply(netError('ECONNREFUSED'), netError('ENOTFOUND'), netError('EHOSTUNREACH'));
    const err = await caught(() => h.client.ips.add({ ip: '203.0.113.7' }));
    expect(err).toBeInstanceOf(NetworkError);
    expect(h.seen()).toHaveLength(3);
    expect(factsOf(err)).toEqual(NOTHING_SENT);
    await h.done();
  });

  it('a reset connection may have delivered the write: its outcome is unknown', async () => {
    const h = harness();
    h.reply(netError('ECONNRESET', 'socket hang up'));
    const err = await caught(() => h.client.ips.add({ ip: '203.0.113.7' }));
    expect(err).toBeInstanceOf(NetworkError);
    expect(factsOf(err)).toEqual(LOST);
    await h.done();
  });

  it('an earlier attempt that reached the server keeps the outcome open when a later one is refused', async () => {
    // proxies.add may be repeated, so a 500 is retried; the retry's connection is refused.
    const h = harness({ maxRetries: 1 });
    h.reply(status(500, 'oops'), netError('ECONNREFUSED'));
    const err = await caught(() => h.client.proxies.add('us-ny'));
    expect(err).toBeInstanceOf(NetworkError);
    expect(err.errorCode).toBe('ECONNREFUSED');
    expect(factsOf(err)).toEqual(LOST);
    await h.done();
  });

  it('a connect timeout sent nothing; a timeout waiting for the answer did', async () => {
    const h = harness({ maxRetries: 0, timeoutMs: 50 });
    h.reply(netError('UND_ERR_CONNECT_TIMEOUT', 'connect timeout'), { status: 200, body: { ip: '203.0.113.7' }, delayMs: 10_000 });
    const connect = await caught(() => h.client.ips.add({ ip: '203.0.113.7' }));
    expect(connect).toBeInstanceOf(TimeoutError);
    expect(factsOf(connect)).toEqual(NOTHING_SENT);
    const slow = await caught(() => h.client.ips.add({ ip: '203.0.113.7' }));
    expect(slow).toBeInstanceOf(TimeoutError);
    expect(factsOf(slow)).toEqual(LOST);
    await h.done();
  });

  it('a failed certificate check happens before any request is sent', async () => {
    const h = harness();
    h.reply(netError('DEPTH_ZERO_SELF_SIGNED_CERT', 'self-signed certificate'));
    const err = await caught(() => h.client.ips.add({ ip: '203.0.113.7' }));
    expect(err).toBeInstanceOf(NetworkError);
    expect(factsOf(err)).toEqual(NOTHING_SENT);
    await h.done();
  });

  it('a bad argument sends nothing', () => {
    let err: unknown;
    try {
      new ProxyAccountClient({ baseUrl: 'ftp://x', auth: { token: 'pxa_x' } });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(InvalidArgumentError);
    expect(factsOf(err)).toEqual(NOTHING_SENT);
  });
});

describe('whether the outcome is unknown', () => {
  it('500 and 503 leave it open; 400 and 404 say the change was not made', async () => {
    const h = harness({ maxRetries: 0 });
    h.reply(status(500, 'oops'), status(503, 'plan lookup failed'), status(400, 'IP already authorized'), status(404, 'no such sub-account'));
    const e500 = await caught(() => h.client.ips.add({ ip: '203.0.113.7' }));
    const e503 = await caught(() => h.client.ips.add({ ip: '203.0.113.7' }));
    const e400 = await caught(() => h.client.ips.add({ ip: '203.0.113.7' }));
    const e404 = await caught(() => h.client.ips.add({ ip: '203.0.113.7', username: 'ghost' }));
    expect(e500).toBeInstanceOf(ServerError);
    expect(factsOf(e500)).toEqual(LOST);
    expect(e503).toBeInstanceOf(ServiceUnavailableError);
    expect(factsOf(e503)).toEqual(LOST);
    expect(e400).toBeInstanceOf(ValidationError);
    expect(factsOf(e400)).toEqual(ANSWERED);
    expect(e404).toBeInstanceOf(NotFoundError);
    expect(factsOf(e404)).toEqual(ANSWERED);
    await h.done();
  });

  it("a gateway's 502 or 504 leaves it open (the server behind may have made the change); 501 and 505 do not", async () => {
    const h = harness({ maxRetries: 0 });
    // Credentials proven first: before that, a gateway's status counts as no answer (auth-guard.test.ts).
    h.reply(
      ok({ ips: [] }),
      status(502, 'bad gateway'),
      status(504, 'gateway timeout'),
      status(520, 'origin error'),
      status(501, 'not implemented'),
      status(505, 'no'),
    );
    await h.client.ips.list();
    const answers = [];
    for (let i = 0; i < 5; i++) answers.push(await caught(() => h.client.ips.add({ ip: '203.0.113.7' })));
    expect(answers.map((e) => [e.status, e.code, factsOf(e).outcomeUnknown])).toEqual([
      [502, 'ERR_UNEXPECTED_STATUS', true],
      [504, 'ERR_UNEXPECTED_STATUS', true],
      [520, 'ERR_UNEXPECTED_STATUS', true],
      [501, 'ERR_UNEXPECTED_STATUS', false],
      [505, 'ERR_UNEXPECTED_STATUS', false],
    ]);
    expect(factsOf(answers[0]!)).toEqual(LOST);
    await h.done();
  });

  it('a repeatable call is retried after a 502 or 504, as after a 500', async () => {
    const h = harness({ maxRetries: 2, retryBaseDelayMs: 0 });
    h.reply(ok({ domains: [] }), status(502, 'bad gateway'), status(504, 'gateway timeout'), ok({ ips: [] }));
    await h.client.hostnames.list();
    await expect(h.client.ips.list()).resolves.toEqual([]);
    expect(h.seen()).toHaveLength(4);
    await h.done();
  });

  it('a success with an unreadable body took effect, but what it made is lost', async () => {
    const h = harness();
    h.reply(ok('<html>proxy error</html>'));
    const err = await caught(() => h.client.tokens.create({ label: 'ci' }));
    expect(err).toBeInstanceOf(ResponseParseError);
    expect(factsOf(err)).toEqual(LOST);
    await h.done();
  });

  it('an abort before sending leaves nothing open; an abort in flight does', async () => {
    const h = harness();
    const before = await caught(() => h.client.ips.list({}, { signal: AbortSignal.abort() }));
    expect(before).toBeInstanceOf(AbortedError);
    expect(factsOf(before)).toEqual(NOTHING_SENT);

    h.reply({ status: 200, body: { ip: '203.0.113.7' }, delayMs: 10_000 });
    const controller = new AbortController();
    const pending = caught(() => h.client.ips.add({ ip: '203.0.113.7' }, { signal: controller.signal }));
    setTimeout(() => controller.abort(), 10);
    const inFlight = await pending;
    expect(inFlight).toBeInstanceOf(AbortedError);
    expect(factsOf(inFlight)).toEqual(LOST);
    await h.done();
  });
});

describe('credentials and refusals', () => {
  it('a 401 rejects the credentials, and the client then refuses every call without sending it', async () => {
    const h = harness();
    h.reply(status(401, 'Unauthorized'));
    const first = await caught(() => h.client.ips.list());
    expect(first).toBeInstanceOf(AuthenticationError);
    expect(factsOf(first)).toEqual({ mayHaveReachedServer: true, outcomeUnknown: false, credentialsRejected: true, clientRefusesRequests: true });
    const next = await caught(() => h.client.ips.list());
    expect(next).toBeInstanceOf(CredentialsRejectedError);
    expect(factsOf(next)).toEqual({ mayHaveReachedServer: false, outcomeUnknown: false, credentialsRejected: true, clientRefusesRequests: true });
    expect(h.seen()).toHaveLength(1);
    await h.done();
  });

  it('a ban is not a credentials rejection, but the client refuses every call after it', async () => {
    const h = harness();
    h.reply(status(429, 'banned'));
    const first = await caught(() => h.client.ips.list());
    expect(first).toBeInstanceOf(BannedError);
    expect(factsOf(first)).toEqual({ ...ANSWERED, clientRefusesRequests: true });
    const next = await caught(() => h.client.ips.list());
    expect(next).toBeInstanceOf(ClientBannedError);
    expect(factsOf(next)).toEqual({ ...NOTHING_SENT, clientRefusesRequests: true });
    expect(h.seen()).toHaveLength(1);
    await h.done();
  });

  it('a closed client refuses every call without sending it', async () => {
    const h = harness({ baseUrl: BASE });
    await h.client.close();
    const err = await caught(() => h.client.ips.list());
    expect(err).toBeInstanceOf(ClientClosedError);
    expect(factsOf(err)).toEqual({ ...NOTHING_SENT, clientRefusesRequests: true });
    await h.done();
  });
});

describe('a call whose earlier attempt may have taken effect', () => {
  it('keeps that fact when its retry is refused unsent (a 401 seen meanwhile)', async () => {
    const backoff = deferred();
    const h = harness({ maxRetries: 3, sleep: () => backoff.promise });
    h.reply(ok({ ips: [] }));
    await h.client.ips.list();
    // The add gets a 500 (it may have been made); a parallel call then gets a 401.
    h.reply(status(500, 'oops'), status(401, 'bad credentials'));
    const add = h.client.proxies.add('us-ny');
    await settle();
    expect(await caught(() => h.client.hostnames.list())).toBeInstanceOf(AuthenticationError);
    backoff.resolve();
    const refused = await add.catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(CredentialsRejectedError);
    expect(factsOf(refused)).toEqual({ mayHaveReachedServer: true, outcomeUnknown: true, credentialsRejected: true, clientRefusesRequests: true });
    expect((refused as Error).message).toMatch(/an earlier attempt of this call may have reached the server/);
    expect(h.seen()).toHaveLength(3);
    await h.done();
  });

  it('keeps it when a retry is answered with an error that alone would say nothing was done', async () => {
    const h = harness({ maxRetries: 1 });
    h.reply(status(500, 'oops'), status(400, 'proxy not recognized'));
    const err = await caught(() => h.client.proxies.add('us-ny'));
    expect(err).toBeInstanceOf(ValidationError);
    expect(factsOf(err)).toEqual(LOST);
  });

  it('a refusal of a first attempt still says nothing was sent', async () => {
    const h = harness();
    h.reply(status(401, 'bad credentials'));
    await caught(() => h.client.ips.list());
    const refused = await caught(() => h.client.proxies.add('us-ny'));
    expect(refused).toBeInstanceOf(CredentialsRejectedError);
    expect(factsOf(refused)).toEqual({ ...NOTHING_SENT, credentialsRejected: true, clientRefusesRequests: true });
  });
});
