// Authentication, authorization and request hygiene over real HTTPS: Basic and Bearer, the
// sub-account and `username` rules, the ban and its expiry, 404/405, body types and sizes.
import { request } from 'undici';
import { startEmulator, type RunningEmulator } from '../helpers/emulator';
import { api, basic, createSub, createToken, DEMO, emulatorState } from './api';

let em: RunningEmulator;
beforeAll(async () => {
  em = await startEmulator({
    accounts: {
      accounts: [
        { username: 'demo', password: 'demo-password', plan: 'plan20' },
        { username: 'other', password: 'other-password', plan: 'plan20' },
      ],
    },
  });
});
afterAll(() => em?.stop());
beforeEach(() => em.control.reset());

const WRONG = basic('demo', 'wrong-password');

describe('authentication', () => {
  it('401 without credentials, with a wrong password, an unknown user or an unknown scheme', async () => {
    for (const auth of [undefined, WRONG, basic('nobody', 'x'), { header: 'Digest abc' }, { header: 'Basic !!!' }]) {
      const res = await api(em, 'GET', '/api/ips/', { auth });
      expect(res.status).toBe(401);
      expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
      await em.control.reset(); // keep the failure counter below the ban threshold
    }
  });

  it('the error text never repeats the credentials', async () => {
    const res = await api(em, 'GET', '/api/ips/', { auth: basic('demo', 'Very-Secret-Guess') });
    expect(res.text).not.toContain('Very-Secret-Guess');
    const bearer = await api(em, 'GET', '/api/ips/', { auth: { bearer: 'pxa_NotARealTokenValue' } });
    expect(bearer.text).not.toContain('NotARealTokenValue');
  });

  it("accepts the parent's Basic credentials and its bearer tokens", async () => {
    expect((await api(em, 'GET', '/api/ips/', { auth: DEMO })).status).toBe(200);
    const { token } = await createToken(em, DEMO);
    expect((await api(em, 'POST', '/api/sub/create/', { auth: { bearer: token }, form: { username: 'viatoken' } })).status).toBe(200);
    expect((await api(em, 'GET', '/api/sub/get/', { auth: DEMO, query: { username: 'viatoken' } })).status).toBe(200);
  });

  it('401 for an invalid bearer token, also on token endpoints', async () => {
    expect((await api(em, 'GET', '/api/ips/', { auth: { bearer: 'pxa_nope' } })).status).toBe(401);
    expect((await api(em, 'GET', '/api/tokens/', { auth: { bearer: 'pxa_nope' } })).status).toBe(401);
  });

  it('403 for a valid bearer token on token endpoints, and it does not count toward a ban', async () => {
    const { token, id } = await createToken(em, DEMO);
    for (let i = 0; i < 5; i++) {
      const res = await api(em, 'GET', '/api/tokens/', { auth: { bearer: token } });
      expect(res.status).toBe(403);
      expect(res.text).toContain('Basic');
    }
    expect((await api(em, 'POST', '/api/token/create/', { auth: { bearer: token }, form: {} })).status).toBe(403);
    expect((await api(em, 'POST', '/api/token/delete/', { auth: { bearer: token }, form: { id: String(id) } })).status).toBe(403);
    expect((await api(em, 'GET', '/api/ips/', { auth: DEMO })).status).toBe(200);
  });
});

