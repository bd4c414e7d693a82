// Input checks shared by the L2 constructs and the roster reader. Internal: not exported from the
// package index. The rules mirror the provider's validators (the provider schema and the API contract's limits) so
// a mistake fails at synth time with every problem listed, before Terraform runs.
import { Token } from 'cdktf';

/** Collects violations as `path: message` lines and throws them all at once. */
export class Violations {
  private readonly lines: string[] = [];

  /** Records one violation at `path` (a prop name or a path into roster data). */
  public add(path: string, message: string): void {
    this.lines.push(path ? `${path}: ${message}` : message);
  }

  /** Copies another collector's violations, each path prefixed with `prefix`. */
  public addAll(prefix: string, other: readonly string[]): void {
    for (const line of other) this.lines.push(prefix ? `${prefix}.${line}` : line);
  }

  /** The violations so far, in the order found. */
  public get list(): readonly string[] {
    return this.lines;
  }

  /** Throws one Error listing every violation, headed by `subject`; does nothing when there are none. */
  public throwIfAny(subject: string): void {
    if (this.lines.length === 0) return;
    const count = this.lines.length === 1 ? '1 problem' : `${this.lines.length} problems`;
    throw new Error(`${subject} is invalid (${count}):\n${this.lines.map((l) => `  - ${l}`).join('\n')}`);
  }
}

/** True when `value` is a token (a reference resolved only at synth or apply time): never checked. */
export function isUnresolved(value: unknown): boolean {
  return (typeof value === 'string' || typeof value === 'number' || typeof value === 'object') &&
    value !== null && Token.isUnresolved(value);
}

/** Quotes a user-supplied value for an error message, shortened so a huge input stays readable. */
export function show(value: unknown): string {
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object' && value !== null && !(value instanceof Date)) return 'an object';
  const text = typeof value === 'string' ? JSON.stringify(value) : String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

const USERNAME = /^[A-Za-z0-9.@+-]{1,30}$/;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const LABEL = String.raw`[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?`;
// As the provider: no wildcard, and the last label is not all digits (that would be an IP address).
const HOSTNAME = new RegExp(`^${LABEL}(?:\\.${LABEL})*$`);
// Control characters, DEL and bidi overrides/isolates: refused by the API and the provider too.
const UNSAFE_TEXT = /[\u0000-\u001f\u007f\u202a-\u202e\u2066-\u2069]/;
const PROXY = new RegExp(`^${LABEL}(?:\\.${LABEL})*(?::(\\d{1,5}))?$`);

/** Sub-account usernames: 1 to 30 letters, digits, `.`, `@`, `+` or `-` (the API contract). */
export function checkUsername(v: Violations, path: string, value: string): void {
  if (isUnresolved(value)) return;
  if (value === undefined || value === null) {
    v.add(path, "is required: 1 to 30 letters, digits, '.', '@', '+' or '-'");
  } else if (typeof value !== 'string' || !USERNAME.test(value)) {
    v.add(path, `must be 1 to 30 letters, digits, '.', '@', '+' or '-' (got ${show(value)})`);
  }
}

/** Optional strings with a maximum length; `secret` keeps the value itself out of the message. */
export function checkText(v: Violations, path: string, value: string | undefined, max: number, secret = false): void {
  if (value === undefined || isUnresolved(value)) return;
  if (typeof value !== 'string') {
    v.add(path, `must be a string (got ${secret ? typeof value : show(value)})`);
  } else if (value.length === 0) {
    v.add(path, 'must not be empty when set');
  } else if (Array.from(value).length > max) {
    // Characters as the API counts them (code points), not UTF-16 units: an emoji is one.
    v.add(path, `must be at most ${max} characters (got ${Array.from(value).length}${secret ? '' : `: ${show(value)}`})`);
  } else if (!secret && UNSAFE_TEXT.test(value)) {
    v.add(path, `must not contain control or bidi-override characters (got ${show(value)})`);
  }
}

/** Optional e-mail address: at most 255 characters, shaped like `name@domain.tld`. */
export function checkEmail(v: Violations, path: string, value: string | undefined): void {
  if (value === undefined || isUnresolved(value)) return;
  if (typeof value !== 'string' || value.length > 255 || !EMAIL.test(value)) {
    v.add(path, `must be an e-mail address of at most 255 characters (got ${show(value)})`);
  }
}

/** Optional traffic limits in GB: whole numbers >= 0, 0 meaning unlimited. */
export function checkLimit(v: Violations, path: string, value: number | undefined): void {
  if (value === undefined || isUnresolved(value)) return;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    v.add(path, `must be a whole number of GB >= 0, 0 meaning unlimited (got ${show(value)})`);
  }
}

