// Exit IPs of the emulated proxies: drawn from per-country pools whose sizes are the geo-IP counts
// the API reports, restricted by the country header, and sticky per ip_hash while requests come
// within five minutes of each other; an exit taken out of the pool is replaced and the
// replacement kept. Clients: curl (Bearer token:ip_hash) and undici's ProxyAgent (Basic with ip_hash).
import { ProxyAgent, request } from 'undici';
import { ExitPool, exitAddress } from '../../src/emulator/proxy/exits';
import { useProxyWorld, createToken } from './proxy-fixtures';
import { basicHeader, curl, headerOf, PARENT } from './proxy-world';

const world = useProxyWorld();
let token: string;
beforeEach(async () => {
  token = (await createToken(world())).raw;
});

/** The exit IP of one curl request with `Bearer <token>[:<ipHash>]` and an optional country. */
async function exitOf(ipHash?: string, country?: string): Promise<string> {
  const args = ['-x', world().proxyUrl('us-ny'), '--proxy-header', `Proxy-Authorization: Bearer ${token}${ipHash === undefined ? '' : `:${ipHash}`}`];
  if (country !== undefined) args.push('--proxy-header', `${world().emulator.countryHeader}: ${country}`);
  const res = await curl([...args, `${world().httpTarget}/e?size=1`]);
  expect(res.status).toBe(200);
  return headerOf(res.headers, world().emulator.exitIpHeader)!;
}

const advance = (seconds: number) => world().control('/_emulator/clock', { advanceSeconds: seconds });

test('the same ip_hash keeps its exit while requests come within five minutes, and gets a new one after a longer pause', async () => {
  const first = await exitOf('session-a', 'NO');
  await advance(240);
  expect(await exitOf('session-a', 'NO')).toBe(first);
  await advance(240);
  expect(await exitOf('session-a', 'NO')).toBe(first);
  await advance(301);
  const next = await exitOf('session-a', 'NO');
  expect(next).not.toBe(first);
  expect(await exitOf('session-a', 'NO')).toBe(next);
});

test('without ip_hash every request draws again; another ip_hash is another session', async () => {
  // Norway has 12 950 exits: ten draws that all agree would mean the draws are not independent.
  const draws = new Set<string>();
  for (let i = 0; i < 10; i += 1) draws.add(await exitOf(undefined, 'NO'));
  expect(draws.size).toBeGreaterThan(1);
  const a = await exitOf('a', 'NO');
  const b = await exitOf('b', 'NO');
  expect(await exitOf('a', 'NO')).toBe(a);
  expect(await exitOf('b', 'NO')).toBe(b);
});

test('when the exit leaves the pool, the session gets a new one and keeps it', async () => {
  const first = await exitOf('session-r');
  expect((await world().control('/_emulator/exits/retire', { ip: first })).status).toBe(200);
  const replaced = await exitOf('session-r');
  expect(replaced).not.toBe(first);
  expect(await exitOf('session-r')).toBe(replaced);
  expect((await world().control('/_emulator/exits/retire', { ip: '2001:db8:5a5a::0:1' })).status).toBe(404);
});

test('Basic username:ip_hash:password is sticky too (undici ProxyAgent)', async () => {
  const agent = new ProxyAgent({ uri: world().proxyUrl('us-ny'), token: basicHeader(PARENT.username, `hash-9:${PARENT.password}`), proxyTunnel: false });
  try {
    const exits = new Set<string>();
    for (let i = 0; i < 3; i += 1) {
      const res = await request(`${world().httpTarget}/b?size=1`, { dispatcher: agent, headers: { [world().emulator.countryHeader]: 'SE' } });
      await res.body.text();
      expect(res.statusCode).toBe(200);
      exits.add(String(res.headers[world().emulator.exitIpHeader.toLowerCase()]));
    }
    expect(exits.size).toBe(1);
    expect([...exits][0]).toMatch(/^2001:db8:5345::/);
  } finally {
    await agent.close();
  }
});

test('each country has exactly as many exits as the world geo-IP count the API reports', async () => {
  const res = await world().api('GET', '/api/geoips/world/');
  expect(res.status).toBe(200);
  const pool = new ExitPool();
  for (const [code, count] of Object.entries(res.json as Record<string, string>)) {
    expect(pool.hasCountry(code)).toBe(true);
    expect(pool.contains(exitAddress(code, Number(count) - 1))).toBe(true);
    expect(pool.contains(exitAddress(code, Number(count)))).toBe(false);
  }
  expect(pool.hasCountry('ZZ')).toBe(false);
});
