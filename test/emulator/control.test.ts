// The control API: its own authentication, injected faults (status, delay, dropped connection),
// reset, plan and usage validation (unknown keys refused on every endpoint), and the state dump.
import { errors } from 'undici';
import { startEmulator, type RunningEmulator } from '../helpers/emulator';
import { api, createSub, createToken, DEMO, emulatorState } from './api';

let em: RunningEmulator;
beforeAll(async () => {
  em = await startEmulator();
});
afterAll(() => em?.stop());
beforeEach(() => em.control.reset());

const admin = (): { bearer: string } => ({ bearer: em.adminToken });

describe('control API access', () => {
  it('401 without the admin token or with another one', async () => {
    expect((await api(em, 'GET', '/_emulator/state')).status).toBe(401);
    expect((await api(em, 'GET', '/_emulator/state', { auth: { bearer: `${em.adminToken}x` } })).status).toBe(401);
    expect((await api(em, 'POST', '/_emulator/reset', { auth: DEMO })).status).toBe(401);
    const res = await api(em, 'POST', '/_emulator/clock', { auth: { bearer: 'nope' }, body: '{"advanceSeconds":1}', contentType: 'application/json' });
    expect(res.status).toBe(401);
    expect(res.json()).toEqual({ error: 'admin token required' });
    expect((await emulatorState(em)).clockOffsetSeconds).toBe(0);
  });

  it('404 for an unknown control path, 405 for a wrong method, 400 for a bad body', async () => {
    expect((await api(em, 'GET', '/_emulator/nothing', { auth: admin() })).status).toBe(404);
    expect((await api(em, 'GET', '/_emulator/reset', { auth: admin() })).status).toBe(405);
    const notJson = await api(em, 'POST', '/_emulator/clock', { auth: admin(), body: 'advanceSeconds=5', contentType: 'application/json' });
    expect(notJson.status).toBe(400);
    for (const body of ['{"advanceSeconds":-1}', '{"advanceSeconds":"5"}', '{}']) {
      expect((await api(em, 'POST', '/_emulator/clock', { auth: admin(), body, contentType: 'application/json' })).status).toBe(400);
    }
  });

  it('validates usage, plan and fault requests', async () => {
    const post = (path: string, body: object): ReturnType<typeof api> =>
      api(em, 'POST', path, { auth: admin(), body: JSON.stringify(body), contentType: 'application/json' });
    expect((await post('/_emulator/usage', { username: 'ghost', gb: 1 })).status).toBe(404);
    expect((await post('/_emulator/usage', { username: 'demo', gb: -1 })).status).toBe(400);
    expect((await post('/_emulator/plan', { username: 'demo', plan: 'gold' })).status).toBe(400);
    expect((await post('/_emulator/plan', { username: 'ghost', plan: 'trial' })).status).toBe(404);
    await createSub(em, 'planless');
    expect((await post('/_emulator/plan', { username: 'planless', plan: 'trial' })).status).toBe(400);
    expect((await post('/_emulator/faults', { path: '/api/ips/' })).status).toBe(400);
    expect((await post('/_emulator/faults', { path: 'api/ips/', status: 500 })).status).toBe(400);
    expect((await emulatorState(em)).faults).toEqual([]);
  });

  it.each([
    ['POST', 'limits', { username: 'alice', monthlyLimit: 3, total_limit: 5 }, '"total_limit"', 'username, monthlyLimit, totalLimit'],
    ['POST', 'usage', { username: 'alice', gb: 1, GB: 5 }, '"GB"', 'username, gb'],
    ['POST', 'plan', { username: 'demo', plan: 'plan10', subAccountLimit: 3 }, '"subAccountLimit"', 'username, plan'],
    ['POST', 'clock', { advanceSeconds: 60, advance_seconds: 3600 }, '"advance_seconds"', 'advanceSeconds'],
    ['POST', 'exits/retire', { ip: '2001:db8:5553::1', ips: [] }, '"ips"', 'ip'],
    ['POST', 'reset', { keepClock: true }, '"keepClock"', 'it takes none'],
    ['GET', 'state', { verbose: true }, '"verbose"', 'it takes none'],
    ['GET', 'faults', { path: '/api/ips/' }, '"path"', 'it takes none'],
    ['DELETE', 'faults', { path: '/api/ips/' }, '"path"', 'it takes none'],
  ])('%s /_emulator/%s refuses an unknown key with 400 naming it, and changes nothing', async (method, path, body, key, known) => {
    await createSub(em, 'alice');
    await em.control.advanceClock(1);
    await em.control.fault({ path: '/api/ips/', status: 503 });
    const before = await emulatorState(em);
    const res = await api(em, method, `/_emulator/${path}`, { auth: admin(), body: JSON.stringify(body), contentType: 'application/json' });
    expect(res.status).toBe(400);
    const { error } = res.json<{ error: string }>();
    expect(error).toContain(`unknown key ${key} in ${method} /_emulator/${path}`);
    expect(error).toContain(known);
    const after = await emulatorState(em);
    expect({ ...after, now: before.now }).toEqual(before);
  });

  it('advances the clock by the given seconds', async () => {
    const before = Date.parse((await emulatorState(em)).now);
    await em.control.advanceClock(86400);
    const state = await emulatorState(em);
    expect(state.clockOffsetSeconds).toBe(86400);
    expect(Date.parse(state.now) - before).toBeGreaterThanOrEqual(86400_000);
  });
});

