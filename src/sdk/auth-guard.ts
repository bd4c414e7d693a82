// The 401 guard. Four authentication failures in a short period ban the caller's address for
// three hours, so a client must never fire a burst of requests with credentials that may be wrong.
//
// - Until a response proves the credentials are accepted, only one request is in flight at a
//   time (a probe); parallel callers wait for its outcome instead of each risking a 401.
// - After one 401 the guard refuses every further request from this client, including callers
//   waiting for the probe and retries waiting out a backoff: they fail without sending anything.
// - A probe that was sent and got no answer (a timeout, a dropped connection) may have been a 401
//   the client never saw, and the server counted. One such loss is let go (the next probe may be
//   a retry or a waiting caller: a stale connection or one slow answer must not fail a run); after
//   the second the guard refuses every further request too ('unanswered'), so a run with wrong
//   credentials behind a lossy network sends at most two, below the 4 that ban.
// - Once accepted, requests run in parallel. Credentials can still go bad later (a token
//   deactivated or expired meanwhile); then at most the requests already in flight can fail.

/** What the guard knows about the client's credentials. */
export type CredentialState = 'unverified' | 'accepted' | 'rejected' | 'unanswered';

/** How a finished attempt bears on the credentials; `unanswered`: sent, no answer, while unverified. */
export type AuthOutcome = 'accepted' | 'rejected' | 'unknown' | 'unanswered';

/** Thrown by `acquire` when the credentials were rejected; the transport adds the context. */
export class CredentialsRejectedSignal extends Error {}

/** Thrown by `acquire` when the probe got no answer, so the credentials are neither proven nor refused. */
export class CredentialsUnprovenSignal extends Error {}

/** Probes that may go unanswered before the guard refuses everything (see above). */
export const MAX_UNANSWERED_PROBES = 2;

/** Per-client gate implementing the 401 guard. */
export class AuthGuard {
  private state: CredentialState = 'unverified';
  private unanswered = 0;
  private probe: Promise<void> | undefined;
  private waiting = 0;
  /** Called when a caller starts waiting for the probe, with how many wait now. */
  onWait: ((waiting: number) => void) | undefined;

  /** The current knowledge about the credentials. */
  get credentialState(): CredentialState {
    return this.state;
  }

  /**
   * Waits until this caller may send, and returns the function to call with the attempt's
   * outcome. Rejects with CredentialsRejectedSignal once a 401 was seen, or with the signal's
   * reason when `signal` aborts while waiting.
   */
  async acquire(signal?: AbortSignal): Promise<(outcome: AuthOutcome) => void> {
    for (;;) {
      if (this.state === 'rejected') throw new CredentialsRejectedSignal();
      if (this.state === 'unanswered') throw new CredentialsUnprovenSignal();
      if (this.state === 'accepted') return (outcome) => this.record(outcome);
      if (this.probe === undefined) {
        let done!: () => void;
        this.probe = new Promise<void>((resolve) => (done = resolve));
        return (outcome) => {
          this.record(outcome);
          this.probe = undefined;
          done();
        };
      }
      this.waiting += 1;
      try {
        try {
          this.onWait?.(this.waiting);
        } catch {
          // What onWait does (opening spare connections) only saves time: it must never fail a call.
        }
        await waitOrAbort(this.probe, signal);
      } finally {
        this.waiting -= 1;
      }
    }
  }

  private record(outcome: AuthOutcome): void {
    if (outcome === 'rejected') this.state = 'rejected';
    else if (outcome === 'accepted' && this.state === 'unverified') this.state = 'accepted';
    else if (outcome === 'unanswered' && this.state === 'unverified' && ++this.unanswered >= MAX_UNANSWERED_PROBES) this.state = 'unanswered';
  }
}

function waitOrAbort(p: Promise<void>, signal: AbortSignal | undefined): Promise<void> {
  if (signal === undefined) return p;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<void>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, reject);
  });
}

/**
 * Which statuses prove the server accepted the credentials: success, and the errors a server can
 * only decide after knowing the caller (plan, ownership, lookup). 400 is left out because form
 * validation may run before authentication; 3xx, 405, 429, 5xx say nothing about them.
 */
export function authOutcomeOf(status: number, banned: boolean): AuthOutcome {
  if (status === 401) return 'rejected';
  if (banned) return 'unknown';
  if ((status >= 200 && status < 300) || status === 402 || status === 403 || status === 404) {
    return 'accepted';
  }
  return 'unknown';
}
