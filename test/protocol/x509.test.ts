import { X509Certificate, createPrivateKey } from 'node:crypto';
import * as tls from 'node:tls';
import type { AddressInfo } from 'node:net';
import { createSelfSignedCertificate } from '../../src/util/x509';

/** Completes one TLS handshake (optionally mutual) and echoes one line; resolves with it. */
async function handshake(
  server: { certPem: string; keyPem: string },
  client: { ca: string; servername?: string; cert?: { certPem: string; keyPem: string } },
  requireClientCert?: string,
): Promise<string> {
  const srv = tls.createServer(
    {
      cert: server.certPem,
      key: server.keyPem,
      ...(requireClientCert ? { requestCert: true, rejectUnauthorized: true, ca: [requireClientCert] } : {}),
    },
    (socket) => socket.end(`hello ${socket.authorized ? 'authorized' : 'anonymous'}`),
  );
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const { port } = srv.address() as AddressInfo;
  try {
    return await new Promise<string>((resolve, reject) => {
      const sock = tls.connect({
        host: '127.0.0.1',
        port,
        ca: [client.ca],
        servername: client.servername ?? 'localhost',
        ...(client.cert ? { cert: client.cert.certPem, key: client.cert.keyPem } : {}),
      });
      let data = '';
      sock.setEncoding('utf8');
      sock.on('data', (d: string) => (data += d));
      sock.on('end', () => resolve(data));
      sock.on('error', reject);
    });
  } finally {
    await new Promise<void>((resolve) => srv.close(() => resolve()));
  }
}

describe('createSelfSignedCertificate', () => {
  it('produces a certificate that crypto.X509Certificate parses with the requested fields', () => {
    const { certPem, keyPem, certDer } = createSelfSignedCertificate({
      commonName: 'proxyaccount test',
      dnsNames: ['localhost', 'emulator.test'],
      ipAddresses: ['127.0.0.1', '::1', '2001:db8::42'],
      validDays: 10,
    });
    const cert = new X509Certificate(certPem);
    expect(cert.raw.equals(certDer)).toBe(true);
    expect(cert.subject).toBe('CN=proxyaccount test');
    expect(cert.issuer).toBe(cert.subject);
    expect(cert.ca).toBe(true);
    expect(cert.subjectAltName).toBe('DNS:localhost, DNS:emulator.test, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1, IP Address:2001:DB8:0:0:0:0:0:42');
    expect(cert.keyUsage).toEqual(expect.arrayContaining(['1.3.6.1.5.5.7.3.1', '1.3.6.1.5.5.7.3.2']));
    expect(cert.checkHost('localhost')).toBe('localhost');
    expect(cert.checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(cert.checkIssued(cert)).toBe(true);
    expect(cert.verify(cert.publicKey)).toBe(true);
    expect(cert.checkPrivateKey(createPrivateKey(keyPem))).toBe(true);
    const from = Date.parse(cert.validFrom);
    const to = Date.parse(cert.validTo);
    expect(from).toBeLessThan(Date.now());
    expect(Math.round((to - Date.now()) / 86_400_000)).toBe(10);
    expect(cert.publicKey.asymmetricKeyDetails?.namedCurve).toBe('prime256v1');
    expect(/^[0-9A-F]+$/.test(cert.serialNumber)).toBe(true);
  });

  it('makes a fresh key and serial each time', () => {
    const a = new X509Certificate(createSelfSignedCertificate({ commonName: 'a' }).certPem);
    const b = new X509Certificate(createSelfSignedCertificate({ commonName: 'a' }).certPem);
    expect(a.serialNumber).not.toBe(b.serialNumber);
    expect(a.publicKey.export({ format: 'jwk' })).not.toEqual(b.publicKey.export({ format: 'jwk' }));
  });

  it('supports RSA-2048 keys', () => {
    const { certPem } = createSelfSignedCertificate({ commonName: 'rsa', dnsNames: ['localhost'], keyType: 'rsa-2048' });
    const cert = new X509Certificate(certPem);
    expect(cert.publicKey.asymmetricKeyType).toBe('rsa');
    expect(cert.verify(cert.publicKey)).toBe(true);
  });

  it('uses GeneralizedTime for dates from 2050 on', () => {
    const { certPem } = createSelfSignedCertificate({ commonName: 'long', validDays: 365 * 40 });
    expect(new Date(new X509Certificate(certPem).validTo).getUTCFullYear()).toBeGreaterThanOrEqual(2050);
  });

  it('serves TLS to a client that trusts it and checks the host name', async () => {
    const server = createSelfSignedCertificate({ commonName: 'localhost', dnsNames: ['localhost'] });
    await expect(handshake(server, { ca: server.certPem })).resolves.toBe('hello anonymous');
    const other = createSelfSignedCertificate({ commonName: 'other', dnsNames: ['other.test'] });
    await expect(handshake(other, { ca: other.certPem })).rejects.toThrow(/altnames|Hostname/i);
  });

  it('works for mutual TLS in both directions (the AutoMTLS shape)', async () => {
    const server = createSelfSignedCertificate({ commonName: 'server', dnsNames: ['localhost'] });
    const client = createSelfSignedCertificate({ commonName: 'client', dnsNames: ['localhost'], keyType: 'rsa-2048' });
    await expect(handshake(server, { ca: server.certPem, cert: client }, client.certPem)).resolves.toBe('hello authorized');
    const stranger = createSelfSignedCertificate({ commonName: 'stranger', dnsNames: ['localhost'] });
    // Under TLS 1.3 the client may finish its side before the server rejects it: either way no greeting.
    const refused = await handshake(server, { ca: server.certPem, cert: stranger }, client.certPem).catch((err: Error) => `error: ${err.message}`);
    expect(refused).not.toMatch(/hello/);
  });

  it('rejects bad options before generating anything', () => {
    expect(() => createSelfSignedCertificate({ commonName: '' })).toThrow(/commonName/);
    expect(() => createSelfSignedCertificate({ commonName: 'x', ipAddresses: ['300.1.1.1'] })).toThrow(/ipAddresses/);
    expect(() => createSelfSignedCertificate({ commonName: 'x', dnsNames: ['bad name'] })).toThrow(/dnsNames/);
    expect(() => createSelfSignedCertificate({ commonName: 'x', validDays: 0 })).toThrow(/validDays/);
  });
});
