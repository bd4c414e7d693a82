// The HTTPS server's certificate: the one given with --tls-cert/--tls-key, or a self-signed one.
// With a state file the self-signed certificate and its key are kept next to it (owner-only), so a
// restarted emulator serves the same certificate and clients that trust it keep working. The
// certificate clients should trust is written to --ca-out, or to a temporary file removed on
// shutdown.
import { X509Certificate, createPrivateKey, randomBytes } from 'node:crypto';
import { chmodSync, closeSync, constants, openSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { basename, dirname, join } from 'node:path';
import { privateDirProblemSync } from '../util/private-dir';
import { createSelfSignedCertificate } from '../util/x509';
import { createTempDir } from './temp-dir';

/** A certificate given on the command line. */
export interface GivenCertificate {
  readonly certPem: string;
  readonly keyPem: string;
  /** The certificate file, reported as `caFile` unless `caOutPath` is given. */
  readonly certFile: string;
}

/** Where the certificate comes from and goes to. */
export interface TlsOptions {
  /** Address the server listens on; added to a self-signed certificate's names. */
  readonly host: string;
  /** A certificate to serve instead of a self-signed one. */
  readonly given?: GivenCertificate;
  /** File keeping the self-signed key and certificate across restarts (written 0600). */
  readonly keyStorePath?: string;
  /** Stable path to write the certificate clients should trust to (left in place on shutdown). */
  readonly caOutPath?: string;
  /** Receives a line when a kept certificate is replaced. */
  readonly log: (line: string) => void;
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
/** A kept certificate this close to its end is replaced at start-up. */
const RENEW_BEFORE_MS = 24 * 3600 * 1000;

/** Prepares the certificate to serve and the file clients should trust. */
export function prepareTls(options: TlsOptions): TlsMaterial {
  const pair = options.given ?? selfSigned(options);
  if (options.caOutPath !== undefined) {
    writeAtomically(options.caOutPath, pair.certPem, 0o644, 'CA certificate');
    return { certPem: pair.certPem, keyPem: pair.keyPem, caFile: options.caOutPath, cleanup: () => undefined };
  }
  if (options.given) return { ...options.given, caFile: options.given.certFile, cleanup: () => undefined };
  const dir = createTempDir();
  const caFile = join(dir, 'ca.pem');
  writeFileSync(caFile, pair.certPem, { mode: 0o644 });
  return { certPem: pair.certPem, keyPem: pair.keyPem, caFile, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Names a self-signed certificate must hold: localhost, 127.0.0.1, ::1 and the listen address. */
function certificateNames(host: string): { dnsNames: string[]; ipAddresses: string[] } {
  const dnsNames = ['localhost'];
  const ipAddresses = ['127.0.0.1', '::1'];
  if (!WILDCARD_HOSTS.has(host)) {
    const list = isIP(host) ? ipAddresses : dnsNames;
    if (!list.includes(host)) list.push(host);
  }
  return { dnsNames, ipAddresses };
}

function selfSigned(options: TlsOptions): { certPem: string; keyPem: string } {
  const names = certificateNames(options.host);
  const store = options.keyStorePath;
  if (store === undefined) {
    return createSelfSignedCertificate({ commonName: 'proxyaccount emulator', ...names, validDays: 30 });
  }
  // A key kept where someone else could have written it would let them read the emulator's traffic.
  const unsafe = privateDirProblem(store);
  if (unsafe !== undefined) {
    options.log(`emulator: not keeping the certificate key beside the state: ${unsafe}; made a new certificate for this run`);
    return createSelfSignedCertificate({ commonName: 'proxyaccount emulator', ...names, validDays: 30 });
  }
  const kept = readKept(store, names);
  if (kept.ok) {
    tightenMode(store);
    return kept;
  }
  if (kept.why !== 'absent') options.log(`emulator: ${kept.why}; made a new certificate (clients must trust the new one)`);
  // Kept certificates last a year: a shell or CI secret that trusts one should not need renewing monthly.
  const fresh = createSelfSignedCertificate({ commonName: 'proxyaccount emulator', ...names, validDays: 365 });
  writeAtomically(store, `${fresh.keyPem.trim()}\n${fresh.certPem.trim()}\n`, 0o600, 'certificate key');
  return fresh;
}

type Kept = { ok: true; certPem: string; keyPem: string } | { ok: false; why: string };

/** Reads a kept key and certificate; says why it cannot be used (or 'absent'). */
function readKept(path: string, names: { dnsNames: string[]; ipAddresses: string[] }): Kept {
  let text: string;
  try {
    // Never through a link: a planted one would hand the emulator someone else's key.
    const fd = openSync(path, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
    try {
      text = readFileSync(fd, 'utf8');
    } finally {
      closeSync(fd);
    }
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return { ok: false, why: code === 'ELOOP' ? `${path} is a symbolic link` : 'absent' };
  }
  const keyPem = /-----BEGIN PRIVATE KEY-----[\s\S]+?-----END PRIVATE KEY-----/.exec(text)?.[0];
  const certPem = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/.exec(text)?.[0];
  if (keyPem === undefined || certPem === undefined) return { ok: false, why: `${path} holds no key and certificate` };
  try {
    const cert = new X509Certificate(certPem);
    if (!cert.checkPrivateKey(createPrivateKey(keyPem))) return { ok: false, why: `the key in ${path} does not match its certificate` };
    if (Date.parse(cert.validTo) - Date.now() < RENEW_BEFORE_MS) return { ok: false, why: `the certificate in ${path} expires ${cert.validTo}` };
    const missing = [...names.dnsNames.filter((n) => cert.checkHost(n) === undefined), ...names.ipAddresses.filter((ip) => cert.checkIP(ip) === undefined)];
    if (missing.length > 0) return { ok: false, why: `the certificate in ${path} does not name ${missing.join(', ')}` };
  } catch (err) {
    return { ok: false, why: `${path} is not readable as PEM (${(err as Error).message})` };
  }
  return { ok: true, certPem: `${certPem}\n`, keyPem: `${keyPem}\n` };
}

/**
 * Writes through a temporary file and a rename, so a reader never sees half a file. The temporary
 * file has an unguessable name and is created with O_EXCL | O_NOFOLLOW: a link planted beside the
 * file is never written through (the rename replaces a link at `path` itself, not its target).
 */
function writeAtomically(path: string, content: string, mode: number, what: string): void {
  const temp = join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    const fd = openSync(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0), mode);
    try {
      writeFileSync(fd, content);
    } finally {
      closeSync(fd);
    }
    chmodSync(temp, mode);
    renameSync(temp, path);
  } catch (err) {
    rmSync(temp, { force: true });
    throw new Error(`cannot write ${what} to ${path}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
}

function privateDirProblem(file: string): string | undefined {
  return privateDirProblemSync(dirname(file));
}

function tightenMode(path: string): void {
  const mode = statSync(path).mode;
  if ((mode & 0o077) !== 0) chmodSync(path, mode & 0o700);
}
