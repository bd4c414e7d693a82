// A connection reset before the TLS handshake completed sent nothing: no request and no credential
// left the client. Such a failure is retried like a refused connection (writes included), says so
// in its facts, and never counts as an unanswered probe; a reset after the request went out still
// leaves the outcome unknown.
import { createServer as createNetServer, type AddressInfo, type Server as NetServer } from 'node:net';
import { createServer as createTlsServer, type Server as TlsServer } from 'node:tls';
import { NetworkError, ProxyAccountClient } from '../../src/sdk';
import { createSelfSignedCertificate } from '../../src/util/x509';
import { caught } from './harness';

const cert = createSelfSignedCertificate({ commonName: 'localhost', ipAddresses: ['127.0.0.1'] });

/** Listens on loopback; resolves with the server and its https:// URL. */
async function listen<S extends NetServer | TlsServer>(server: S): Promise<{ server: S; url: string }> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, url: `https://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

function client(url: string, maxRetries: number): ProxyAccountClient {
  return new ProxyAccountClient({
    baseUrl: url,
    caCert: cert.certPem,
    auth: { username: 'acme', password: 'acme-Password-1' },
    authFailureCache: false,
    maxRetries,
    sleep: async () => {},
  });
}

describe('a reset during the TLS handshake', () => {
  let server: NetServer;
  let url: string;
  let connections = 0;
  beforeAll(async () => {
    // Accepts the TCP connection and resets it at once: the client's TLS hello goes unanswered.
    ({ server, url } = await listen(
      createNetServer((socket) => {
        connections += 1;
        socket.resetAndDestroy();
      }),
    ));
  });
  afterAll(async () => {
    await new Promise((r) => server.close(r));
  });

  it('is not sent: a write is retried, and its error says nothing reached the server', async () => {
    connections = 0;
    const c = client(url, 2);
    try {
      const err = await caught(() => c.ips.add({ ip: '203.0.113.7' }));
      expect(err).toBeInstanceOf(NetworkError);
      expect(err.mayHaveReachedServer).toBe(false);
      expect(err.outcomeUnknown).toBe(false);
      expect(err.attempts).toBe(3);
      expect(connections).toBe(3);
      // No probe went out, so none went unanswered.
      expect(c.credentialState).toBe('unverified');
      // And the client still sends: two such resets do not lock it.
      const again = await caught(() => c.ips.add({ ip: '203.0.113.7' }));
      expect(again).toBeInstanceOf(NetworkError);
      expect(connections).toBe(6);
    } finally {
      await c.close();
    }
  });
});

describe('a reset after the request was sent', () => {
  let server: TlsServer;
  let url: string;
  beforeAll(async () => {
    // Completes the handshake, reads the request, then drops the connection: the request reached the server.
    ({ server, url } = await listen(
      createTlsServer({ key: cert.keyPem, cert: cert.certPem }, (socket) => {
        socket.once('data', () => socket.destroy());
      }),
    ));
  });
  afterAll(async () => {
    await new Promise((r) => server.close(r));
  });

  it('leaves the outcome unknown, and the write is not retried', async () => {
    const c = client(url, 2);
    try {
      const err = await caught(() => c.ips.add({ ip: '203.0.113.7' }));
      expect(err).toBeInstanceOf(NetworkError);
      expect(err.mayHaveReachedServer).toBe(true);
      expect(err.outcomeUnknown).toBe(true);
      expect(err.attempts).toBe(1);
      expect(c.credentialState).toBe('unverified');
    } finally {
      await c.close();
    }
  });
});
