// Authorized IPs and hostnames over real HTTPS: add/list/delete, validation, duplicates, the
// 100-IP limit and `username` targeting.
import { startEmulator, type RunningEmulator } from '../helpers/emulator';
import { api, createSub, DEMO, type Auth } from './api';

let em: RunningEmulator;
beforeAll(async () => {
  em = await startEmulator();
});
afterAll(() => em?.stop());
beforeEach(() => em.control.reset());

describe('authorized IPs', () => {
  it('adds with and without a label, lists both ways, deletes with an empty 204', async () => {
    const withLabel = await api(em, 'POST', '/api/ip/add/', { auth: DEMO, form: { ip: '203.0.113.7', label: 'office' } });
    expect(withLabel.status).toBe(200);
    expect(withLabel.json()).toEqual({ ip: '203.0.113.7', label: 'office' });
    const bare = await api(em, 'POST', '/api/ip/add/', { auth: DEMO, form: { ip: '198.51.100.1' } });
    expect(bare.status).toBe(200);
    expect(bare.json()).toEqual({ ip: '198.51.100.1' });

    expect((await api(em, 'GET', '/api/ips/', { auth: DEMO })).json()).toEqual({ ips: ['203.0.113.7', '198.51.100.1'] });
    expect((await api(em, 'GET', '/api/ip_labels/', { auth: DEMO })).json()).toEqual([
      { ip: '203.0.113.7', label: 'office' },
      { ip: '198.51.100.1', label: '' },
    ]);

    const del = await api(em, 'POST', '/api/ip/delete/', { auth: DEMO, form: { ip: '203.0.113.7' } });
    expect(del.status).toBe(204);
    expect(del.text).toBe('');
    expect((await api(em, 'GET', '/api/ips/', { auth: DEMO })).json()).toEqual({ ips: ['198.51.100.1'] });
  });

  it('lists empty collections as empty arrays', async () => {
    expect((await api(em, 'GET', '/api/ips/', { auth: DEMO })).json()).toEqual({ ips: [] });
    expect((await api(em, 'GET', '/api/ip_labels/', { auth: DEMO })).json()).toEqual([]);
  });

  it('400 on a duplicate add and on deleting an IP that is not authorized', async () => {
    await api(em, 'POST', '/api/ip/add/', { auth: DEMO, form: { ip: '192.0.2.10' } });
    const dup = await api(em, 'POST', '/api/ip/add/', { auth: DEMO, form: { ip: '192.0.2.10', label: 'again' } });
    expect(dup.status).toBe(400);
    expect(dup.text).toMatch(/^ip: .*already authorized/);
    const absent = await api(em, 'POST', '/api/ip/delete/', { auth: DEMO, form: { ip: '192.0.2.11' } });
    expect(absent.status).toBe(400);
    expect(absent.text).toMatch(/^ip: .*not authorized/);
    expect((await api(em, 'GET', '/api/ip_labels/', { auth: DEMO })).json()).toEqual([{ ip: '192.0.2.10', label: '' }]);
  });

  it.each(['256.1.1.1', '01.2.3.4', '1.2.3', '1.2.3.4.5', ' 1.2.3.4', '::1', 'example.com', ''])('rejects ip %p', async (ip) => {
    const res = await api(em, 'POST', '/api/ip/add/', { auth: DEMO, form: { ip } });
    expect(res.status).toBe(400);
    expect(res.text).toMatch(/^ip:/);
  });

  it('accepts a label of 100 characters and rejects 101', async () => {
    expect((await api(em, 'POST', '/api/ip/add/', { auth: DEMO, form: { ip: '10.0.0.1', label: 'l'.repeat(100) } })).status).toBe(200);
    const res = await api(em, 'POST', '/api/ip/add/', { auth: DEMO, form: { ip: '10.0.0.2', label: 'l'.repeat(101) } });
    expect(res.status).toBe(400);
    expect(res.text).toMatch(/^label:/);
  });

  it('400 on the 101st IP of an account', async () => {
    for (let i = 0; i < 100; i++) {
      const res = await api(em, 'POST', '/api/ip/add/', { auth: DEMO, form: { ip: `10.1.${Math.floor(i / 250)}.${i % 250}` } });
      expect(res.status).toBe(200);
    }
    const over = await api(em, 'POST', '/api/ip/add/', { auth: DEMO, form: { ip: '10.2.0.1' } });
    expect(over.status).toBe(400);
    expect(over.text).toContain('limit (100)');
    expect((await api(em, 'GET', '/api/ips/', { auth: DEMO })).json<{ ips: string[] }>().ips).toHaveLength(100);
    // The limit is per account: a sub-account still has room.
    await createSub(em, 'roomy');
    expect((await api(em, 'POST', '/api/ip/add/', { auth: DEMO, form: { ip: '10.2.0.1', username: 'roomy' } })).status).toBe(200);
  });

  it('keeps separate lists per account; the parent targets a sub-account with username', async () => {
    const sub: Auth = await createSub(em, 'ipsub');
    expect((await api(em, 'POST', '/api/ip/add/', { auth: DEMO, form: { ip: '192.0.2.1', username: 'ipsub', label: 'x' } })).status).toBe(200);
    expect((await api(em, 'POST', '/api/ip/add/', { auth: sub, form: { ip: '192.0.2.2' } })).status).toBe(200);
    expect((await api(em, 'GET', '/api/ips/', { auth: DEMO })).json()).toEqual({ ips: [] });
    expect((await api(em, 'GET', '/api/ips/', { auth: DEMO, query: { username: 'ipsub' } })).json()).toEqual({
      ips: ['192.0.2.1', '192.0.2.2'],
    });
    expect((await api(em, 'GET', '/api/ip_labels/', { auth: sub })).json()).toEqual([
      { ip: '192.0.2.1', label: 'x' },
      { ip: '192.0.2.2', label: '' },
    ]);
    expect((await api(em, 'POST', '/api/ip/delete/', { auth: DEMO, form: { ip: '192.0.2.2', username: 'ipsub' } })).status).toBe(204);
    expect((await api(em, 'GET', '/api/ips/', { auth: sub })).json()).toEqual({ ips: ['192.0.2.1'] });
  });
});

