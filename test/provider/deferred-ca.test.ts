// NODE_EXTRA_CA_CERTS deferred by the executable's shell line (scripts/bundle-provider.js): the
// variable comes back under its own name, and the trust built for the API client is Node's bundled
// roots plus the file's certificates, or the roots alone (with the reason) when the file adds none.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { rootCertificates } from 'node:tls';
import { DEFERRED_EXTRA_CA_ENV, deferredTrust, takeDeferredExtraCa } from '../../src/provider/deferred-ca';
import { createSelfSignedCertificate } from '../../src/util/x509';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'proxyaccount-deferred-ca-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('takeDeferredExtraCa', () => {
  it('puts NODE_EXTRA_CA_CERTS back and returns the file', () => {
    const env: NodeJS.ProcessEnv = { [DEFERRED_EXTRA_CA_ENV]: '/etc/corp-ca.pem', PATH: '/bin' };
    expect(takeDeferredExtraCa(env)).toBe('/etc/corp-ca.pem');
    expect(env).toEqual({ NODE_EXTRA_CA_CERTS: '/etc/corp-ca.pem', PATH: '/bin' });
  });

  it('returns undefined and changes nothing when Node loaded the certificates itself', () => {
    const env: NodeJS.ProcessEnv = { NODE_EXTRA_CA_CERTS: '/etc/corp-ca.pem' };
    expect(takeDeferredExtraCa(env)).toBeUndefined();
    expect(env).toEqual({ NODE_EXTRA_CA_CERTS: '/etc/corp-ca.pem' });
  });

  it('treats an empty deferred value as none, as Node treats an empty NODE_EXTRA_CA_CERTS', () => {
    const env: NodeJS.ProcessEnv = { [DEFERRED_EXTRA_CA_ENV]: '' };
    expect(takeDeferredExtraCa(env)).toBeUndefined();
    expect(env).toEqual({});
  });
});

describe('deferredTrust', () => {
  it("is Node's bundled roots followed by every certificate of the file", () => {
    const a = createSelfSignedCertificate({ commonName: 'corp-ca-a', dnsNames: ['a.example'] }).certPem;
    const b = createSelfSignedCertificate({ commonName: 'corp-ca-b', dnsNames: ['b.example'] }).certPem;
    const file = path.join(dir, 'extra.pem');
    fs.writeFileSync(file, `# corporate bundle\n${a}\nsome text between\n${b}`);
    const trust = deferredTrust(file);
    if (!('caCert' in trust)) throw new Error(`expected a trust, got: ${trust.ignored}`);
    const blocks = trust.caCert.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) ?? [];
    expect(blocks).toHaveLength(rootCertificates.length + 2);
    expect(blocks.slice(0, rootCertificates.length)).toEqual(rootCertificates.map((c) => c.trim()));
    expect(blocks.slice(-2)).toEqual([a.trim(), b.trim()]);
    expect(trust.caCert).not.toContain('some text between');
  });

  it('says why a missing file adds nothing', () => {
    expect(deferredTrust(path.join(dir, 'missing.pem'))).toEqual({ ignored: 'cannot be read (ENOENT)' });
  });

  it('says why a file without a certificate adds nothing', () => {
    const file = path.join(dir, 'key.pem');
    fs.writeFileSync(file, '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n');
    expect(deferredTrust(file)).toEqual({ ignored: 'holds no PEM certificate' });
  });
});
