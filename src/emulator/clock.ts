// The emulator's notion of "now". Bans, token expiry and billing periods all read this clock, so
// tests can move time forward through the control API instead of waiting.

/**
 * How far ahead of real time the clock may run: 100 years. Far beyond any test's need, and far
 * inside what dates can hold (a clock moved by 1e13 s made every date unwritable, so every token
 * create answered 500, even after a restart with --state).
 */
export const MAX_CLOCK_OFFSET_SECONDS = 100 * 366 * 86_400;

/** True when `ms` is an offset the clock may hold (whole milliseconds, 0 to the limit). */
export function isClockOffsetMs(ms: number): boolean {
  return Number.isSafeInteger(ms) && ms >= 0 && ms <= MAX_CLOCK_OFFSET_SECONDS * 1000;
}

/** A clock that can be moved forward. */
export interface Clock {
  /** Current emulator time in milliseconds since the epoch. */
  now(): number;
  /** Moves the clock forward by `seconds` (>= 0, the offset staying within {@link MAX_CLOCK_OFFSET_SECONDS}). */
  advance(seconds: number): void;
  /** The offset from real time, in milliseconds (persisted with --state). */
  offsetMs(): number;
  /** Sets the offset from real time, in milliseconds. */
  setOffsetMs(offset: number): void;
}

/**
 * Creates a clock that runs with real time plus an offset.
 * @param realNow source of real time; @default Date.now
 */
export function createClock(realNow: () => number = Date.now): Clock {
  let offset = 0;
  return {
    now: () => realNow() + offset,
    advance(seconds: number): void {
      if (!Number.isFinite(seconds) || seconds < 0) throw new RangeError('seconds must be a finite number >= 0');
      const next = offset + Math.round(seconds * 1000);
      if (!isClockOffsetMs(next)) throw new RangeError(`the clock may run at most ${MAX_CLOCK_OFFSET_SECONDS} s ahead of real time`);
      offset = next;
    },
    offsetMs: () => offset,
    setOffsetMs(value: number): void {
      if (!isClockOffsetMs(value)) throw new RangeError(`clock offset ${value} ms is not from 0 to ${MAX_CLOCK_OFFSET_SECONDS * 1000} ms`);
      offset = value;
    },
  };
}

/** Formats a time as the API does: UTC, seconds precision, no timezone suffix. */
export function formatApiDateTime(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19);
}

/** Formats a time as an ISO 8601 UTC string with a `Z`, for the control API. */
export function formatIso(ms: number): string {
  return new Date(ms).toISOString();
}
