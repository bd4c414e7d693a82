// The emulator's notion of "now". Bans, token expiry and billing periods all read this clock, so
// tests can move time forward through the control API instead of waiting.

/** A clock that can be moved forward. */
export interface Clock {
  /** Current emulator time in milliseconds since the epoch. */
  now(): number;
  /** Moves the clock forward by `seconds` (>= 0). */
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
      offset += Math.round(seconds * 1000);
    },
    offsetMs: () => offset,
    setOffsetMs(value: number): void {
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
