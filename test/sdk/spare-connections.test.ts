// Connections opened while callers wait for the credential probe, or before the first request
// (src/sdk/spare-connections.ts): against a real HTTPS server that counts its TLS connections, and the spare pool's own rules with
// a connector that the test drives.
import { createServer, type Server } from 'node:https';
import * as net from 'node:net';
import type { AddressInfo, Socket } from 'node:net';
import { ProxyAccountClient } from '../../src/sdk';
import { connectOptionsOf, MAX_SPARES, SpareConnections } from '../../src/sdk/spare-connections';
import { createSelfSignedCertificate } from '../../src/util/x509';

const cert = createSelfSignedCertificate({ commonName: 'localhost', dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] });

interface Seen {
  /** Each TLS connection's number, in the order they were made. */
  connections: Socket[];
  /** For each request: the number of its connection, and how many connections existed when the probe was answered. */
  requests: Array<{ connection: number; path: string }>;
  closed: Set<number>;
  connectionsWhenProbeAnswered?: number;
}

let server: Server;
let seen: Seen;
/** How the first request (the probe) is answered, after PROBE_MS. */
let probeStatus = 200;
const PROBE_MS = 300;

beforeAll(async () => {
  server = createServer({ key: cert.keyPem, cert: cert.certPem }, (req, res) => {
    const connection = seen.connections.indexOf(req.socket);
    seen.requests.push({ connection, path: req.url ?? '' });
    const answer = (status: number): void => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(status === 200 ? { ips: [] } : { error: 'bad credentials' }));
    };
    if (seen.requests.length === 1) {
      setTimeout(() => {
        seen.connectionsWhenProbeAnswered = seen.connections.length;
        answer(probeStatus);
      }, PROBE_MS);
    } else answer(200);
  });
  server.on('secureConnection', (socket: Socket) => {
    const n = seen.connections.push(socket) - 1;
    socket.once('close', () => seen.closed.add(n));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
});
beforeEach(() => {
  seen = { connections: [], requests: [], closed: new Set() };
  probeStatus = 200;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

const client = (): ProxyAccountClient =>
  new ProxyAccountClient({
    baseUrl: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    auth: { username: 'acme', password: 'acme-Password-1' },
    caCert: cert.certPem,
    authFailureCache: false,
    maxRetries: 0,
  });

describe('callers waiting for the credential probe', () => {
  it('find connections opened while the probe was out, one each, and no more are made', async () => {
    const c = client();
    try {
      const calls = Array.from({ length: 4 }, () => c.ips.list());
      expect(await Promise.all(calls)).toEqual([[], [], [], []]);
      // Every connection the four calls used was open before the probe was answered: the three
      // that waited for it paid no connection of their own after it.
      expect(seen.requests).toHaveLength(4);
      expect(seen.connections).toHaveLength(seen.connectionsWhenProbeAnswered!);
      // One for the probe and a spare for each of the three waiting callers.
      expect(seen.connections).toHaveLength(4);
      expect(new Set(seen.requests.slice(1).map((r) => r.connection)).size).toBe(3);
    } finally {
      await c.close();
    }
  });

  it('are refused after a 401, and the spares opened for them are closed unused', async () => {
    probeStatus = 401;
    const c = client();
    try {
      const results = await Promise.allSettled(Array.from({ length: 3 }, () => c.ips.list()));
      expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected']);
      expect(seen.requests).toHaveLength(1);
      // Spares were opened for the two waiting callers; neither carried a request, and both are closed.
      expect(seen.connectionsWhenProbeAnswered).toBe(3);
      const unused = seen.connections.map((_, n) => n).filter((n) => n !== seen.requests[0]!.connection);
      expect(unused).toHaveLength(2);
      await waitFor(() => unused.every((n) => seen.closed.has(n)));
    } finally {
      await c.close();
    }
  });

  it('open no spare for a lone call', async () => {
    const c = client();
    try {
      await c.ips.list();
      expect(seen.connections).toHaveLength(1);
    } finally {
      await c.close();
    }
  });
});

describe('preconnect()', () => {
  it('opens a connection that carries nothing until the first request, the probe, takes it', async () => {
    const c = client();
    try {
      c.preconnect();
      c.preconnect();
      await waitFor(() => seen.connections.length === 1);
      await new Promise((r) => setTimeout(r, 50));
      expect(seen.requests).toHaveLength(0);
      const calls = Array.from({ length: 4 }, () => c.ips.list());
      expect(await Promise.all(calls)).toEqual([[], [], [], []]);
      // The probe went out on the connection opened ahead, and the three callers that waited on
      // spares opened while it was out: none of them paid for a connection after it.
      expect(seen.requests[0]!.connection).toBe(0);
      expect(seen.connections).toHaveLength(4);
      expect(seen.connectionsWhenProbeAnswered).toBe(4);
      expect(new Set(seen.requests.slice(1).map((r) => r.connection)).size).toBe(3);
    } finally {
      await c.close();
    }
  });

  it('lets the first request wait for it, and not for a second connection, when it times out', async () => {
    // An API that accepts TCP and never answers the TLS handshake (packets dropped past the port).
    const silent = net.createServer((socket) => {
      accepted += 1;
      socket.on('error', () => undefined);
      held.push(socket);
    });
    let accepted = 0;
    const held: Socket[] = [];
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const c = new ProxyAccountClient({
      baseUrl: `https://127.0.0.1:${(silent.address() as AddressInfo).port}`,
      auth: { username: 'acme', password: 'acme-Password-1' },
      caCert: cert.certPem,
      authFailureCache: false,
      maxRetries: 0,
      timeoutMs: 300,
    });
    try {
      c.preconnect();
      await waitFor(() => accepted === 1);
      await expect(c.ips.list()).rejects.toMatchObject({ name: 'TimeoutError' });
      // The request took the connection opened ahead and got its timeout; it opened none of its own.
      expect(accepted).toBe(1);
    } finally {
      await c.close();
      for (const socket of held) socket.destroy();
      await new Promise((r) => silent.close(r));
    }
  });

  it('opens nothing after a 401, nor on a closed client', async () => {
    probeStatus = 401;
    const c = client();
    await expect(c.ips.list()).rejects.toThrow();
    c.preconnect();
    await c.close();
    c.preconnect();
    await new Promise((r) => setTimeout(r, 50));
    expect(seen.connections).toHaveLength(1);
  });
});

async function waitFor(ok: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !ok(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(ok()).toBe(true);
}

/** A connector whose connections the test completes by hand; like undici's, it returns the socket it opens. */
function fakeConnector() {
  const pending: Array<{ origin: string; socket: FakeSocket; done: (err: Error | null) => void }> = [];
  const made: FakeSocket[] = [];
  const connector = (o: { protocol: string; hostname: string; port: string }, cb: (...a: [null, Socket] | [Error, null]) => void): FakeSocket => {
    const socket = new FakeSocket();
    pending.push({
      origin: `${o.protocol}//${o.hostname}:${o.port}`,
      socket,
      done: (err) => {
        if (err !== null) return cb(err, null);
        made.push(socket);
        cb(null, socket as unknown as Socket);
      },
    });
    return socket;
  };
  return { connector, pending, made };
}

class FakeSocket {
  destroyed = false;
  refed = true;
  private onClose: (() => void) | undefined;
  ref(): this {
    this.refed = true;
    return this;
  }
  unref(): this {
    this.refed = false;
    return this;
  }
  once(event: string, fn: () => void): this {
    if (event === 'close') this.onClose = fn;
    return this;
  }
  off(event: string, fn: () => void): this {
    if (event === 'close' && this.onClose === fn) this.onClose = undefined;
    return this;
  }
  destroy(): this {
    this.destroyed = true;
    this.onClose?.();
    return this;
  }
}

describe('SpareConnections', () => {
  const ORIGIN = 'https://api.example:8443';
  const take = (spares: SpareConnections, origin = ORIGIN): Promise<unknown> =>
    new Promise((resolve, reject) => spares.connect(connectOptionsOf(origin), (err, socket) => (err ? reject(err) : resolve(socket))));

  it('hands out no spare while told not to (the probe opens its own)', async () => {
    const f = fakeConnector();
    const spares = new SpareConnections(f.connector as never);
    let probing = true;
    spares.mayHandOut = () => !probing;
    spares.fill(ORIGIN, 1);
    f.pending[0]!.done(null);
    const probe = take(spares);
    expect(f.pending).toHaveLength(2);
    f.pending[1]!.done(null);
    expect(await probe).toBe(f.made[1]);
    probing = false;
    expect(await take(spares)).toBe(f.made[0]);
  });

  it('hands a preconnected connection to the probe too, and opens one only while none is spare', async () => {
    const f = fakeConnector();
    const spares = new SpareConnections(f.connector as never);
    spares.mayHandOut = () => false;
    spares.preconnect(ORIGIN);
    spares.preconnect(ORIGIN);
    expect(f.pending).toHaveLength(1);
    expect(f.pending[0]!.socket.refed).toBe(false);
    f.pending[0]!.done(null);
    expect(await take(spares)).toBe(f.made[0]);
    expect(f.made[0]!.refed).toBe(true);
    spares.close();
    spares.preconnect(ORIGIN);
    expect(f.pending).toHaveLength(1);
  });

  it('hands out an open spare for the same origin only, and a fresh connection otherwise', async () => {
    const f = fakeConnector();
    const spares = new SpareConnections(f.connector as never);
    spares.fill(ORIGIN, 1);
    expect(f.pending.map((p) => p.origin)).toEqual(['https://api.example:8443']);
    f.pending[0]!.done(null);
    expect(f.made[0]!.refed).toBe(false);
    const other = take(spares, 'https://other.example');
    expect(f.pending).toHaveLength(2);
    f.pending[1]!.done(null);
    expect(await other).toBe(f.made[1]);
    const socket = await take(spares);
    expect(socket).toBe(f.made[0]);
    expect(f.made[0]!.refed).toBe(true);
    expect(spares.size).toBe(0);
  });

  it("gives the taker of a spare still opening the spare's connect timeout, not a second wait", async () => {
    const f = fakeConnector();
    const spares = new SpareConnections(f.connector as never);
    spares.fill(ORIGIN, 1);
    const taken = take(spares);
    f.pending[0]!.done(Object.assign(new Error('Connect Timeout Error'), { code: 'UND_ERR_CONNECT_TIMEOUT' }));
    await expect(taken).rejects.toMatchObject({ code: 'UND_ERR_CONNECT_TIMEOUT' });
    expect(f.pending).toHaveLength(1);
  });

  it('gives a spare still opening to the first taker, who connects anew if it fails', async () => {
    const f = fakeConnector();
    const spares = new SpareConnections(f.connector as never);
    spares.fill(ORIGIN, 2);
    const first = take(spares);
    const second = take(spares);
    expect(f.pending).toHaveLength(2);
    f.pending[0]!.done(null);
    expect(await first).toBe(f.made[0]);
    f.pending[1]!.done(new Error('ECONNREFUSED'));
    // The failed spare's taker got a connection of its own.
    expect(f.pending).toHaveLength(3);
    f.pending[2]!.done(null);
    expect(await second).toBe(f.made[1]);
  });

  it(`opens at most ${MAX_SPARES}, forgets a spare the server closed, and closes idle ones`, async () => {
    const f = fakeConnector();
    const spares = new SpareConnections(f.connector as never, 50);
    spares.fill(ORIGIN, 100);
    expect(f.pending).toHaveLength(MAX_SPARES);
    for (const p of f.pending) p.done(null);
    f.made[0]!.destroy();
    expect(spares.size).toBe(MAX_SPARES - 1);
    await new Promise((r) => setTimeout(r, 80));
    expect(spares.size).toBe(0);
    expect(f.made.every((s) => s.destroyed)).toBe(true);
  });

  it('discard() closes the spares, open or still opening; close() also stops filling', () => {
    const f = fakeConnector();
    const spares = new SpareConnections(f.connector as never);
    spares.fill(ORIGIN, 2);
    f.pending[0]!.done(null);
    spares.discard();
    expect(f.pending.map((p) => p.socket.destroyed)).toEqual([true, true]);
    expect(spares.size).toBe(0);
    spares.close();
    spares.fill(ORIGIN, 2);
    expect(f.pending).toHaveLength(2);
  });

  it('keeps no process alive with a spare still opening, until a caller takes it', async () => {
    const f = fakeConnector();
    const spares = new SpareConnections(f.connector as never);
    spares.fill(ORIGIN, 1);
    const opening = f.pending[0]!.socket;
    expect(opening.refed).toBe(false);
    const taken = take(spares);
    expect(opening.refed).toBe(true);
    f.pending[0]!.done(null);
    expect(await taken).toBe(opening);
    expect(opening.refed).toBe(true);
  });
});
