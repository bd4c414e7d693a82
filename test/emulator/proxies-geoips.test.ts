// Authorized proxies (the catalogue, the three accepted forms, no-op duplicates, plan limits) and
// the geo-IP maps, over real HTTPS.
import { startEmulator, type RunningEmulator } from '../helpers/emulator';
import { api, createSub, DEMO } from './api';

let em: RunningEmulator;
beforeAll(async () => {
  em = await startEmulator();
});
afterAll(() => em?.stop());
beforeEach(() => em.control.reset());

const list = async (): Promise<string[]> => (await api(em, 'GET', '/api/proxies/', { auth: DEMO })).json<{ proxies: string[] }>().proxies;

describe('authorized proxies', () => {
  it('starts empty', async () => {
    expect(await list()).toEqual([]);
  });

  it.each(['us-ny', 'us-ny.proxy.example.net', 'us-ny.proxy.example.net:8080', 'US-NY.Proxy.Example.NET'])(
    'adds %p and answers with the full domain',
    async (proxy) => {
      const res = await api(em, 'POST', '/api/proxy/add/', { auth: DEMO, form: { proxy } });
      expect(res.status).toBe(200);
      expect(res.json()).toEqual({ proxy: 'us-ny.proxy.example.net' });
      expect(await list()).toEqual(['us-ny.proxy.example.net:8080']);
    },
  );

  it('lists domain:port with each host on its catalogue port', async () => {
    for (const proxy of ['gb-lon', 'jp-tyo', 'br-sao']) {
      expect((await api(em, 'POST', '/api/proxy/add/', { auth: DEMO, form: { proxy } })).status).toBe(200);
    }
    expect(await list()).toEqual(['gb-lon.proxy.example.net:1080', 'jp-tyo.proxy.example.net:3128', 'br-sao.proxy.example.net:8080']);
  });

  it('a duplicate add and a delete of an absent proxy change nothing', async () => {
    await api(em, 'POST', '/api/proxy/add/', { auth: DEMO, form: { proxy: 'de-fra' } });
    const dup = await api(em, 'POST', '/api/proxy/add/', { auth: DEMO, form: { proxy: 'de-fra.proxy.example.net:1080' } });
    expect(dup.status).toBe(200);
    expect(dup.json()).toEqual({ proxy: 'de-fra.proxy.example.net' });
    expect(await list()).toEqual(['de-fra.proxy.example.net:1080']);
    const absent = await api(em, 'POST', '/api/proxy/delete/', { auth: DEMO, form: { proxy: 'fr-par' } });
    expect(absent.status).toBe(204);
    expect(await list()).toEqual(['de-fra.proxy.example.net:1080']);
  });

  it.each(['de-fra', 'de-fra.proxy.example.net', 'de-fra.proxy.example.net:1080'])('deletes by %p (empty 204)', async (proxy) => {
    await api(em, 'POST', '/api/proxy/add/', { auth: DEMO, form: { proxy: 'de-fra' } });
    const res = await api(em, 'POST', '/api/proxy/delete/', { auth: DEMO, form: { proxy } });
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect(await list()).toEqual([]);
  });

  it.each([
    ['an unknown host', 'xx-nowhere'],
    ['another domain', 'us-ny.proxy.other.org'],
    ['a wrong port', 'us-ny.proxy.example.net:1080'],
    ['a bare host with a port', 'us-ny:8080'],
    ['a non-numeric port', 'us-ny.proxy.example.net:http'],
    ['nothing', ''],
  ])('400 for %s, on add and on delete', async (_name, proxy) => {
    for (const path of ['/api/proxy/add/', '/api/proxy/delete/']) {
      const res = await api(em, 'POST', path, { auth: DEMO, form: { proxy } });
      expect(res.status).toBe(400);
      expect(res.text).toMatch(/^proxy:/);
    }
    expect(await list()).toEqual([]);
  });

  it("402 past the plan's proxy limit (trial: 2); a duplicate at the limit is still 200", async () => {
    await em.control.plan('demo', 'trial');
    expect((await api(em, 'POST', '/api/proxy/add/', { auth: DEMO, form: { proxy: 'us-ny' } })).status).toBe(200);
    expect((await api(em, 'POST', '/api/proxy/add/', { auth: DEMO, form: { proxy: 'us-la' } })).status).toBe(200);
    const third = await api(em, 'POST', '/api/proxy/add/', { auth: DEMO, form: { proxy: 'us-chi' } });
    expect(third.status).toBe(402);
    expect(third.text).toContain('trial');
    expect((await api(em, 'POST', '/api/proxy/add/', { auth: DEMO, form: { proxy: 'us-ny' } })).status).toBe(200);
    expect(await list()).toHaveLength(2);
  });

  it('402 past the plan20 limit of 20', async () => {
    const hosts = [
      'us-ny',
      'us-la',
      'us-chi',
      'us-mia',
      'us-sea',
      'us-dal',
      'ca-tor',
      'mx-mex',
      'br-sao',
      'ar-bue',
      'gb-lon',
      'de-fra',
      'fr-par',
      'nl-ams',
      'es-mad',
      'it-mil',
      'se-sto',
      'pl-waw',
      'jp-tyo',
      'kr-sel',
    ];
    for (const proxy of hosts) expect((await api(em, 'POST', '/api/proxy/add/', { auth: DEMO, form: { proxy } })).status).toBe(200);
    expect((await api(em, 'POST', '/api/proxy/add/', { auth: DEMO, form: { proxy: 'sg-sin' } })).status).toBe(402);
  });

  it('refuses sub-account callers with 403', async () => {
    const sub = await createSub(em, 'proxysub');
    expect((await api(em, 'GET', '/api/proxies/', { auth: sub })).status).toBe(403);
    expect((await api(em, 'POST', '/api/proxy/add/', { auth: sub, form: { proxy: 'us-ny' } })).status).toBe(403);
    expect((await api(em, 'POST', '/api/proxy/delete/', { auth: sub, form: { proxy: 'us-ny' } })).status).toBe(403);
    expect(await list()).toEqual([]);
  });
});

describe('geo IPs', () => {
  it.each(['open', 'world'])('GET /api/geoips/%s/ maps about 30 ISO codes to counts as strings', async (pool) => {
    const res = await api(em, 'GET', `/api/geoips/${pool}/`, { auth: DEMO });
    expect(res.status).toBe(200);
    const map = res.json<Record<string, unknown>>();
    const entries = Object.entries(map);
    expect(entries.length).toBeGreaterThanOrEqual(25);
    for (const [code, count] of entries) {
      expect(code).toMatch(/^[A-Z]{2}$/);
      expect(count).toEqual(expect.stringMatching(/^[1-9][0-9]*$/));
    }
    // Deterministic: the same map every time.
    expect((await api(em, 'GET', `/api/geoips/${pool}/`, { auth: DEMO })).json()).toEqual(map);
  });

  it('the world pool is at least as large as the open pool in every country', async () => {
    const open = (await api(em, 'GET', '/api/geoips/open/', { auth: DEMO })).json<Record<string, string>>();
    const world = (await api(em, 'GET', '/api/geoips/world/', { auth: DEMO })).json<Record<string, string>>();
    expect(Object.keys(world).sort()).toEqual(Object.keys(open).sort());
    for (const code of Object.keys(open)) expect(Number(world[code])).toBeGreaterThanOrEqual(Number(open[code]));
  });

  it('sub-accounts may read the maps', async () => {
    const sub = await createSub(em, 'geosub');
    expect((await api(em, 'GET', '/api/geoips/open/', { auth: sub })).status).toBe(200);
  });
});
