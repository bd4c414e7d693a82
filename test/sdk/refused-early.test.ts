// Values that would fail every request are refused when given, with the field they came in, not
// later as a network failure that may have reached the server; and an async logger that rejects
// costs nothing.
import { InvalidArgumentError, ProxyAccountClient, type RequestLogFields } from '../../src/sdk';
import { authFailureMemoryFrom } from '../../src/sdk/auth-failure-options';
import { caught, harness, ok, settle } from './harness';

const base = { baseUrl: 'https://api.example.test', auth: { token: 'pxa_T0ken' }, authFailureCache: false } as const;

describe('header values are checked at construction', () => {
  it.each([
    [{ auth: { token: 'tök€n' } }, 'auth.token'],
    [{ auth: { token: 'tok\u0100en' } }, 'auth.token'],
    [{ userAgent: 'ab€' }, 'userAgent'],
    [{ userAgent: 'a\u007fb' }, 'userAgent'],
    [{ userAgent: 'a\u0007b' }, 'userAgent'],
  ])('%j is refused with field %s', (opts, field) => {
    let err: unknown;
    try {
      new ProxyAccountClient({ ...base, ...opts });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(InvalidArgumentError);
    expect((err as InvalidArgumentError).field).toBe(field);
  });

  it('Latin-1 letters, spaces and tabs are header values, and are kept', () => {
    expect(() => new ProxyAccountClient({ ...base, auth: { token: 'tök-n' }, userAgent: 'my tool/1.0\t(Zürich)' })).not.toThrow();
  });
});

describe('authFailureTtlMs is checked whatever the memory setting', () => {
  it.each([-1, 1.5, 'soon', 8 * 24 * 3600 * 1000])('%j is refused with the memory off by option or by environment', (ttl) => {
    expect(() => authFailureMemoryFrom(false, ttl, {})).toThrow(expect.objectContaining({ field: 'authFailureTtlMs' }));
    expect(() => authFailureMemoryFrom(undefined, ttl, { PROXYACCOUNT_AUTH_FAILURE_CACHE: 'off' })).toThrow(
      expect.objectContaining({ field: 'authFailureTtlMs' }),
    );
  });

  it('a good value with the memory off is accepted', () => {
    expect(authFailureMemoryFrom(false, 60_000, {})).toBeUndefined();
  });
});

describe('per-call options', () => {
  it.each([
    [null, 'options'],
    ['x', 'options'],
    [{ signal: {} }, 'signal'],
    [{ signal: 'x' }, 'signal'],
    [{ signal: { aborted: true, reason: 'r' } }, 'signal'],
  ])('%j is refused with InvalidArgumentError (field %s), nothing sent', async (opts, field) => {
    const h = harness();
    const err = await caught(() => h.client.geoIps.open(opts as never));
    expect(err).toBeInstanceOf(InvalidArgumentError);
    expect(err.field).toBe(field);
    expect(h.seen()).toHaveLength(0);
    expect(h.client.credentialState).toBe('unverified');
    await h.done();
  });

  it('a real AbortSignal and no options at all are fine', async () => {
    const h = harness();
    h.reply(ok({ US: 1 }), ok({ US: 2 }));
    await expect(h.client.geoIps.open({ signal: new AbortController().signal })).resolves.toEqual({ US: 1 });
    await expect(h.client.geoIps.open()).resolves.toEqual({ US: 2 });
    await h.done();
  });
});

describe('an async logger', () => {
  it('whose debug rejects: the rejection is handled, and the call keeps its answer', async () => {
    const spies: jest.SpyInstance[] = [];
    const logger = {
      // What an async debug() returns when it throws.
      debug: (_m: string, _f: RequestLogFields) => {
        const p: Promise<unknown> = Promise.reject(new Error('log disk full'));
        spies.push(jest.spyOn(p, 'then'));
        return p;
      },
    };
    const h = harness({ logger });
    h.reply(ok({ ips: [] }));
    await expect(h.client.ips.list()).resolves.toEqual([]);
    await settle();
    expect(spies).toHaveLength(1);
    expect(spies[0]).toHaveBeenCalledWith(undefined, expect.any(Function));
    await h.done();
  });
});
