// Field checks for form and query input. Each failure is a 400 whose plain-text message starts
// with the field name, and never echoes a password.
import { HttpError, type Params } from './http';

const USERNAME_RE = /^[A-Za-z0-9.@+-]{1,30}$/;
const EMAIL_RE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const IPV4_OCTET = '(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])';
const IPV4_RE = new RegExp(`^${IPV4_OCTET}(\\.${IPV4_OCTET}){3}$`);
const HOST_LABEL_RE = /^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;
/**
 * A label the resolver reads as a number (decimal, octal, or hex with 0x). Every IPv4 form of
 * inet_aton ends with one: `127.1`, `0x7f000001` and `127.0.0.0x1` all resolve to 127.0.0.1
 * without asking DNS, so a name ending so would authorize an address outside the IP list.
 */
const NUMERIC_LABEL_RE = /^([0-9]+|0x[0-9a-f]*)$/i;
const DATE_RE = /^([0-9]{4})-([0-9]{2})-([0-9]{2})$/;

/** Longest label accepted for an authorized IP (the API contract leaves it open; docs/emulator.md). */
export const MAX_IP_LABEL = 100;
/** Longest bearer-token label (the API contract). */
export const MAX_TOKEN_LABEL = 100;

function invalid(field: string, problem: string): HttpError {
  return new HttpError(400, `${field}: ${problem}`);
}

/**
 * Characters refused in every text field (the SDK refuses the same set): C0 controls (NUL, CR,
 * LF, …), DEL, and the bidi embedding/override (U+202A–U+202E) and isolate (U+2066–U+2069)
 * characters that make a label display differently from what it is.
 */
export const UNSAFE_TEXT_RE = /[\u0000-\u001F\u007F\u202A-\u202E\u2066-\u2069]/u;

/** Refuses a value holding a character of {@link UNSAFE_TEXT_RE}, naming the field and the code point. */
export function checkSafeText(value: string, field: string): string {
  const found = UNSAFE_TEXT_RE.exec(value);
  if (found) {
    const code = `U+${found[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
    const kind = found[0] >= '\u202A' ? 'bidirectional formatting character' : 'control character';
    throw invalid(field, `must not contain a ${kind} (${code} at position ${[...value.slice(0, found.index)].length + 1})`);
  }
  return value;
}

/** A parameter that must be present and non-empty. */
export function required(params: Params, field: string): string {
  const value = params.get(field);
  if (value === undefined || value === '') throw invalid(field, 'this field is required');
  return value;
}

/** Checks a username: 1–30 characters of letters, digits and `.` `@` `+` `-`. */
export function checkUsername(value: string, field = 'username'): string {
  checkSafeText(value, field);
  if (!USERNAME_RE.test(value)) {
    throw invalid(field, 'must be 1-30 characters of letters, digits and . @ + -');
  }
  return value;
}

/** Checks that a text value is at most `max` characters and holds no unsafe character. */
export function checkMaxLength(value: string, field: string, max: number): string {
  checkSafeText(value, field);
  if ([...value].length > max) throw invalid(field, `must be at most ${max} characters`);
  return value;
}

/** Checks a password's length without ever quoting it (any character is allowed in a password). */
export function checkPassword(value: string): string {
  if ([...value].length > 128) throw invalid('password', 'must be at most 128 characters');
  return value;
}

/** Checks an email address (one `@`, a dot in the domain, no spaces, at most 255 characters). */
export function checkEmail(value: string): string {
  checkMaxLength(value, 'email', 255);
  if (!EMAIL_RE.test(value)) throw invalid('email', 'must be an email address');
  return value;
}

/** Checks a bandwidth limit: an integer >= 0 (GB). */
export function checkLimit(value: string, field: string): number {
  if (!/^[0-9]{1,15}$/.test(value)) throw invalid(field, 'must be an integer >= 0 (GB)');
  return Number(value);
}

/** Checks an IPv4 address in strict dotted-quad form (no leading zeros, no spaces). */
export function checkIpv4(value: string, field = 'ip'): string {
  checkSafeText(value, field);
  if (!IPV4_RE.test(value)) throw invalid(field, 'must be an IPv4 address in dotted-quad form, e.g. 203.0.113.7');
  return value;
}

/**
 * True for a host name: dot-separated labels of letters, digits and inner hyphens, the last one
 * not a number, so that no IPv4 address in any form the resolver reads passes as a name.
 */
export function isHostname(value: string): boolean {
  const labels = value.split('.');
  return value.length <= 253 && labels.every((label) => HOST_LABEL_RE.test(label)) && !NUMERIC_LABEL_RE.test(labels[labels.length - 1]!);
}

/** Checks a host name ({@link isHostname}). */
export function checkHostname(value: string, field = 'domain'): string {
  checkSafeText(value, field);
  if (!isHostname(value)) throw invalid(field, 'must be a host name such as app.example.com');
  return value;
}

/**
 * What the proxy catalogue's domain must be: a host name of two labels or more. Its last label is
 * every catalogue name's, so `127.0.0.1` or `proxy.0x1` would make names that read as IPv4.
 */
export const PROXY_DOMAIN_RULE =
  'must be a domain name such as proxy.example.net: dot-separated labels of letters, digits and inner hyphens, the last not a number (127.0.0.1 and proxy.0x1 read as IPv4 addresses)';

/** True for a domain the proxy catalogue may use ({@link PROXY_DOMAIN_RULE}). */
export function isProxyDomain(value: string): boolean {
  return value.includes('.') && isHostname(value);
}

/** Checks a numeric identifier. */
export function checkId(value: string, field = 'id'): number {
  if (!/^[0-9]{1,15}$/.test(value)) throw invalid(field, 'must be an integer');
  return Number(value);
}

/**
 * Checks a token expiry date `YYYY-MM-DD` and returns the expiry instant: 00:00:00 UTC at the
 * start of that day. The date must be after today on the emulator clock.
 */
export function checkExpiryDate(value: string, nowMs: number, field = 'expires_at'): number {
  const m = DATE_RE.exec(value);
  const expires = m ? Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])) : NaN;
  if (!m || Number.isNaN(expires) || new Date(expires).toISOString().slice(0, 10) !== value) {
    throw invalid(field, 'must be a date in the form YYYY-MM-DD');
  }
  if (expires <= nowMs) throw invalid(field, 'must be a date after today (UTC)');
  return expires;
}
