// When an open CONNECT tunnel (or an absolute-form exchange that runs long) is admitted again, and
// that only one re-admission of it runs at a time: a tunnel that moves data must not turn its chunks
// into as many admissions at once. ExchangeWatch runs the re-admissions a second brings and records
// the exchange's usage as it goes, for both ways through a proxy (forward.ts).
import { stillAllowed } from './admission';
import { accessChanges, type ProxyContext, recordTraffic } from './context';
import type { Passed } from './gate';

/** A tunnel's (or a long exchange's) bytes are recorded whenever this many have accumulated, and when it closes. */
const TUNNEL_FLUSH_BYTES = 64 * 1024;

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

/**
 * What an open exchange (a CONNECT tunnel, or an absolute-form request that runs long) runs while
 * it relays: its re-admission once a second of real time, so that bytes from the target stop
 * within about a second of what admitted it going (unref'd: it holds no process open), and its
 * usage recorded every {@link TUNNEL_FLUSH_BYTES}, so that it cannot outrun a limit. What a usage
 * record can change is checked at once, without the rest of the admission: traffic makes no
 * re-admission due (accessChanges). `end` is called with why it must close.
 */
export class ExchangeWatch {
  readonly check: TunnelCheck;
  private pending = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly ctx: ProxyContext,
    private readonly passed: Passed,
    private readonly end: (why: string) => void,
  ) {
    this.check = new TunnelCheck(ctx, passed);
  }

  /** Starts the re-admissions a second brings. */
  start(): void {
    this.timer = setInterval(() => {
      if (!this.check.due()) return;
      void this.check.run().then((why) => {
        if (why !== undefined) this.end(why);
      });
    }, TUNNEL_RECHECK_MS).unref();
  }

  /** Counts `n` bytes relayed, recording them once enough have accumulated. */
  count(n: number): void {
    this.pending += n;
    if (this.pending >= TUNNEL_FLUSH_BYTES) this.flush(false);
  }

  /** Records what is counted and not recorded yet; unless `closing`, checks what the record can change. */
  flush(closing: boolean): void {
    if (this.pending === 0) return;
    const recorded = recordTraffic(this.ctx, this.passed.who, this.pending);
    this.pending = 0;
    if (!recorded || closing) return;
    const why = stillAllowed(this.ctx.store, this.passed.who, this.ctx.clock.now());
    if (why !== undefined) this.end(why);
  }

  /** Stops the re-admissions. */
  stop(): void {
    clearInterval(this.timer);
  }
}
