// Client-side checks of every constraint the API contract documents, run before any I/O. Each failure names
// the field (camelCase, as the caller wrote it) and says why. Secret values are never echoed.
import { InvalidArgumentError } from './errors';
import type { CallOptions } from './types';

/**
 * PEM certificates to trust (the client's `caCert`, a proxy dispatcher's `targetCaCert`). With
 * `parseEach`, every certificate block must parse: OpenSSL skips one that does not, and the
 * connection then fails on the server's certificate, naming no option.
 */
export function checkPemCertificates(value: unknown, field: string, parseEach = false): string | Buffer {
  const text = typeof value === 'string' ? value : Buffer.isBuffer(value) ? value.toString('utf8') : undefined;
  if (text === undefined) throw new InvalidArgumentError(field, 'must be a PEM string or Buffer');
  if (!text.includes('-----BEGIN CERTIFICATE-----')) {
    throw new InvalidArgumentError(field, 'must be PEM text containing "-----BEGIN CERTIFICATE-----"');
  }
  if (parseEach) {
    const blocks = text.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) ?? [];
    if (blocks.length === 0) throw new InvalidArgumentError(field, 'holds a certificate block without its "-----END CERTIFICATE-----" line');
    const { X509Certificate } = require('node:crypto') as typeof import('node:crypto');
    blocks.forEach((block, i) => {
      try {
        new X509Certificate(block);
      } catch (err) {
        throw new InvalidArgumentError(field, `certificate ${i + 1} of ${blocks.length} does not parse (${err instanceof Error ? err.message : String(err)})`);
      }
    });
  }
  return value as string | Buffer;
}

/** Longest username the API contract allows. */
export const USERNAME_MAX = 30;
/** Longest password. */
export const PASSWORD_MAX = 128;
/** Longest first or last name. */
export const NAME_MAX = 20;
/** Longest email address. */
export const EMAIL_MAX = 255;
/** Longest token label (the API contract). */
export const TOKEN_LABEL_MAX = 100;
/**
 * Longest IP label. The API contract gives no limit; we reuse the token label's 100 characters so a label
 * that works for one works for the other, and nothing absurdly long reaches the server.
 */
export const IP_LABEL_MAX = 100;

const USERNAME_RE = /^[A-Za-z0-9.@+-]+$/;
const OCTET = '(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])';
const IPV4_RE = new RegExp(`^${OCTET}(?:\\.${OCTET}){3}$`);
// One @, no whitespace, a domain of at least two non-empty dot-separated labels. Deliberately
// loose beyond that: the server has the final word, we only catch obvious mistakes early.
const EMAIL_RE = /^[^\s@]+@[^\s@.]+(?:\.[^\s@.]+)+$/;
const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;
/**
 * Characters refused in every text field: C0 controls (NUL, CR, LF, TAB…), DEL, and the bidi
 * embedding/override (U+202A–U+202E) and isolate (U+2066–U+2069) characters, which make a label
 * display as something it is not. The emulator refuses exactly this set.
 */
export const UNSAFE_TEXT_RE = /[\u0000-\u001F\u007F\u202A-\u202E\u2066-\u2069]/u;
const HOST_LABEL_RE = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;
/**
 * A label the resolver reads as a number: decimal (octal with a leading 0), or 0x and hex digits.
 * Every IPv4 form it accepts (`127.1`, `0x7f000001`, `127.0.0.0x1`) ends with one, and resolves
 * without asking DNS: a hostname ending so would authorize an address outside the IP list.
 */
const NUMERIC_LABEL_RE = /^(?:[0-9]+|0x[0-9a-f]*)$/i;
/** Longest hostname (DNS). */
export const HOSTNAME_MAX = 253;

