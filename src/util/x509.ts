// Self-signed X.509 certificates from node:crypto alone: a minimal DER writer plus crypto.sign.
// Used for the provider's per-process AutoMTLS certificate (so it must satisfy Go's crypto/x509)
// and by the emulator; an X.509 library would cost start-up time on every Terraform command.
import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { isIPv4, isIPv6 } from 'node:net';

/** Options of {@link createSelfSignedCertificate}. */
export interface SelfSignedCertificateOptions {
  /** Subject and issuer common name. */
  readonly commonName: string;
  /** DNS names for the subjectAltName extension. @default [] */
  readonly dnsNames?: readonly string[];
  /** IPv4 or IPv6 addresses for the subjectAltName extension. @default [] */
  readonly ipAddresses?: readonly string[];
  /** Days of validity counted from now (notBefore is set five minutes in the past). @default 365 */
  readonly validDays?: number;
  /** Key algorithm; ECDSA P-256 takes about a millisecond, RSA-2048 tens of milliseconds. @default 'ec-p256' */
  readonly keyType?: 'ec-p256' | 'rsa-2048';
}

/** A certificate with its private key. */
export interface SelfSignedCertificate {
  /** The certificate, PEM-encoded. */
  readonly certPem: string;
  /** The private key, PKCS#8 PEM. */
  readonly keyPem: string;
  /** The certificate, DER-encoded (what go-plugin's handshake line carries in base64). */
  readonly certDer: Buffer;
}

// ---- DER writer (only what a certificate needs) ----

function derLength(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n]);
  const bytes: number[] = [];
  for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.unshift(v & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

function tlv(tag: number, content: Buffer): Buffer {
  return Buffer.concat([Buffer.from([tag]), derLength(content.length), content]);
}

const seq = (...items: Buffer[]): Buffer => tlv(0x30, Buffer.concat(items));
const set = (...items: Buffer[]): Buffer => tlv(0x31, Buffer.concat(items));
const octets = (b: Buffer): Buffer => tlv(0x04, b);
const bitString = (b: Buffer, unusedBits = 0): Buffer => tlv(0x03, Buffer.concat([Buffer.from([unusedBits]), b]));
const explicit = (n: number, inner: Buffer): Buffer => tlv(0xa0 | n, inner);
const DER_TRUE = Buffer.from([0x01, 0x01, 0xff]);
const DER_NULL = Buffer.from([0x05, 0x00]);

/** A non-negative INTEGER from big-endian magnitude bytes (minimal two's complement form). */
function unsignedInteger(magnitude: Buffer): Buffer {
  let start = 0;
  while (start < magnitude.length - 1 && magnitude[start] === 0) start++;
  let body = magnitude.subarray(start);
  if (body[0]! & 0x80) body = Buffer.concat([Buffer.from([0]), body]);
  return tlv(0x02, body);
}

function oid(dotted: string): Buffer {
  const arcs = dotted.split('.').map(Number);
  const out: number[] = [40 * arcs[0]! + arcs[1]!];
  for (const arc of arcs.slice(2)) {
    const chunk: number[] = [arc & 0x7f];
    for (let v = Math.floor(arc / 128); v > 0; v = Math.floor(v / 128)) chunk.unshift(0x80 | (v & 0x7f));
    out.push(...chunk);
  }
  return tlv(0x06, Buffer.from(out));
}

/** UTCTime until 2049, GeneralizedTime after, as RFC 5280 section 4.1.2.5 requires. */
function derTime(d: Date): Buffer {
  const iso = d.toISOString(); // YYYY-MM-DDTHH:MM:SS.sssZ
  const digits = `${iso.slice(0, 19).replace(/[-:T]/g, '')}Z`;
  const year = d.getUTCFullYear();
  return year >= 1950 && year < 2050 ? tlv(0x17, Buffer.from(digits.slice(2), 'ascii')) : tlv(0x18, Buffer.from(digits, 'ascii'));
}

// ---- certificate pieces ----

const OID = {
  commonName: '2.5.4.3',
  ecdsaWithSha256: '1.2.840.10045.4.3.2',
  sha256WithRsa: '1.2.840.113549.1.1.11',
  subjectKeyIdentifier: '2.5.29.14',
  keyUsage: '2.5.29.15',
  subjectAltName: '2.5.29.17',
  basicConstraints: '2.5.29.19',
  extKeyUsage: '2.5.29.37',
  serverAuth: '1.3.6.1.5.5.7.3.1',
  clientAuth: '1.3.6.1.5.5.7.3.2',
} as const;

function extension(id: string, critical: boolean, value: Buffer): Buffer {
  return critical ? seq(oid(id), DER_TRUE, octets(value)) : seq(oid(id), octets(value));
}

function ipv6Bytes(address: string): Buffer {
  let text = address;
  const tail: number[] = [];
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4) {
    tail.push(...v4[1]!.split('.').map(Number));
    text = `${text.slice(0, -v4[1]!.length)}0:0`;
  }
  const [head, rest] = text.includes('::') ? text.split('::') : [text, undefined];
  const groups = (s: string | undefined): number[] => (s ? s.split(':').map((g) => parseInt(g, 16)) : []);
  const left = groups(head);
  const right = groups(rest);
  const middle = rest === undefined ? [] : new Array<number>(8 - left.length - right.length).fill(0);
  const all = [...left, ...middle, ...right];
  const out = Buffer.alloc(16);
  for (const [i, g] of all.entries()) out.writeUInt16BE(g, i * 2);
  if (tail.length) Buffer.from(tail).copy(out, 12);
  return out;
}

