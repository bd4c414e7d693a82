// The 401 guard (one 401 and the client sends nothing more with those credentials, parallel
// callers included) and the Basic-only rule of the token endpoints.
import { AuthenticationError, BasicAuthRequiredError, CredentialsRejectedError, CredentialsUnprovenError, AbortedError } from '../../src/sdk';
import { AuthGuard } from '../../src/sdk/auth-guard';
import { caught, deferred, harness, netError, ok, settle, status, TOKEN } from './harness';

describe('the 401 guard', () => {
  it('after one 401 refuses every further call without sending it', async () => {
    const h = harness();
    h.reply(status(401, 'invalid credentials'));
    const first = await caught(() => h.client.ips.list());
    expect(first).toBeInstanceOf(AuthenticationError);
    expect(h.client.credentialState).toBe('rejected');

    const second = await caught(() => h.client.subAccounts.get('alice'));
    const third = await caught(() => h.client.geoIps.open());
    expect(second).toBeInstanceOf(CredentialsRejectedError);
    expect(second.code).toBe('ERR_CREDENTIALS_REJECTED');
    expect(second.message).toContain("GET /api/sub/get/ (get sub-account 'alice') not sent");
    expect(third).toBeInstanceOf(CredentialsRejectedError);
    expect(h.seen()).toHaveLength(1);
    await h.done();
  });

  it('lets at most two requests go unanswered before the credentials are proven: each may have been an unseen 401', async () => {
    const h = harness({ maxRetries: 3 });
    // Every request is made and its connection then dropped: no answer ever comes.
    h.reply(netError('ECONNRESET', 'socket hang up'), netError('ECONNRESET', 'socket hang up'));
    const calls = [h.client.ips.list(), h.client.hostnames.list(), h.client.proxies.list(), h.client.tokens.list()];
    const results = await Promise.allSettled(calls);
    const errs = results.map((r) => (r.status === 'rejected' ? (r.reason as Error & { code: string }) : undefined));
    // Two requests went out (the first call, then a waiting one while the first waited to retry);
    // the second loss closed the guard: the first call's retry and the others were refused unsent.
    expect(h.seen()).toHaveLength(2);
    expect(errs.map((e) => e!.code).sort()).toEqual(['ERR_CREDENTIALS_UNPROVEN', 'ERR_CREDENTIALS_UNPROVEN', 'ERR_CREDENTIALS_UNPROVEN', 'ERR_NETWORK']);
    for (const e of errs.filter((x) => x instanceof CredentialsUnprovenError)) {
      expect(e!.message).toMatch(/not sent: the first request with these credentials got no answer/);
    }
    expect(h.client.credentialState).toBe('unanswered');
    expect(await caught(() => h.client.ips.list())).toBeInstanceOf(CredentialsUnprovenError);
    expect(h.seen()).toHaveLength(2);
    await h.done();
  });

  it("counts a gateway's 502 or 504 before the credentials are proven as no answer: a wrong password behind it sends two requests, not four", async () => {
    const h = harness({ maxRetries: 3 });
    // The API behind the gateway may have answered 401 (and counted it) each time.
    h.reply(status(504, 'gateway timeout'), status(502, 'bad gateway'), status(504, 'gateway timeout'), status(504, 'gateway timeout'));
    const err = await caught(() => h.client.ips.list());
    expect(err.status).toBe(502);
    expect(h.seen()).toHaveLength(2);
    expect(h.client.credentialState).toBe('unanswered');
    expect(await caught(() => h.client.hostnames.list())).toBeInstanceOf(CredentialsUnprovenError);
    expect(h.seen()).toHaveLength(2);
  });

  it('once the credentials are proven, a 504 is retried like a 500', async () => {
    const h = harness({ maxRetries: 3 });
    h.reply(ok({ ips: [] }), status(504, 'gateway timeout'), ok({ domains: [] }));
    await h.client.ips.list();
    await expect(h.client.hostnames.list()).resolves.toEqual([]);
    expect(h.seen()).toHaveLength(3);
    await h.done();
  });

  it('one lost answer before the credentials are proven is let go: the retry proves them', async () => {
    const h = harness({ maxRetries: 3 });
    h.reply(netError('ECONNRESET', 'socket hang up'), ok({ ips: [] }), ok({ domains: [] }));
    await expect(h.client.ips.list()).resolves.toEqual([]);
    expect(h.client.credentialState).toBe('accepted');
    await expect(h.client.hostnames.list()).resolves.toEqual([]);
    await h.done();
  });

  it('is not retried: a 401 is one request even on a repeatable call', async () => {
    const h = harness();
    h.reply(status(401));
    await expect(h.client.subAccounts.activate('alice')).rejects.toBeInstanceOf(AuthenticationError);
    expect(h.seen()).toHaveLength(1);
    expect(h.sleeps).toEqual([]);
    await h.done();
  });

  it('with unproven credentials, parallel callers wait for the first answer; a 401 fails them all unsent', async () => {
    const h = harness();
    const release = deferred();
    h.reply({ status: 401, body: 'bad password', until: release.promise });
    const calls = [h.client.ips.list(), h.client.hostnames.list(), h.client.proxies.list(), h.client.tokens.list(), h.client.subAccounts.get('alice')].map(
      (p) =>
        p.then(
          () => 'resolved',
          (e: unknown) => e,
        ),
    );
    await settle();
    expect(h.seen()).toHaveLength(1);
    release.resolve();
    const results = await Promise.all(calls);
    expect(results[0]).toBeInstanceOf(AuthenticationError);
    for (const r of results.slice(1)) expect(r).toBeInstanceOf(CredentialsRejectedError);
    expect(h.seen()).toHaveLength(1);
    await h.done();
  });

  it('once an answer proves the credentials, parallel callers run in parallel', async () => {
    const h = harness();
    const release = deferred();
    h.reply({ status: 200, body: { ips: [] }, until: release.promise });
    const first = h.client.ips.list();
    const others = [h.client.hostnames.list(), h.client.proxies.list()];
    await settle();
    expect(h.seen()).toHaveLength(1);
    const hold = deferred();
    h.reply({ status: 200, body: { domains: [] }, until: hold.promise }, { status: 200, body: { proxies: [] }, until: hold.promise });
    release.resolve();
    await first;
    await settle();
    // Both waiting callers are in flight at once, neither answered yet.
    expect(h.seen()).toHaveLength(3);
    expect(h.client.credentialState).toBe('accepted');
    hold.resolve();
    await expect(Promise.all(others)).resolves.toEqual([[], []]);
    await h.done();
  });

  it('an inconclusive first answer (503) passes the probe to the next caller', async () => {
    const h = harness({ maxRetries: 0 });
    const release = deferred();
    h.reply({ status: 503, body: '', until: release.promise }, ok({ domains: ['a.example'] }));
    const first = h.client.ips.list().catch((e: unknown) => e);
    const second = h.client.hostnames.list();
    await settle();
    expect(h.seen()).toHaveLength(1);
    release.resolve();
    expect(await first).toMatchObject({ status: 503 });
    await expect(second).resolves.toEqual(['a.example']);
    expect(h.client.credentialState).toBe('accepted');
    await h.done();
  });

  it.each([
    [402, 'accepted'],
    [403, 'accepted'],
    [404, 'accepted'],
    [400, 'unverified'],
    [405, 'unverified'],
    [429, 'unverified'],
    [500, 'unverified'],
  ])('a %i answer leaves the credentials %s', async (code, state) => {
    const h = harness({ maxRetries: 0 });
    h.reply(status(code, 'x'));
    await expect(h.client.subAccounts.get('alice')).rejects.toMatchObject({ status: code });
    expect(h.client.credentialState).toBe(state);
    await h.done();
  });

  it('a call waiting out a retry backoff is refused when another caller got a 401 meanwhile', async () => {
    const wake = deferred();
    let sleeping!: () => void;
    const asleep = new Promise<void>((r) => (sleeping = r));
    const h = harness({
      sleep: async () => {
        sleeping();
        await wake.promise;
      },
    });
    h.reply(status(503), status(401));
    const a = h.client.ips.list().catch((e: unknown) => e);
    await asleep;
    const b = await caught(() => h.client.hostnames.list());
    expect(b).toBeInstanceOf(AuthenticationError);
    wake.resolve();
    expect(await a).toBeInstanceOf(CredentialsRejectedError);
    expect(h.seen().map((r) => r.path)).toEqual(['/api/ips/', '/api/hostnames/']);
    await h.done();
  });

  it('a later 401 (token deactivated meanwhile) trips the guard too', async () => {
    const h = harness({ auth: { token: TOKEN } });
    h.reply(ok({ ips: [] }), status(401, 'token inactive'));
    await h.client.ips.list();
    expect(h.client.credentialState).toBe('accepted');
    await expect(h.client.ips.list()).rejects.toBeInstanceOf(AuthenticationError);
    await expect(h.client.ips.list()).rejects.toBeInstanceOf(CredentialsRejectedError);
    expect(h.seen()).toHaveLength(2);
    await h.done();
  });

  it('a caller waiting for the probe can be aborted', async () => {
    const h = harness();
    const release = deferred();
    h.reply({ status: 200, body: { ips: [] }, until: release.promise });
    const first = h.client.ips.list();
    const controller = new AbortController();
    const second = h.client.hostnames.list({}, { signal: controller.signal }).catch((e: unknown) => e);
    await settle();
    controller.abort();
    expect(await second).toBeInstanceOf(AbortedError);
    release.resolve();
    await first;
    expect(h.seen()).toHaveLength(1);
    await h.done();
  });

  it('a new client starts afresh', async () => {
    const h1 = harness();
    h1.reply(status(401));
    await expect(h1.client.ips.list()).rejects.toBeInstanceOf(AuthenticationError);
    const h2 = harness();
    h2.reply(ok({ ips: [] }));
    await expect(h2.client.ips.list()).resolves.toEqual([]);
    await h1.done();
    await h2.done();
  });
});

