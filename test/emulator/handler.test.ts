// In-process check of the request pipeline's last line of defence: a handler that throws gives a
// logged 500 and the server keeps serving. No real route throws, so a test route does. And its
// log: one line per request, written once the request is served, whether its client waited or not.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { request } from 'undici';
import { BanList } from '../../src/emulator/auth';
import { createClock } from '../../src/emulator/clock';
import { DEFAULT_ACCOUNTS } from '../../src/emulator/config';
import { FaultList } from '../../src/emulator/faults';
import { createRequestHandler } from '../../src/emulator/handler';
import { Router } from '../../src/emulator/router';
import { Store } from '../../src/emulator/store';

let server: Server;
let handler: (req: IncomingMessage, res: ServerResponse) => void;
let store: Store;
let base: string;
const logs: string[] = [];
let made = 0;

/** Faults that tell when a request takes its fault: its body is read, and its delay starts. */
class WatchedFaults extends FaultList {
  onTake: (() => void) | undefined;
  override take(method: string, path: string): ReturnType<FaultList['take']> {
    const fault = super.take(method, path);
    this.onTake?.();
    return fault;
  }
}
const faults = new WatchedFaults();

beforeAll(async () => {
  const clock = createClock();
  store = Store.open(undefined, clock, DEFAULT_ACCOUNTS);
  const router = new Router([
    {
      method: 'GET',
      path: '/api/boom/',
      fields: [],
      handle: () => {
        throw new TypeError('kaboom');
      },
    },
    { method: 'GET', path: '/api/fine/', fields: [], handle: () => ({ status: 200, json: { ok: true } }) },
    {
      method: 'POST',
      path: '/api/make/',
      fields: [],
      handle: () => {
        made += 1;
        return { status: 200, json: { made } };
      },
    },
  ]);
  handler = createRequestHandler({
    adminToken: 'admin-token-for-tests',
    store,
    clock,
    bans: new BanList(clock),
    faults,
    loadSeeds: () => DEFAULT_ACCOUNTS,
    router,
    settings: { proxyDomain: 'proxy.example.net', tokenPrefix: 'pxa_' },
    log: (line) => logs.push(line),
  });
  server = createServer(handler);
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((done) => {
    server.close(() => done());
    server.closeAllConnections();
  });
  store.close();
});

const auth = { authorization: `Basic ${Buffer.from('demo:demo-password').toString('base64')}` };

it('answers 500 for a throwing handler, logs the stack, and keeps serving', async () => {
  const res = await request(`${base}/api/boom/`, { headers: auth });
  expect(res.statusCode).toBe(500);
  expect(await res.body.text()).toBe('internal server error\n');
  expect(logs.some((l) => l.startsWith('error: GET /api/boom/: TypeError: kaboom'))).toBe(true);
  expect(logs).toContainEqual(expect.stringMatching(/^GET \/api\/boom\/ 500 [\d.]+ms \(internal error, see above\)$/));

  const ok = await request(`${base}/api/fine/`, { headers: auth });
  expect(ok.statusCode).toBe(200);
  expect(await ok.body.json()).toEqual({ ok: true });
});

it('never logs the Authorization header', () => {
  expect(logs.join('\n')).not.toContain(auth.authorization.slice(6));
});

/** The first log line starting with `prefix`, once there is one. */
async function lineOf(prefix: string): Promise<string> {
  for (let i = 0; i < 500; i++) {
    const line = logs.find((l) => l.startsWith(prefix));
    if (line !== undefined) return line;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`no log line starts with ${prefix}`);
}

it('logs a delayed request whose client gave up once it is served, with the status it was served with', async () => {
  faults.add({ path: '/api/make/', delayMs: 1000, remaining: 1 });
  const giveUp = new AbortController();
  // The client leaves as the delay starts (its body read), well before the request is served.
  faults.onTake = () => giveUp.abort();
  try {
    await expect(request(`${base}/api/make/`, { method: 'POST', headers: auth, signal: giveUp.signal })).rejects.toThrow();
  } finally {
    faults.onTake = undefined;
  }
  expect(await lineOf('POST /api/make/ ')).toMatch(/^POST \/api\/make\/ 200 [\d.]+ms \(client gone\)$/);
  // Its change was made, and it has that one line.
  expect(made).toBe(1);
  expect(logs.filter((l) => l.startsWith('POST /api/make/ '))).toHaveLength(1);
});

it('logs an answer a fault dropped as dropped, and an answered request without "client gone"', async () => {
  faults.add({ path: '/api/fine/', dropResponse: true, remaining: 1 });
  await expect(request(`${base}/api/fine/`, { headers: auth })).rejects.toThrow();
  const ok = await request(`${base}/api/make/`, { method: 'POST', headers: auth });
  expect(ok.statusCode).toBe(200);
  await ok.body.dump();
  expect(logs.filter((l) => l.startsWith('GET /api/fine/ dropped '))).toHaveLength(1);
  expect(logs.filter((l) => l.startsWith('POST /api/make/ ')).at(-1)).toMatch(/^POST \/api\/make\/ 200 [\d.]+ms$/);
});

/**
 * Sends a POST whose body stops 8 bytes into the 100 it announces, to `port`; `leave` closes the
 * connection at once, else it waits. Resolves with the status line it got, if any.
 */
function postCutShort(port: number, path: string, leave: boolean): Promise<string> {
  return new Promise((done) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.write(`POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 100\r\n\r\nip=203.0`);
      if (leave) socket.destroy();
    });
    let got = '';
    socket.setEncoding('utf8').on('data', (d: string) => {
      got += d;
    });
    socket.on('error', () => undefined);
    socket.on('close', () => done(got.split('\r\n')[0] ?? ''));
  });
}

it('logs a request whose client left before its body was whole as incomplete: not served, and no status it never had', async () => {
  const port = (server.address() as AddressInfo).port;
  const before = made;
  await postCutShort(port, '/api/cut-short/', true);
  expect(await lineOf('POST /api/cut-short/ ')).toMatch(/^POST \/api\/cut-short\/ incomplete [\d.]+ms$/);
  expect(made).toBe(before);
});

it('logs a request whose body did not arrive in time as incomplete, without "client gone": Node answered it 408', async () => {
  // Node's request timeout, short here (the emulator's is 5 s), and its own 408 (the emulator's
  // server.ts answers it as Node does, dated by its clock).
  const slow = createServer({ requestTimeout: 200, headersTimeout: 200, connectionsCheckingInterval: 20 }, handler);
  await new Promise<void>((done) => slow.listen(0, '127.0.0.1', done));
  try {
    expect(await postCutShort((slow.address() as AddressInfo).port, '/api/too-slow/', false)).toBe('HTTP/1.1 408 Request Timeout');
  } finally {
    await new Promise<void>((done) => {
      slow.close(() => done());
      slow.closeAllConnections();
    });
  }
  expect(await lineOf('POST /api/too-slow/ ')).toMatch(/^POST \/api\/too-slow\/ incomplete [\d.]+ms$/);
});
