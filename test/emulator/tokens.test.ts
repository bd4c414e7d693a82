// Bearer tokens over real HTTPS: creation and the raw value, hashing, states (inactive, expired
// by the emulator clock), per-plan allowances, plan downgrade and sub-account tokens.
import { startEmulator, type RunningEmulator } from '../helpers/emulator';
import { api, basic, createSub, createToken, DEMO, emulatorState, type Auth, type TokenMeta } from './api';

let em: RunningEmulator;
beforeAll(async () => {
  em = await startEmulator({
    accounts: {
      accounts: [
        { username: 'demo', password: 'demo-password', plan: 'plan20' },
        { username: 'ten', password: 'ten-password', plan: 'plan10' },
      ],
    },
  });
});
afterAll(() => em?.stop());
beforeEach(() => em.control.reset());

/** The emulator's current UTC date plus `days`, as YYYY-MM-DD. */
async function emulatorDate(days: number): Promise<string> {
  const now = Date.parse((await emulatorState(em)).now);
  return new Date(now + days * 86400_000).toISOString().slice(0, 10);
}

const listTokens = async (auth: Auth = DEMO, username?: string): Promise<TokenMeta[]> => {
  const res = await api(em, 'GET', '/api/tokens/', { auth, query: username ? { username } : undefined });
  expect(res.status).toBe(200);
  return res.json<{ tokens: TokenMeta[] }>().tokens;
};

describe('create and list', () => {
  it('returns metadata plus the raw token once; the token authenticates', async () => {
    const { body, token } = await createToken(em, DEMO, { label: 'ci' });
    expect(body).toEqual({
      id: expect.any(Number),
      label: 'ci',
      is_active: true,
      expires_at: null,
      created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/),
      token: expect.stringMatching(/^pxa_[A-Za-z0-9_-]{32,}$/),
    });
    expect((await api(em, 'GET', '/api/ips/', { auth: { bearer: token } })).status).toBe(200);

    const listed = await api(em, 'GET', '/api/tokens/', { auth: DEMO });
    expect(listed.json()).toEqual({ tokens: [{ id: body.id, label: 'ci', is_active: true, expires_at: null, created_at: body.created_at }] });
    expect(listed.text).not.toContain(token.slice(4));
  });

  it('never keeps the raw value: the state dump holds neither it nor anything derived from its text', async () => {
    const { token } = await createToken(em, DEMO);
    const dump = JSON.stringify(await emulatorState(em));
    expect(dump).not.toContain(token);
    expect(dump).not.toContain(token.slice(4, 20));
    expect(dump).not.toContain('demo-password');
  });

  it('gives every token a distinct value and id', async () => {
    const a = await createToken(em, DEMO);
    const b = await createToken(em, DEMO);
    expect(a.token).not.toBe(b.token);
    expect(a.id).not.toBe(b.id);
  });

  it('sets expires_at to 00:00:00 UTC at the start of the given day', async () => {
    const date = await emulatorDate(3);
    const { body } = await createToken(em, DEMO, { expires_at: date });
    expect(body.expires_at).toBe(`${date}T00:00:00`);
  });

  it.each([
    ['today', 0, 'expires_at'],
    ['yesterday', -1, 'expires_at'],
  ])('400 for an expiry date of %s', async (_name, days, field) => {
    const res = await api(em, 'POST', '/api/token/create/', { auth: DEMO, form: { expires_at: await emulatorDate(days) } });
    expect(res.status).toBe(400);
    expect(res.text).toMatch(new RegExp(`^${field}:`));
  });

  it.each(['2030-02-30', '2030-1-5', '05/01/2030', '2030-01-01T00:00:00'])('400 for expires_at %p', async (expires_at) => {
    const res = await api(em, 'POST', '/api/token/create/', { auth: DEMO, form: { expires_at } });
    expect(res.status).toBe(400);
    expect(res.text).toMatch(/^expires_at:/);
  });

  it('treats a blank expires_at as no expiry; accepts a 100-character label and rejects 101', async () => {
    const { body } = await createToken(em, DEMO, { expires_at: '', label: 'l'.repeat(100) });
    expect(body.expires_at).toBeNull();
    const res = await api(em, 'POST', '/api/token/create/', { auth: DEMO, form: { label: 'l'.repeat(101) } });
    expect(res.status).toBe(400);
    expect(res.text).toMatch(/^label:/);
  });
});

