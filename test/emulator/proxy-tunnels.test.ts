// An open CONNECT tunnel is admitted again as it runs: once what admitted it is gone (its token
// deleted, or deactivated past the grace period; its proxy no longer authorized; its Basic password
// changed), the client's next bytes are not relayed and the tunnel is closed, with one log line
// saying why. A change that leaves its admission standing does not disturb it. Clients: a raw
// socket to a TCP echo, and undici's ProxyAgent, which keeps one tunnel per https origin.
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { type AddressInfo, connect, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { readFileSync } from 'node:fs';
import { ProxyAgent, request } from 'undici';
import { createClock } from '../../src/emulator/clock';
import { authorizeProxies, createSub, createToken, useProxyWorld } from './proxy-fixtures';
import { basicHeader, type ProxyWorld, RUNNER_HOST, runnerResolver, startProxyWorld } from './proxy-world';

const world = useProxyWorld();
const agents: ProxyAgent[] = [];
const sockets: Socket[] = [];
// A tunnel left open would be closed by its re-check once the next test resets the state, and
// its line would land in that test's log.
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await Promise.all(agents.splice(0).map((a) => a.close()));
});

/** A CONNECT tunnel to the echo target, opened by a raw socket. */
interface Tunnel {
  /** Sends `text`; resolves to `echoed` once all of it came back, or `closed` if the tunnel closed first. */
  exchange(text: string): Promise<'echoed' | 'closed'>;
  /** Bytes that came back through the tunnel so far. */
  received(): number;
  /** Resolves once the tunnel is closed. */
  closed: Promise<'closed'>;
  socket: Socket;
}

/** Opens a tunnel with this Proxy-Authorization (none when undefined), from `localAddress` if given. */
async function openTunnel(proxyAuthorization: string | undefined, w: ProxyWorld = world(), localAddress?: string): Promise<Tunnel> {
  const proxy = new URL(w.proxyUrl('us-ny'));
  const socket = connect({ port: Number(proxy.port), host: proxy.hostname, localAddress });
  sockets.push(socket);
  socket.on('error', () => undefined); // A reset by the proxy is the close the tests wait for.
  const closed = new Promise<'closed'>((resolve) => socket.once('close', () => resolve('closed')));
  let answer = '';
  await new Promise<void>((resolve, reject) => {
    const onData = (d: Buffer): void => {
      answer += d.toString('latin1');
      if (!answer.includes('\r\n\r\n')) return;
      socket.off('data', onData);
      if (/^HTTP\/1\.1 200 /.test(answer)) resolve();
      else reject(new Error(`CONNECT refused: ${answer.split('\r\n')[0]}`));
    };
    socket.on('data', onData);
    const target = w.echoTarget;
    const credentials = proxyAuthorization === undefined ? '' : `Proxy-Authorization: ${proxyAuthorization}\r\n`;
    socket.write(`CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n${credentials}\r\n`);
  });
  let received = 0;
  let waiting: { until: number; resolve: (v: 'echoed') => void } | undefined;
  socket.on('data', (d: Buffer) => {
    received += d.length;
    if (waiting !== undefined && received >= waiting.until) waiting.resolve('echoed');
  });
  return {
    socket,
    closed,
    received: () => received,
    exchange: (text) => {
      const echoed = new Promise<'echoed'>((resolve) => {
        waiting = { until: received + Buffer.byteLength(text), resolve };
      });
      socket.write(text);
      return Promise.race([echoed, closed]);
    },
  };
}

/** An undici ProxyAgent on us-ny with this Proxy-Authorization, trusting the https target. */
function agentWith(proxyAuthorization: string): ProxyAgent {
  const agent = new ProxyAgent({
    uri: world().proxyUrl('us-ny'),
    token: proxyAuthorization,
    requestTls: { ca: readFileSync(world().targetCaFile, 'utf8') },
  });
  agents.push(agent);
  return agent;
}

/** GETs the https target through the agent (a CONNECT tunnel the agent keeps); resolves to the status. */
async function fetchThrough(agent: ProxyAgent): Promise<number> {
  const res = await request(`${world().httpsTarget}/t?size=5`, { dispatcher: agent });
  await res.body.text();
  return res.statusCode;
}

let logStart = 0;
beforeEach(() => {
  logStart = world().log.length;
});
/** This test's log lines. */
const testLog = (): string[] => world().log.slice(logStart);
/** This test's log lines saying why a tunnel was closed. */
const closings = (): string[] => testLog().filter((l) => / closed: /.test(l));

