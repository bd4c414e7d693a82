// Every endpoint through the SDK against a real emulator: the two readings of the API (SDK and
// emulator) checked against each other.
import { BasicAuthRequiredError, ForbiddenError, NetworkError, NotFoundError, ProxyAccountClient, RedirectError } from '../../src/sdk';
import { ACME, dateInDays, OTHER, useEmulator } from './setup';

const { emu, client } = useEmulator();

describe('sub-accounts', () => {
  it('create, get, edit, deactivate, activate, delete', async () => {
    const acme = client(ACME);
    const created = await acme.subAccounts.create({
      username: 'alice',
      password: 'alice-Password-1',
      firstName: 'Alice',
      lastName: 'Liddell',
      email: 'alice@example.com',
      monthlyLimit: 10,
      totalLimit: 100,
    });
    expect(created).toEqual({
      username: 'alice',
      active: true,
      monthlyBandwidth: 0,
      monthlyBandwidthLimit: 10,
      totalBandwidth: 0,
      totalBandwidthLimit: 100,
      firstName: 'Alice',
      lastName: 'Liddell',
      email: 'alice@example.com',
    });
    await expect(acme.subAccounts.get('alice')).resolves.toEqual(created);

    // Omitted fields keep their value; '' clears a text field.
    const edited = await acme.subAccounts.edit({ username: 'alice', lastName: '', monthlyLimit: 0 });
    expect(edited).toEqual({ ...created, lastName: undefined, monthlyBandwidthLimit: 0 });
    expect('lastName' in edited).toBe(false);

    await expect(acme.subAccounts.deactivate('alice')).resolves.toMatchObject({ active: false });
    await expect(acme.subAccounts.get('alice')).resolves.toMatchObject({ active: false });
    await expect(acme.subAccounts.activate('alice')).resolves.toMatchObject({ active: true });

    await expect(acme.subAccounts.delete('alice')).resolves.toBeUndefined();
    await expect(acme.subAccounts.get('alice')).rejects.toBeInstanceOf(NotFoundError);
  });

  it('a new sub-account has no limits by default', async () => {
    const acme = client(ACME);
    await expect(acme.subAccounts.create({ username: 'bob' })).resolves.toMatchObject({
      monthlyBandwidthLimit: 0,
      totalBandwidthLimit: 0,
      active: true,
    });
  });

  it('refuses sub-account credentials (403)', async () => {
    await client(ACME).subAccounts.create({ username: 'carol', password: 'carol-Password-1' });
    const carol = client({ username: 'carol', password: 'carol-Password-1' });
    await expect(carol.subAccounts.get('carol')).rejects.toBeInstanceOf(ForbiddenError);
  });
});

describe('authorized IPs', () => {
  it('add with and without label, list, list with labels, delete — own account', async () => {
    const acme = client(ACME);
    await expect(acme.ips.add({ ip: '203.0.113.7', label: 'office' })).resolves.toEqual({ ip: '203.0.113.7', label: 'office' });
    const plain = await acme.ips.add({ ip: '198.51.100.1' });
    expect(plain.ip).toBe('198.51.100.1');
    expect(plain.label ?? '').toBe('');
    expect((await acme.ips.list()).sort()).toEqual(['198.51.100.1', '203.0.113.7']);
    const labelled = await acme.ips.listWithLabels();
    expect(labelled.sort((a, b) => a.ip.localeCompare(b.ip))).toEqual([
      { ip: '198.51.100.1', label: '' },
      { ip: '203.0.113.7', label: 'office' },
    ]);
    await expect(acme.ips.delete({ ip: '203.0.113.7' })).resolves.toBeUndefined();
    await expect(acme.ips.list()).resolves.toEqual(['198.51.100.1']);
  });

  it('targets a sub-account with username, keeping the lists apart', async () => {
    const acme = client(ACME);
    await acme.subAccounts.create({ username: 'alice' });
    await acme.ips.add({ ip: '203.0.113.9', label: 'alice-home', username: 'alice' });
    await expect(acme.ips.list({ username: 'alice' })).resolves.toEqual(['203.0.113.9']);
    await expect(acme.ips.listWithLabels({ username: 'alice' })).resolves.toEqual([{ ip: '203.0.113.9', label: 'alice-home' }]);
    await expect(acme.ips.list()).resolves.toEqual([]);
    await acme.ips.delete({ ip: '203.0.113.9', username: 'alice' });
    await expect(acme.ips.list({ username: 'alice' })).resolves.toEqual([]);
  });

  it('a sub-account manages its own IPs with its own credentials', async () => {
    await client(ACME).subAccounts.create({ username: 'dave', password: 'dave-Password-1' });
    const dave = client({ username: 'dave', password: 'dave-Password-1' });
    await dave.ips.add({ ip: '192.0.2.10' });
    await expect(dave.ips.list()).resolves.toEqual(['192.0.2.10']);
    await expect(client(ACME).ips.list({ username: 'dave' })).resolves.toEqual(['192.0.2.10']);
  });
});