describe('authorized hostnames', () => {
  it('adds, lists, deletes with an empty 204', async () => {
    const add = await api(em, 'POST', '/api/hostname/add/', { auth: DEMO, form: { domain: 'app.example.com' } });
    expect(add.status).toBe(200);
    expect(add.json()).toEqual({ domain: 'app.example.com' });
    await api(em, 'POST', '/api/hostname/add/', { auth: DEMO, form: { domain: 'localhost' } });
    expect((await api(em, 'GET', '/api/hostnames/', { auth: DEMO })).json()).toEqual({ domains: ['app.example.com', 'localhost'] });
    const del = await api(em, 'POST', '/api/hostname/delete/', { auth: DEMO, form: { domain: 'app.example.com' } });
    expect(del.status).toBe(204);
    expect(del.text).toBe('');
    expect((await api(em, 'GET', '/api/hostnames/', { auth: DEMO })).json()).toEqual({ domains: ['localhost'] });
  });

  it('400 on a duplicate add and on deleting a hostname that is not authorized', async () => {
    await api(em, 'POST', '/api/hostname/add/', { auth: DEMO, form: { domain: 'dup.example.com' } });
    const dup = await api(em, 'POST', '/api/hostname/add/', { auth: DEMO, form: { domain: 'dup.example.com' } });
    expect(dup.status).toBe(400);
    expect(dup.text).toMatch(/^domain:/);
    const absent = await api(em, 'POST', '/api/hostname/delete/', { auth: DEMO, form: { domain: 'nope.example.com' } });
    expect(absent.status).toBe(400);
    expect(absent.text).toMatch(/^domain:/);
  });

  it.each(['has space.example.com', 'under_score.example.com', '-lead.example.com', 'a..b', '192.0.2.1', `${'x'.repeat(64)}.com`, ''])(
    'rejects domain %p',
    async (domain) => {
      const res = await api(em, 'POST', '/api/hostname/add/', { auth: DEMO, form: { domain } });
      expect(res.status).toBe(400);
      expect(res.text).toMatch(/^domain:/);
    },
  );

  it('targets a sub-account with username', async () => {
    const sub = await createSub(em, 'hostsub');
    await api(em, 'POST', '/api/hostname/add/', { auth: DEMO, form: { domain: 'sub.example.com', username: 'hostsub' } });
    expect((await api(em, 'GET', '/api/hostnames/', { auth: sub })).json()).toEqual({ domains: ['sub.example.com'] });
    expect((await api(em, 'GET', '/api/hostnames/', { auth: DEMO })).json()).toEqual({ domains: [] });
  });
});
