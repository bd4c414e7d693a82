// Input checks shared by the L2 constructs and the roster reader. Internal: not exported from the
// package index. The rules mirror the provider's validators (the provider schema and the API contract's limits) so
// a mistake fails at synth time with every problem listed, before Terraform runs.
import { Token } from 'cdktf';

// Terraform's escapes `$${` and `%%{`, and `${"$$"}`, a run of `$` written as an expression (see lengthOf).
const TERRAFORM_ESCAPES = /\$\$\{|%%\{|\$\{"(\$+)"\}/g;

/**
 * Collects violations as `path: message` lines and throws them all at once. It also knows how the
 * strings under check are written, since that decides their length (see `lengthOf`).
 */
export class Violations {
  private readonly lines: string[] = [];

  /**
   * @param literalText the strings are the text itself (roster data, which the reader escapes only
   *   afterwards), rather than Terraform strings that code wrote, where `$${` and `%%{` are escapes
   */
  public constructor(private readonly literalText = false) {}

  /**
   * The length of the string the API receives for `value`, in characters as the API counts them
   * (code points, not UTF-16 units: an emoji is one). In a Terraform string from code, `$${` and
   * `%%{` are escapes for a literal `${` and `%{`, one character shorter each, and `${"$"}` (how
   * terraform-literal.ts writes the `$` before a reference, which SubAccount checks again in a
   * roster member's strings) is the `$` it holds; in literal text they are the characters written.
   */
  public lengthOf(value: string): number {
    // One pass from the left, as Terraform reads them: `$${"$"}` is the escape, then `"$"}`.
    const text = this.literalText ? value : value.replace(TERRAFORM_ESCAPES, (escape, run?: string) => run ?? escape.slice(1));
    return Array.from(text).length;
  }

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

/**
 * True when `value` is an object whose fields can be read (a struct, or a token): not null, not a
 * list. Plain JavaScript can pass anything where a struct is expected.
 */
export function isObject(value: unknown): value is object {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
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
// As the provider: no wildcard, and the last label is not a number (that would be an IP address).
const HOSTNAME = new RegExp(`^${LABEL}(?:\\.${LABEL})*$`);
// A label the resolver reads as a number: decimal (octal with a leading 0), or 0x and hex digits.
// Every IPv4 form it accepts (`127.1`, `0x7f000001`, `127.0.0.0x1`) ends with one and resolves
// without asking DNS, so a hostname ending so would authorize an address outside the IP list.
const NUMERIC_LABEL = /^(?:[0-9]+|0x[0-9a-f]*)$/i;
// Control characters, DEL and bidi overrides/isolates: refused by the API and the provider too.
const UNSAFE_TEXT = /[\u0000-\u001f\u007f\u202a-\u202e\u2066-\u2069]/;
const PROXY = new RegExp(`^(${LABEL}(?:\\.${LABEL})*)(?::(\\d{1,5}))?$`);

/** Sub-account usernames: 1 to 30 letters, digits, `.`, `@`, `+` or `-` (the API contract). */
export function checkUsername(v: Violations, path: string, value: string): void {
  if (isUnresolved(value)) return;
  if (value === undefined || value === null) {
    v.add(path, "is required: 1 to 30 letters, digits, '.', '@', '+' or '-'");
  } else if (typeof value !== 'string' || !USERNAME.test(value)) {
    v.add(path, `must be 1 to 30 letters, digits, '.', '@', '+' or '-' (got ${show(value)})`);
  }
}

/** Optional strings with a maximum length (passwords have their own check, which never shows them). */
export function checkText(v: Violations, path: string, value: string | undefined, max: number): void {
  if (value === undefined || isUnresolved(value)) return;
  if (typeof value !== 'string') {
    v.add(path, `must be a string (got ${show(value)})`);
  } else if (value.length === 0) {
    v.add(path, 'must not be empty when set');
  } else if (v.lengthOf(value) > max) {
    v.add(path, `must be at most ${max} characters (got ${v.lengthOf(value)}: ${show(value)})`);
  } else if (UNSAFE_TEXT.test(value)) {
    v.add(path, `must not contain control or bidi-override characters (got ${show(value)})`);
  }
}

/** Optional e-mail address: at most 255 characters, shaped like `name@domain.tld`. */
export function checkEmail(v: Violations, path: string, value: string | undefined): void {
  if (value === undefined || isUnresolved(value)) return;
  if (typeof value !== 'string' || v.lengthOf(value) > 255 || !EMAIL.test(value)) {
    v.add(path, `must be an e-mail address of at most 255 characters (got ${show(value)})`);
  }
}

/** The largest traffic limit the provider takes (15 digits, which a number holds exactly). */
export const MAX_LIMIT_GB = 999_999_999_999_999;

/** Optional traffic limits in GB: whole numbers from 0 to MAX_LIMIT_GB, 0 meaning unlimited. */
export function checkLimit(v: Violations, path: string, value: number | undefined): void {
  if (value === undefined || isUnresolved(value)) return;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0 || value > MAX_LIMIT_GB) {
    v.add(path, `must be a whole number of GB from 0 to ${MAX_LIMIT_GB}, 0 meaning unlimited (got ${show(value)})`);
  }
}

/** Optional whole numbers >= 0 that count something other than GB (a password's version). */
export function checkWholeNumber(v: Violations, path: string, value: number | undefined): void {
  if (value === undefined || isUnresolved(value)) return;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    v.add(path, `must be a whole number >= 0 (got ${show(value)})`);
  }
}

/**
 * Optional passwords: 1 to 128 characters (code points) counted as given, since a password is
 * literal text, never a Terraform template (see terraform-literal.ts); the value is never echoed.
 */
export function checkPassword(v: Violations, path: string, value: string | undefined): void {
  if (value === undefined || isUnresolved(value)) return;
  if (typeof value !== 'string') {
    v.add(path, `must be a string (got ${typeof value})`);
  } else if (value.length === 0) {
    v.add(path, 'must not be empty when set');
  } else if (Array.from(value).length > 128) {
    v.add(path, `must be at most 128 characters (got ${Array.from(value).length})`);
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

/** Hostnames: dot-separated labels of letters, digits and inner hyphens; no wildcard, not an IP address in any form. */
export function checkHostname(v: Violations, path: string, value: string): void {
  if (isUnresolved(value)) return;
  if (typeof value !== 'string' || value.length > 253 || !HOSTNAME.test(value) || NUMERIC_LABEL.test(value.split('.').pop() ?? '')) {
    v.add(path, `must be a hostname such as build.example.com: letters, digits and inner hyphens, no wildcard, not an IP address: a numeric last label such as 7 or 0x1f makes one (got ${show(value)})`);
  }
}

/** Proxies: a bare host, a full domain, or `domain:port` with a port from 1 to 65535. */
export function checkProxy(v: Violations, path: string, value: string): void {
  if (isUnresolved(value)) return;
  if (typeof value !== 'string' || parseProxy(value) === undefined) {
    v.add(path, `must be a host, a full domain or domain:port such as us-ny.proxy.example.net:8080, a port only after a full domain (got ${show(value)})`);
  }
}

/** A proxy as the provider reads it: its host or full domain, lower-cased, and its port. */
interface ProxyForm {
  readonly name: string;
  readonly port: number | undefined;
}

// The provider's rule (src/provider/access/list-syntax.ts `parseProxy`), repeated here because a
// jsii package cannot import the provider's sources: keep the two in step.
function parseProxy(value: string): ProxyForm | undefined {
  const match = PROXY.exec(value);
  if (match === null || match[1].length > 253 || NUMERIC_LABEL.test(match[1].split('.').pop() ?? '')) return undefined;
  const port = match[2] === undefined ? undefined : Number(match[2]);
  if (port !== undefined && (port < 1 || port > 65535 || !match[1].includes('.'))) return undefined;
  return { name: match[1].toLowerCase(), port };
}

/**
 * True when the provider takes two declared proxies for one (list-syntax.ts `denotes`, both ways,
 * as `proxyaccount_authorized_proxies` pairs entries): the same name, or a bare host and a full
 * domain beginning with it, whatever the case, unless both carry different ports. Two such
 * entries would be two resources for one live proxy, and removing one would delete it.
 */
function sameProxy(a: string, b: string): boolean {
  const x = parseProxy(a);
  const y = parseProxy(b);
  if (x === undefined || y === undefined) return false;
  if (x.port !== undefined && y.port !== undefined && x.port !== y.port) return false;
  const bare = (f: ProxyForm): boolean => !f.name.includes('.');
  if (bare(x) === bare(y)) return x.name === y.name;
  return bare(x) ? y.name.split('.')[0] === x.name : x.name.split('.')[0] === y.name;
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

/** When two entries of a list are one: `same` decides; `why` says so when they are spelt differently. */
export interface Sameness {
  readonly same: (a: string, b: string) => boolean;
  readonly why: string;
}

/** Hostnames (and IP addresses, which have no case): the API compares them without case. */
export const IGNORING_CASE: Sameness = {
  same: (a, b) => a.toLowerCase() === b.toLowerCase(),
  why: 'case does not matter',
};

/** Proxies, as the provider pairs them (see `sameProxy`). */
export const SAME_PROXY: Sameness = {
  same: sameProxy,
  why: 'a bare host stands for the full domain it begins, ports aside, and case does not matter',
};

/**
 * Reports every value that is one with an earlier value of `values` by `rule`, once per earlier
 * value, naming both spellings when they differ (tokens are skipped).
 */
export function checkUnique(v: Violations, path: string, values: readonly string[], what: string, rule: Sameness = IGNORING_CASE): void {
  const firsts: string[] = [];
  const reported = new Set<string>();
  for (const value of values) {
    if (isUnresolved(value) || typeof value !== 'string') continue;
    const first = firsts.find((f) => rule.same(f, value));
    if (first === undefined) {
      firsts.push(value);
    } else if (!reported.has(first)) {
      reported.add(first);
      v.add(path, first === value
        ? `${what} ${show(value)} is listed more than once`
        : `${show(first)} and ${show(value)} are the same ${what} (${rule.why}): list it once`);
    }
  }
}
