// Client-side checks of every constraint API.md documents, run before any I/O. Each failure names
// the field (camelCase, as the caller wrote it) and says why. Secret values are never echoed.
import { InvalidArgumentError } from './errors';

/** Longest username API.md allows. */
export const USERNAME_MAX = 30;
/** Longest password. */
export const PASSWORD_MAX = 128;
/** Longest first or last name. */
export const NAME_MAX = 20;
/** Longest email address. */
export const EMAIL_MAX = 255;
/** Longest token label (API.md). */
export const TOKEN_LABEL_MAX = 100;
/**
 * Longest IP label. API.md gives no limit; we reuse the token label's 100 characters so a label
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

/** Length in Unicode code points, which is what a server counting characters sees. */
function charLength(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

/** Quotes a (non-secret) value for a message, shortened so a huge input cannot flood it. */
export function quote(value: string): string {
  const short = value.length > 40 ? `${value.slice(0, 40)}…` : value;
  return JSON.stringify(short);
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
    throw new InvalidArgumentError(
      field,
      `${quote(s)} may contain only letters A-Z a-z, digits and the characters . @ + -`,
    );
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

/** A first or last name: at most 20 characters (`''` allowed: it clears the field). */
export function checkName(value: unknown, field: string): string {
  const s = requireString(field, value);
  maxLength(field, s, NAME_MAX);
  return s;
}

/** An email address, at most 255 characters and email-shaped (`''` allowed: it clears the field). */
export function checkEmail(value: unknown, field = 'email'): string {
  const s = requireString(field, value);
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
  if (!IPV4_RE.test(s)) {
    throw new InvalidArgumentError(field, `${quote(s)} is not a dotted-quad IPv4 address`);
  }
  return s;
}

/** An IP label: at most {@link IP_LABEL_MAX} characters. */
export function checkIpLabel(value: unknown, field = 'label'): string {
  const s = requireString(field, value);
  maxLength(field, s, IP_LABEL_MAX);
  return s;
}

/** A token label: at most 100 characters. */
export function checkTokenLabel(value: unknown, field = 'label'): string {
  const s = requireString(field, value);
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
  const d = new Date(Date.UTC(year, month - 1, day));
  if (
    year < 1 ||
    d.getUTCFullYear() !== year ||
    d.getUTCMonth() !== month - 1 ||
    d.getUTCDate() !== day
  ) {
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

/** A non-empty value without whitespace (hostnames, proxies). */
export function checkToken(value: unknown, field: string): string {
  const s = requireString(field, value);
  if (s.length === 0) throw new InvalidArgumentError(field, 'must not be empty');
  if (/[\s\u0000-\u001f\u007f]/.test(s)) {
    throw new InvalidArgumentError(field, `${quote(s)} must not contain whitespace or control characters`);
  }
  return s;
}

/** Requires a plain object argument (catches `undefined` and strings from JavaScript callers). */
export function checkObject(value: unknown, field: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new InvalidArgumentError(field, `must be an object (got ${describeType(value)})`);
  }
  return value as Record<string, unknown>;
}

/** A hostname for `hostnames.add`/`delete`: non-empty, no whitespace. */
export function checkDomain(value: unknown, field = 'domain'): string {
  return checkToken(value, field);
}

/** A proxy for `proxies.add`/`delete`: non-empty, no whitespace. */
export function checkProxy(value: unknown, field = 'proxy'): string {
  return checkToken(value, field);
}

/** A value for an operation description, shortened so a huge argument cannot flood messages. */
export function shortName(value: string, max = 80): string {
  return value.length > max ? `${value.slice(0, max)}…` : value;
}