/** Optional booleans (a YAML `yes` or a JSON "true" string is a mistake worth catching). */
export function checkBoolean(v: Violations, path: string, value: boolean | undefined): void {
  if (value === undefined || isUnresolved(value)) return;
  if (typeof value !== 'boolean') v.add(path, `must be true or false (got ${show(value)})`);
}

/** Dotted-quad IPv4 addresses without leading zeros, as the API accepts them. */
export function checkIpv4(v: Violations, path: string, value: string): void {
  if (isUnresolved(value)) return;
  const parts = typeof value === 'string' ? value.split('.') : [];
  const ok = parts.length === 4 && parts.every((p) => /^(0|[1-9]\d{0,2})$/.test(p) && Number(p) <= 255);
  if (!ok) v.add(path, `must be an IPv4 address such as 203.0.113.7 (got ${show(value)})`);
}

/** Hostnames: dot-separated labels of letters, digits and inner hyphens, optionally `*.`-prefixed. */
export function checkHostname(v: Violations, path: string, value: string): void {
  if (isUnresolved(value)) return;
  if (typeof value !== 'string' || value.length > 253 || !HOSTNAME.test(value) || /^[0-9]+$/.test(value.split('.').pop() ?? '')) {
    v.add(path, `must be a hostname such as build.example.com: letters, digits and inner hyphens, no wildcard, not an IP address (got ${show(value)})`);
  }
}

/** Proxies: a bare host, a full domain, or `domain:port` with a port from 1 to 65535. */
export function checkProxy(v: Violations, path: string, value: string): void {
  if (isUnresolved(value)) return;
  const match = typeof value === 'string' && value.length <= 253 ? PROXY.exec(value) : null;
  const port = match?.[1] === undefined ? undefined : Number(match[1]);
  if (!match || (port !== undefined && (port < 1 || port > 65535))) {
    v.add(path, `must be a host, a full domain or domain:port such as us-ny.proxy.example.net:8080 (got ${show(value)})`);
  }
}

/** Token expiry dates: a real calendar date written YYYY-MM-DD. */
export function checkDate(v: Violations, path: string, value: string | undefined): void {
  if (value === undefined || isUnresolved(value)) return;
  const match = typeof value === 'string' ? DATE.exec(value) : null;
  const valid = match !== null && (() => {
    const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
    const date = new Date(Date.UTC(year, month - 1, day));
    return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
  })();
  if (!valid) v.add(path, `must be a calendar date written YYYY-MM-DD (got ${show(value)})`);
}

/** Reports every value that occurs more than once in `values` (tokens are skipped). */
export function checkUnique(v: Violations, path: string, values: readonly string[], what: string): void {
  const seen = new Set<string>();
  const reported = new Set<string>();
  for (const value of values) {
    if (isUnresolved(value)) continue;
    const key = typeof value === 'string' ? value.toLowerCase() : String(value);
    if (seen.has(key) && !reported.has(key)) {
      v.add(path, `${what} ${show(value)} is listed more than once`);
      reported.add(key);
    }
    seen.add(key);
  }
}
