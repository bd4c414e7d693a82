// A key the SDK does not know, in a method's input, the per-call options, the client options or
// proxyDispatcher's, is refused before anything is sent: a misspelled `monthlyLimit` or `expiresAt`
// would otherwise create an unlimited sub-account or a token that never expires, without a word.
import { InvalidArgumentError, type ProxyAccountClient, ProxyAccountClient as Client, proxyDispatcher } from '../../src/sdk';
import { BASE, caught, harness, ok, PASSWORD, USER } from './harness';

type Run = (c: ProxyAccountClient) => Promise<unknown>;

/** Builds an input the way a JavaScript caller or a spread config does: no excess-property check. */
function loose<T>(value: Record<string, unknown>): T {
  return value as T;
}

// [method, unknown key, the accepted key it is a typo of (or null), the accepted keys, call]
const INPUTS: Array<[string, string, string | null, string, Run]> = [
  [
    'subAccounts.create',
    'montlyLimit',
    'monthlyLimit',
    'username, password, firstName, lastName, email, monthlyLimit, totalLimit',
    (c) => c.subAccounts.create(loose({ username: 'zz2', montlyLimit: 5 })),
  ],
  [
    'subAccounts.edit',
    'TotalLimit',
    'totalLimit',
    'username, password, firstName, lastName, email, monthlyLimit, totalLimit',
    (c) => c.subAccounts.edit(loose({ username: 'zz2', TotalLimit: 5 })),
  ],
  ['tokens.create', 'expires', 'expiresAt', 'label, expiresAt, username', (c) => c.tokens.create(loose({ label: 'd2', expires: '2031-01-01' }))],
  ['tokens.list', 'usernme', 'username', 'username', (c) => c.tokens.list(loose({ usernme: 'alice' }))],
  ['tokens.activate', 'tokenId', null, 'id, username', (c) => c.tokens.activate(loose({ id: 1, tokenId: 2 }))],
  ['tokens.deactivate', 'user', null, 'id, username', (c) => c.tokens.deactivate(loose({ id: 1, user: 'alice' }))],
  ['tokens.delete', 'Id', 'id', 'id, username', (c) => c.tokens.delete(loose({ Id: 1, id: 1 }))],
  ['ips.add', 'lable', 'label', 'ip, label, username', (c) => c.ips.add(loose({ ip: '203.0.113.50', lable: 'office' }))],
  ['ips.delete', 'label', null, 'ip, username', (c) => c.ips.delete(loose({ ip: '203.0.113.50', label: 'office' }))],
  ['ips.list', 'sub', null, 'username', (c) => c.ips.list(loose({ sub: 'alice' }))],
  ['ips.listWithLabels', 'userName', 'username', 'username', (c) => c.ips.listWithLabels(loose({ userName: 'alice' }))],
  ['hostnames.add', 'hostname', null, 'domain, username', (c) => c.hostnames.add(loose({ domain: 'app.example.com', hostname: 'x' }))],
  ['hostnames.delete', 'domian', 'domain', 'domain, username', (c) => c.hostnames.delete(loose({ domian: 'app.example.com' }))],
  ['hostnames.list', 'usrname', 'username', 'username', (c) => c.hostnames.list(loose({ usrname: 'alice' }))],
];

describe('an unknown key of a method input', () => {
  it.each(INPUTS)('%s refuses %s, naming it and the accepted keys, and sends nothing', async (method, key, closest, accepted, run) => {
    const h = harness();
    const err = await caught(() => run(h.client));
    expect(err).toBeInstanceOf(InvalidArgumentError);
    expect(err.field).toBe(key);
    const hint = closest === null ? '' : ` (did you mean ${closest}?)`;
    expect(err.message).toBe(`invalid ${key}: unknown key of the ${method} input${hint}; the accepted keys are ${accepted}`);
    expect(h.seen()).toHaveLength(0);
    await h.done();
  });

  it('is refused even when its value is undefined: the typo would bite once it has a value', async () => {
    const h = harness();
    const err = await caught(() => h.client.subAccounts.create(loose({ username: 'alice', montlyLimit: undefined })));
    expect(err.field).toBe('montlyLimit');
    expect(h.seen()).toHaveLength(0);
    await h.done();
  });

  it('leaves undefined values of known optional keys accepted', async () => {
    const h = harness();
    h.reply({ status: 418, body: 'x' }, { status: 418, body: 'x' });
    const create = await caught(() => h.client.tokens.create({ label: undefined, expiresAt: undefined, username: undefined } as never));
    const add = await caught(() => h.client.ips.add({ ip: '203.0.113.7', label: undefined } as never));
    expect(create).not.toBeInstanceOf(InvalidArgumentError);
    expect(add).not.toBeInstanceOf(InvalidArgumentError);
    expect(h.seen()).toHaveLength(2);
    await h.done();
  });

  it('quotes a key that is not a plain name, shortened, in the field and the message', async () => {
    const h = harness();
    const key = `bad\nkey ${'k'.repeat(60)}`;
    const err = await caught(() => h.client.ips.list(loose({ [key]: 1 })));
    expect(err.field).toBe(`"bad\\nkey ${'k'.repeat(32)}…"`);
    expect(err.message).not.toContain('\n');
    await h.done();
  });

  it('never shows the value of the unknown key', async () => {
    const h = harness();
    const err = await caught(() => h.client.subAccounts.create(loose({ username: 'alice', passwd: PASSWORD })));
    expect(err.field).toBe('passwd');
    expect(err.message).not.toContain(PASSWORD);
    await h.done();
  });
});

