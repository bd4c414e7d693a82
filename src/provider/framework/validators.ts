// Built-in validators. Each returns diagnostics on the attribute's path and never echoes a
// sensitive value. Validators only ever see known, non-null values.
import { isUnknown } from '../../protocol/cty';
import type { Diagnostic } from '../../protocol/types';
import { errorDiagnostic } from './diagnostics';
import type { Validator, ValidatorContext } from './schema';

/** Builds a validator from a description and a check returning a problem sentence or undefined. */
export function validator<T>(description: string, check: (value: T, ctx: ValidatorContext) => string | undefined): Validator<T> {
  return {
    description,
    validate(value, ctx): Diagnostic[] {
      const problem = check(value, ctx);
      return problem === undefined ? [] : [invalid(ctx, problem)];
    },
  };
}

function invalid(ctx: ValidatorContext, problem: string): Diagnostic {
  return errorDiagnostic('Invalid attribute value', `Attribute ${ctx.attributeName} ${problem}.`, ctx.path);
}

function shown(value: string, ctx: ValidatorContext): string {
  // A URL's user and password are a credential even in an attribute that is not sensitive (a
  // base URL from a sensitive variable arrives unmarked at validation). A password may hold any
  // character, '/', '?' and '#' included, so everything up to the last '@' is left out.
  return ctx.sensitive ? '' : ` (got ${JSON.stringify(value.replace(/^[\s\S]*@/, '…@'))})`;
}

/** The whole string must match `pattern`; `expectation` completes "must be …". */
export function matches(pattern: RegExp, expectation: string): Validator<string> {
  return validator(`must be ${expectation}`, (v, ctx) => (pattern.test(v) ? undefined : `must be ${expectation}${shown(v, ctx)}`));
}

/** Every character must belong to `allowed` (a one-character class such as /[A-Za-z0-9.@+-]/). */
export function charset(allowed: RegExp, expectation: string): Validator<string> {
  return validator(`may contain only ${expectation}`, (v, ctx) => {
    const bad = [...v].find((ch) => !allowed.test(ch));
    if (bad === undefined) return undefined;
    return ctx.sensitive ? `may contain only ${expectation}` : `may contain only ${expectation}; ${JSON.stringify(bad)} is not allowed`;
  });
}

/** Length in characters (code points) between `min` and `max` inclusive. */
export function lengthBetween(min: number, max: number): Validator<string> {
  const description = min <= 0 ? `at most ${max} characters` : min === max ? `exactly ${min} characters` : `${min} to ${max} characters long`;
  return validator(description, (v) => {
    const n = [...v].length;
    if (n >= min && n <= max) return undefined;
    if (n === 0) return 'must not be empty';
    return n > max ? `must be at most ${max} characters long, got ${n}` : `must be at least ${min} characters long, got ${n}`;
  });
}

/** An integer (no fraction) not below `min`. */
export function intAtLeast(min: number): Validator<number> {
  return validator(`an integer ≥ ${min}`, (v) => {
    if (!Number.isInteger(v)) return `must be a whole number, got ${v}`;
    return v < min ? `must be at least ${min}, got ${v}` : undefined;
  });
}

/** An integer (no fraction) from `min` to `max` inclusive. */
export function intBetween(min: number, max: number): Validator<number> {
  return validator(`an integer from ${min} to ${max}`, (v) => {
    if (!Number.isInteger(v)) return `must be a whole number, got ${v}`;
    return v < min || v > max ? `must be from ${min} to ${max}, got ${v}` : undefined;
  });
}

/** A number strictly greater than `min`. */
export function greaterThan(min: number): Validator<number> {
  return validator(`greater than ${min}`, (v) => (v > min ? undefined : `must be greater than ${min}, got ${v}`));
}

// C0 controls, DEL, and the bidi embeddings, overrides and isolates that can make text read
// differently from what it holds (the API and the SDK refuse the same set).
const UNSAFE_CHARACTER = /[\u0000-\u001f\u007f\u202a-\u202e\u2066-\u2069]/u;

