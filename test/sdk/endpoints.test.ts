// The request shape of every endpoint (method, path with trailing slash, query, form body,
// headers) and the mapping of its documented success answer.
import { DEFAULT_USER_AGENT, SDK_VERSION, type ProxyAccountClient } from '../../src/sdk';
import { BASE, BASIC, harness, ok, PASSWORD, status, TOKEN, type Harness, type Reply } from './harness';

const DETAILS = {
  username: 'alice',
  active: true,
  monthly_bandwidth: 1.5,
  monthly_bandwidth_limit: 10,
  total_bandwidth: 2.25,
  total_bandwidth_limit: 0,
  first_name: 'Alice',
  email: 'alice@example.com',
};
const ALICE = {
  username: 'alice',
  active: true,
  monthlyBandwidth: 1.5,
  monthlyBandwidthLimit: 10,
  totalBandwidth: 2.25,
  totalBandwidthLimit: 0,
  firstName: 'Alice',
  email: 'alice@example.com',
};
const TOKEN_META = { id: 7, label: 'ci', is_active: true, expires_at: null, created_at: '2024-05-01T10:20:30' };
const TOKEN_OUT = { id: 7, label: 'ci', isActive: true, expiresAt: null, createdAt: new Date(Date.UTC(2024, 4, 1, 10, 20, 30)) };

interface Case {
  readonly name: string;
  readonly call: (c: ProxyAccountClient) => Promise<unknown>;
  readonly reply: Reply;
  readonly method: 'GET' | 'POST';
  readonly path: string;
  readonly query?: Record<string, string>;
  /** Exact form fields, in order. */
  readonly form?: Array<[string, string]>;
  readonly result: unknown;
}