test('a token deleted while its tunnel is open: the next bytes are not relayed and the tunnel closes (raw socket)', async () => {
  const sub = await createSub(world(), 'del1');
  const token = await createToken(world(), sub.username);
  const tunnel = await openTunnel(`Bearer ${token.raw}`);
  expect(await tunnel.exchange('before')).toBe('echoed');
  expect((await world().api('POST', '/api/token/delete/', { id: String(token.id), username: sub.username })).status).toBe(204);
  expect(await tunnel.exchange('after the delete')).toBe('closed');
  expect(tunnel.received()).toBe('before'.length);
  expect(closings()).toEqual([expect.stringMatching(/^proxy us-ny: CONNECT 127\.0\.0\.1:\d+ as del1 \(bearer\) closed: invalid bearer token$/)]);
  expect(world().log.join('\n')).not.toContain(token.raw);
});

test("a token deleted while undici's ProxyAgent keeps its tunnel: the next request through it fails", async () => {
  const token = await createToken(world());
  const agent = agentWith(`Bearer ${token.raw}`);
  expect(await fetchThrough(agent)).toBe(200);
  expect(await fetchThrough(agent)).toBe(200); // the same tunnel, kept by the agent
  expect(testLog().filter((l) => / CONNECT /.test(l))).toEqual([]); // not closed yet: no tunnel line
  expect((await world().api('POST', '/api/token/delete/', { id: String(token.id) })).status).toBe(204);
  await expect(fetchThrough(agent)).rejects.toThrow();
  expect(closings()).toEqual([expect.stringMatching(/ as acme \(bearer\) closed: invalid bearer token$/)]);
});

test('the proxy removed from the authorized list: the tunnel it carries is closed', async () => {
  const token = await createToken(world());
  const agent = agentWith(`Bearer ${token.raw}`);
  expect(await fetchThrough(agent)).toBe(200);
  expect((await world().api('POST', '/api/proxy/delete/', { proxy: 'us-ny' })).status).toBe(204);
  await expect(fetchThrough(agent)).rejects.toThrow();
  expect(closings()).toEqual([expect.stringMatching(/ closed: proxy us-ny is not among the authorized proxies of this account$/)]);
});

test('a token deactivated: its tunnel goes on through the grace period, and is closed once the clock passes it', async () => {
  const sub = await createSub(world(), 'grace2');
  const token = await createToken(world(), sub.username);
  const tunnel = await openTunnel(`Bearer ${token.raw}`);
  expect((await world().api('POST', '/api/token/deactivate/', { id: String(token.id), username: sub.username })).status).toBe(200);
  expect(await tunnel.exchange('in the grace period')).toBe('echoed');
  await world().control('/_emulator/clock', { advanceSeconds: 301 });
  expect(await tunnel.exchange('past it')).toBe('closed');
  expect(tunnel.received()).toBe('in the grace period'.length);
  expect(closings()).toEqual([expect.stringMatching(/ as grace2 \(bearer\) closed: bearer token is inactive$/)]);
});

test('a Basic password changed: the tunnel it opened is closed (ProxyAgent and raw socket)', async () => {
  const sub = await createSub(world(), 'pw1');
  const agent = agentWith(basicHeader(sub.username, sub.password));
  const tunnel = await openTunnel(basicHeader(sub.username, sub.password));
  expect(await fetchThrough(agent)).toBe(200);
  expect(await tunnel.exchange('before')).toBe('echoed');
  expect((await world().api('POST', '/api/sub/edit/', { username: sub.username, password: 'another-Pw1' })).status).toBe(200);
  await expect(fetchThrough(agent)).rejects.toThrow();
  expect(await tunnel.exchange('after')).toBe('closed');
  expect(tunnel.received()).toBe('before'.length);
  expect(closings()).toEqual([
    expect.stringMatching(/ as pw1 \(basic\) closed: invalid username or password$/),
    expect.stringMatching(/ as pw1 \(basic\) closed: invalid username or password$/),
  ]);
  expect(world().log.join('\n')).not.toContain(sub.password);
});

test('without any write, a second of emulator time makes a re-check due: past the grace period, the next bytes close the tunnel', async () => {
  // A clock of the test's own, moved directly: the state sees no write at all.
  const clock = createClock();
  const own = await startProxyWorld(undefined, clock);
  try {
    await authorizeProxies(own, 'us-ny');
    const token = await createToken(own);
    const tunnel = await openTunnel(`Bearer ${token.raw}`, own);
    expect((await own.api('POST', '/api/token/deactivate/', { id: String(token.id) })).status).toBe(200);
    expect(await tunnel.exchange('in the grace period')).toBe('echoed');
    clock.advance(301);
    expect(await tunnel.exchange('past it')).toBe('closed');
    expect(own.log.filter((l) => / closed: /.test(l))).toEqual([expect.stringMatching(/ as acme \(bearer\) closed: bearer token is inactive$/)]);
  } finally {
    await own.close();
  }
});