describe('sub-account credentials and username targeting', () => {
  it('a sub-account manages its own IPs, hostnames and tokens (Basic), and IPs with its bearer token', async () => {
    const sub = await createSub(em, 'selfserve');
    expect((await api(em, 'POST', '/api/ip/add/', { auth: sub, form: { ip: '192.0.2.5' } })).status).toBe(200);
    expect((await api(em, 'POST', '/api/hostname/add/', { auth: sub, form: { domain: 'self.example.com' } })).status).toBe(200);
    const { token } = await createToken(em, sub);
    expect((await api(em, 'GET', '/api/ips/', { auth: { bearer: token } })).json()).toEqual({ ips: ['192.0.2.5'] });
    expect((await api(em, 'GET', '/api/tokens/', { auth: { bearer: token } })).status).toBe(403);
  });

  it.each([
    ['POST', '/api/sub/create/'],
    ['POST', '/api/sub/edit/'],
    ['GET', '/api/sub/get/'],
    ['POST', '/api/sub/deactivate/'],
    ['POST', '/api/sub/activate/'],
    ['POST', '/api/sub/delete/'],
    ['GET', '/api/proxies/'],
    ['POST', '/api/proxy/add/'],
    ['POST', '/api/proxy/delete/'],
  ])('403 for a sub-account on %s %s', async (method, path) => {
    const sub = await createSub(em, 'limited');
    // Only the fields each endpoint takes: any other is a 400 before the policy's 403.
    const fields: Record<string, string> = path.startsWith('/api/proxy/') ? { proxy: 'us-ny' } : path === '/api/proxies/' ? {} : { username: 'limited' };
    const opts = method === 'GET' ? { query: fields } : { form: fields };
    const res = await api(em, method, path, { auth: sub, ...opts });
    expect(res.status).toBe(403);
    expect((await api(em, 'GET', '/api/sub/get/', { auth: DEMO, query: { username: 'limited' } })).json()).toMatchObject({ active: true });
  });

  it("403 when a sub-account passes username; 403 for someone else's account; 404 for a name nobody has", async () => {
    const sub = await createSub(em, 'subby');
    await api(em, 'POST', '/api/sub/create/', { auth: basic('other', 'other-password'), form: { username: 'othersub' } });
    const cases: Array<[Parameters<typeof api>[3], number]> = [
      [{ auth: sub, form: { ip: '192.0.2.9', username: 'subby' } }, 403],
      [{ auth: sub, form: { ip: '192.0.2.9', username: 'demo' } }, 403],
      [{ auth: DEMO, form: { ip: '192.0.2.9', username: 'othersub' } }, 403],
      [{ auth: DEMO, form: { ip: '192.0.2.9', username: 'other' } }, 403],
      [{ auth: DEMO, form: { ip: '192.0.2.9', username: 'demo' } }, 403],
      [{ auth: DEMO, form: { ip: '192.0.2.9', username: 'ghost' } }, 404],
    ];
    for (const [opts, status] of cases) expect((await api(em, 'POST', '/api/ip/add/', opts)).status).toBe(status);
    expect((await api(em, 'GET', '/api/hostnames/', { auth: DEMO, query: { username: 'othersub' } })).status).toBe(403);
    expect((await api(em, 'GET', '/api/ip_labels/', { auth: sub, query: { username: 'subby' } })).status).toBe(403);
    const state = await emulatorState(em);
    expect(state.accounts.flatMap((a) => [...a.ips, ...a.subAccounts.flatMap((s) => s.ips)])).toEqual([]);
  });
});

