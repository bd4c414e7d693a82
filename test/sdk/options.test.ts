// Client options: base URL rules (HTTPS only, loopback-only HTTP), credentials, numbers, TLS vs
// dispatcher, secrets never visible when the client is inspected, and the client's own agent
// against a real loopback server.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { inspect } from 'node:util';
import { MockAgent } from 'undici';
import { ClientClosedError, InvalidArgumentError, NetworkError, ProxyAccountClient, TimeoutError, type ProxyAccountClientOptions } from '../../src/sdk';
import { caught, PASSWORD, TOKEN, USER } from './harness';

const AUTH = { username: USER, password: PASSWORD };

function make(options: Partial<ProxyAccountClientOptions>): ProxyAccountClient {
  return new ProxyAccountClient({ baseUrl: 'https://api.example.test', auth: AUTH, authFailureCache: false, ...options } as ProxyAccountClientOptions);
}

function fieldOf(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(InvalidArgumentError);
    return (e as InvalidArgumentError).field;
  }
  throw new Error('expected InvalidArgumentError');
}

describe('baseUrl', () => {
  it.each([
    ['http://api.example.test', {}],
    ['http://api.example.test', { allowHttp: true }],
    ['http://10.0.0.1:8080', { allowHttp: true }],
    ['http://128.0.0.1', { allowHttp: true }],
    ['http://localhost.example.com', { allowHttp: true }],
    ['http://127.0.0.1:8080', {}],
    ['ftp://api.example.test', {}],
    ['https://user:pw@api.example.test', {}],
    ['https://api.example.test/?x=1', {}],
    ['https://api.example.test/#frag', {}],
    ['https://api.example.test?', {}],
    ['api.example.test', {}],
    ['', {}],
  ])('refuses %s %p', (baseUrl, extra) => {
    expect(fieldOf(() => make({ baseUrl, ...extra }))).toBe('baseUrl');
  });

  it.each([['http://127.0.0.1:8080'], ['http://127.200.3.4'], ['http://[::1]:8080'], ['http://localhost:8080/prefix'], ['http://LOCALHOST']])(
    'allows %s with allowHttp',
    (baseUrl) => {
      expect(() => make({ baseUrl, allowHttp: true })).not.toThrow();
    },
  );

  it('says how to use plain HTTP and never echoes URL credentials', () => {
    expect(() => make({ baseUrl: 'http://127.0.0.1:1' })).toThrow(/allowHttp/);
    expect(() => make({ baseUrl: 'http://example.com', allowHttp: true })).toThrow(/loopback/);
    try {
      make({ baseUrl: 'https://user:topsecretpw@api.example.test' });
    } catch (e) {
      expect((e as Error).message).not.toContain('topsecretpw');
    }
  });
});

describe('other options', () => {
  it.each([
    [{ auth: undefined }, 'auth'],
    [{ auth: { token: TOKEN, username: USER, password: PASSWORD } }, 'auth'],
    [{ auth: { token: '' } }, 'auth.token'],
    [{ auth: { token: 'a b' } }, 'auth.token'],
    [{ auth: { username: '', password: 'x' } }, 'auth.username'],
    [{ auth: { username: 'a:b', password: 'x' } }, 'auth.username'],
    [{ auth: { username: 'a' } }, 'auth.password'],
    [{ auth: { username: 'a', password: '' } }, 'auth.password'],
    [{ timeoutMs: 0 }, 'timeoutMs'],
    [{ timeoutMs: Number.NaN }, 'timeoutMs'],
    [{ timeoutMs: 2 ** 31 }, 'timeoutMs'],
    [{ maxRetries: -1 }, 'maxRetries'],
    [{ maxRetries: 1.5 }, 'maxRetries'],
    [{ retryBaseDelayMs: -1 }, 'retryBaseDelayMs'],
    [{ retryMaxDelayMs: Infinity }, 'retryMaxDelayMs'],
    [{ userAgent: 'a\r\nX-Evil: 1' }, 'userAgent'],
    [{ userAgent: ' ' }, 'userAgent'],
    [{ insecure: 'yes' }, 'insecure'],
    [{ allowHttp: 1 }, 'allowHttp'],
    [{ caCert: 'not a certificate' }, 'caCert'],
    [{ caCert: 42 }, 'caCert'],
    [{ dispatcher: {} }, 'dispatcher'],
    [{ dispatcher: new MockAgent(), caCert: '-----BEGIN CERTIFICATE-----\nx\n-----END CERTIFICATE-----' }, 'caCert'],
    [{ dispatcher: new MockAgent(), insecure: true }, 'insecure'],
    [{ random: 0.5 }, 'random'],
  ])('refuses %p (field %s)', (extra, field) => {
    expect(fieldOf(() => make(extra as Partial<ProxyAccountClientOptions>))).toBe(field);
  });

  it('refuses a missing options object', () => {
    expect(() => new ProxyAccountClient(undefined as never)).toThrow(InvalidArgumentError);
  });

  it('never shows credentials when inspected or serialised', () => {
    const basic = make({});
    const bearer = make({ auth: { token: TOKEN } });
    const encoded = Buffer.from(`${USER}:${PASSWORD}`).toString('base64');
    for (const text of [
      inspect(basic, { depth: Infinity, showHidden: true }),
      JSON.stringify(basic),
      inspect(bearer, { depth: Infinity, showHidden: true }),
      JSON.stringify(bearer),
    ]) {
      expect(text).not.toContain(PASSWORD);
      expect(text).not.toContain(encoded);
      expect(text).not.toContain(TOKEN);
    }
  });
});

