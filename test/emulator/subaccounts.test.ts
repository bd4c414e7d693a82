// Sub-account endpoints over real HTTPS: happy paths, every validation rule, ownership, limits,
// edit semantics and bandwidth usage with billing periods.
import { startEmulator, type RunningEmulator } from '../helpers/emulator';
import { api, basic, createSub, createToken, DEMO, emulatorState, type SubDetails } from './api';

let em: RunningEmulator;
beforeAll(async () => {
  em = await startEmulator({
    accounts: {
      accounts: [
        { username: 'demo', password: 'demo-password', plan: 'plan20' },
        { username: 'other', password: 'other-password', plan: 'plan20', subAccountLimit: 2 },
      ],
    },
  });
});
afterAll(() => em?.stop());
beforeEach(() => em.control.reset());

const OTHER = basic('other', 'other-password');

describe('create, get, deactivate, activate, delete', () => {
  it('creates a sub-account with every field and returns its details', async () => {
    const res = await api(em, 'POST', '/api/sub/create/', {
      auth: DEMO,
      form: {
        username: 'alice.b+1@x-y',
        password: 'pw',
        first_name: 'Alice',
        last_name: 'Bee',
        email: 'alice@example.com',
        monthly_limit: '10',
        total_limit: '100',
      },
    });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.json()).toEqual({
      username: 'alice.b+1@x-y',
      active: true,
      monthly_bandwidth: 0,
      monthly_bandwidth_limit: 10,
      total_bandwidth: 0,
      total_bandwidth_limit: 100,
      first_name: 'Alice',
      last_name: 'Bee',
      email: 'alice@example.com',
    });
  });

  it('omits unset optional fields and defaults limits to 0', async () => {
    const res = await api(em, 'POST', '/api/sub/create/', { auth: DEMO, form: { username: 'bob' } });
    expect(res.status).toBe(200);
    expect(res.json()).toEqual({
      username: 'bob',
      active: true,
      monthly_bandwidth: 0,
      monthly_bandwidth_limit: 0,
      total_bandwidth: 0,
      total_bandwidth_limit: 0,
    });
  });

  it('reads, deactivates, reactivates and deletes (empty 200)', async () => {
    await createSub(em, 'carol');
    const got = await api(em, 'GET', '/api/sub/get/', { auth: DEMO, query: { username: 'carol' } });
    expect(got.status).toBe(200);
    expect(got.json<SubDetails>().username).toBe('carol');

    const off = await api(em, 'POST', '/api/sub/deactivate/', { auth: DEMO, form: { username: 'carol' } });
    expect(off.status).toBe(200);
    expect(off.json<SubDetails>().active).toBe(false);
    const stillOff = await api(em, 'GET', '/api/sub/get/', { auth: DEMO, query: { username: 'carol' } });
    expect(stillOff.json<SubDetails>().active).toBe(false);

    const on = await api(em, 'POST', '/api/sub/activate/', { auth: DEMO, form: { username: 'carol' } });
    expect(on.status).toBe(200);
    expect(on.json<SubDetails>().active).toBe(true);

    const del = await api(em, 'POST', '/api/sub/delete/', { auth: DEMO, form: { username: 'carol' } });
    expect(del.status).toBe(200);
    expect(del.text).toBe('');
    expect(del.headers['content-length']).toBe('0');
    const gone = await api(em, 'GET', '/api/sub/get/', { auth: DEMO, query: { username: 'carol' } });
    expect(gone.status).toBe(404);
  });

  it('deleting a sub-account removes its IPs, hostnames and tokens', async () => {
    const dave = await createSub(em, 'dave', 'dave-pw');
    expect((await api(em, 'POST', '/api/ip/add/', { auth: dave, form: { ip: '192.0.2.1' } })).status).toBe(200);
    expect((await api(em, 'POST', '/api/hostname/add/', { auth: dave, form: { domain: 'a.example' } })).status).toBe(200);
    const { token } = await createToken(em, dave);
    expect((await api(em, 'POST', '/api/sub/delete/', { auth: DEMO, form: { username: 'dave' } })).status).toBe(200);

    expect((await api(em, 'GET', '/api/ips/', { auth: { bearer: token } })).status).toBe(401);
    await createSub(em, 'dave', 'dave-pw');
    expect((await api(em, 'GET', '/api/ips/', { auth: dave })).json()).toEqual({ ips: [] });
    expect((await api(em, 'GET', '/api/hostnames/', { auth: dave })).json()).toEqual({ domains: [] });
    expect((await api(em, 'GET', '/api/tokens/', { auth: dave })).json()).toEqual({ tokens: [] });
  });

  it('a deactivated sub-account can still sign in to the API', async () => {
    const erin = await createSub(em, 'erin');
    await api(em, 'POST', '/api/sub/deactivate/', { auth: DEMO, form: { username: 'erin' } });
    expect((await api(em, 'GET', '/api/ips/', { auth: erin })).status).toBe(200);
  });
});

