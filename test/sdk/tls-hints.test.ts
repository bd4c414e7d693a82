// Hints for TLS failures must fit the situation: "(test servers only) set insecure: true" only
// when certificate checks are on and a certificate is at fault; a server that does not speak TLS
// at all gets a hint about base_url's scheme and port.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { NetworkError, ProxyAccountClient } from '../../src/sdk';
import { caught, harness, netError } from './harness';

let server: Server;
let url: string;
beforeAll(async () => {
  server = createServer((_req, res) => res.end('plain http'));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((r) => server.close(r));
});

describe('an https:// URL pointing at a plain-HTTP server', () => {
  it.each([false, true])('insecure: %s — says the address does not speak TLS, never suggests insecure', async (insecure) => {
    const client = new ProxyAccountClient({
      baseUrl: url,
      auth: { username: 'acme', password: 'acme-Password-1' },
      insecure,
      authFailureCache: false,
      maxRetries: 0,
    });
    try {
      const err = await caught(() => client.ips.list());
      expect(err).toBeInstanceOf(NetworkError);
      expect(err.message).toContain('does not speak TLS');
      expect(err.message).toContain("base_url's scheme and port");
      expect(err.message).not.toContain('insecure');
    } finally {
      await client.close();
    }
  });
});

describe('a certificate the client does not trust', () => {
  it('with checks on, suggests caCert and, for test servers, insecure', async () => {
    const h = harness();
    h.reply(netError('DEPTH_ZERO_SELF_SIGNED_CERT', 'self-signed certificate'));
    const err = await caught(() => h.client.ips.list());
    expect(err.message).toContain('caCert');
    expect(err.message).toContain('(test servers only) set insecure: true');
    await h.done();
  });

  it('a wrong-version answer reported by code alone is read as "not TLS" too', async () => {
    const h = harness();
    h.reply(netError('ERR_SSL_WRONG_VERSION_NUMBER', 'ssl handshake failure'));
    const err = await caught(() => h.client.ips.list());
    expect(err.message).toContain('does not speak TLS');
    expect(err.message).not.toContain('insecure');
    await h.done();
  });
});

describe('caCert', () => {
  it('trusts a server with that certificate on each of several connections', async () => {
    const { createServer: createHttpsServer } = await import('node:https');
    const { createSelfSignedCertificate } = await import('../../src/util/x509');
    const cert = createSelfSignedCertificate({ commonName: 'localhost', dnsNames: ['localhost'] });
    const connections = new Set<unknown>();
    const tlsServer = createHttpsServer({ key: cert.keyPem, cert: cert.certPem }, (_req, res) => {
      res.setHeader('content-type', 'application/json');
      // Answered late, so parallel calls need connections of their own.
      setTimeout(() => res.end('{"ips":[]}'), 50);
    });
    tlsServer.on('secureConnection', (s) => connections.add(s));
    await new Promise<void>((r) => tlsServer.listen(0, '127.0.0.1', r));
    const client = new ProxyAccountClient({
      baseUrl: `https://localhost:${(tlsServer.address() as AddressInfo).port}`,
      auth: { username: 'acme', password: 'acme-Password-1' },
      caCert: cert.certPem,
      authFailureCache: false,
      maxRetries: 0,
    });
    try {
      // The first call proves the credentials (one at a time until then); the next three run together.
      expect(await client.ips.list()).toEqual([]);
      expect(await Promise.all([client.ips.list(), client.ips.list(), client.ips.list()])).toEqual([[], [], []]);
      expect(connections.size).toBeGreaterThanOrEqual(3);
    } finally {
      await client.close();
      tlsServer.closeAllConnections();
      await new Promise((r) => tlsServer.close(r));
    }
  });

  it('a PEM that does not parse fails the request with a NetworkError, not the constructor', async () => {
    const client = new ProxyAccountClient({
      baseUrl: url,
      auth: { username: 'acme', password: 'acme-Password-1' },
      caCert: '-----BEGIN CERTIFICATE-----\nnot a certificate\n-----END CERTIFICATE-----\n',
      authFailureCache: false,
      maxRetries: 0,
    });
    try {
      const err = await caught(() => client.ips.list());
      expect(err).toBeInstanceOf(NetworkError);
    } finally {
      await client.close();
    }
  });
});
