// Input the emulator once read leniently, each time in a way a client bug could pass unnoticed:
// an empty `username` acted on the parent, a repeated field kept its last value, Basic credentials
// in base64url or without padding were accepted, hostnames the resolver reads as IPv4 addresses
// (0x7f000001) were authorized, and form bytes that are not UTF-8 were stored as U+FFFD.
import { request } from 'undici';
import { startEmulator, type RunningEmulator } from '../helpers/emulator';
import { api, type Auth, createSub, DEMO, emulatorState } from './api';

let em: RunningEmulator;
beforeAll(async () => {
  em = await startEmulator();
});
afterAll(() => em?.stop());
beforeEach(() => em.control.reset());

const USERNAME_RULE = 'username: must be 1-30 characters of letters, digits and . @ + -';

/** Every IP, hostname and token of every account and sub-account. */
async function everything(): Promise<unknown[]> {
  const state = await emulatorState(em);
  return state.accounts.flatMap((a) => [...a.ips, ...a.hostnames, ...a.tokens, ...a.subAccounts.flatMap((s) => [...s.ips, ...s.hostnames, ...s.tokens])]);
}

describe('an empty username', () => {
  it.each([
    ['POST', '/api/ip/add/', { ip: '198.51.100.7' }],
    ['POST', '/api/ip/delete/', { ip: '198.51.100.7' }],
    ['GET', '/api/ips/', {}],
    ['GET', '/api/ip_labels/', {}],
    ['POST', '/api/hostname/add/', { domain: 'app.example.com' }],
    ['POST', '/api/hostname/delete/', { domain: 'app.example.com' }],
    ['GET', '/api/hostnames/', {}],
    ['POST', '/api/token/create/', { label: 'ci' }],
    ['GET', '/api/tokens/', {}],
    ['POST', '/api/token/deactivate/', { id: '1' }],
    ['POST', '/api/token/activate/', { id: '1' }],
    ['POST', '/api/token/delete/', { id: '1' }],
  ])('%s %s: 400 with the username rule, never the parent', async (method, path, fields) => {
    await createSub(em, 'alice');
    const opts = method === 'GET' ? { query: { ...fields, username: '' } } : { form: { ...fields, username: '' } };
    const res = await api(em, method, path, { auth: DEMO, ...opts });
    expect([res.status, res.text]).toEqual([400, `${USERNAME_RULE}\n`]);
    expect(await everything()).toEqual([]);
  });

  it('from a sub-account: 403, as any username from a sub-account', async () => {
    const alice = await createSub(em, 'alice');
    const res = await api(em, 'POST', '/api/ip/add/', { auth: alice, form: { ip: '198.51.100.8', username: '' } });
    expect(res.status).toBe(403);
    expect(res.text).toContain('username may only be passed when authenticated as the parent account');
    expect(await everything()).toEqual([]);
  });
});

describe('a field given twice', () => {
  it('400 naming the field, in a form body or a query string, and nothing is written', async () => {
    await createSub(em, 'alice');
    const twice = await api(em, 'POST', '/api/ip/add/', {
      auth: DEMO,
      body: 'ip=198.51.100.7&username=alice&username=',
      contentType: 'application/x-www-form-urlencoded',
    });
    expect([twice.status, twice.text]).toEqual([400, 'username: given more than once in request body\n']);
    const same = await api(em, 'POST', '/api/ip/add/', {
      auth: DEMO,
      body: 'ip=198.51.100.7&ip=198.51.100.7',
      contentType: 'application/x-www-form-urlencoded',
    });
    expect([same.status, same.text]).toEqual([400, 'ip: given more than once in request body\n']);
    expect(await everything()).toEqual([]);

    await api(em, 'POST', '/api/ip/add/', { auth: DEMO, form: { ip: '198.51.100.9' } });
    const query = await api(em, 'GET', '/api/ips/?username=alice&username=', { auth: DEMO });
    expect([query.status, query.text]).toEqual([400, 'username: given more than once in query string\n']);
  });

  it('does not echo a field name that is not plain', async () => {
    const res = await api(em, 'POST', '/api/ip/add/', { auth: DEMO, body: 'a%0Ab=1&a%0Ab=2', contentType: 'application/x-www-form-urlencoded' });
    expect([res.status, res.text]).toEqual([400, 'a field: given more than once in request body\n']);
  });
});