describe('per-call options given where the input goes', () => {
  it('ips.list({ signal }) names signal and says it goes in the second argument, and sends nothing', async () => {
    const h = harness();
    const err = await caught(() => h.client.ips.list(loose({ signal: AbortSignal.abort() })));
    expect(err).toBeInstanceOf(InvalidArgumentError);
    expect(err.field).toBe('signal');
    expect(err.message).toBe(
      'invalid signal: unknown key of the ips.list input (signal is a per-call option: it goes in the second argument, after the input, ' +
        'as in ips.list({}, { signal })); the accepted keys are username',
    );
    expect(h.seen()).toHaveLength(0);
    await h.done();
  });

  it('an input that needs keys shows them in the example', async () => {
    const h = harness();
    const err = await caught(() => h.client.ips.add(loose({ ip: '203.0.113.7', signal: new AbortController().signal })));
    expect(err.message).toContain('as in ips.add({ ip }, { signal })');
    await h.done();
  });

  it('the same signal in the second argument does abort the call', async () => {
    const h = harness();
    const err = await caught(() => h.client.ips.list({}, { signal: AbortSignal.abort() }));
    expect(err).not.toBeInstanceOf(InvalidArgumentError);
    expect(err.code).toBe('ERR_ABORTED');
    expect(h.seen()).toHaveLength(0);
    await h.done();
  });
});

describe('an unknown per-call option', () => {
  it('is refused, with the closest one suggested', async () => {
    const h = harness();
    const err = await caught(() => h.client.ips.list({}, loose({ signl: AbortSignal.abort() })));
    expect(err).toBeInstanceOf(InvalidArgumentError);
    expect(err.message).toBe('invalid signl: unknown key of the per-call options (did you mean signal?); the accepted keys are signal');
    expect(h.seen()).toHaveLength(0);
    await h.done();
  });

  it('the AbortSignal itself in place of { signal } is refused, not ignored', async () => {
    const h = harness();
    const err = await caught(() => h.client.geoIps.open(AbortSignal.abort() as never));
    expect(err.field).toBe('options');
    expect(err.message).toBe('invalid options: must be an object such as { signal }, not the AbortSignal itself');
    expect(h.seen()).toHaveLength(0);
    await h.done();
  });
});

describe('an unknown client option', () => {
  const base = { baseUrl: BASE, auth: { username: USER, password: PASSWORD }, authFailureCache: false as const };

  function refusal(options: Record<string, unknown>): InvalidArgumentError {
    try {
      new Client(options as never);
    } catch (e) {
      expect(e).toBeInstanceOf(InvalidArgumentError);
      return e as InvalidArgumentError;
    }
    throw new Error('expected InvalidArgumentError');
  }

  it('timeout is refused, naming timeoutMs', () => {
    const err = refusal({ ...base, timeout: 5 });
    expect(err.field).toBe('timeout');
    expect(err.message).toMatch(
      /^invalid timeout: unknown key of the client options \(did you mean timeoutMs\?\); the accepted keys are baseUrl, auth, caCert, /,
    );
    expect(err.message).toContain('logger');
  });

  it('an unrelated key gets no suggestion', () => {
    expect(refusal({ ...base, verbose: true }).message).toMatch(/^invalid verbose: unknown key of the client options; the accepted keys are /);
  });

  it('a misspelled auth key is refused, under auth., without showing the secret', () => {
    const err = refusal({ ...base, auth: { username: USER, password: PASSWORD, tokn: 'pxa_secretvalue1234567890' } });
    expect(err.field).toBe('auth.tokn');
    expect(err.message).toBe('invalid auth.tokn: unknown key of auth (did you mean token?); the accepted keys are username, password, token');
    expect(err.message).not.toContain('secretvalue');
    expect(err.message).not.toContain(PASSWORD);
  });
});

describe('an unknown proxyDispatcher option', () => {
  it('is refused before anything is opened', () => {
    let err: unknown;
    try {
      proxyDispatcher(loose({ proxies: ['us-ny.example.com:8080'], token: 'pxa_abc', ipHsh: 'session-1' }));
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(InvalidArgumentError);
    expect((err as InvalidArgumentError).field).toBe('ipHsh');
    expect((err as InvalidArgumentError).message).toContain('(did you mean ipHash?)');
  });

  it('is refused when not an object', () => {
    expect(() => proxyDispatcher(undefined as never)).toThrow(new InvalidArgumentError('options', 'must be an object'));
  });
});

describe('the accepted keys still work', () => {
  it('a sub-account create with every key sends them all', async () => {
    const h = harness();
    h.reply(ok({ username: 'alice', active: true, monthly_bandwidth: 0, monthly_bandwidth_limit: 5, total_bandwidth: 0, total_bandwidth_limit: 9 }));
    await h.client.subAccounts.create({
      username: 'alice',
      password: 'pw-1234',
      firstName: 'A',
      lastName: 'B',
      email: 'a@example.com',
      monthlyLimit: 5,
      totalLimit: 9,
    });
    expect(h.seen()[0]?.formKeys.sort()).toEqual(['email', 'first_name', 'last_name', 'monthly_limit', 'password', 'total_limit', 'username']);
    await h.done();
  });
});