test("a tunnel still admitted keeps working after an unrelated change (another account's IP added, the clock moved)", async () => {
  const token = await createToken(world());
  const agent = agentWith(`Bearer ${token.raw}`);
  const tunnel = await openTunnel(`Bearer ${token.raw}`);
  expect(await fetchThrough(agent)).toBe(200);
  expect(await tunnel.exchange('one')).toBe('echoed');
  const other = await createSub(world(), 'other1');
  expect((await world().api('POST', '/api/ip/add/', { ip: '127.0.0.9', username: other.username })).status).toBe(200);
  await world().control('/_emulator/clock', { advanceSeconds: 2 });
  expect(await tunnel.exchange('two')).toBe('echoed');
  expect(await fetchThrough(agent)).toBe(200);
  expect(closings()).toEqual([]);
});

test('a tunnel whose client only listens is closed once its token is deleted, without a byte from the client', async () => {
  const token = await createToken(world());
  const tunnel = await openTunnel(`Bearer ${token.raw}`);
  expect((await world().api('POST', '/api/token/delete/', { id: String(token.id) })).status).toBe(204);
  expect(await tunnel.closed).toBe('closed');
  expect(closings()).toEqual([expect.stringMatching(/ as acme \(bearer\) closed: invalid bearer token$/)]);
});

