// In-process check of the request pipeline's last line of defence: a handler that throws gives a
// logged 500 and the server keeps serving. No real route throws, so a test route does.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { BanList } from '../../src/emulator/auth';
import { createClock } from '../../src/emulator/clock';
import { DEFAULT_ACCOUNTS } from '../../src/emulator/config';
import { FaultList } from '../../src/emulator/faults';
import { createRequestHandler } from '../../src/emulator/handler';
import { Router } from '../../src/emulator/router';
import { Store } from '../../src/emulator/store';

let server: Server;
let store: Store;
let base: string;
const logs: string[] = [];

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
  ]);
  const handler = createRequestHandler({
    adminToken: 'admin-token-for-tests',
    store,
    clock,
    bans: new BanList(clock),
    faults: new FaultList(),
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