/** Length in Unicode code points, which is what a server counting characters sees. */
function charLength(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

/** Quotes a (non-secret) value for a message, shortened so a huge input cannot flood it. */
export function quote(value: string): string {
  const short = value.length > 40 ? `${value.slice(0, 40)}…` : value;
  // JSON escapes C0 controls; DEL and bidi characters are escaped too, so a message reads as it is.
  return JSON.stringify(short).replace(/[\u007F\u202A-\u202E\u2066-\u2069]/g, (c) => `\\u${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`);
}

function requireString(field: string, value: unknown): string {
  if (typeof value !== 'string') {
    throw new InvalidArgumentError(field, `must be a string (got ${describeType(value)})`);
  }
  return value;
}

function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

/** Refuses {@link UNSAFE_TEXT_RE} characters, naming the code point; never echoes the value. */
export function checkSafeText(value: unknown, field: string): string {
  const s = requireString(field, value);
  const found = UNSAFE_TEXT_RE.exec(s);
  if (found !== null) {
    const ch = found[0];
    const code = `U+${(ch.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;
    const kind = ch >= '\u202A' ? 'bidirectional formatting character' : 'control character';
    throw new InvalidArgumentError(field, `must not contain a ${kind} (${code} at position ${charLength(s.slice(0, found.index)) + 1})`);
  }
  return s;
}

function maxLength(field: string, value: string, max: number, secret = false): void {
  const len = charLength(value);
  if (len > max) {
    const shown = secret ? '' : ` ${quote(value)}`;
    throw new InvalidArgumentError(field, `must be at most ${max} characters (got ${len})${shown}`);
  }
}

/** A sub-account username: 1–30 characters of A–Z a–z 0–9 . @ + - */
export function checkUsername(value: unknown, field = 'username'): string {
  const s = requireString(field, value);
  if (s.length === 0) throw new InvalidArgumentError(field, 'must not be empty');
  maxLength(field, s, USERNAME_MAX);
  if (!USERNAME_RE.test(s)) {
    throw new InvalidArgumentError(field, `${quote(s)} may contain only letters A-Z a-z, digits and the characters . @ + -`);
  }
  return s;
}

/** The optional `username` that targets a sub-account. */
export function checkOptionalUsername(value: unknown): string | undefined {
  return value === undefined ? undefined : checkUsername(value);
}

/** A password: a string of at most 128 characters; never echoed. */
export function checkPassword(value: unknown, field = 'password'): string {
  const s = requireString(field, value);
  maxLength(field, s, PASSWORD_MAX, true);
  return s;
}

/** A first or last name: at most 20 characters, no control or bidi characters (`''` clears it). */
export function checkName(value: unknown, field: string): string {
  const s = checkSafeText(value, field);
  maxLength(field, s, NAME_MAX);
  return s;
}

/** An email address, at most 255 characters and email-shaped (`''` allowed: it clears the field). */
export function checkEmail(value: unknown, field = 'email'): string {
  const s = checkSafeText(value, field);
  maxLength(field, s, EMAIL_MAX);
  if (s !== '' && !EMAIL_RE.test(s)) {
    throw new InvalidArgumentError(field, `${quote(s)} is not an email address`);
  }
  return s;
}

/** A bandwidth limit: a safe integer ≥ 0 (GB). */
export function checkLimit(value: unknown, field: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    const shown = typeof value === 'number' ? String(value) : describeType(value);
    throw new InvalidArgumentError(field, `must be a whole number of GB >= 0 (got ${shown})`);
  }
  return value;
}

/** A strict dotted-quad IPv4 address (no leading zeros, no spaces). */
export function checkIpv4(value: unknown, field = 'ip'): string {
  const s = requireString(field, value);
  if (!IPV4_RE.test(s)) throw new InvalidArgumentError(field, `${quote(s)} is not a dotted-quad IPv4 address${ipv4Hint(s)}`);
  return s;
}

/** Names the usual mistake in a would-be IPv4 address, so the message says what to change. */
function ipv4Hint(s: string): string {
  if (s.trim() !== s) return ': remove the spaces around it';
  if (/^[0-9.]+\/[0-9]+$/.test(s)) return ': a CIDR range is not accepted, give one address without /prefix';
  if (s.includes(':')) return ': IPv6 is not accepted, only IPv4 such as 203.0.113.7';
  const parts = s.split('.');
  if (parts.length === 4 && parts.every((p) => /^[0-9]+$/.test(p))) {
    if (parts.some((p) => p.length > 1 && p.startsWith('0'))) return ': remove the leading zeros (they can mean octal)';
    if (parts.some((p) => Number(p) > 255)) return ': each of the four numbers must be 0 to 255';
  }
  return ': four numbers 0-255 separated by dots, such as 203.0.113.7';
}

/** An IP label: at most {@link IP_LABEL_MAX} characters, no control or bidi characters. */
export function checkIpLabel(value: unknown, field = 'label'): string {
  const s = checkSafeText(value, field);
  maxLength(field, s, IP_LABEL_MAX);
  return s;
}

/** A token label: at most 100 characters, no control or bidi characters. */
export function checkTokenLabel(value: unknown, field = 'label'): string {
  const s = checkSafeText(value, field);
  maxLength(field, s, TOKEN_LABEL_MAX);
  return s;
}

/** A token expiry date: `YYYY-MM-DD` naming a real calendar date; `''` means no expiry. */
export function checkExpiryDate(value: unknown, field = 'expiresAt'): string {
  const s = requireString(field, value);
  if (s === '') return s;
  const m = DATE_RE.exec(s);
  if (m === null) throw new InvalidArgumentError(field, `${quote(s)} is not a date in the form YYYY-MM-DD`);
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  // setUTCFullYear, not Date.UTC: Date.UTC reads years 0-99 as 1900-1999.
  const d = new Date(0);
  d.setUTCFullYear(year, month - 1, day);
  if (year < 1 || d.getUTCFullYear() !== year || d.getUTCMonth() !== month - 1 || d.getUTCDate() !== day) {
    throw new InvalidArgumentError(field, `${quote(s)} is not a real calendar date`);
  }
  return s;
}

/** A token id: a positive safe integer. */
export function checkTokenId(value: unknown, field = 'id'): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
    const shown = typeof value === 'number' ? String(value) : describeType(value);
    throw new InvalidArgumentError(field, `must be a positive integer (got ${shown})`);
  }
  return value;
}

/** A non-empty value without whitespace, control or bidi characters (proxies). */
export function checkToken(value: unknown, field: string): string {
  const s = checkSafeText(value, field);
  if (s.length === 0) throw new InvalidArgumentError(field, 'must not be empty');
  if (/\s/.test(s)) throw new InvalidArgumentError(field, `${quote(s)} must not contain whitespace`);
  return s;
}

/**
 * The keys of an input type, written as a record so the compiler checks that the list names every
 * key of `T` and no other: a key added to a type but not here would be refused at run time.
 */
export function keysOf<T>(keys: Record<keyof T, true>): readonly string[] {
  return Object.keys(keys);
}

/** Keys of the per-call options (the last argument of every method). */
export const CALL_OPTION_KEYS = keysOf<CallOptions>({ signal: true });

/**
 * Requires a plain object argument (catches `undefined` and strings from JavaScript callers) whose
 * own keys are all among `keys` (see {@link checkKnownKeys}). `method` names the call in messages
 * (`ips.list`); `example` is the input written in its hint when per-call options are put in it.
 */
export function checkObject(value: unknown, field: string, keys: readonly string[], method: string, example = 'input'): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new InvalidArgumentError(field, `must be an object (got ${describeType(value)})`);
  }
  checkKnownKeys(value, keys, `the ${method} input`, '', (key) =>
    CALL_OPTION_KEYS.includes(key)
      ? `${key} is a per-call option: it goes in the second argument, after the input, as in ${method}(${example}, { ${key} })`
      : undefined,
  );
  return value as Record<string, unknown>;
}

/**
 * Refuses an own key of `value` outside `keys`, whatever its value: a misspelled key (`montlyLimit`,
 * `expires`) would otherwise drop a limit, an expiry or a label without a word. The error's field
 * is the key (after `prefix`, e.g. `auth.`); the message names the closest accepted key when the
 * unknown one looks like a typo of it, and lists the accepted ones. Values are never shown.
 */
export function checkKnownKeys(value: object, keys: readonly string[], where: string, prefix = '', hint?: (key: string) => string | undefined): void {
  for (const key of Object.keys(value)) {
    if (keys.includes(key)) continue;
    const closest = closestKey(key, keys);
    const said = hint?.(key) ?? (closest === undefined ? undefined : `did you mean ${closest}?`);
    const accepted = keys.length === 0 ? 'it accepts no key' : `the accepted keys are ${keys.join(', ')}`;
    throw new InvalidArgumentError(`${prefix}${keyName(key)}`, `unknown key of ${where}${said === undefined ? '' : ` (${said})`}; ${accepted}`);
  }
}

/** A key as a message may show it: as written when it is a plain identifier, else quoted and shortened. */
function keyName(key: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]{0,40}$/.test(key) ? key : quote(key);
}

/**
 * The accepted key `key` is an obvious typo of: the same but for letter case, or at most two
 * edits away (one for keys of up to five letters, none under three), the nearest first.
 */
function closestKey(key: string, keys: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const known of keys) {
    if (known.toLowerCase() === key.toLowerCase()) return known;
    const allowed = Math.min(2, Math.floor(Math.max(known.length, key.length) / 3));
    const d = editDistance(key.toLowerCase(), known.toLowerCase());
    if (d <= allowed && d < bestDistance) {
      best = known;
      bestDistance = d;
    }
  }
  return best;
}

/** Edits (insert, delete, substitute, swap two neighbours) from `a` to `b`; 3 stands for "more than 2". */
function editDistance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 2) return 3;
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.length][b.length];
}

/**
 * A hostname for `hostnames.add`/`delete`: dot-separated labels of letters, digits and inner
 * hyphens (1–63 each), at most 253 characters, no wildcard, no trailing dot, not an IP address in
 * any form (the last label is not a number: not all digits, not 0x and hex digits). The emulator,
 * provider and constructs apply the same rule.
 */
export function checkDomain(value: unknown, field = 'domain'): string {
  const s = checkSafeText(value, field);
  if (s.length === 0) throw new InvalidArgumentError(field, 'must not be empty');
  const labels = s.split('.');
  const last = labels[labels.length - 1] ?? '';
  if (s.length > HOSTNAME_MAX || !labels.every((l) => HOST_LABEL_RE.test(l)) || NUMERIC_LABEL_RE.test(last)) {
    throw new InvalidArgumentError(
      field,
      `${quote(s)} is not a host name such as app.example.com: labels of letters, digits and inner hyphens joined by dots, ` +
        `at most ${HOSTNAME_MAX} characters, no wildcard, not an IP address (a numeric last label such as 7 or 0x1f makes one)`,
    );
  }
  return s;
}

/** A proxy for `proxies.add`/`delete`: non-empty, no whitespace. */
export function checkProxy(value: unknown, field = 'proxy'): string {
  return checkToken(value, field);
}

/** An optional boolean option: `false` when absent, anything but a boolean refused. */
export function optBool(v: unknown, field: string): boolean {
  if (v === undefined) return false;
  if (typeof v !== 'boolean') throw new InvalidArgumentError(field, 'must be a boolean');
  return v;
}

/** An optional function option: anything but a function refused. */
export function optFunction<F>(v: F | undefined, field: string): F | undefined {
  if (v !== undefined && typeof v !== 'function') throw new InvalidArgumentError(field, 'must be a function');
  return v;
}

/** A value for an operation description, shortened so a huge argument cannot flood messages. */
export function shortName(value: string, max = 80): string {
  return value.length > max ? `${value.slice(0, max)}…` : value;
}

/** The per-call options, checked before anything waits or is sent. */
export function checkCallOptions(opts: unknown): CallOptions {
  if (typeof opts !== 'object' || opts === null) throw new InvalidArgumentError('options', 'must be an object such as { signal }, or left out');
  // A bare signal has no own keys: it would pass the check below and abort nothing.
  if (opts instanceof AbortSignal) throw new InvalidArgumentError('options', 'must be an object such as { signal }, not the AbortSignal itself');
  checkKnownKeys(opts, CALL_OPTION_KEYS, 'the per-call options');
  const { signal } = opts as { signal?: unknown };
  if (signal !== undefined && !(signal instanceof AbortSignal))
    throw new InvalidArgumentError('signal', 'must be an AbortSignal (e.g. AbortController().signal)');
  return opts as CallOptions;
}
