// Every status of the API's error table that the API can produce, through the SDK against a real
// emulator; plus the 401 guard, the ban and injected faults (500, 503, delays, dropped connections).
import {
  AuthenticationError,
  BannedError,
  ClientBannedError,
  CredentialsRejectedError,
  ForbiddenError,
  MethodNotAllowedError,
  NetworkError,
  NotFoundError,
  PaymentRequiredError,
  ServerError,
  ServiceUnavailableError,
  TimeoutError,
  ValidationError,
} from '../../src/sdk';
import { ACME, dateInDays, OTHER, TRIAL, useEmulator } from './setup';

const { emu, client } = useEmulator();

describe('400 from the server', () => {
  it('duplicate IP add and delete of an absent IP', async () => {
    const acme = client(ACME);
    await acme.ips.add({ ip: '203.0.113.7' });
    const dup = await acme.ips.add({ ip: '203.0.113.7' }).catch((e: unknown) => e);
    expect(dup).toBeInstanceOf(ValidationError);
    expect((dup as ValidationError).message).toMatch(/^POST \/api\/ip\/add\/ \(add IP '203\.0\.113\.7'\) failed with 400 Bad Request: .+/);
    await expect(acme.ips.delete({ ip: '198.51.100.99' })).rejects.toBeInstanceOf(ValidationError);
  });

  it('duplicate hostname add and delete of an absent hostname', async () => {
    const acme = client(ACME);
    await acme.hostnames.add({ domain: 'a.example.com' });
    await expect(acme.hostnames.add({ domain: 'a.example.com' })).rejects.toBeInstanceOf(ValidationError);
    await expect(acme.hostnames.delete({ domain: 'b.example.com' })).rejects.toBeInstanceOf(ValidationError);
  });

  it('unknown proxy on add and delete', async () => {
    const acme = client(ACME);
    await expect(acme.proxies.add('no-such-host')).rejects.toBeInstanceOf(ValidationError);
    await expect(acme.proxies.delete('no-such-host.elsewhere.example:1')).rejects.toBeInstanceOf(ValidationError);
  });

  it('duplicate sub-account username, also against a parent account', async () => {
    const acme = client(ACME);
    await acme.subAccounts.create({ username: 'alice' });
    await expect(acme.subAccounts.create({ username: 'alice' })).rejects.toBeInstanceOf(ValidationError);
    await expect(acme.subAccounts.create({ username: OTHER.username })).rejects.toBeInstanceOf(ValidationError);
  });

  it('the 101st authorized IP', async () => {
    const acme = client(ACME);
    for (let i = 1; i <= 100; i++) await acme.ips.add({ ip: `10.0.${Math.floor(i / 256)}.${i % 256}` });
    const err = await acme.ips.add({ ip: '10.1.0.1' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect((await acme.ips.list()).length).toBe(100);
  });

  it('a token expiry that is not in the future', async () => {
    await expect(client(ACME).tokens.create({ expiresAt: dateInDays(-2) })).rejects.toBeInstanceOf(ValidationError);
  });

  it('a sub-account password the server refuses is not echoed', async () => {
    const acme = client(ACME);
    await acme.subAccounts.create({ username: 'alice' });
    const err = await acme.subAccounts.create({ username: 'alice', password: 'Very-Secret-9' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect(String(err)).not.toContain('Very-Secret-9');
  });
});

describe('401 and the guard', () => {
  it('a wrong password gives one 401, then the client sends nothing more', async () => {
    const wrong = client({ username: ACME.username, password: 'wrong-password' });
    const first = await wrong.ips.list().catch((e: unknown) => e);
    expect(first).toBeInstanceOf(AuthenticationError);
    expect(String(first)).not.toContain('wrong-password');
    const burst = await Promise.all(
      [wrong.ips.list(), wrong.hostnames.list(), wrong.proxies.list(), wrong.tokens.list(), wrong.geoIps.open()].map((p) => p.catch((e: unknown) => e)),
    );
    for (const e of burst) expect(e).toBeInstanceOf(CredentialsRejectedError);
    // Had those five been sent, the address would be banned now; it is not.
    await expect(client(ACME).ips.list()).resolves.toEqual([]);
  });

  it('parallel callers with wrong credentials cause a single failure, so no ban', async () => {
    const wrong = client({ username: ACME.username, password: 'wrong-password' });
    const results = await Promise.all(Array.from({ length: 8 }, () => wrong.ips.list().catch((e: unknown) => e)));
    expect(results.filter((e) => e instanceof AuthenticationError)).toHaveLength(1);
    expect(results.filter((e) => e instanceof CredentialsRejectedError)).toHaveLength(7);
    await expect(client(ACME).ips.list()).resolves.toEqual([]);
  });

  it('an invalid bearer token is a 401', async () => {
    await expect(client({ token: 'pxa_not-a-real-token-000000000000' }).ips.list()).rejects.toBeInstanceOf(AuthenticationError);
  });
});

describe('the ban (429) and its expiry', () => {
  it('4 failures within the window ban the address for 3 hours, even with good credentials', async () => {
    // Four separate clients: each client's guard allows only one failure.
    for (let i = 0; i < 4; i++) {
      await expect(client({ username: ACME.username, password: `wrong-${i}` }).ips.list()).rejects.toBeInstanceOf(AuthenticationError);
    }
    const good = client(ACME);
    const banned = await good.ips.list().catch((e: unknown) => e);
    expect(banned).toBeInstanceOf(BannedError);
    const ban = banned as BannedError;
    expect(ban.code).toBe('ERR_BANNED');
    expect(ban.status).toBe(429);
    expect(ban.retryAfterSeconds).toBeGreaterThan(3 * 3600 - 120);
    expect(ban.retryAfterSeconds).toBeLessThanOrEqual(3 * 3600);
    expect(ban.attempts).toBe(1);
    // A ban does not condemn the credentials, but this client sends nothing more during it.
    expect(good.credentialState).toBe('unverified');
    const refused = await good.ips.list().catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ClientBannedError);
    expect((refused as ClientBannedError).retryAfterSeconds).toBeGreaterThan(3 * 3600 - 120);

    // The emulator's clock moves, not ours: new clients (as new runs would be) see the ban end.
    await emu().control.advanceClock(3 * 3600 - 60);
    await expect(client(ACME).ips.list()).rejects.toBeInstanceOf(BannedError);
    await emu().control.advanceClock(120);
    await expect(client(ACME).ips.list()).resolves.toEqual([]);
  });

  it('failures spread beyond the window do not ban', async () => {
    for (let i = 0; i < 3; i++) {
      await expect(client({ username: ACME.username, password: `wrong-${i}` }).ips.list()).rejects.toBeInstanceOf(AuthenticationError);
    }
    await emu().control.advanceClock(16 * 60);
    await expect(client({ username: ACME.username, password: 'wrong-3' }).ips.list()).rejects.toBeInstanceOf(AuthenticationError);
    await expect(client(ACME).ips.list()).resolves.toEqual([]);
  });
});

describe('402', () => {
  it('sub-account limit reached on create', async () => {
    const acme = client(ACME);
    for (const name of ['s1', 's2', 's3']) await acme.subAccounts.create({ username: name });
    await expect(acme.subAccounts.create({ username: 's4' })).rejects.toBeInstanceOf(PaymentRequiredError);
  });

  it('plan without tokens: create and list', async () => {
    const trial = client(TRIAL);
    await expect(trial.tokens.create({ label: 'x' })).rejects.toBeInstanceOf(PaymentRequiredError);
    await expect(trial.tokens.list()).rejects.toBeInstanceOf(PaymentRequiredError);
  });

  it('token limit of the plan (plan10: 10 tokens)', async () => {
    const other = client(OTHER);
    await expect(other.tokens.list()).resolves.toEqual([]);
    for (let i = 0; i < 10; i++) await other.tokens.create({ label: `t${i}` });
    await expect(other.tokens.create({ label: 'one-too-many' })).rejects.toBeInstanceOf(PaymentRequiredError);
  });

  it('plan does not allow more proxies (trial: 2)', async () => {
    const trial = client(TRIAL);
    await expect(trial.proxies.list()).resolves.toEqual([]);
    await trial.proxies.add('us-ny');
    await trial.proxies.add('us-la');
    await expect(trial.proxies.add('gb-lon')).rejects.toBeInstanceOf(PaymentRequiredError);
    await expect(trial.proxies.list()).resolves.toHaveLength(2);
  });
});

describe('403', () => {
  it("edit of a username that is not the caller's sub-account", async () => {
    await client(ACME).subAccounts.create({ username: 'alice' });
    const err = await client(OTHER)
      .subAccounts.edit({ username: 'alice', firstName: 'Mallory' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ForbiddenError);
    await expect(client(ACME).subAccounts.get('alice')).resolves.not.toHaveProperty('firstName');
  });

  it('username passed while not authenticated as the parent', async () => {
    const acme = client(ACME);
    await acme.subAccounts.create({ username: 'alice', password: 'alice-Password-1' });
    await acme.subAccounts.create({ username: 'bob' });
    const alice = client({ username: 'alice', password: 'alice-Password-1' });
    await expect(alice.ips.list({ username: 'bob' })).rejects.toBeInstanceOf(ForbiddenError);
    await expect(alice.hostnames.add({ domain: 'x.example.com', username: 'bob' })).rejects.toBeInstanceOf(ForbiddenError);
    await expect(alice.tokens.list({ username: 'bob' })).rejects.toBeInstanceOf(ForbiddenError);
    await expect(client(OTHER).ips.list({ username: 'bob' })).rejects.toBeInstanceOf(ForbiddenError);
  });
});

describe('404', () => {
  it('sub-account not found on get, deactivate, activate, delete', async () => {
    const acme = client(ACME);
    await expect(acme.subAccounts.get('ghost')).rejects.toBeInstanceOf(NotFoundError);
    await expect(acme.subAccounts.deactivate('ghost')).rejects.toBeInstanceOf(NotFoundError);
    await expect(acme.subAccounts.activate('ghost')).rejects.toBeInstanceOf(NotFoundError);
    await expect(acme.subAccounts.delete('ghost')).rejects.toBeInstanceOf(NotFoundError);
  });
});

describe('injected faults: 405, 500, 503, delays, dropped connections', () => {
  // The SDK always uses the right method, so a real 405 cannot happen through it; the fault
  // checks the mapping of the emulator's 405 answer end to end.
  it('405 maps to MethodNotAllowedError and is not retried', async () => {
    await emu().control.fault({ path: '/api/ips/', status: 405, count: 1 });
    const acme = client(ACME);
    await expect(acme.ips.list()).rejects.toBeInstanceOf(MethodNotAllowedError);
    await expect(acme.ips.list()).resolves.toEqual([]);
  });

  it('a read survives two 503s and a 500', async () => {
    await emu().control.fault({ path: '/api/hostnames/', status: 503, count: 2 });
    await emu().control.fault({ path: '/api/hostnames/', status: 500, count: 1 });
    await expect(client(ACME).hostnames.list()).resolves.toEqual([]);
  });

  it('gives up after maxRetries with the last error', async () => {
    await emu().control.fault({ path: '/api/ips/', status: 503, count: 5 });
    const err = await client(ACME, { maxRetries: 2 })
      .ips.list()
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServiceUnavailableError);
    expect((err as ServiceUnavailableError).attempts).toBe(3);
  });

  it('a non-repeatable write is not retried after a 500', async () => {
    await emu().control.fault({ path: '/api/ip/add/', status: 500, count: 1 });
    const acme = client(ACME);
    await expect(acme.ips.add({ ip: '203.0.113.7' })).rejects.toBeInstanceOf(ServerError);
    await expect(acme.ips.list()).resolves.toEqual([]);
  });

  it('a repeatable write (proxy add) is retried after a 503', async () => {
    await emu().control.fault({ path: '/api/proxy/add/', status: 503, count: 1 });
    await expect(client(ACME).proxies.add('us-ny')).resolves.toMatchObject({ proxy: expect.stringMatching(/^us-ny\./) });
  });

  it('a slow answer times out and the read is retried', async () => {
    await emu().control.fault({ path: '/api/ips/', delayMs: 3000, count: 1 });
    await expect(client(ACME, { timeoutMs: 1000 }).ips.list()).resolves.toEqual([]);
  });

  it('a slow answer on every attempt ends in TimeoutError', async () => {
    await emu().control.fault({ path: '/api/ips/', delayMs: 3000, count: 2 });
    const err = await client(ACME, { timeoutMs: 200, maxRetries: 1 })
      .ips.list()
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TimeoutError);
  });

  it('a dropped connection is retried for a read and reported for a non-repeatable write', async () => {
    await emu().control.fault({ path: '/api/ips/', reset: true, count: 1 });
    const acme = client(ACME);
    await expect(acme.ips.list()).resolves.toEqual([]);
    await emu().control.fault({ path: '/api/hostname/add/', reset: true, count: 1 });
    const err = await acme.hostnames.add({ domain: 'a.example.com' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NetworkError);
    expect((err as NetworkError).cause).toBeDefined();
  });
});