describe('states', () => {
  it('deactivate makes the token fail with 401; activate restores it', async () => {
    const { id, token } = await createToken(em, DEMO);
    const off = await api(em, 'POST', '/api/token/deactivate/', { auth: DEMO, form: { id: String(id) } });
    expect(off.status).toBe(200);
    expect(off.json<TokenMeta>()).toMatchObject({ id, is_active: false });
    expect((await api(em, 'GET', '/api/ips/', { auth: { bearer: token } })).status).toBe(401);

    const on = await api(em, 'POST', '/api/token/activate/', { auth: DEMO, form: { id: String(id) } });
    expect(on.status).toBe(200);
    expect(on.json<TokenMeta>()).toMatchObject({ id, is_active: true });
    expect((await api(em, 'GET', '/api/ips/', { auth: { bearer: token } })).status).toBe(200);
  });

  it('expires by the emulator clock; activating an expired token is a 400', async () => {
    const { id, token } = await createToken(em, DEMO, { expires_at: await emulatorDate(1) });
    expect((await api(em, 'GET', '/api/ips/', { auth: { bearer: token } })).status).toBe(200);
    await em.control.advanceClock(2 * 86400);
    expect((await api(em, 'GET', '/api/ips/', { auth: { bearer: token } })).status).toBe(401);
    expect((await listTokens())[0]).toMatchObject({ id, is_active: false });
    const res = await api(em, 'POST', '/api/token/activate/', { auth: DEMO, form: { id: String(id) } });
    expect(res.status).toBe(400);
    expect(res.text).toContain('expired');
  });

  it('deletes with an empty 204; the deleted token no longer authenticates', async () => {
    const { id, token } = await createToken(em, DEMO);
    const del = await api(em, 'POST', '/api/token/delete/', { auth: DEMO, form: { id: String(id) } });
    expect(del.status).toBe(204);
    expect(del.text).toBe('');
    expect(await listTokens()).toEqual([]);
    expect((await api(em, 'GET', '/api/ips/', { auth: { bearer: token } })).status).toBe(401);
    expect((await api(em, 'POST', '/api/token/delete/', { auth: DEMO, form: { id: String(id) } })).status).toBe(404);
  });

  it('400 for a missing or non-integer id; 404 for an id of another account', async () => {
    expect((await api(em, 'POST', '/api/token/deactivate/', { auth: DEMO, form: {} })).status).toBe(400);
    const res = await api(em, 'POST', '/api/token/activate/', { auth: DEMO, form: { id: 'one' } });
    expect(res.status).toBe(400);
    expect(res.text).toMatch(/^id:/);
    const { id } = await createToken(em, basic('ten', 'ten-password'));
    for (const path of ['/api/token/deactivate/', '/api/token/activate/', '/api/token/delete/']) {
      expect((await api(em, 'POST', path, { auth: DEMO, form: { id: String(id) } })).status).toBe(404);
    }
    expect(await listTokens(basic('ten', 'ten-password'))).toHaveLength(1);
  });
});