describe('faults', () => {
  it('the next `count` matching requests fail with the status, then service resumes', async () => {
    await em.control.fault({ path: '/api/ips/', status: 503, count: 2 });
    const first = await api(em, 'GET', '/api/ips/', { auth: DEMO });
    expect(first.status).toBe(503);
    expect(first.text).toContain('retry');
    expect((await api(em, 'GET', '/api/ips/', { auth: DEMO })).status).toBe(503);
    expect((await api(em, 'GET', '/api/ips/', { auth: DEMO })).status).toBe(200);
  });

  it('only matches its path and, when given, its method', async () => {
    await em.control.fault({ path: '/api/ip/add/', status: 500, method: 'POST' });
    expect((await api(em, 'GET', '/api/ips/', { auth: DEMO })).status).toBe(200);
    expect((await api(em, 'GET', '/api/ip/add/', { auth: DEMO })).status).toBe(405);
    expect((await api(em, 'POST', '/api/ip/add/', { auth: DEMO, form: { ip: '192.0.2.1' } })).status).toBe(500);
    expect((await api(em, 'GET', '/api/ips/', { auth: DEMO })).json()).toEqual({ ips: [] });
    expect((await api(em, 'POST', '/api/ip/add/', { auth: DEMO, form: { ip: '192.0.2.1' } })).status).toBe(200);
  });

  it('a path ending in * matches a prefix', async () => {
    await em.control.fault({ path: '/api/sub/*', status: 500, count: 2 });
    expect((await api(em, 'POST', '/api/sub/create/', { auth: DEMO, form: { username: 'x1' } })).status).toBe(500);
    expect((await api(em, 'GET', '/api/sub/get/', { auth: DEMO, query: { username: 'x1' } })).status).toBe(500);
    expect((await api(em, 'GET', '/api/sub/get/', { auth: DEMO, query: { username: 'x1' } })).status).toBe(404);
  });

  it('delays a response, then serves it normally', async () => {
    await em.control.fault({ path: '/api/hostnames/', delayMs: 3000 });
    await expect(api(em, 'GET', '/api/hostnames/', { auth: DEMO, headersTimeout: 300 })).rejects.toBeInstanceOf(errors.HeadersTimeoutError);
    expect((await api(em, 'GET', '/api/hostnames/', { auth: DEMO, headersTimeout: 2000 })).status).toBe(200);
  });

  it('a delayed request still completes for a patient client', async () => {
    await em.control.fault({ path: '/api/hostnames/', delayMs: 200, status: 500 });
    expect((await api(em, 'GET', '/api/hostnames/', { auth: DEMO })).status).toBe(500);
  });

  it('drops the connection without an answer', async () => {
    await em.control.fault({ path: '/api/ips/', reset: true });
    await expect(api(em, 'GET', '/api/ips/', { auth: DEMO })).rejects.toBeInstanceOf(errors.SocketError);
    expect((await api(em, 'GET', '/api/ips/', { auth: DEMO })).status).toBe(200);
  });

  it('faults come before authentication and are not counted as failures', async () => {
    await em.control.fault({ path: '/api/ips/', status: 503, count: 5 });
    for (let i = 0; i < 5; i++) expect((await api(em, 'GET', '/api/ips/')).status).toBe(503);
    expect((await api(em, 'GET', '/api/ips/', { auth: DEMO })).status).toBe(200);
  });
});

describe('reset and state', () => {
  it('reset empties the state, clears faults and bans and puts the clock back', async () => {
    await createSub(em, 'temp');
    await api(em, 'POST', '/api/ip/add/', { auth: DEMO, form: { ip: '192.0.2.1' } });
    await createToken(em, DEMO);
    await em.control.usage('demo', 5);
    await em.control.plan('demo', 'plan100');
    await em.control.advanceClock(3600);
    await em.control.fault({ path: '/api/proxies/', status: 500, count: 10 });
    for (let i = 0; i < 4; i++) await api(em, 'GET', '/api/ips/', { auth: { bearer: 'pxa_wrong' } });

    await em.control.reset();
    const state = await emulatorState(em);
    expect(state.clockOffsetSeconds).toBe(0);
    expect(state.bans).toEqual([]);
    expect(state.faults).toEqual([]);
    expect(state.accounts).toHaveLength(1);
    expect(state.accounts[0]).toMatchObject({ username: 'demo', plan: 'plan20', total_bandwidth: 0, ips: [], tokens: [], subAccounts: [] });
    expect((await api(em, 'GET', '/api/proxies/', { auth: DEMO })).status).toBe(200);
    // Ids start again.
    expect((await createToken(em, DEMO)).id).toBe(1);
  });

  it('the state dump shows accounts, sub-accounts and their lists, without secrets', async () => {
    await api(em, 'POST', '/api/sub/create/', { auth: DEMO, form: { username: 'dumped', password: 'Hidden-Pass-123' } });
    await api(em, 'POST', '/api/hostname/add/', { auth: DEMO, form: { domain: 'd.example.com', username: 'dumped' } });
    await api(em, 'POST', '/api/proxy/add/', { auth: DEMO, form: { proxy: 'us-ny' } });
    const { token } = await createToken(em, DEMO, { label: 'dump' });
    const state = await emulatorState(em);
    const demo = state.accounts[0]!;
    expect(demo.proxies).toEqual(['us-ny']);
    expect(demo.tokens.map((t) => t.label)).toEqual(['dump']);
    expect(demo.subAccounts.map((s) => [s.username, s.hostnames])).toEqual([['dumped', ['d.example.com']]]);
    const text = JSON.stringify(state);
    for (const secret of ['Hidden-Pass-123', 'demo-password', token, 'hash', 'salt']) expect(text).not.toContain(secret);
  });
});
