// Input the emulator once read leniently, each time in a way a client bug could pass unnoticed:
// an empty `username` acted on the parent, a repeated field kept its last value, a POST's query
// string and unknown fields (a typo, a byte order mark) were dropped so the write went to the
// parent, Basic credentials in base64url or without padding were accepted, hostnames the resolver
// reads as IPv4 addresses (0x7f000001) were authorized, and form bytes that are not UTF-8 were
// stored as U+FFFD. And where it had grown too strict: an ASCII body labelled US-ASCII or Latin-1,
// and a hostname an earlier emulator stored that no delete could remove.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
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

  it('400 for a declared charset other than UTF-8, US-ASCII or Latin-1, even when the bytes are ASCII', async () => {
    for (const charset of ['"windows-1252"', 'utf-16', 'iso-8859-15', 'ascii7']) {
      expect(await post(Buffer.from('ip=192.0.2.10'), `application/x-www-form-urlencoded;charset=${charset}`)).toEqual({
        status: 400,
        text: 'request body must be UTF-8: a charset other than utf-8 is not supported (us-ascii and iso-8859-1 only for an all-ASCII body)\n',
      });
    }
    expect(await everything()).toEqual([]);
  });

  it.each(['US-ASCII', 'us-ascii', '"Us-Ascii"', 'ISO-8859-1', 'iso-8859-1', 'latin1', '"LATIN1"'])(
    'charset=%s with an all-ASCII body: read as UTF-8 reads it',
    async (charset) => {
      expect(await post(Buffer.from('ip=192.0.2.12&label=rack+7%2Fb'), `application/x-www-form-urlencoded; charset=${charset}`)).toEqual({
        status: 200,
        text: JSON.stringify({ ip: '192.0.2.12', label: 'rack 7/b' }),
      });
    },
  );

  it.each([
    ['iso-8859-1', 'a byte', Buffer.concat([Buffer.from('ip=192.0.2.13&label=caf'), Buffer.from([0xe9])])],
    ['latin1', 'an escape', Buffer.from('ip=192.0.2.13&label=caf%E9')],
    ['us-ascii', 'escapes', Buffer.from('ip=192.0.2.13&label=caf%c3%a9')],
  ])('charset=%s with %s above 7F: 400, nothing stored', async (charset, _what, body) => {
    expect(await post(body, `application/x-www-form-urlencoded; charset=${charset}`)).toEqual({
      status: 400,
      text: `request body must be UTF-8: with charset=${charset} only an all-ASCII body is accepted (no byte or percent-escape above 7F); send other text as UTF-8, with charset=utf-8 or none\n`,
    });
    expect(await everything()).toEqual([]);
  });

  it('400 for a body starting with a byte order mark, which a server would read as part of the first name', async () => {
    await createSub(em, 'alice');
    const body = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('username=alice&ip=203.0.113.61')]);
    expect(await post(body, 'application/x-www-form-urlencoded')).toEqual({
      status: 400,
      text: 'request body starts with a UTF-8 byte order mark (EF BB BF): a form body takes none\n',
    });
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

describe('a POST with a query string', () => {
  const REFUSED = [400, 'query string on a POST: parameters of a POST go in its form body (application/x-www-form-urlencoded)\n'];

  it.each([
    ['/api/ip/add/?username=alice', { ip: '203.0.113.50' }],
    ['/api/ip/add/?username=alice&username=', { ip: '203.0.113.51' }],
    ['/api/ip/add/?username=%FF', { ip: '203.0.113.52' }],
    ['/api/hostname/add/?username=alice', { domain: 'app.example.com' }],
    ['/api/token/create/?username=alice', { label: 'ci' }],
  ])('POST %s: 400, and nothing is written for the parent', async (path, form) => {
    await createSub(em, 'alice');
    const res = await api(em, 'POST', path, { auth: DEMO, form });
    expect([res.status, res.text]).toEqual(REFUSED);
    expect(await everything()).toEqual([]);
  });

  it('from a sub-account: 400, not served on itself', async () => {
    const alice = await createSub(em, 'alice');
    const res = await api(em, 'POST', '/api/ip/add/?username=demo', { auth: alice, form: { ip: '203.0.113.53' } });
    expect([res.status, res.text]).toEqual(REFUSED);
    expect(await everything()).toEqual([]);
  });
});