describe('authorized hostnames', () => {
  it('add, list, delete — own account and sub-account', async () => {
    const acme = client(ACME);
    await acme.subAccounts.create({ username: 'alice' });
    await expect(acme.hostnames.add({ domain: 'ci.example.com' })).resolves.toEqual({ domain: 'ci.example.com' });
    await expect(acme.hostnames.add({ domain: 'alice.example.com', username: 'alice' })).resolves.toEqual({
      domain: 'alice.example.com',
    });
    await expect(acme.hostnames.list()).resolves.toEqual(['ci.example.com']);
    await expect(acme.hostnames.list({ username: 'alice' })).resolves.toEqual(['alice.example.com']);
    await acme.hostnames.delete({ domain: 'ci.example.com' });
    await acme.hostnames.delete({ domain: 'alice.example.com', username: 'alice' });
    await expect(acme.hostnames.list()).resolves.toEqual([]);
    await expect(acme.hostnames.list({ username: 'alice' })).resolves.toEqual([]);
  });
});

describe('authorized proxies', () => {
  it('accepts a bare host, a full domain or domain:port; repeats change nothing', async () => {
    const acme = client(ACME);
    const before = await acme.proxies.list();
    const added = await acme.proxies.add('us-ny');
    expect(added.proxy).toMatch(/^us-ny\.[a-z0-9.-]+$/);
    const listed = await acme.proxies.list();
    const entry = listed.find((p) => p.startsWith(`${added.proxy}:`));
    expect(entry).toMatch(/^us-ny\.[a-z0-9.-]+:\d+$/);
    expect(listed).toHaveLength(before.length + 1);

    // The same proxy again, in its other two forms: nothing changes.
    await expect(acme.proxies.add(added.proxy)).resolves.toEqual(added);
    await expect(acme.proxies.add(entry as string)).resolves.toEqual(added);
    await expect(acme.proxies.list()).resolves.toEqual(listed);

    await acme.proxies.delete(entry as string);
    await expect(acme.proxies.list()).resolves.toEqual(before);
    await expect(acme.proxies.delete('us-ny')).resolves.toBeUndefined();
    await expect(acme.proxies.list()).resolves.toEqual(before);
  });

  it('refuses sub-account credentials (403)', async () => {
    await client(ACME).subAccounts.create({ username: 'erin', password: 'erin-Password-1' });
    const erin = client({ username: 'erin', password: 'erin-Password-1' });
    await expect(erin.proxies.list()).rejects.toBeInstanceOf(ForbiddenError);
    await expect(erin.proxies.add('us-ny')).rejects.toBeInstanceOf(ForbiddenError);
  });
});

