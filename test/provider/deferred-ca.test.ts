// Node's certificates deferred by the executable's shell line (scripts/bundle-provider.js):
// NODE_EXTRA_CA_CERTS comes back under its own name, and the trust built for the API client is
// Node's bundled roots plus the file's certificates, or the roots alone (with the reason) when the
// file adds none; the roots are given explicitly whenever Node's own default store was left empty.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { rootCertificates } from 'node:tls';
import { DEFERRED_EXTRA_CA_ENV, DEFERRED_ROOTS_ENV, deferredTrust, takeDeferredCa } from '../../src/provider/deferred-ca';
import { createSelfSignedCertificate } from '../../src/util/x509';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'proxyaccount-deferred-ca-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const ROOTS = rootCertificates.join('\n');

describe('takeDeferredCa', () => {
  it('puts NODE_EXTRA_CA_CERTS back and returns the file', () => {
    const env: NodeJS.ProcessEnv = { [DEFERRED_EXTRA_CA_ENV]: '/etc/corp-ca.pem', PATH: '/bin' };
    expect(takeDeferredCa(env)).toEqual({ extraCaFile: '/etc/corp-ca.pem', bundledRoots: false });
    expect(env).toEqual({ NODE_EXTRA_CA_CERTS: '/etc/corp-ca.pem', PATH: '/bin' });
  });

  it('says when Node was left with an empty default store, and takes the marker out', () => {
    const env: NodeJS.ProcessEnv = { [DEFERRED_ROOTS_ENV]: '1', [DEFERRED_EXTRA_CA_ENV]: '/etc/corp-ca.pem' };
    expect(takeDeferredCa(env)).toEqual({ extraCaFile: '/etc/corp-ca.pem', bundledRoots: true });
    expect(env).toEqual({ NODE_EXTRA_CA_CERTS: '/etc/corp-ca.pem' });
    const rootsOnly: NodeJS.ProcessEnv = { [DEFERRED_ROOTS_ENV]: '1' };
    expect(takeDeferredCa(rootsOnly)).toEqual({ bundledRoots: true });
    expect(rootsOnly).toEqual({});
  });

  it('returns undefined and changes nothing when Node loaded its certificates itself', () => {
    const env: NodeJS.ProcessEnv = { NODE_EXTRA_CA_CERTS: '/etc/corp-ca.pem' };
    expect(takeDeferredCa(env)).toBeUndefined();
    expect(env).toEqual({ NODE_EXTRA_CA_CERTS: '/etc/corp-ca.pem' });
  });

  it('treats an empty deferred value as none, as Node treats an empty NODE_EXTRA_CA_CERTS', () => {
    const env: NodeJS.ProcessEnv = { [DEFERRED_EXTRA_CA_ENV]: '' };
    expect(takeDeferredCa(env)).toBeUndefined();
    expect(env).toEqual({});
    const withRoots: NodeJS.ProcessEnv = { [DEFERRED_EXTRA_CA_ENV]: '', [DEFERRED_ROOTS_ENV]: '1' };
    expect(takeDeferredCa(withRoots)).toEqual({ bundledRoots: true });
  });
});

describe('deferredTrust', () => {
  it("is Node's bundled roots followed by every certificate of the file", () => {
    const a = createSelfSignedCertificate({ commonName: 'corp-ca-a', dnsNames: ['a.example'] }).certPem;
    const b = createSelfSignedCertificate({ commonName: 'corp-ca-b', dnsNames: ['b.example'] }).certPem;
    const file = path.join(dir, 'extra.pem');
    fs.writeFileSync(file, `# corporate bundle\n${a}\nsome text between\n${b}`);
    for (const bundledRoots of [false, true]) {
      const trust = deferredTrust({ extraCaFile: file, bundledRoots });
      expect(trust.ignored).toBeUndefined();
      const blocks = trust.caCert?.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) ?? [];
      expect(blocks).toHaveLength(rootCertificates.length + 2);
      expect(blocks.slice(0, rootCertificates.length)).toEqual(rootCertificates.map((c) => c.trim()));
      expect(blocks.slice(-2)).toEqual([a.trim(), b.trim()]);
      expect(trust.caCert).not.toContain('some text between');
    }
  });

  it("is Node's bundled roots alone when only the default store was deferred", () => {
    expect(deferredTrust({ bundledRoots: true })).toEqual({ caCert: ROOTS });
    expect(rootCertificates.length).toBeGreaterThan(100);
  });

  it('says why a missing file adds nothing, and keeps the bundled roots in force', () => {
    const missing = path.join(dir, 'missing.pem');
    expect(deferredTrust({ extraCaFile: missing, bundledRoots: false })).toEqual({ ignored: 'cannot be read (ENOENT)' });
    // Node's default store is empty here: without the roots nothing would be trusted at all.
    expect(deferredTrust({ extraCaFile: missing, bundledRoots: true })).toEqual({ caCert: ROOTS, ignored: 'cannot be read (ENOENT)' });
  });

  it('says why a file without a certificate adds nothing', () => {
    const file = path.join(dir, 'key.pem');
    fs.writeFileSync(file, '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n');
    expect(deferredTrust({ extraCaFile: file, bundledRoots: false })).toEqual({ ignored: 'holds no PEM certificate' });
    expect(deferredTrust({ extraCaFile: file, bundledRoots: true })).toEqual({ caCert: ROOTS, ignored: 'holds no PEM certificate' });
  });
});
