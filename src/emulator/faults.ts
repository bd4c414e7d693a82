// Injected faults for tests: the next `count` API requests matching a path (and optionally a
// method) fail with a status, are delayed, have their connection dropped before they are served,
// or are served and then answered late or not at all (the "lost answer" of a proxy or timeout),
// or pass untouched so that the faults after them hit later requests.

/** One fault, as given to `POST /_emulator/faults`. */
export interface Fault {
  /** Exact request path, or a prefix when it ends with `*`. */
  readonly path: string;
  /** Only requests with this method; all methods when undefined. */
  readonly method?: string;
  /** Answer with this status (plain-text body) instead of serving the request. */
  readonly status?: number;
  /** `Retry-After` header (seconds) sent with `status`. */
  readonly retryAfterSeconds?: number;
  /** Wait this long before answering (then serve normally, or apply `status`/`reset`). */
  readonly delayMs?: number;
  /** Drop the connection without answering, before serving the request. */
  readonly reset?: boolean;
  /** Serve the request (its change is made), then wait this long before answering. */
  readonly delayAfterMs?: number;
  /** Serve the request (its change is made), then drop the connection without answering. */
  readonly dropResponse?: boolean;
  /**
   * Serve the request (its change is made), then answer with this status instead of its own: a
   * gateway's 502 or 504 after the server behind it did the work.
   */
  readonly statusAfterServing?: number;
  /** Serve the request untouched: it takes its turn, so the faults after it hit later requests. */
  readonly pass?: boolean;
  /** How many matching requests remain to be affected. */
  remaining: number;
}

/** Pending faults, consumed in the order they were added. Not persisted. */
export class FaultList {
  private faults: Fault[] = [];

  /** Adds a fault. */
  add(fault: Fault): void {
    this.faults.push(fault);
  }

  /** The first fault matching the request, with one use consumed; undefined when none. */
  take(method: string, path: string): Fault | undefined {
    const fault = this.faults.find((f) => matches(f, method, path));
    if (!fault) return undefined;
    fault.remaining -= 1;
    if (fault.remaining <= 0) this.faults = this.faults.filter((f) => f !== fault);
    return fault;
  }

  /** Removes every fault. */
  clear(): void {
    this.faults = [];
  }

  /** The pending faults, for the control API's state dump. */
  snapshot(): Fault[] {
    return this.faults.map((f) => ({ ...f }));
  }
}

/** True when the fault answers (or drops) the request instead of serving it. */
export function replacesRequest(fault: Fault): boolean {
  return fault.reset === true || fault.status !== undefined;
}

/** True when the fault lets the request be served and then withholds or delays its answer. */
export function actsAfterServing(fault: Fault): boolean {
  return fault.dropResponse === true || fault.statusAfterServing !== undefined || (fault.delayAfterMs !== undefined && fault.delayAfterMs > 0);
}

function matches(fault: Fault, method: string, path: string): boolean {
  if (fault.method !== undefined && fault.method !== method) return false;
  return faultPathMatches(fault.path, path);
}

/** True when a fault's `path` (exact, or a prefix ending with `*`) matches a request path. */
export function faultPathMatches(faultPath: string, path: string): boolean {
  return faultPath.endsWith('*') ? path.startsWith(faultPath.slice(0, -1)) : path === faultPath;
}