/** Text without control characters or bidi overrides; the message names the code point and position. */
export function noControlCharacters(): Validator<string> {
  return validator('text without control or bidi-override characters', (v) => {
    const m = UNSAFE_CHARACTER.exec(v);
    if (m === null) return undefined;
    const cp = m[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
    return `must not contain control or bidi-override characters (U+${cp} at position ${[...v.slice(0, m.index)].length + 1})`;
  });
}

/** A number not above `max`. */
export function atMost(max: number): Validator<number> {
  return validator(`at most ${max}`, (v) => (v <= max ? undefined : `must be at most ${max}, got ${v}`));
}

/** One of the listed strings. */
export function oneOf(...allowed: string[]): Validator<string> {
  const list = allowed.map((s) => JSON.stringify(s)).join(', ');
  return validator(`one of ${list}`, (v, ctx) => (allowed.includes(v) ? undefined : `must be one of ${list}${shown(v, ctx)}`));
}

const OCTET = '(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])';
const IPV4 = new RegExp(`^${OCTET}(\\.${OCTET}){3}$`);

/** Whether `v` is an IPv4 address in dotted-quad form without leading zeros, the form {@link ipv4} accepts. */
export function isIpv4(v: string): boolean {
  return IPV4.test(v);
}

/** A dotted-quad IPv4 address without leading zeros, e.g. 203.0.113.7; the message names the problem. */
export function ipv4(): Validator<string> {
  return validator('an IPv4 address such as 203.0.113.7', (v, ctx) => {
    if (IPV4.test(v)) return undefined;
    return `must be an IPv4 address such as 203.0.113.7, one address: ${ipv4Problem(v)}${shown(v, ctx)}`;
  });
}

/** Why `v` is not a dotted-quad IPv4 address, in words. */
export function ipv4Problem(v: string): string {
  if (v.trim() !== v || /\s/.test(v)) return 'it contains white space';
  if (v.includes('/')) return 'a CIDR range is not accepted, only one address (declare each address)';
  if (v.includes(':')) return 'IPv6 addresses are not accepted, the API authorizes IPv4 only';
  const parts = v.split('.');
  if (parts.length !== 4) return `it has ${parts.length} dot-separated part${parts.length === 1 ? '' : 's'} instead of 4`;
  const notNumber = parts.find((p) => !/^[0-9]+$/.test(p));
  if (notNumber !== undefined) return `${JSON.stringify(notNumber)} is not a number`;
  // The range first: rewriting a leading zero away must not give a value that is refused too.
  const above = parts.find((p) => Number(p) > 255);
  if (above !== undefined) return `${above} is above 255`;
  const padded = parts.find((p) => p.length > 1 && p.startsWith('0'));
  if (padded !== undefined) return `${JSON.stringify(padded)} has a leading zero (write ${Number(padded)})`;
  return 'it is not in dotted-quad form';
}

// Deliberately loose: one @, something on each side, a dot in the domain, no spaces. The API
// decides the finer points; this only catches obvious typos at plan time.
const EMAIL = /^[^\s@]+@[^\s@.]+(?:\.[^\s@.]+)+$/;

/** Shaped like an email address. */
export function email(): Validator<string> {
  return matches(EMAIL, 'an email address such as name@example.com');
}

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/** A calendar date written YYYY-MM-DD (the day must exist). */
export function dateYmd(): Validator<string> {
  return validator('a date written YYYY-MM-DD', (v, ctx) => {
    const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(v);
    if (m === null) return `must be a date written YYYY-MM-DD${shown(v, ctx)}`;
    const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
    if (mo < 1 || mo > 12) return `must be a date written YYYY-MM-DD that exists: month ${m[2]} does not exist${shown(v, ctx)}`;
    const days = new Date(Date.UTC(y, mo, 0)).getUTCDate();
    if (d < 1 || d > days) return `must be a date written YYYY-MM-DD that exists: ${MONTHS[mo - 1]} ${y} has ${days} days${shown(v, ctx)}`;
    return undefined;
  });
}

/** The attribute may not be set together with any of `others` (sibling attribute names). */
export function conflictsWith(...others: string[]): Validator<unknown> {
  return {
    description: `conflicts with ${others.join(', ')}`,
    validate(_value, ctx): Diagnostic[] {
      const clash = others.filter((o) => {
        const v = ctx.siblings[o];
        // An unknown sibling may still turn out null; only a known value is a conflict.
        return v !== undefined && v !== null && !isUnknown(v);
      });
      if (clash.length === 0) return [];
      return [
        errorDiagnostic(
          'Conflicting attributes',
          `Attribute ${ctx.attributeName} cannot be set together with ${clash.join(', ')}; set only one of them.`,
          ctx.path,
        ),
      ];
    },
  };
}

/** Runs `inner` on each element of a list or set, on the element's path (sets: the attribute's path). */
export function eachElement<T>(inner: Validator<T>, nesting: 'list' | 'set' = 'list'): Validator<Array<T | null>> {
  return {
    description: `each element: ${inner.description}`,
    validate(values, ctx): Diagnostic[] {
      return values.flatMap((v, i) =>
        v === null
          ? []
          : // Terraform cannot address a set element by position, so set errors stay on the set.
            inner.validate(v, nesting === 'list' ? { ...ctx, path: [...ctx.path, { elementKeyInt: i }] } : ctx),
      );
    },
  };
}