describe('plans', () => {
  it('402 past the plan10 allowance of 10 tokens per account', async () => {
    const ten = basic('ten', 'ten-password');
    for (let i = 0; i < 10; i++) await createToken(em, ten, { label: `t${i}` });
    const res = await api(em, 'POST', '/api/token/create/', { auth: ten, form: {} });
    expect(res.status).toBe(402);
    expect(res.text).toContain('token limit');
    expect(await listTokens(ten)).toHaveLength(10);
  });

  it('a trial plan cannot list or create tokens (402)', async () => {
    await em.control.plan('demo', 'trial');
    expect((await api(em, 'GET', '/api/tokens/', { auth: DEMO })).status).toBe(402);
    expect((await api(em, 'POST', '/api/token/create/', { auth: DEMO, form: {} })).status).toBe(402);
  });

  it('a downgrade to trial deactivates every token of the account and its sub-accounts', async () => {
    const sub = await createSub(em, 'toksub');
    const parentToken = await createToken(em, DEMO);
    const subToken = await createToken(em, sub);
    const otherToken = await createToken(em, basic('ten', 'ten-password'));
    await em.control.plan('demo', 'trial');

    expect((await api(em, 'GET', '/api/ips/', { auth: { bearer: parentToken.token } })).status).toBe(401);
    expect((await api(em, 'GET', '/api/ips/', { auth: { bearer: subToken.token } })).status).toBe(401);
    expect((await api(em, 'GET', '/api/ips/', { auth: { bearer: otherToken.token } })).status).toBe(200);
    const demo = (await emulatorState(em)).accounts.find((a) => a.username === 'demo')!;
    expect(demo.tokens.map((t) => t.is_active)).toEqual([false]);
    expect(demo.subAccounts[0]!.tokens.map((t) => t.is_active)).toEqual([false]);

    // Upgrading again does not reactivate them, but they can be activated.
    await em.control.plan('demo', 'plan50');
    expect((await listTokens())[0]!.is_active).toBe(false);
    expect((await api(em, 'POST', '/api/token/activate/', { auth: DEMO, form: { id: String(parentToken.id) } })).status).toBe(200);
    expect((await api(em, 'GET', '/api/ips/', { auth: { bearer: parentToken.token } })).status).toBe(200);
  });
});

describe('sub-account tokens', () => {
  it('the parent manages them with username; the sub-account with its own Basic credentials', async () => {
    const sub = await createSub(em, 'tsub');
    const byParent = await createToken(em, DEMO, { username: 'tsub', label: 'from-parent' });
    const bySub = await createToken(em, sub, { label: 'own' });
    expect((await listTokens(DEMO, 'tsub')).map((t) => t.label)).toEqual(['from-parent', 'own']);
    expect((await listTokens(sub)).map((t) => t.label)).toEqual(['from-parent', 'own']);
    expect(await listTokens()).toEqual([]);

    // A sub-account's token signs in as that sub-account.
    await api(em, 'POST', '/api/ip/add/', { auth: { bearer: byParent.token }, form: { ip: '192.0.2.50' } });
    expect((await api(em, 'GET', '/api/ips/', { auth: sub })).json()).toEqual({ ips: ['192.0.2.50'] });

    const off = await api(em, 'POST', '/api/token/deactivate/', { auth: DEMO, form: { id: String(bySub.id), username: 'tsub' } });
    expect(off.status).toBe(200);
    expect((await api(em, 'GET', '/api/ips/', { auth: { bearer: bySub.token } })).status).toBe(401);
    // Without username the parent looks in its own account, where this id does not exist.
    expect((await api(em, 'POST', '/api/token/delete/', { auth: DEMO, form: { id: String(bySub.id) } })).status).toBe(404);
  });

  it('the allowance counts per account', async () => {
    const ten = basic('ten', 'ten-password');
    await api(em, 'POST', '/api/sub/create/', { auth: ten, form: { username: 'tensub' } });
    for (let i = 0; i < 10; i++) await createToken(em, ten);
    expect((await api(em, 'POST', '/api/token/create/', { auth: ten, form: { username: 'tensub' } })).status).toBe(200);
  });

  it('403 for a sub-account passing username, even its own', async () => {
    const sub = await createSub(em, 'nosy');
    for (const username of ['nosy', 'demo']) {
      expect((await api(em, 'GET', '/api/tokens/', { auth: sub, query: { username } })).status).toBe(403);
      expect((await api(em, 'POST', '/api/token/create/', { auth: sub, form: { username } })).status).toBe(403);
    }
  });
});
