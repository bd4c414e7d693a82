// Injected faults for tests: the next `count` API requests matching a path (and optionally a
// method) fail with a status, are delayed, or have their connection dropped.

/** One fault, as given to `POST /_emulator/faults`. */
export interface Fault {
  /** Exact request path, or a prefix when it ends with `*`. */
  readonly path: string;
  /** Only requests with this method; all methods when undefined. */
  readonly method?: string;
  /** Answer with this status (plain-text body) instead of serving the request. */
  readonly status?: number;
  /** Wait this long before answering (then serve normally, or apply `status`/`reset`). */
  readonly delayMs?: number;
  /** Drop the connection without answering. */
  readonly reset?: boolean;
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

function matches(fault: Fault, method: string, path: string): boolean {
  if (fault.method !== undefined && fault.method !== method) return false;
  return fault.path.endsWith('*') ? path.startsWith(fault.path.slice(0, -1)) : path === fault.path;
}