const CASES: Case[] = [
  {
    name: 'subAccounts.create sends every given field',
    call: (c) =>
      c.subAccounts.create({
        username: 'alice',
        password: 'pw-Alice-1',
        firstName: 'Alice',
        lastName: 'Liddell',
        email: 'alice@example.com',
        monthlyLimit: 10,
        totalLimit: 0,
      }),
    reply: ok(DETAILS),
    method: 'POST',
    path: '/api/sub/create/',
    form: [
      ['username', 'alice'],
      ['password', 'pw-Alice-1'],
      ['first_name', 'Alice'],
      ['last_name', 'Liddell'],
      ['email', 'alice@example.com'],
      ['monthly_limit', '10'],
      ['total_limit', '0'],
    ],
    result: ALICE,
  },
  {
    name: 'subAccounts.create with only a username',
    call: (c) => c.subAccounts.create({ username: 'alice' }),
    reply: ok(DETAILS),
    method: 'POST',
    path: '/api/sub/create/',
    form: [['username', 'alice']],
    result: ALICE,
  },
  {
    name: 'subAccounts.edit sends exactly the fields given, empty strings included',
    call: (c) => c.subAccounts.edit({ username: 'alice', lastName: '', totalLimit: 5 }),
    reply: ok(DETAILS),
    method: 'POST',
    path: '/api/sub/edit/',
    form: [
      ['username', 'alice'],
      ['last_name', ''],
      ['total_limit', '5'],
    ],
    result: ALICE,
  },
  {
    name: 'subAccounts.get',
    call: (c) => c.subAccounts.get('alice'),
    reply: ok(DETAILS),
    method: 'GET',
    path: '/api/sub/get/',
    query: { username: 'alice' },
    result: ALICE,
  },
  {
    name: 'subAccounts.deactivate',
    call: (c) => c.subAccounts.deactivate('alice'),
    reply: ok({ ...DETAILS, active: false }),
    method: 'POST',
    path: '/api/sub/deactivate/',
    form: [['username', 'alice']],
    result: { ...ALICE, active: false },
  },
  {
    name: 'subAccounts.activate',
    call: (c) => c.subAccounts.activate('alice'),
    reply: ok(DETAILS),
    method: 'POST',
    path: '/api/sub/activate/',
    form: [['username', 'alice']],
    result: ALICE,
  },
  {
    name: 'subAccounts.delete (empty 200)',
    call: (c) => c.subAccounts.delete('alice'),
    reply: ok(''),
    method: 'POST',
    path: '/api/sub/delete/',
    form: [['username', 'alice']],
    result: undefined,
  },
  {
    name: 'ips.add with label and username',
    call: (c) => c.ips.add({ ip: '203.0.113.7', label: 'office', username: 'alice' }),
    reply: ok({ ip: '203.0.113.7', label: 'office' }),
    method: 'POST',
    path: '/api/ip/add/',
    form: [
      ['ip', '203.0.113.7'],
      ['label', 'office'],
      ['username', 'alice'],
    ],
    result: { ip: '203.0.113.7', label: 'office' },
  },
  {
    name: 'ips.add without label: no label in the answer',
    call: (c) => c.ips.add({ ip: '203.0.113.7' }),
    reply: ok({ ip: '203.0.113.7' }),
    method: 'POST',
    path: '/api/ip/add/',
    form: [['ip', '203.0.113.7']],
    result: { ip: '203.0.113.7' },
  },
  {
    name: 'ips.delete (204)',
    call: (c) => c.ips.delete({ ip: '203.0.113.7', username: 'alice' }),
    reply: status(204),
    method: 'POST',
    path: '/api/ip/delete/',
    form: [
      ['ip', '203.0.113.7'],
      ['username', 'alice'],
    ],
    result: undefined,
  },
  {
    name: 'ips.list of the own account',
    call: (c) => c.ips.list(),
    reply: ok({ ips: ['203.0.113.7', '198.51.100.1'] }),
    method: 'GET',
    path: '/api/ips/',
    query: {},
    result: ['203.0.113.7', '198.51.100.1'],
  },
  {
    name: 'ips.list of a sub-account',
    call: (c) => c.ips.list({ username: 'alice' }),
    reply: ok({ ips: [] }),
    method: 'GET',
    path: '/api/ips/',
    query: { username: 'alice' },
    result: [],
  },
  {
    name: 'ips.listWithLabels',
    call: (c) => c.ips.listWithLabels({ username: 'alice' }),
    reply: ok([
      { ip: '203.0.113.7', label: 'office' },
      { ip: '198.51.100.1', label: '' },
    ]),
    method: 'GET',
    path: '/api/ip_labels/',
    query: { username: 'alice' },
    result: [
      { ip: '203.0.113.7', label: 'office' },
      { ip: '198.51.100.1', label: '' },
    ],
  },
  {
    name: 'hostnames.add',
    call: (c) => c.hostnames.add({ domain: 'ci.example.com', username: 'alice' }),
    reply: ok({ domain: 'ci.example.com' }),
    method: 'POST',
    path: '/api/hostname/add/',
    form: [
      ['domain', 'ci.example.com'],
      ['username', 'alice'],
    ],
    result: { domain: 'ci.example.com' },
  },
  {
    name: 'hostnames.delete (204)',
    call: (c) => c.hostnames.delete({ domain: 'ci.example.com' }),
    reply: status(204),
    method: 'POST',
    path: '/api/hostname/delete/',
    form: [['domain', 'ci.example.com']],
    result: undefined,
  },
  {
    name: 'hostnames.list',
    call: (c) => c.hostnames.list(),
    reply: ok({ domains: ['ci.example.com'] }),
    method: 'GET',
    path: '/api/hostnames/',
    query: {},
    result: ['ci.example.com'],
  },
  {
    name: 'proxies.list',
    call: (c) => c.proxies.list(),
    reply: ok({ proxies: ['us-ny.proxy.example.net:8080'] }),
    method: 'GET',
    path: '/api/proxies/',
    query: {},
    result: ['us-ny.proxy.example.net:8080'],
  },
  {
    name: 'proxies.add',
    call: (c) => c.proxies.add('us-ny'),
    reply: ok({ proxy: 'us-ny.proxy.example.net' }),
    method: 'POST',
    path: '/api/proxy/add/',
    form: [['proxy', 'us-ny']],
    result: { proxy: 'us-ny.proxy.example.net' },
  },
  {
    name: 'proxies.delete (204)',
    call: (c) => c.proxies.delete('us-ny.proxy.example.net:8080'),
    reply: status(204),
    method: 'POST',
    path: '/api/proxy/delete/',
    form: [['proxy', 'us-ny.proxy.example.net:8080']],
    result: undefined,
  },
  {
    name: 'tokens.list',
    call: (c) => c.tokens.list({ username: 'alice' }),
    reply: ok({ tokens: [TOKEN_META] }),
    method: 'GET',
    path: '/api/tokens/',
    query: { username: 'alice' },
    result: [TOKEN_OUT],
  },
  {
    name: 'tokens.create with every field',
    call: (c) => c.tokens.create({ label: 'ci', expiresAt: '2031-02-28', username: 'alice' }),
    reply: ok({ ...TOKEN_META, expires_at: '2031-02-28T00:00:00', token: TOKEN }),
    method: 'POST',
    path: '/api/token/create/',
    form: [
      ['label', 'ci'],
      ['expires_at', '2031-02-28'],
      ['username', 'alice'],
    ],
    result: { ...TOKEN_OUT, expiresAt: new Date(Date.UTC(2031, 1, 28)), token: TOKEN },
  },
  {
    name: 'tokens.create with nothing sends an empty form',
    call: (c) => c.tokens.create(),
    reply: ok({ ...TOKEN_META, label: '', token: TOKEN }),
    method: 'POST',
    path: '/api/token/create/',
    form: [],
    result: { ...TOKEN_OUT, label: '', token: TOKEN },
  },
  {
    name: 'tokens.deactivate',
    call: (c) => c.tokens.deactivate({ id: 7 }),
    reply: ok({ ...TOKEN_META, is_active: false }),
    method: 'POST',
    path: '/api/token/deactivate/',
    form: [['id', '7']],
    result: { ...TOKEN_OUT, isActive: false },
  },
  {
    name: 'tokens.activate for a sub-account',
    call: (c) => c.tokens.activate({ id: 7, username: 'alice' }),
    reply: ok(TOKEN_META),
    method: 'POST',
    path: '/api/token/activate/',
    form: [
      ['id', '7'],
      ['username', 'alice'],
    ],
    result: TOKEN_OUT,
  },
  {
    name: 'tokens.delete (204)',
    call: (c) => c.tokens.delete({ id: 7 }),
    reply: status(204),
    method: 'POST',
    path: '/api/token/delete/',
    form: [['id', '7']],
    result: undefined,
  },
  {
    name: 'geoIps.open',
    call: (c) => c.geoIps.open(),
    reply: ok({ US: '1200', DE: 30 }),
    method: 'GET',
    path: '/api/geoips/open/',
    query: {},
    result: { US: 1200, DE: 30 },
  },
  {
    name: 'geoIps.world',
    call: (c) => c.geoIps.world(),
    reply: ok({ JP: '7' }),
    method: 'GET',
    path: '/api/geoips/world/',
    query: {},
    result: { JP: 7 },
  },
];