describe('validation (400, plain text naming the field)', () => {
  const cases: Array<[string, Record<string, string>, string]> = [
    ['missing username', {}, 'username'],
    ['username of 31 characters', { username: 'a'.repeat(31) }, 'username'],
    ['username with a space', { username: 'a b' }, 'username'],
    ['username with an underscore', { username: 'a_b' }, 'username'],
    ['password of 129 characters', { username: 'ok', password: 'p'.repeat(129) }, 'password'],
    ['first_name of 21 characters', { username: 'ok', first_name: 'f'.repeat(21) }, 'first_name'],
    ['last_name of 21 characters', { username: 'ok', last_name: 'l'.repeat(21) }, 'last_name'],
    ['email without @', { username: 'ok', email: 'nobody.example.com' }, 'email'],
    ['email of 256 characters', { username: 'ok', email: `${'e'.repeat(244)}@example.com` }, 'email'],
    ['negative monthly_limit', { username: 'ok', monthly_limit: '-1' }, 'monthly_limit'],
    ['fractional monthly_limit', { username: 'ok', monthly_limit: '1.5' }, 'monthly_limit'],
    ['non-numeric total_limit', { username: 'ok', total_limit: 'lots' }, 'total_limit'],
  ];
  it.each(cases)('rejects %s on create', async (_name, form, field) => {
    const res = await api(em, 'POST', '/api/sub/create/', { auth: DEMO, form });
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(res.text.startsWith(`${field}:`)).toBe(true);
    expect((await emulatorState(em)).accounts[0]!.subAccounts).toHaveLength(0);
  });

  it('never echoes the password in an error', async () => {
    const secret = `S3cret-${'x'.repeat(130)}`;
    const res = await api(em, 'POST', '/api/sub/create/', { auth: DEMO, form: { username: 'ok', password: secret } });
    expect(res.status).toBe(400);
    expect(res.text).not.toContain('S3cret');
  });

  it('accepts every field at its maximum length', async () => {
    const res = await api(em, 'POST', '/api/sub/create/', {
      auth: DEMO,
      form: {
        username: 'u'.repeat(30),
        password: 'p'.repeat(128),
        first_name: 'f'.repeat(20),
        last_name: 'l'.repeat(20),
        email: `${'e'.repeat(243)}@example.com`,
        monthly_limit: '0',
      },
    });
    expect(res.status).toBe(200);
    expect((await api(em, 'GET', '/api/ips/', { auth: basic('u'.repeat(30), 'p'.repeat(128)) })).status).toBe(200);
  });

  it('rejects a username already taken, by a sub-account or a parent', async () => {
    await createSub(em, 'taken');
    for (const [auth, username] of [
      [DEMO, 'taken'],
      [OTHER, 'taken'],
      [DEMO, 'other'],
    ] as const) {
      const res = await api(em, 'POST', '/api/sub/create/', { auth, form: { username } });
      expect(res.status).toBe(400);
      expect(res.text).toContain('username already taken');
    }
  });

  it('requires username on get and delete', async () => {
    expect((await api(em, 'GET', '/api/sub/get/', { auth: DEMO })).status).toBe(400);
    const del = await api(em, 'POST', '/api/sub/delete/', { auth: DEMO, form: {} });
    expect(del.status).toBe(400);
    expect(del.text).toMatch(/^username:/);
  });
});

describe('ownership and limits', () => {
  it("403 for another parent's sub-account, 404 for a name nobody has", async () => {
    await createSub(em, 'mine');
    for (const [method, path] of [
      ['POST', '/api/sub/edit/'],
      ['POST', '/api/sub/deactivate/'],
      ['POST', '/api/sub/activate/'],
      ['POST', '/api/sub/delete/'],
    ] as const) {
      expect((await api(em, method, path, { auth: OTHER, form: { username: 'mine' } })).status).toBe(403);
      expect((await api(em, method, path, { auth: OTHER, form: { username: 'nobody' } })).status).toBe(404);
    }
    expect((await api(em, 'GET', '/api/sub/get/', { auth: OTHER, query: { username: 'mine' } })).status).toBe(403);
    expect((await api(em, 'GET', '/api/sub/get/', { auth: DEMO, query: { username: 'other' } })).status).toBe(403);
    expect((await api(em, 'GET', '/api/sub/get/', { auth: DEMO, query: { username: 'mine' } })).json<SubDetails>().active).toBe(true);
  });

  it('402 once the sub-account limit from the accounts file is reached', async () => {
    expect((await api(em, 'POST', '/api/sub/create/', { auth: OTHER, form: { username: 'o1' } })).status).toBe(200);
    expect((await api(em, 'POST', '/api/sub/create/', { auth: OTHER, form: { username: 'o2' } })).status).toBe(200);
    const third = await api(em, 'POST', '/api/sub/create/', { auth: OTHER, form: { username: 'o3' } });
    expect(third.status).toBe(402);
    expect(third.text).toContain('sub-account limit');
    await api(em, 'POST', '/api/sub/delete/', { auth: OTHER, form: { username: 'o1' } });
    expect((await api(em, 'POST', '/api/sub/create/', { auth: OTHER, form: { username: 'o3' } })).status).toBe(200);
  });

  it('402 at the plan default limit (trial allows one)', async () => {
    await em.control.plan('demo', 'trial');
    expect((await api(em, 'POST', '/api/sub/create/', { auth: DEMO, form: { username: 't1' } })).status).toBe(200);
    expect((await api(em, 'POST', '/api/sub/create/', { auth: DEMO, form: { username: 't2' } })).status).toBe(402);
  });
});

