// The API requests being served, for a shutdown that behaves like a real server's: stop taking
// connections, let what is being served finish for a while, and cut the rest with a log line each
// (saying whether its change was made), so that no request ends without a line.
import type { ServerResponse } from 'node:http';

/** How long a shutdown waits for requests being served (a delay fault's may be minutes). */
export const DRAIN_MS = 2_000;

interface Serving {
  readonly method: string;
  readonly path: string;
  readonly started: bigint;
  /** Its change (if any) is made: what is left is the answer. */
  served: boolean;
}

export class InFlight {
  readonly #serving = new Map<ServerResponse, Serving>();
  readonly #cut = new WeakSet<ServerResponse>();
  #emptied: (() => void) | undefined;

  /** A request starts being served. */
  begin(res: ServerResponse, method: string, path: string, started: bigint): void {
    this.#serving.set(res, { method, path, started, served: false });
  }

  /** Its change (if any) is made. */
  served(res: ServerResponse): void {
    const s = this.#serving.get(res);
    if (s !== undefined) s.served = true;
  }

  /** Cut by a shutdown: it must not be served any further (the store may be closed). */
  isCut(res: ServerResponse): boolean {
    return this.#cut.has(res);
  }

  /** The request is done with; false when a shutdown cut it (its line was written then). */
  end(res: ServerResponse): boolean {
    const open = this.#serving.delete(res);
    if (this.#serving.size === 0) this.#emptied?.();
    return open;
  }

  /**
   * Waits up to `ms` for the requests being served to finish, then cuts the rest: each gets a
   * line saying so and whether its change was made, and is served no further.
   */
  async drain(log: (line: string) => void, ms = DRAIN_MS): Promise<void> {
    if (this.#serving.size > 0) {
      let timer: NodeJS.Timeout | undefined;
      await new Promise<void>((resolve) => {
        this.#emptied = resolve;
        timer = setTimeout(resolve, ms);
      });
      clearTimeout(timer);
      this.#emptied = undefined;
    }
    for (const [res, s] of this.#serving) {
      this.#cut.add(res);
      const elapsed = Number(process.hrtime.bigint() - s.started) / 1e6;
      const what = s.served ? 'its change was made, its answer is lost' : 'not served';
      log(`${s.method} ${s.path} cut by shutdown ${elapsed.toFixed(1)}ms (${what})`);
    }
    this.#serving.clear();
  }
}