describe('ban', () => {
  it('4 failures within 15 minutes ban the address for 3 hours with 429 and Retry-After, even with good credentials', async () => {
    for (let i = 0; i < 4; i++) expect((await api(em, 'GET', '/api/ips/', { auth: WRONG })).status).toBe(401);
    const banned = await api(em, 'GET', '/api/ips/', { auth: DEMO });
    expect(banned.status).toBe(429);
    expect(banned.text).toContain('banned');
    const retryAfter = Number(banned.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(3 * 3600 - 60);
    expect(retryAfter).toBeLessThanOrEqual(3 * 3600);
    expect((await emulatorState(em)).bans).toHaveLength(1);

    await em.control.advanceClock(3 * 3600 - 120);
    expect((await api(em, 'GET', '/api/ips/', { auth: DEMO })).status).toBe(429);
    await em.control.advanceClock(180);
    expect((await api(em, 'GET', '/api/ips/', { auth: DEMO })).status).toBe(200);
  });

  it('failures spread over more than 15 minutes do not ban', async () => {
    for (let i = 0; i < 3; i++) await api(em, 'GET', '/api/ips/', { auth: WRONG });
    await em.control.advanceClock(16 * 60);
    expect((await api(em, 'GET', '/api/ips/', { auth: WRONG })).status).toBe(401);
    expect((await api(em, 'GET', '/api/ips/', { auth: DEMO })).status).toBe(200);
  });

  it('a success in between does not reset the count', async () => {
    for (let i = 0; i < 2; i++) await api(em, 'GET', '/api/ips/', { auth: WRONG });
    expect((await api(em, 'GET', '/api/ips/', { auth: DEMO })).status).toBe(200);
    for (let i = 0; i < 2; i++) await api(em, 'GET', '/api/ips/', { auth: WRONG });
    expect((await api(em, 'GET', '/api/ips/', { auth: DEMO })).status).toBe(429);
  });

  it('invalid bearer tokens count; missing credentials do not', async () => {
    for (let i = 0; i < 6; i++) expect((await api(em, 'GET', '/api/ips/')).status).toBe(401);
    expect((await api(em, 'GET', '/api/ips/', { auth: DEMO })).status).toBe(200);
    for (let i = 0; i < 4; i++) await api(em, 'GET', '/api/ips/', { auth: { bearer: 'pxa_bad' } });
    expect((await api(em, 'GET', '/api/ips/', { auth: DEMO })).status).toBe(429);
  });

  it('does not apply to the control API, and reset lifts it', async () => {
    for (let i = 0; i < 4; i++) await api(em, 'GET', '/api/ips/', { auth: WRONG });
    expect((await api(em, 'GET', '/api/geoips/open/', { auth: DEMO })).status).toBe(429);
    expect((await emulatorState(em)).bans).toHaveLength(1);
    await em.control.reset();
    expect((await api(em, 'GET', '/api/ips/', { auth: DEMO })).status).toBe(200);
  });
});

describe('routing and request bodies', () => {
  it('302 from plain HTTP to the same path and query on HTTPS', async () => {
    const res = await request(`${em.httpUrl}/api/ips/?username=x`, { method: 'GET' });
    await res.body.text();
    expect(res.statusCode).toBe(302);
    expect(res.headers['location']).toBe(`${em.url}/api/ips/?username=x`);
    const post = await request(`${em.httpUrl}/api/ip/add/`, {
      method: 'POST',
      body: 'ip=1.2.3.4',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    await post.body.text();
    expect(post.statusCode).toBe(302);
  });

  it('405 with Allow for a wrong method on a known path; 404 for unknown paths', async () => {
    const wrong = await api(em, 'GET', '/api/ip/add/', { auth: DEMO });
    expect(wrong.status).toBe(405);
    expect(wrong.headers['allow']).toBe('POST');
    const del = await api(em, 'DELETE', '/api/ips/', { auth: DEMO });
    expect(del.status).toBe(405);
    expect(del.headers['allow']).toBe('GET');
    expect((await api(em, 'GET', '/api/nothing/', { auth: DEMO })).status).toBe(404);
    const noSlash = await api(em, 'GET', '/api/ips', { auth: DEMO });
    expect(noSlash.status).toBe(404);
    expect(noSlash.text).toContain('/api/ips/');
  });

  it('400 for a JSON body or any non-form body; an empty body without Content-Type is fine', async () => {
    const json = await api(em, 'POST', '/api/ip/add/', { auth: DEMO, body: '{"ip":"1.2.3.4"}', contentType: 'application/json' });
    expect(json.status).toBe(400);
    expect(json.text).toContain('application/x-www-form-urlencoded');
    const text = await api(em, 'POST', '/api/ip/add/', { auth: DEMO, body: 'ip=1.2.3.4', contentType: 'text/plain' });
    expect(text.status).toBe(400);
    expect((await api(em, 'GET', '/api/ips/', { auth: DEMO })).json()).toEqual({ ips: [] });
    expect((await api(em, 'POST', '/api/token/create/', { auth: DEMO })).status).toBe(200);
    const charset = await api(em, 'POST', '/api/ip/add/', {
      auth: DEMO,
      body: 'ip=1.2.3.4',
      contentType: 'application/x-www-form-urlencoded; charset=UTF-8',
    });
    expect(charset.status).toBe(200);
  });

  it('decodes + and percent-escapes; 400 for malformed percent-encoding in body or query', async () => {
    const ok = await api(em, 'POST', '/api/ip/add/', {
      auth: DEMO,
      body: 'ip=192.0.2.77&label=caf%C3%A9+office',
      contentType: 'application/x-www-form-urlencoded',
    });
    expect(ok.json()).toEqual({ ip: '192.0.2.77', label: 'café office' });
    const bad = await api(em, 'POST', '/api/ip/add/', { auth: DEMO, body: 'ip=1.2.3.4&label=%E0%A4%A', contentType: 'application/x-www-form-urlencoded' });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('percent-encoding');
    const badQuery = await request(`${em.url}/api/ips/?username=%zz`, {
      dispatcher: em.dispatcher,
      headers: { authorization: `Basic ${Buffer.from('demo:demo-password').toString('base64')}` },
    });
    expect(badQuery.statusCode).toBe(400);
    await badQuery.body.text();
  });

  it('413 for a body over 64 KiB, and the emulator keeps serving', async () => {
    const res = await api(em, 'POST', '/api/ip/add/', {
      auth: DEMO,
      body: `ip=1.2.3.4&label=${'x'.repeat(70 * 1024)}`,
      contentType: 'application/x-www-form-urlencoded',
    });
    expect(res.status).toBe(413);
    expect((await api(em, 'GET', '/api/ips/', { auth: DEMO })).json()).toEqual({ ips: [] });
  });
});
