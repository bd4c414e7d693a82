// The HTTPS server's certificate: the one given with --tls-cert/--tls-key, or a fresh self-signed
// one whose PEM is written to a temporary file for clients to trust (removed on shutdown).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSelfSignedCertificate } from '../util/x509';

/** A certificate given on the command line. */
export interface GivenCertificate {
  readonly certPem: string;
  readonly keyPem: string;
  /** The certificate file, reported as `caFile`. */
  readonly certFile: string;
}

/** The material the HTTPS server needs. */
export interface TlsMaterial {
  readonly certPem: string;
  readonly keyPem: string;
  /** The PEM file clients should trust. */
  readonly caFile: string;
  /** Removes the temporary file, if one was written. */
  cleanup(): void;
}

const WILDCARD_HOSTS = new Set(['0.0.0.0', '::', '']);

/** Uses the given certificate, or makes a self-signed one valid for localhost, 127.0.0.1, ::1 and `host`. */
export function prepareTls(host: string, given: GivenCertificate | undefined): TlsMaterial {
  if (given) return { ...given, caFile: given.certFile, cleanup: () => undefined };
  const dnsNames = ['localhost'];
  const ipAddresses = ['127.0.0.1', '::1'];
  if (!WILDCARD_HOSTS.has(host)) {
    const list = isIP(host) ? ipAddresses : dnsNames;
    if (!list.includes(host)) list.push(host);
  }
  const cert = createSelfSignedCertificate({ commonName: 'proxyaccount emulator', dnsNames, ipAddresses, validDays: 30 });
  const dir = mkdtempSync(join(tmpdir(), 'proxyaccount-emulator-'));
  const caFile = join(dir, 'ca.pem');
  writeFileSync(caFile, cert.certPem, { mode: 0o644 });
  return {
    certPem: cert.certPem,
    keyPem: cert.keyPem,
    caFile,
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}