describe('Basic credentials', () => {
  // "bob:??>>?~~" is Ym9iOj8/Pj4/fn4= in standard base64: padded, with "/" where base64url has "_".
  const PASSWORD = '??>>?~~';
  const standard = Buffer.from(`bob:${PASSWORD}`).toString('base64');

  it('standard base64 with its padding authenticates', async () => {
    await createSub(em, 'bob', PASSWORD);
    expect(standard).toBe('Ym9iOj8/Pj4/fn4=');
    expect((await api(em, 'GET', '/api/ips/', { auth: { header: `Basic ${standard}` } })).status).toBe(200);
  });

  it.each([
    ['base64url', 'Ym9iOj8_Pj4_fn4='],
    ['no padding', 'Ym9iOj8/Pj4/fn4'],
    ['base64url without padding', 'Ym9iOj8_Pj4_fn4'],
    ['trailing junk', 'Ym9iOj8/Pj4/fn4=!!*'],
    ['inner whitespace', 'Ym9iOj8/ Pj4/fn4='],
    ['padding bits not zero', 'Ym9iOj8/Pj4/fn5='],
    ['too much padding', 'Ym9iOj8/Pj4/fn4=='],
  ])('%s: 401, counted toward the ban', async (_what, value) => {
    await createSub(em, 'bob', PASSWORD);
    const auth: Auth = { header: `Basic ${value}` };
    for (let i = 0; i < 4; i++) {
      const res = await api(em, 'GET', '/api/ips/', { auth });
      expect([res.status, res.text]).toEqual([401, 'malformed Basic credentials\n']);
    }
    expect((await api(em, 'GET', '/api/ips/', { auth: { header: `Basic ${standard}` } })).status).toBe(429);
  });

  it('401 for credentials that are not UTF-8', async () => {
    const latin1 = Buffer.from('demo:caf\u00e9', 'latin1').toString('base64');
    const res = await api(em, 'GET', '/api/ips/', { auth: { header: `Basic ${latin1}` } });
    expect([res.status, res.text]).toEqual([401, 'malformed Basic credentials\n']);
  });
});

describe('hostnames the resolver reads as IPv4 addresses', () => {
  it.each(['0x7f000001', '0x7f.0x1', '127.0.0.0x1', '127.1', '0177.0.0.1', '10.0X0A', 'app.0x1f', '0x'])('refuses %s like an IP', async (domain) => {
    const res = await api(em, 'POST', '/api/hostname/add/', { auth: DEMO, form: { domain } });
    expect([res.status, res.text]).toEqual([400, 'domain: must be a host name such as app.example.com\n']);
    expect(await everything()).toEqual([]);
  });

  it('accepts names with numeric labels before a name', async () => {
    for (const domain of ['0x7f.example.com', '127.0.0.1.nip.io', 'x0x1']) {
      expect((await api(em, 'POST', '/api/hostname/add/', { auth: DEMO, form: { domain } })).json()).toEqual({ domain });
    }
  });
});

describe('form bodies are UTF-8', () => {
  const AUTH = `Basic ${Buffer.from('demo:demo-password').toString('base64')}`;

  async function post(body: Buffer, contentType: string): Promise<{ status: number; text: string }> {
    const res = await request(`${em.url}/api/ip/add/`, {
      method: 'POST',
      dispatcher: em.dispatcher,
      headers: { authorization: AUTH, 'content-type': contentType },
      body,
    });
    return { status: res.statusCode, text: await res.body.text() };
  }

  it('400 for raw bytes that are not UTF-8, and nothing stored', async () => {
    const body = Buffer.concat([Buffer.from('ip=192.0.2.10&label=caf'), Buffer.from([0xe9])]);
    expect(await post(body, 'application/x-www-form-urlencoded')).toEqual({ status: 400, text: 'request body is not valid UTF-8\n' });
    expect(await everything()).toEqual([]);
  });

  it('400 for a declared charset other than UTF-8, even when the bytes are ASCII', async () => {
    for (const type of ['application/x-www-form-urlencoded; charset=iso-8859-1', 'application/x-www-form-urlencoded;charset="windows-1252"']) {
      expect(await post(Buffer.from('ip=192.0.2.10'), type)).toEqual({
        status: 400,
        text: 'request body must be UTF-8: a charset other than utf-8 is not supported\n',
      });
    }
    expect(await everything()).toEqual([]);
  });

  it('UTF-8, declared or not, is read as such', async () => {
    const body = Buffer.from('ip=192.0.2.10&label=café ☕');
    expect(await post(body, 'application/x-www-form-urlencoded; charset="UTF-8"')).toEqual({
      status: 200,
      text: JSON.stringify({ ip: '192.0.2.10', label: 'café ☕' }),
    });
    expect((await post(Buffer.from('ip=192.0.2.11&label=\u00e9t\u00e9'), 'application/x-www-form-urlencoded')).status).toBe(200);
  });

  it('ip: a control character is named as in every other text field', async () => {
    const res = await api(em, 'POST', '/api/ip/add/', { auth: DEMO, form: { ip: '192.0.2.1\n' } });
    expect([res.status, res.text]).toEqual([400, 'ip: must not contain a control character (U+000A at position 10)\n']);
  });
});