function ipBytes(address: string): Buffer {
  if (isIPv4(address)) return Buffer.from(address.split('.').map(Number));
  if (isIPv6(address)) return ipv6Bytes(address.replace(/%.*$/, ''));
  throw new TypeError(`ipAddresses: "${address}" is not an IPv4 or IPv6 address`);
}

function checkOptions(opts: SelfSignedCertificateOptions): void {
  if (typeof opts.commonName !== 'string' || opts.commonName.length === 0) {
    throw new TypeError('commonName must be a non-empty string');
  }
  for (const name of opts.dnsNames ?? []) {
    if (!/^(\*\.)?[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*\.?$/.test(name)) {
      throw new TypeError(`dnsNames: "${name}" is not a DNS name`);
    }
  }
  const days = opts.validDays ?? 365;
  if (!Number.isFinite(days) || days <= 0) throw new TypeError(`validDays must be a positive number, got ${days}`);
  if (opts.keyType !== undefined && opts.keyType !== 'ec-p256' && opts.keyType !== 'rsa-2048') {
    throw new TypeError(`keyType must be 'ec-p256' or 'rsa-2048', got ${String(opts.keyType)}`);
  }
}

/**
 * Creates a fresh key pair and a self-signed CA certificate for it that both Node's TLS and Go's
 * crypto/x509 accept as a server and as a client certificate: basicConstraints CA:TRUE,
 * keyUsage digitalSignature+keyEncipherment+keyCertSign, extKeyUsage serverAuth+clientAuth,
 * subjectAltName, random positive serial, notBefore five minutes in the past.
 */
export function createSelfSignedCertificate(opts: SelfSignedCertificateOptions): SelfSignedCertificate {
  checkOptions(opts);
  const keyType = opts.keyType ?? 'ec-p256';
  const { publicKey, privateKey } =
    keyType === 'ec-p256' ? generateKeyPairSync('ec', { namedCurve: 'prime256v1' }) : generateKeyPairSync('rsa', { modulusLength: 2048 });
  const sigAlg = keyType === 'ec-p256' ? seq(oid(OID.ecdsaWithSha256)) : seq(oid(OID.sha256WithRsa), DER_NULL);

  const spki = publicKey.export({ type: 'spki', format: 'der' });
  const name = seq(set(seq(oid(OID.commonName), tlv(0x0c, Buffer.from(opts.commonName, 'utf8')))));
  const now = Date.now();
  const notBefore = new Date(now - 5 * 60_000);
  const notAfter = new Date(now + (opts.validDays ?? 365) * 86_400_000);
  const serial = randomBytes(16);
  serial[0] = (serial[0]! & 0x7f) | 0x40; // positive and full length, as Go insists on positive serials

  const altNames = [...(opts.dnsNames ?? []).map((d) => tlv(0x82, Buffer.from(d, 'ascii'))), ...(opts.ipAddresses ?? []).map((ip) => tlv(0x87, ipBytes(ip)))];
  const extensions = [
    extension(OID.basicConstraints, true, seq(DER_TRUE)),
    // digitalSignature (bit 0), keyEncipherment (bit 2), keyCertSign (bit 5): 1010 0100, 2 unused bits.
    extension(OID.keyUsage, true, bitString(Buffer.from([0xa4]), 2)),
    extension(OID.extKeyUsage, false, seq(oid(OID.serverAuth), oid(OID.clientAuth))),
    extension(OID.subjectKeyIdentifier, false, octets(subjectKeyId(spki))),
  ];
  if (altNames.length > 0) extensions.push(extension(OID.subjectAltName, false, seq(...altNames)));

  const tbs = seq(
    explicit(0, tlv(0x02, Buffer.from([2]))), // v3
    unsignedInteger(serial),
    sigAlg,
    name,
    seq(derTime(notBefore), derTime(notAfter)),
    name,
    spki,
    explicit(3, seq(...extensions)),
  );
  const signature = signTbs(tbs, privateKey);
  const certDer = seq(tbs, sigAlg, bitString(signature));
  const certPem = toPem('CERTIFICATE', certDer);
  const keyPem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  return { certPem, keyPem, certDer };
}

/** RFC 5280 method 1: SHA-1 of the subjectPublicKey BIT STRING contents. */
function subjectKeyId(spki: Buffer): Buffer {
  // spki = SEQUENCE { AlgorithmIdentifier, BIT STRING }; the key bits are the last TLV.
  const outer = readTlv(spki, 0);
  const alg = readTlv(spki, outer.contentStart);
  const bits = readTlv(spki, alg.end);
  return createHash('sha1')
    .update(spki.subarray(bits.contentStart + 1, bits.end))
    .digest();
}

function readTlv(buf: Buffer, at: number): { contentStart: number; end: number } {
  let len = buf[at + 1]!;
  let contentStart = at + 2;
  if (len & 0x80) {
    const n = len & 0x7f;
    len = 0;
    for (let i = 0; i < n; i++) len = len * 256 + buf[at + 2 + i]!;
    contentStart += n;
  }
  return { contentStart, end: contentStart + len };
}

function signTbs(tbs: Buffer, key: KeyObject): Buffer {
  // ECDSA signatures come out DER-encoded (dsaEncoding 'der'), which is what X.509 carries.
  return sign('sha256', tbs, key);
}

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----([A-Za-z0-9+/=\s]+)-----END CERTIFICATE-----/g;

/** The certificates of PEM text, each as its whole PEM block and as DER; text around them is ignored. */
export function pemCertificates(text: string): Array<{ readonly pem: string; readonly der: Buffer }> {
  return [...text.matchAll(PEM_CERTIFICATE)].map((m) => ({ pem: m[0], der: Buffer.from(m[1]!.replace(/\s+/g, ''), 'base64') }));
}

function toPem(label: string, der: Buffer): string {
  const b64 = der.toString('base64').replace(/.{64}/g, '$&\n').replace(/\n$/, '');
  return `-----BEGIN ${label}-----\n${b64}\n-----END ${label}-----\n`;
}