describe('bearer tokens', () => {
  it('create, list, deactivate, activate, delete', async () => {
    const acme = client(ACME);
    const expiry = dateInDays(30);
    const created = await acme.tokens.create({ label: 'ci', expiresAt: expiry });
    expect(created.token).toMatch(/^[a-z]+_\S{16,}$/);
    expect(created).toMatchObject({ label: 'ci', isActive: true });
    expect(created.expiresAt?.toISOString()).toBe(`${expiry}T00:00:00.000Z`);
    expect(Math.abs(created.createdAt.getTime() - Date.now())).toBeLessThan(5 * 60_000);

    const listed = await acme.tokens.list();
    expect(listed).toEqual([{ id: created.id, label: 'ci', isActive: true, expiresAt: created.expiresAt, createdAt: created.createdAt }]);
    expect(JSON.stringify(listed)).not.toContain(created.token);

    await expect(acme.tokens.deactivate({ id: created.id })).resolves.toMatchObject({ id: created.id, isActive: false });
    await expect(acme.tokens.activate({ id: created.id })).resolves.toMatchObject({ id: created.id, isActive: true });
    await expect(acme.tokens.delete({ id: created.id })).resolves.toBeUndefined();
    await expect(acme.tokens.list()).resolves.toEqual([]);
  });

  it('a token without label or expiry', async () => {
    const created = await client(ACME).tokens.create();
    expect(created).toMatchObject({ label: '', expiresAt: null, isActive: true });
  });

  it("manages a sub-account's tokens through the parent", async () => {
    const acme = client(ACME);
    await acme.subAccounts.create({ username: 'alice' });
    const t = await acme.tokens.create({ label: 'alice-ci', username: 'alice' });
    await expect(acme.tokens.list({ username: 'alice' })).resolves.toMatchObject([{ id: t.id, label: 'alice-ci' }]);
    await expect(acme.tokens.list()).resolves.toEqual([]);
    await expect(acme.tokens.deactivate({ id: t.id, username: 'alice' })).resolves.toMatchObject({ isActive: false });
    await expect(acme.tokens.activate({ id: t.id, username: 'alice' })).resolves.toMatchObject({ isActive: true });
    await acme.tokens.delete({ id: t.id, username: 'alice' });
    await expect(acme.tokens.list({ username: 'alice' })).resolves.toEqual([]);
  });

  it('a created token authenticates as Bearer on the other endpoints, but not for tokens', async () => {
    const acme = client(ACME);
    await acme.ips.add({ ip: '203.0.113.7' });
    const { token } = await acme.tokens.create({ label: 'bearer' });
    const bearer = client({ token });
    await expect(bearer.ips.list()).resolves.toEqual(['203.0.113.7']);
    await expect(bearer.proxies.list()).resolves.toEqual(expect.any(Array));
    await expect(bearer.tokens.list()).rejects.toBeInstanceOf(BasicAuthRequiredError);
  });
});

describe('geo IPs', () => {
  it('open and world pools give numeric counts per country', async () => {
    const acme = client(ACME);
    for (const counts of [await acme.geoIps.open(), await acme.geoIps.world()]) {
      const entries = Object.entries(counts);
      expect(entries.length).toBeGreaterThan(0);
      for (const [country, n] of entries) {
        expect(country).toMatch(/^[A-Z]{2}$/);
        expect(Number.isSafeInteger(n) && n >= 0).toBe(true);
      }
    }
  });
});

describe('transport', () => {
  it('refuses the self-signed certificate without caCert, with a hint', async () => {
    const c = client(ACME, { caCert: undefined, maxRetries: 0 });
    const err = await c.ips.list().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NetworkError);
    expect((err as Error).message).toContain('caCert');
  });

  it('insecure: true skips verification', async () => {
    const c = client(ACME, { caCert: undefined, insecure: true });
    await expect(c.ips.list()).resolves.toEqual([]);
  });

  it('accepts the helper dispatcher instead of caCert', async () => {
    const c = client(ACME, { caCert: undefined, dispatcher: emu().dispatcher });
    await expect(c.ips.list()).resolves.toEqual([]);
  });

  it('plain HTTP (allowed for loopback) gets 302 to HTTPS', async () => {
    const c = new ProxyAccountClient({ baseUrl: emu().httpUrl, auth: OTHER, allowHttp: true, authFailureCache: false });
    const err = await c.ips.list().catch((e: unknown) => e);
    await c.close();
    expect(err).toBeInstanceOf(RedirectError);
    expect((err as RedirectError).status).toBe(302);
    expect((err as RedirectError).location).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/api\/ips\/$/);
  });
});