describe('token endpoints need Basic auth', () => {
  const calls: Array<[string, (h: ReturnType<typeof harness>) => Promise<unknown>]> = [
    ['list tokens', (h) => h.client.tokens.list()],
    ['create token', (h) => h.client.tokens.create({ label: 'x' })],
    ['activate token', (h) => h.client.tokens.activate({ id: 1 })],
    ['deactivate token', (h) => h.client.tokens.deactivate({ id: 1 })],
    ['delete token', (h) => h.client.tokens.delete({ id: 1 })],
  ];

  it.each(calls)('%s with a bearer-only client fails before any request', async (operation, run) => {
    const h = harness({ auth: { token: TOKEN } });
    const err = await caught(() => run(h));
    expect(err).toBeInstanceOf(BasicAuthRequiredError);
    expect(err.code).toBe('ERR_BASIC_AUTH_REQUIRED');
    expect(err.operation).toBe(operation);
    expect(err.message).toContain('requires HTTP Basic authentication');
    expect(err.message).not.toContain(TOKEN);
    expect(h.seen()).toHaveLength(0);
    await h.done();
  });

  it('is checked before the arguments', async () => {
    const h = harness({ auth: { token: TOKEN } });
    await expect(h.client.tokens.delete({ id: -1 })).rejects.toBeInstanceOf(BasicAuthRequiredError);
    await h.done();
  });
});

describe('AuthGuard.onWait', () => {
  it('is told how many callers wait for the probe, and cannot fail them by throwing', async () => {
    const guard = new AuthGuard();
    const told: number[] = [];
    guard.onWait = (waiting) => {
      told.push(waiting);
      throw new Error('spare connections could not be opened');
    };
    const release = await guard.acquire();
    const waiting = [guard.acquire(), guard.acquire()];
    await new Promise((r) => setImmediate(r));
    expect(told).toEqual([1, 2]);
    release('accepted');
    const releases = await Promise.all(waiting);
    expect(guard.credentialState).toBe('accepted');
    for (const r of releases) r('accepted');
  });
});
