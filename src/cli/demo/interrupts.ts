// Ctrl-C and SIGTERM during the demo. The first stops terraform gracefully and lets the demo clean
// up; the second kills the children at once; the third exits on the spot (exit handlers still
// kill the children and remove a temporary work dir).
import { setMaxListeners } from 'node:events';
import type { ProcessGroup } from './processes';

/** Signals closer together than this are one interrupt. */
const SAME_INTERRUPT_MS = 1000;

/** Thrown between steps once the user has interrupted the demo. */
export class InterruptedError extends Error {
  constructor(signal: string) {
    super(`${signal} received`);
    this.name = 'InterruptedError';
  }
}

/** Watches SIGINT and SIGTERM for the length of a demo run. */
export class Interrupts {
  /** Aborted at the first signal: bound to the account stores the demo opens. */
  readonly signal: AbortSignal;
  private readonly controller = new AbortController();
  private received: NodeJS.Signals | undefined;
  private count = 0;
  private lastCounted = 0;
  private readonly onSignal = (signal: NodeJS.Signals): void => {
    // `npm start` forwards the terminal's Ctrl-C to us, which got it already: one key press, two signals.
    const now = Date.now();
    if (now - this.lastCounted < SAME_INTERRUPT_MS) return;
    this.lastCounted = now;
    this.count++;
    this.received ??= signal;
    if (this.count === 1) {
      this.notify(`\n${signal}: stopping terraform, then cleaning up (interrupt again to stop at once)`);
      this.processes.interrupt();
      this.controller.abort(new InterruptedError(signal));
    } else if (this.count === 2) {
      this.notify(`${signal}: killing the running commands`);
      this.processes.kill();
    } else {
      process.exit(130);
    }
  };

  constructor(
    private readonly processes: ProcessGroup,
    private readonly notify: (message: string) => void,
  ) {
    this.signal = this.controller.signal;
    // Every SDK call in flight listens to it: a read-back of a dozen accounts is not a leak.
    setMaxListeners(0, this.signal);
    process.on('SIGINT', this.onSignal);
    process.on('SIGTERM', this.onSignal);
  }

  /** Whether a signal has arrived. */
  get interrupted(): boolean {
    return this.count > 0;
  }

  /** Throws {@link InterruptedError} once a signal has arrived; call it between steps. */
  check(): void {
    if (this.received !== undefined) throw new InterruptedError(this.received);
  }

  /** Gives the signals back to Node's defaults. */
  dispose(): void {
    process.off('SIGINT', this.onSignal);
    process.off('SIGTERM', this.onSignal);
  }
}