describe('a field the endpoint does not take', () => {
  it('400 naming it, and nothing is written for the parent', async () => {
    await createSub(em, 'alice');
    const typo = await api(em, 'POST', '/api/ip/add/', { auth: DEMO, form: { ip: '203.0.113.60', usernme: 'alice' } });
    expect([typo.status, typo.text]).toEqual([400, 'usernme: unknown field (POST /api/ip/add/ takes ip, label, username)\n']);
    const elsewhere = await api(em, 'POST', '/api/ip/delete/', { auth: DEMO, form: { ip: '203.0.113.60', label: 'x' } });
    expect([elsewhere.status, elsewhere.text]).toEqual([400, 'label: unknown field (POST /api/ip/delete/ takes ip, username)\n']);
    expect(await everything()).toEqual([]);
  });

  it('in a query string too, also where the endpoint takes none', async () => {
    const typo = await api(em, 'GET', '/api/ips/', { auth: DEMO, query: { usernme: 'alice' } });
    expect([typo.status, typo.text]).toEqual([400, 'usernme: unknown field (GET /api/ips/ takes username)\n']);
    const none = await api(em, 'GET', '/api/proxies/', { auth: DEMO, query: { page: '2' } });
    expect([none.status, none.text]).toEqual([400, 'page: unknown field (GET /api/proxies/ takes none)\n']);
  });

  it('unnamed when it may be the tail of a password with an unencoded &, or is not plain', async () => {
    const form = 'application/x-www-form-urlencoded';
    const tail = await api(em, 'POST', '/api/sub/create/', { auth: DEMO, body: 'username=bob&password=Secret&Tail42', contentType: form });
    expect([tail.status, tail.text]).toEqual([
      400,
      'unknown field, not named here since it may be part of a password (POST /api/sub/create/ takes username, password, first_name, last_name, email, monthly_limit, total_limit)\n',
    ]);
    const odd = await api(em, 'POST', '/api/ip/add/', { auth: DEMO, body: 'ip=203.0.113.62&a%0Ab=1', contentType: form });
    expect([odd.status, odd.text]).toEqual([
      400,
      'unknown field, with a name of other characters than letters, digits and _ (POST /api/ip/add/ takes ip, label, username)\n',
    ]);
    expect((await emulatorState(em)).accounts[0]!.subAccounts).toEqual([]);
    expect(await everything()).toEqual([]);
  });
});

describe('a hostname an earlier emulator stored, which the rule now refuses', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'proxyaccount-strict-input-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('is deleted when spelled as listed; a value that matches none still meets the rule', async () => {
    const stateFile = join(dir, 'state.db');
    await (await startEmulator({ stateFile })).stop();
    // Stands in for an add by an emulator from before names ending in a number were refused.
    const db = new Database(stateFile);
    try {
      const { id } = db.prepare('SELECT id FROM accounts WHERE username = ?').get('demo') as { id: number };
      db.prepare('INSERT INTO hostnames (account_id, domain) VALUES (?, ?)').run(id, '0x7f000001');
    } finally {
      db.close();
    }
    const later = await startEmulator({ stateFile });
    try {
      const list = async (): Promise<unknown> => (await api(later, 'GET', '/api/hostnames/', { auth: DEMO })).json();
      const remove = async (domain: string): Promise<[number, string]> => {
        const res = await api(later, 'POST', '/api/hostname/delete/', { auth: DEMO, form: { domain } });
        return [res.status, res.text];
      };
      const RULE: [number, string] = [400, 'domain: must be a host name such as app.example.com\n'];
      expect(await list()).toEqual({ domains: ['0x7f000001'] });
      expect(await remove('0X7F000001')).toEqual(RULE);
      expect(await remove('0x7f000001')).toEqual([204, '']);
      expect(await list()).toEqual({ domains: [] });
      expect(await remove('0x7f000001')).toEqual(RULE);
    } finally {
      await later.stop();
    }
  });
});