describe("the client's own agent, against a real loopback server", () => {
  let server: Server;
  let origin: string;
  const seen: Array<{ req: IncomingMessage; body: string }> = [];
  let hang = false;

  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        seen.push({ req, body });
        if (hang) return; // never answers: the client's timeout must end the attempt
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ ip: '203.0.113.7', label: 'office' }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  beforeEach(() => {
    seen.length = 0;
    hang = false;
  });

  it('sends a form-encoded POST with the Basic header and reads the answer', async () => {
    const client = make({ baseUrl: `${origin}/base`, allowHttp: true });
    await expect(client.ips.add({ ip: '203.0.113.7', label: 'office' })).resolves.toEqual({
      ip: '203.0.113.7',
      label: 'office',
    });
    await client.close();
    expect(seen).toHaveLength(1);
    const { req, body } = seen[0];
    expect(req.method).toBe('POST');
    expect(req.url).toBe('/base/api/ip/add/');
    expect(req.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(req.headers.authorization).toBe(`Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString('base64')}`);
    expect(body).toBe('ip=203.0.113.7&label=office');
  });

  it('ends a hung attempt with TimeoutError', async () => {
    hang = true;
    // Long enough that each attempt reaches the server even on a loaded machine: with 50 ms a
    // busy run saw the retry aborted before the server read it.
    const client = make({ baseUrl: origin, allowHttp: true, timeoutMs: 500, maxRetries: 1, sleep: async () => {} });
    const err = await caught(() => client.ips.list());
    expect(err).toBeInstanceOf(TimeoutError);
    expect(err.attempts).toBe(2);
    expect(seen).toHaveLength(2);
    await client.close();
  });

  it('maps a refused connection to NetworkError with its cause, after retries', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const sleeps: number[] = [];
    const client = make({
      baseUrl: `http://127.0.0.1:${port}`,
      allowHttp: true,
      maxRetries: 2,
      sleep: async (ms) => {
        sleeps.push(ms);
      },
    });
    const err = await caught(() => client.ips.add({ ip: '203.0.113.7' }));
    expect(err).toBeInstanceOf(NetworkError);
    expect(err.errorCode).toBe('ECONNREFUSED');
    expect(err.cause).toBeDefined();
    expect(sleeps).toHaveLength(2);
    await client.close();
  });

  it('close() closes the own agent and later calls fail', async () => {
    const client = make({ baseUrl: origin, allowHttp: true });
    await client.ips.list().catch(() => undefined);
    await client.close();
    await expect(client.ips.list()).rejects.toBeInstanceOf(ClientClosedError);
  });

  it('close() leaves a caller-owned dispatcher open', async () => {
    const agent = new MockAgent();
    agent.disableNetConnect();
    agent.get('https://api.example.test').intercept({ path: '/api/ips/', method: 'GET' }).reply(200, { ips: [] });
    const first = make({ dispatcher: agent });
    await first.close();
    const second = make({ dispatcher: agent });
    await expect(second.ips.list()).resolves.toEqual([]);
    await agent.close();
  });
});
