// The API's clock, as its answers tell it. Whether a token has expired is the API's judgement,
// made on its own clock; a runner whose clock is off (or a test emulator whose clock was moved)
// must not disagree with it. Each response's `Date` header is remembered with the monotonic time
// it arrived, so later readings advance with elapsed time and ignore jumps of the local clock.

/**
 * Monotonic milliseconds. Not `performance.now()`: the first use of the `performance` global loads
 * Node's perf_hooks (about 2 ms), on the provider's way to its first API request.
 */
const monotonicMs = (): number => Number(process.hrtime.bigint()) / 1e6;

/** The server's time, from the `Date` header of the latest response that carried a valid one. */
export class ServerClock {
  #serverMs: number | undefined;
  #receivedAt = 0;

  /** Notes a response's `Date` header; a missing or unparsable one changes nothing. */
  observe(header: string | readonly string[] | undefined): void {
    const value = typeof header === 'string' ? header : header?.[0];
    if (value === undefined) return;
    const ms = Date.parse(value);
    if (!Number.isFinite(ms)) return;
    this.#serverMs = ms;
    this.#receivedAt = monotonicMs();
  }

  /** The server's time now, or undefined before any response carried a `Date` header. */
  now(): Date | undefined {
    if (this.#serverMs === undefined) return undefined;
    return new Date(this.#serverMs + (monotonicMs() - this.#receivedAt));
  }
}
