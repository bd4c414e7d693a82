// `tokens prune` on Ctrl-C (src/cli/tokens.ts `stopOnSignal`), over a fake process (signals, clock,
// stderr, exit): the first interrupt stops the run; one within a second of it is the same interrupt
// (`npx` forwards the terminal's Ctrl-C, which reached the command too) and is ignored; a later one
// exits 130 at once, after naming each delete sent whose outcome nobody will now learn.
import { EventEmitter } from 'node:events';
import { SAME_INTERRUPT_MS, type SignalSeams, stopOnSignal } from '../../src/cli/tokens';
import type { PrunedToken } from '../../src/gitops/use-cases';

class FakeProcess {
  readonly signals = new EventEmitter();
  clock = 0;
  stderr = '';
  readonly exits: number[] = [];
  readonly seams: SignalSeams = {
    on: (signal, listener) => this.signals.on(signal, listener),
    off: (signal, listener) => this.signals.off(signal, listener),
    now: () => this.clock,
    write: (text) => {
      this.stderr += text;
    },
    exit: (code) => {
      this.exits.push(code);
    },
  };

  /** The signal, `afterMs` after the previous one. */
  send(signal: NodeJS.Signals, afterMs = 0): void {
    this.clock += afterMs;
    this.signals.emit(signal, signal);
  }
}

const SENT: PrunedToken = { username: 'alice', id: 15, label: 'tf-ephemeral:ci-1', createdAt: new Date('2026-06-01T09:00:00Z') };

describe('stopOnSignal', () => {
  it('stops on the first interrupt, takes one within a second for the same, and on a later one names the delete in flight and exits 130', () => {
    const fake = new FakeProcess();
    const inFlight: PrunedToken[] = [SENT];
    const stop = stopOnSignal(() => inFlight, fake.seams);
    fake.send('SIGINT');
    expect(stop.signal.aborted).toBe(true);
    expect(stop.received).toBe('SIGINT');
    expect(fake.stderr).toBe(
      'proxyaccount: SIGINT: stopping; a delete already sent finishes first (interrupt again, a second or more later, to exit at once)\n',
    );
    // npx's forwarded copy of the same Ctrl-C.
    fake.send('SIGINT', SAME_INTERRUPT_MS - 1);
    expect(fake.exits).toEqual([]);
    fake.stderr = '';
    fake.send('SIGINT', 1);
    expect(fake.exits).toEqual([130]);
    expect(fake.stderr).toBe(
      'proxyaccount: SIGINT again: exiting at once\n' +
        "proxyaccount: the delete of token 15 'tf-ephemeral:ci-1' of the sub-account 'alice' was sent and its outcome is unknown: " +
        "check with `proxyaccount tokens prune --dry-run` and the same options (it lists the token if it still exists) or in the account's token list\n",
    );
    stop.dispose();
  });

  it('on a second interrupt with no delete in flight says so', () => {
    const fake = new FakeProcess();
    const stop = stopOnSignal(() => [], fake.seams);
    fake.send('SIGTERM');
    fake.stderr = '';
    fake.send('SIGINT', SAME_INTERRUPT_MS);
    expect(fake.exits).toEqual([130]);
    expect(fake.stderr).toBe('proxyaccount: SIGINT again: exiting at once; no delete was in flight\n');
    stop.dispose();
  });

  it('listens no more once disposed', () => {
    const fake = new FakeProcess();
    const stop = stopOnSignal(() => [], fake.seams);
    stop.dispose();
    expect(fake.signals.listenerCount('SIGINT') + fake.signals.listenerCount('SIGTERM')).toBe(0);
  });
});
