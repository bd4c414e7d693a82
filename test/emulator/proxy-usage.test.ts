// Usage counted from proxied traffic, with undici's ProxyAgent and Python's standard library as
// clients: the exact bytes (request body + response body for HTTP, every tunnelled byte for
// CONNECT) count toward the account and its parent, and crossing a monthly, total or parent limit
// gives 509 on the next request.
import { ProxyAgent, request } from 'undici';
import { useProxyWorld, createSub, createToken, parentBytes, usedBytes } from './proxy-fixtures';
import { basicHeader, BYTES_PER_GB, python } from './proxy-world';

const world = useProxyWorld();
const agents: ProxyAgent[] = [];
afterAll(() => Promise.all(agents.map((a) => a.close())));

/**
 * An undici ProxyAgent on us-ny sending `Bearer <token>`: absolute-form requests for http targets
 * (proxyTunnel: false), a CONNECT tunnel for https ones.
 */
function agentFor(token: string): ProxyAgent {
  const agent = new ProxyAgent({ uri: world().proxyUrl('us-ny'), token: `Bearer ${token}`, proxyTunnel: false });
  agents.push(agent);
  return agent;
}

/** POSTs `sent` bytes through the agent and asks for `size` bytes back; resolves to the status. */
async function exchange(agent: ProxyAgent, sent: number, size: number): Promise<number> {
  const res = await request(`${world().httpTarget}/up?size=${size}`, { method: 'POST', body: 'y'.repeat(sent), dispatcher: agent });
  const text = await res.body.text();
  if (res.statusCode === 200) expect(text.length).toBe(size);
  return res.statusCode;
}

test('HTTP: request body + response body count exactly, toward the sub-account and its parent', async () => {
  const sub = await createSub(world(), 'count1');
  const agent = agentFor((await createToken(world(), sub.username)).raw);
  expect(await exchange(agent, 700, 1300)).toBe(200);
  expect(world().lastSeen()?.bodyBytes).toBe(700);
  expect(await exchange(agent, 0, 45)).toBe(200);
  expect(await usedBytes(world(), sub.username, BYTES_PER_GB)).toEqual({ total: 2045, monthly: 2045 });
  expect(await parentBytes(world(), BYTES_PER_GB)).toBe(2045);
});

test('CONNECT: every tunnelled byte counts (Python http.client set_tunnel to a TCP echo)', async () => {
  const sub = await createSub(world(), 'tunnel1');
  const token = await createToken(world(), sub.username);
  const script = `
import http.client, sys
host, port = sys.argv[1].split(':')
conn = http.client.HTTPConnection(host, int(port), timeout=10)
conn.set_tunnel(sys.argv[2].split(':')[0], int(sys.argv[2].split(':')[1]), headers={'Proxy-Authorization': 'Bearer ' + sys.argv[3]})
conn.connect()
data = b'z' * 1234
conn.sock.sendall(data)
got = b''
while len(got) < len(data):
    chunk = conn.sock.recv(65536)
    if not chunk: break
    got += chunk
conn.close()
print(len(got))
`;
  const out = await python(script, [world().emulator.proxies['us-ny']!, world().echoTarget, token.raw]);
  expect(out.trim()).toBe('1234');
  // The tunnel's bytes are recorded when it closes: wait for the emulator to see the close.
  await waitFor(async () => (await usedBytes(world(), sub.username, BYTES_PER_GB)).total === 2468);
  expect(await usedBytes(world(), sub.username, BYTES_PER_GB)).toEqual({ total: 2468, monthly: 2468 });
});

test('a tunnel that outruns a limit is counted as it runs and closed; the next CONNECT gets 509', async () => {
  // 100 GB = 100 000 bytes here; the client pushes 400 000 bytes through an echo.
  const sub = await createSub(world(), 'longtunnel', { total_limit: '100' });
  const token = await createToken(world(), sub.username);
  const script = `
import http.client, sys, threading
host, port = sys.argv[1].split(':')
t_host, t_port = sys.argv[2].split(':')
conn = http.client.HTTPConnection(host, int(port), timeout=10)
conn.set_tunnel(t_host, int(t_port), headers={'Proxy-Authorization': 'Bearer ' + sys.argv[3]})
conn.connect()
got = 0
def reader():
    global got
    while True:
        try:
            chunk = conn.sock.recv(65536)
        except OSError:
            break
        if not chunk: break
        got += len(chunk)
t = threading.Thread(target=reader); t.start()
try:
    for _ in range(100):
        conn.sock.sendall(b'z' * 4000)
except OSError:
    pass
t.join()
print(got)
try:
    again = http.client.HTTPConnection(host, int(port), timeout=10)
    again.set_tunnel(t_host, int(t_port), headers={'Proxy-Authorization': 'Bearer ' + sys.argv[3]})
    again.connect()
    print('connected')
except OSError as err:
    print(str(err))
`;
  const [got, next] = (await python(script, [world().emulator.proxies['us-ny']!, world().echoTarget, token.raw])).trim().split('\n');
  expect(Number(got)).toBeLessThan(400_000);
  expect(next).toMatch(/509/);
  const used = await usedBytes(world(), sub.username, BYTES_PER_GB);
  expect(used.total).toBeGreaterThanOrEqual(100_000);
});

