// When an open CONNECT tunnel is admitted again, and that only one re-admission of a tunnel runs at
// a time: a tunnel that moves data must not turn its chunks into as many admissions at once.
import { accessChanges, type ProxyContext } from './context';
import type { Passed } from './gate';

/** A tunnel is admitted again at least this often (emulator time) while it is checked. */
export const TUNNEL_RECHECK_MS = 1_000;

/**
 * The re-admissions of one tunnel. One is due whenever the state changed since the last, the
 * proxies' usage records aside (accessChanges: a token deleted, a proxy removed, usage recorded
 * through the control API), or a second of emulator time has passed since it (a token's grace
 * period or expiry, a new billing period, a limit reached by other traffic).
 */
export class TunnelCheck {
  private changes: number;
  private time: number;
  private running: Promise<string | undefined> | undefined;

  constructor(
    private readonly ctx: Pick<ProxyContext, 'store' | 'clock'>,
    private readonly passed: Pick<Passed, 'admittedAt' | 'readmit'>,
  ) {
    ({ changes: this.changes, time: this.time } = passed.admittedAt);
  }

  /** True when the state may have changed since the last admission. */
  due(): boolean {
    return this.changeCount() !== this.changes || this.ctx.clock.now() - this.time >= TUNNEL_RECHECK_MS;
  }

  /**
   * Admits the tunnel again: undefined while it may go on, else why not. While one runs, none other
   * starts: a call waits for it, and runs another only if one is still due after it.
   */
  run(): Promise<string | undefined> {
    const running = this.running;
    if (running !== undefined) {
      // One under way that saw the current state answers for this call too.
      if (!this.due()) return running;
      return running.then((why) => (why !== undefined || !this.due() ? why : this.run()));
    }
    // Marked before it reads: a write made while it runs makes the next one due.
    this.changes = this.changeCount();
    this.time = this.ctx.clock.now();
    const run = this.passed
      .readmit()
      .catch((err: unknown) => `its admission could not be checked (${err instanceof Error ? err.message : String(err)})`)
      .finally(() => {
        this.running = undefined;
      });
    this.running = run;
    return run;
  }

  /** NaN once the store is closed (the emulator stopping): always due, and the admission then fails. */
  private changeCount(): number {
    try {
      return accessChanges(this.ctx.store);
    } catch {
      return Number.NaN;
    }
  }
}
