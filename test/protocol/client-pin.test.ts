// AutoMTLS's client side: only the certificate Terraform put in PLUGIN_CLIENT_CERT, presented
// with its key and within its validity, may talk to the provider. Checked on the pin alone and on
// a real TLS server from listenUnary, with node:tls clients presenting each kind of certificate.
import { X509Certificate } from 'node:crypto';
import * as tls from 'node:tls';
import { clientCertificateProblem, pinnedCertificates } from '../../src/protocol/client-pin';
import { listenUnary, type UnaryServer } from '../../src/protocol/h2-server';
import { clientCertificate } from './helpers';

const terraform = clientCertificate();
const stranger = clientCertificate();
const peer = (pem: string) => new X509Certificate(pem);

describe('pinnedCertificates', () => {
  it('reads every certificate of the PEM text, as DER', () => {
    const pins = pinnedCertificates(`${terraform.certPem}\n${stranger.certPem}`);
    expect(pins).toEqual([Buffer.from(terraform.certDer), Buffer.from(stranger.certDer)]);
  });

  it('refuses text without a certificate', () => {
    expect(() => pinnedCertificates('-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n')).toThrow('PLUGIN_CLIENT_CERT holds no PEM certificate');
  });
});

describe('clientCertificateProblem', () => {
  const pins = pinnedCertificates(terraform.certPem);
  it('accepts the pinned certificate within its validity', () => {
    expect(clientCertificateProblem(peer(terraform.certPem), pins)).toBeUndefined();
  });
  it('refuses no certificate, another certificate, and the pinned one outside its validity', () => {
    expect(clientCertificateProblem(undefined, pins)).toBe('no client certificate');
    expect(clientCertificateProblem(peer(stranger.certPem), pins)).toBe('not the certificate from PLUGIN_CLIENT_CERT');
    const cert = peer(terraform.certPem);
    expect(clientCertificateProblem(cert, pins, Date.parse(cert.validTo) + 1000)).toMatch(/^outside its validity/);
    expect(clientCertificateProblem(cert, pins, Date.parse(cert.validFrom) - 1000)).toMatch(/^outside its validity/);
  });
});

describe('the TLS server', () => {
  const server = clientCertificate();
  let running: UnaryServer;
  const refused: string[] = [];
  beforeAll(async () => {
    running = await listenUnary({
      routes: new Map(),
      tls: { keyPem: server.keyPem, certPem: server.certPem, clientCertPem: terraform.certPem },
      maxMessageBytes: 1024,
      onInternalError: () => undefined,
      onRefusedClient: (reason) => refused.push(reason),
    });
  });
  afterAll(() => running.destroy());

  /** Connects, sends the HTTP/2 preface, and resolves with whether the server answered (its SETTINGS) before closing. */
  function tryClient(client?: { certPem: string; keyPem: string }): Promise<boolean> {
    return new Promise((resolve) => {
      const socket = tls.connect({
        port: running.port,
        host: '127.0.0.1',
        servername: 'localhost',
        ca: server.certPem,
        ALPNProtocols: ['h2'],
        ...(client === undefined ? {} : { cert: client.certPem, key: client.keyPem }),
      });
      let answered = false;
      socket.on('secureConnect', () => socket.write('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'));
      socket.on('data', () => {
        answered = true;
        socket.end();
      });
      socket.on('error', () => undefined);
      socket.on('close', () => resolve(answered));
    });
  }

  it('serves the client with the pinned certificate', async () => {
    expect(await tryClient(terraform)).toBe(true);
  });

  it('closes, unanswered, on a client with another certificate or none, and says why', async () => {
    refused.length = 0;
    expect(await tryClient(stranger)).toBe(false);
    expect(await tryClient()).toBe(false);
    expect(refused).toEqual(['not the certificate from PLUGIN_CLIENT_CERT', 'no client certificate']);
  });
});
