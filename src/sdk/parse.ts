// Tolerant readers of response bodies. Where the API contract leaves an encoding open they accept every
// plausible form (numbers as JSON numbers or numeric strings, date-times with or without a
// timezone and fractional seconds, a missing label); anything else throws ShapeError, which the
// transport turns into ResponseParseError. Unknown fields are ignored: outputs are built field by
// field, never spread from the wire.

/** A body that does not have the documented shape; `message` says which field and why. */
export class ShapeError extends Error {}

/** A JSON object. */
export type JsonObject = Record<string, unknown>;

/** Requires a JSON object. */
export function asObject(value: unknown, what: string): JsonObject {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ShapeError(`${what} is not a JSON object`);
  }
  return value as JsonObject;
}

/** Requires a JSON array. */
export function asArray(value: unknown, what: string): unknown[] {
  if (!Array.isArray(value)) throw new ShapeError(`${what} is not a JSON array`);
  return value;
}

/** Requires a string field. */
export function str(obj: JsonObject, key: string): string {
  const v = obj[key];
  if (typeof v !== 'string') throw new ShapeError(`field "${key}" is ${v === undefined ? 'missing' : 'not a string'}`);
  return v;
}

/** An optional string field: missing or null → undefined. */
export function optStr(obj: JsonObject, key: string): string | undefined {
  const v = obj[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw new ShapeError(`field "${key}" is not a string`);
  return v;
}

/** Requires a boolean field; also accepts the strings "true"/"false". */
export function bool(obj: JsonObject, key: string): boolean {
  const v = obj[key];
  if (typeof v === 'boolean') return v;
  if (v === 'true' || v === 'false') return v === 'true';
  throw new ShapeError(`field "${key}" is ${v === undefined ? 'missing' : 'not a boolean'}`);
}

const DECIMAL_RE = /^\s*-?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?\s*$/;

/** A finite number given as a JSON number or a numeric string; undefined when it is neither. */
export function toNumber(v: unknown): number | undefined {
  if (typeof v === 'number') return Number.isFinite(v) ? v : undefined;
  if (typeof v === 'string' && DECIMAL_RE.test(v)) {
    const n = Number(v);
    return Number.isFinite(n) ? n : undefined;
  }
  return undefined;
}

/** Requires a number ≥ 0 (JSON number or numeric string). */
export function nonNegative(obj: JsonObject, key: string): number {
  const n = toNumber(obj[key]);
  if (n === undefined || n < 0) {
    throw new ShapeError(`field "${key}" is ${obj[key] === undefined ? 'missing' : 'not a number >= 0'}`);
  }
  return n;
}

/** Requires an integer ≥ 0 (JSON number or numeric string). */
export function count(value: unknown, what: string): number {
  const n = toNumber(value);
  if (n === undefined || n < 0 || !Number.isSafeInteger(n)) {
    throw new ShapeError(`${what} is ${value === undefined ? 'missing' : 'not a whole number >= 0'}`);
  }
  return n;
}

/** Requires an array of strings under `key`. */
export function strings(obj: JsonObject, key: string): string[] {
  const arr = asArray(obj[key], `field "${key}"`);
  return arr.map((v, i) => {
    if (typeof v !== 'string') throw new ShapeError(`item ${i} of "${key}" is not a string`);
    return v;
  });
}

// YYYY-MM-DD, then optionally T or space, hh:mm, :ss, .fraction, and Z or ±hh[:]mm.
const DATE_TIME_RE = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?)?\s*([Zz]|[+-]\d{2}(?::?\d{2})?)?$/;

/**
 * Reads a date-time. Without a timezone it is UTC (the API contract's example has none); a bare date is
 * midnight UTC; fractional seconds beyond milliseconds are truncated.
 */
export function dateTime(value: unknown, what: string): Date {
  const m = typeof value === 'string' ? DATE_TIME_RE.exec(value.trim()) : null;
  if (m === null) throw new ShapeError(`${what} is not a date-time`);
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const [hour, minute, second] = [Number(m[4] ?? 0), Number(m[5] ?? 0), Number(m[6] ?? 0)];
  const ms = m[7] === undefined ? 0 : Number(m[7].slice(0, 3).padEnd(3, '0'));
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60) {
    throw new ShapeError(`${what} is not a valid date-time`);
  }
  let offsetMinutes = 0;
  const tz = m[8];
  if (tz !== undefined && tz.toUpperCase() !== 'Z') {
    const digits = tz.slice(1).replace(':', '');
    const h = Number(digits.slice(0, 2));
    const mi = digits.length > 2 ? Number(digits.slice(2)) : 0;
    if (h > 23 || mi > 59) throw new ShapeError(`${what} has an invalid timezone offset`);
    offsetMinutes = (tz[0] === '-' ? -1 : 1) * (h * 60 + mi);
  }
  const utc = Date.UTC(year, month - 1, day, hour, minute, Math.min(second, 59), ms);
  const check = new Date(Date.UTC(year, month - 1, day));
  if (check.getUTCMonth() !== month - 1 || check.getUTCDate() !== day) {
    throw new ShapeError(`${what} is not a real calendar date`);
  }
  return new Date(utc - offsetMinutes * 60_000);
}

/** A nullable date-time: missing, null or '' → null. */
export function optDateTime(value: unknown, what: string): Date | null {
  if (value === undefined || value === null || value === '') return null;
  return dateTime(value, what);
}