describe('request shape of every endpoint (Basic auth)', () => {
  let h: Harness;
  beforeEach(() => {
    h = harness();
  });
  afterEach(async () => {
    await h.done();
  });

  it.each(CASES)('$name', async (c) => {
    h.reply(c.reply);
    await expect(c.call(h.client)).resolves.toEqual(c.result);
    const seen = h.seen();
    expect(seen).toHaveLength(1);
    const req = seen[0];
    expect(req.method).toBe(c.method);
    expect(req.path).toBe(c.path);
    expect(req.headers.authorization).toBe(BASIC);
    expect(req.headers['user-agent']).toBe(DEFAULT_USER_AGENT);
    expect(req.headers.accept).toBe('application/json');
    if (c.method === 'GET') {
      expect(req.query).toEqual(c.query);
      expect(req.body ?? '').toBe('');
      expect(req.headers['content-type']).toBeUndefined();
    } else {
      expect(req.query).toEqual({});
      expect(req.headers['content-type']).toBe('application/x-www-form-urlencoded');
      expect(Array.from(new URLSearchParams(req.body ?? ''))).toEqual(c.form);
    }
  });
});

describe('Bearer auth', () => {
  it('sends the token as a Bearer header on non-token endpoints', async () => {
    const h = harness({ auth: { token: TOKEN } });
    h.reply(ok({ ips: [] }), ok({ domains: [] }));
    await h.client.ips.list();
    await h.client.hostnames.list({ username: 'alice' });
    expect(h.seen().map((r) => r.headers.authorization)).toEqual([`Bearer ${TOKEN}`, `Bearer ${TOKEN}`]);
    await h.done();
  });
});

describe('URL building', () => {
  it('keeps a base-URL path prefix and encodes form values', async () => {
    const h = harness({ baseUrl: `${BASE}/account-api/` });
    h.reply(ok({ ip: '203.0.113.7', label: 'a&b=c d+é' }));
    await h.client.ips.add({ ip: '203.0.113.7', label: 'a&b=c d+é' });
    const [req] = h.seen();
    expect(req.path).toBe('/account-api/api/ip/add/');
    expect(req.body).toBe('ip=203.0.113.7&label=a%26b%3Dc+d%2B%C3%A9');
    await h.done();
  });

  it('encodes a username with + and @ in the query', async () => {
    const h = harness();
    h.reply(ok(DETAILS));
    await h.client.subAccounts.get('a+b@c.d');
    const [req] = h.seen();
    expect(req.query).toEqual({ username: 'a+b@c.d' });
    await h.done();
  });

  it('uses a custom user agent and never sends the password in clear', async () => {
    const h = harness({ userAgent: 'my-tool/2.0' });
    h.reply(ok({ proxies: [] }));
    await h.client.proxies.list();
    const [req] = h.seen();
    expect(req.headers['user-agent']).toBe('my-tool/2.0');
    expect(JSON.stringify(req)).not.toContain(PASSWORD);
    await h.done();
  });

  it('defaults the user agent to proxyaccount-sdk/<package version>', () => {
    const pkg = require('../../package.json') as { version: string };
    expect(SDK_VERSION).toBe(pkg.version);
    expect(DEFAULT_USER_AGENT).toBe(`proxyaccount-sdk/${pkg.version}`);
  });
});