test("a parent limit reached by another tunnel's traffic closes a quiet tunnel of the family too", async () => {
  const busy = await createSub(world(), 'busy1');
  const quiet = await createSub(world(), 'quiet1');
  // 100 GB = 100 000 bytes here; the busy tunnel relays 2 × 128 KiB.
  expect((await world().control('/_emulator/limits', { username: 'acme', totalLimit: 100 })).status).toBe(200);
  const quietTunnel = await openTunnel(`Bearer ${(await createToken(world(), quiet.username)).raw}`);
  const busyTunnel = await openTunnel(`Bearer ${(await createToken(world(), busy.username)).raw}`);
  expect(await busyTunnel.exchange('b'.repeat(128 * 1024))).toBe('closed');
  expect(await quietTunnel.closed).toBe('closed');
  expect(closings()).toEqual([
    expect.stringMatching(/ as busy1 \(bearer\) closed: the parent account's total bandwidth limit is reached$/),
    expect.stringMatching(/ as quiet1 \(bearer\) closed: the parent account's total bandwidth limit is reached$/),
  ]);
});

describe('a tunnel admitted by an authorized hostname', () => {
  // Every lookup the emulator makes, and whether the resolver fails now.
  let lookups: string[] = [];
  let failing = false;
  const hostWorld = useProxyWorld(async (name) => {
    lookups.push(name);
    if (failing) throw new Error('resolver unavailable');
    return runnerResolver(name);
  });
  let hostLogStart = 0;
  beforeEach(() => {
    hostLogStart = hostWorld().log.length;
  });
  const hostClosings = (): string[] =>
    hostWorld()
      .log.slice(hostLogStart)
      .filter((l) => / closed: /.test(l));

  /** acme authorizes RUNNER_HOST (127.0.0.3), after a hostname of another account that resolves to nothing. */
  async function runnerTunnel(): Promise<Tunnel> {
    const other = await createSub(hostWorld(), 'other2');
    expect((await hostWorld().api('POST', '/api/hostname/add/', { domain: 'elsewhere.example.test', username: other.username })).status).toBe(200);
    expect((await hostWorld().api('POST', '/api/hostname/add/', { domain: RUNNER_HOST })).status).toBe(200);
    lookups = [];
    failing = false;
    return openTunnel(undefined, hostWorld(), '127.0.0.3');
  }

  test('carries 512 KiB and outlives a re-admission without a lookup after its admission', async () => {
    const tunnel = await runnerTunnel();
    expect(lookups).toEqual(['elsewhere.example.test', RUNNER_HOST]);
    expect(await tunnel.exchange('h'.repeat(512 * 1024))).toBe('echoed');
    // A write and two seconds: the next bytes wait for a whole re-admission.
    await hostWorld().control('/_emulator/clock', { advanceSeconds: 2 });
    expect(await tunnel.exchange('after a re-admission')).toBe('echoed');
    expect(lookups).toEqual(['elsewhere.example.test', RUNNER_HOST]);
    expect(hostClosings()).toEqual([]);
  });

  test('a resolver that fails after the admission does not cut it; a new CONNECT is resolved again', async () => {
    const tunnel = await runnerTunnel();
    failing = true;
    await hostWorld().control('/_emulator/clock', { advanceSeconds: 2 });
    expect(await tunnel.exchange('resolver down')).toBe('echoed');
    expect(hostClosings()).toEqual([]);
    await expect(openTunnel(undefined, hostWorld(), '127.0.0.3')).rejects.toThrow(/407/);
  });

  test('the hostname removed from the account cuts it', async () => {
    const tunnel = await runnerTunnel();
    expect(await tunnel.exchange('before')).toBe('echoed');
    expect((await hostWorld().api('POST', '/api/hostname/delete/', { domain: RUNNER_HOST })).status).toBe(204);
    expect(await tunnel.exchange('after')).toBe('closed');
    expect(tunnel.received()).toBe('before'.length);
    expect(hostClosings()).toEqual([expect.stringMatching(/ as acme \(hostname\) closed: proxy authentication required$/)]);
  });
});

describe('an absolute-form exchange that runs long is held to what admitted it, as a tunnel is', () => {
  /** A target that streams 1 KiB every 20 ms until the client goes. */
  let streaming: HttpServer;
  let port = 0;
  beforeAll(async () => {
    streaming = createHttpServer((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      const tick = setInterval(() => res.write('x'.repeat(1024)), 20);
      res.on('close', () => clearInterval(tick));
    });
    await new Promise<void>((resolve) => streaming.listen(0, '127.0.0.1', resolve));
    port = (streaming.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => streaming.close(() => resolve())));

  test('a token deleted while its answer streams: the exchange is closed within about a second, one line says why; a change that leaves it admitted does not', async () => {
    const sub = await createSub(world(), 'stream1');
    const token = await createToken(world(), sub.username);
    const proxy = new URL(world().proxyUrl('us-ny'));
    const socket = connect({ port: Number(proxy.port), host: proxy.hostname });
    sockets.push(socket);
    socket.on('error', () => undefined);
    let received = 0;
    socket.on('data', (d: Buffer) => (received += d.length));
    const closed = new Promise<'closed'>((resolve) => socket.once('close', () => resolve('closed')));
    // Unref'd: the sleep that loses the race must not hold the worker open for seconds after the
    // file ends (Jest then force-exits it, with a warning about leaked handles).
    const within = (ms: number): Promise<'closed' | 'open'> => Promise.race([closed, sleep(ms, 'open' as const, { ref: false })]);
    socket.write(`GET http://127.0.0.1:${port}/stream HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nProxy-Authorization: Bearer ${token.raw}\r\n\r\n`);
    // Another token of the same account: a write that leaves this one's admission standing.
    await createToken(world(), sub.username);
    expect(await within(1_500)).toBe('open');
    const streamed = received;
    expect(streamed).toBeGreaterThan(10 * 1024);
    expect((await world().api('POST', '/api/token/delete/', { id: String(token.id), username: sub.username })).status).toBe(204);
    expect(await within(3_000)).toBe('closed');
    expect(closings()).toEqual([expect.stringMatching(/^proxy us-ny: GET 127\.0\.0\.1:\d+ as stream1 \(bearer\) closed: invalid bearer token$/)]);
    expect(world().log.join('\n')).not.toContain(token.raw);
  });
  test('Expect: 100-continue is answered only once the request is admitted: a refused upload gets its refusal, never a 100', async () => {
    const token = await createToken(world());
    /** The status lines a raw POST with Expect: 100-continue gets before it sends its body. */
    const firstAnswer = async (authorization: string): Promise<string> => {
      const proxy = new URL(world().proxyUrl('us-ny'));
      const socket = connect({ port: Number(proxy.port), host: proxy.hostname });
      sockets.push(socket);
      socket.on('error', () => undefined);
      let text = '';
      const answered = new Promise<string>((resolve) => {
        socket.on('data', (d: Buffer) => {
          text += d.toString('latin1');
          if (text.includes('\r\n\r\n')) resolve(text.split('\r\n')[0] ?? '');
        });
      });
      socket.write(
        `POST http://127.0.0.1:${port}/upload HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nProxy-Authorization: ${authorization}\r\n` +
          'Content-Length: 5\r\nExpect: 100-continue\r\n\r\n',
      );
      return answered;
    };
    expect(await firstAnswer('Bearer pxa_not_a_token_of_anyone_0000000000')).toMatch(/^HTTP\/1\.1 407 /);
    expect(await firstAnswer(`Bearer ${token.raw}`)).toBe('HTTP/1.1 100 Continue');
  });
});