test('a monthly limit crossed by traffic gives 509 on the next request, and the next period lets it pass again', async () => {
  const sub = await createSub(world(), 'month1', { monthly_limit: '2' });
  const agent = agentFor((await createToken(world(), sub.username)).raw);
  expect(await exchange(agent, 0, 1999)).toBe(200);
  expect(await exchange(agent, 0, 1)).toBe(200); // exactly 2000 bytes = the limit
  expect(await exchange(agent, 0, 1)).toBe(509);
  await world().control('/_emulator/clock', { advanceSeconds: 31 * 86_400 });
  expect(await exchange(agent, 0, 1)).toBe(200);
});

test('a total limit crossed by traffic gives 509, also on CONNECT, and a new period does not lift it', async () => {
  const sub = await createSub(world(), 'total1', { total_limit: '1' });
  const agent = agentFor((await createToken(world(), sub.username)).raw);
  expect(await exchange(agent, 500, 600)).toBe(200);
  expect(await exchange(agent, 0, 1)).toBe(509);
  await expect(request(`${world().httpsTarget}/`, { dispatcher: agent })).rejects.toThrow(/509/);
  await world().control('/_emulator/clock', { advanceSeconds: 31 * 86_400 });
  expect(await exchange(agent, 0, 1)).toBe(509);
});

test("the parent's own limit (control API) stops every sub-account once the family's traffic reaches it", async () => {
  const a = await createSub(world(), 'fam-a');
  const b = await createSub(world(), 'fam-b');
  expect((await world().control('/_emulator/limits', { username: 'acme', monthlyLimit: 3 })).status).toBe(200);
  const agentA = agentFor((await createToken(world(), a.username)).raw);
  const agentB = agentFor((await createToken(world(), b.username)).raw);
  expect(await exchange(agentA, 1000, 1000)).toBe(200);
  expect(await exchange(agentB, 0, 1000)).toBe(200);
  expect(await exchange(agentA, 0, 1)).toBe(509);
  expect(await exchange(agentB, 0, 1)).toBe(509);
  expect((await world().control('/_emulator/limits', { username: 'acme', monthlyLimit: 0 })).status).toBe(200);
  expect(await exchange(agentB, 0, 1)).toBe(200);
});

test("the control API's usage setter still counts toward the limits", async () => {
  const sub = await createSub(world(), 'set1', { total_limit: '5' });
  const agent = agentFor((await createToken(world(), sub.username)).raw);
  expect(await exchange(agent, 0, 1)).toBe(200);
  // 5 GB recorded by hand: with 1000 bytes per GB of traffic, this is the whole limit.
  expect((await world().control('/_emulator/usage', { username: sub.username, gb: 5 })).status).toBe(200);
  expect(await exchange(agent, 0, 1)).toBe(509);
});

test('Python urllib with a ProxyHandler (Basic from the proxy URL) is served and counted', async () => {
  const sub = await createSub(world(), 'py1');
  const script = `
import sys, urllib.request
opener = urllib.request.build_opener(urllib.request.ProxyHandler({'http': sys.argv[1]}))
with opener.open(sys.argv[2], timeout=10) as res:
    print(res.status, len(res.read()))
`;
  const proxy = `http://${sub.username}:${sub.password}@${world().emulator.proxies['us-ny']}`;
  expect((await python(script, [proxy, `${world().httpTarget}/py?size=321`])).trim()).toBe('200 321');
  expect(world().lastSeen()?.headers['proxy-authorization']).toBeUndefined();
  expect((await usedBytes(world(), sub.username, BYTES_PER_GB)).total).toBe(321);
});

test('Python http.client through CONNECT to an HTTPS target, Basic username:ip_hash:password', async () => {
  const sub = await createSub(world(), 'py2');
  const script = `
import http.client, ssl, sys
host, port = sys.argv[1].split(':')
t_host, t_port = sys.argv[2].split(':')
ctx = ssl.create_default_context(cafile=sys.argv[3])
conn = http.client.HTTPSConnection(host, int(port), context=ctx, timeout=10)
conn.set_tunnel(t_host, int(t_port), headers={'Proxy-Authorization': sys.argv[4]})
conn.request('GET', '/tls?size=55')
res = conn.getresponse()
print(res.status, len(res.read()))
`;
  const out = await python(script, [
    world().emulator.proxies['us-ny']!,
    world().httpsTarget.slice('https://'.length),
    world().targetCaFile,
    basicHeader(sub.username, `sess-7:${sub.password}`),
  ]);
  expect(out.trim()).toBe('200 55');
});

async function waitFor(check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 100; i += 1) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
}