describe('edit', () => {
  beforeEach(async () => {
    const res = await api(em, 'POST', '/api/sub/create/', {
      auth: DEMO,
      form: { username: 'ed', password: 'old-pw', first_name: 'Ed', last_name: 'Ward', email: 'ed@example.com', monthly_limit: '5' },
    });
    expect(res.status).toBe(200);
  });

  it('keeps omitted fields and changes given ones', async () => {
    const res = await api(em, 'POST', '/api/sub/edit/', { auth: DEMO, form: { username: 'ed', total_limit: '50' } });
    expect(res.status).toBe(200);
    expect(res.json()).toEqual({
      username: 'ed',
      active: true,
      monthly_bandwidth: 0,
      monthly_bandwidth_limit: 5,
      total_bandwidth: 0,
      total_bandwidth_limit: 50,
      first_name: 'Ed',
      last_name: 'Ward',
      email: 'ed@example.com',
    });
  });

  it('clears a text field given empty, and an empty password changes nothing', async () => {
    const res = await api(em, 'POST', '/api/sub/edit/', {
      auth: DEMO,
      form: { username: 'ed', first_name: '', email: '', password: '' },
    });
    expect(res.status).toBe(200);
    const body = res.json<SubDetails>();
    expect(body).not.toHaveProperty('first_name');
    expect(body).not.toHaveProperty('email');
    expect(body.last_name).toBe('Ward');
    expect((await api(em, 'GET', '/api/ips/', { auth: basic('ed', 'old-pw') })).status).toBe(200);
  });

  it('changes the password', async () => {
    await api(em, 'POST', '/api/sub/edit/', { auth: DEMO, form: { username: 'ed', password: 'new-pw' } });
    expect((await api(em, 'GET', '/api/ips/', { auth: basic('ed', 'new-pw') })).status).toBe(200);
    expect((await api(em, 'GET', '/api/ips/', { auth: basic('ed', 'old-pw') })).status).toBe(401);
  });

  it('validates like create', async () => {
    const res = await api(em, 'POST', '/api/sub/edit/', { auth: DEMO, form: { username: 'ed', monthly_limit: '-3' } });
    expect(res.status).toBe(400);
    expect(res.text).toMatch(/^monthly_limit:/);
  });
});

describe('bandwidth usage', () => {
  it('counts sub-account usage toward the parent, monthly and total', async () => {
    await createSub(em, 'user1');
    await em.control.usage('user1', 1.5);
    await em.control.usage('user1', 0.25);
    await em.control.usage('demo', 2);
    const sub = (await api(em, 'GET', '/api/sub/get/', { auth: DEMO, query: { username: 'user1' } })).json<SubDetails>();
    expect(sub.monthly_bandwidth).toBe(1.75);
    expect(sub.total_bandwidth).toBe(1.75);
    const parent = (await emulatorState(em)).accounts.find((a) => a.username === 'demo')!;
    expect(parent.monthly_bandwidth).toBe(3.75);
    expect(parent.total_bandwidth).toBe(3.75);
  });

  it('starts a new billing period every 30 days; total never resets', async () => {
    await createSub(em, 'user2');
    await em.control.usage('user2', 4);
    await em.control.advanceClock(29 * 86400);
    let sub = (await api(em, 'GET', '/api/sub/get/', { auth: DEMO, query: { username: 'user2' } })).json<SubDetails>();
    expect(sub.monthly_bandwidth).toBe(4);

    await em.control.advanceClock(1 * 86400 + 60);
    sub = (await api(em, 'GET', '/api/sub/get/', { auth: DEMO, query: { username: 'user2' } })).json<SubDetails>();
    expect(sub.monthly_bandwidth).toBe(0);
    expect(sub.total_bandwidth).toBe(4);

    await em.control.usage('user2', 0.5);
    sub = (await api(em, 'GET', '/api/sub/get/', { auth: DEMO, query: { username: 'user2' } })).json<SubDetails>();
    expect(sub.monthly_bandwidth).toBe(0.5);
    expect(sub.total_bandwidth).toBe(4.5);
    expect(sub.total_bandwidth).toBeGreaterThanOrEqual(sub.monthly_bandwidth);
  });

  it('parent usage stays after its sub-account is deleted', async () => {
    await createSub(em, 'gone');
    await em.control.usage('gone', 3);
    await api(em, 'POST', '/api/sub/delete/', { auth: DEMO, form: { username: 'gone' } });
    expect((await emulatorState(em)).accounts[0]!.total_bandwidth).toBe(3);
  });
});
