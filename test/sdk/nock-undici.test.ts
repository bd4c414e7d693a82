// Records why the SDK's unit tests use undici's MockAgent rather than nock: nock 14 hooks node's
// http module and the global fetch, but undici's own `request()` opens its sockets itself, so
// nock never sees it. The real loopback server below answers whatever nock misses.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import nock from 'nock';
import { request } from 'undici';

describe('nock and undici.request', () => {
  let server: Server;
  let origin: string;

  beforeAll(async () => {
    server = createServer((_req, res) => res.end('from-real-server'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    nock.cleanAll();
    nock.restore();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('intercepts the global fetch but not undici.request', async () => {
    nock(origin).get('/probe/').times(2).reply(200, 'from-nock');

    const viaFetch = await (await fetch(`${origin}/probe/`)).text();
    const res = await request(`${origin}/probe/`);
    const viaUndici = await res.body.text();

    expect(viaFetch).toBe('from-nock');
    expect(viaUndici).toBe('from-real-server');
  });
});
