// When a write's outcome is unknown, and the errors the store throws when reading back could not
// settle it: the read failed, or a create was not found yet. A write whose request may have
// reached the API (a timeout, a dropped connection, a 500, a success whose body was lost) may have
// taken effect, now or later: the store reads the account back before deciding, so nothing it
// made is forgotten and nothing is made twice. Which failures those are is the SDK's fact
// (`outcomeUnknown`), decided where the wire was seen.
import { isProxyAccountError, ProxyAccountError } from '../sdk';

/**
 * The codes of the store's own errors, beside the SDK's `ProxyAccountErrorCode`: a write whose
 * outcome stays unknown, and a token create not sent because an earlier one's stays unknown.
 */
export type AccountErrorCode = 'ERR_UNKNOWN_OUTCOME' | 'ERR_UNSETTLED_CREATE';

/** True when `err` leaves open whether the write it ended took effect. */
export function isUnknownOutcome(err: unknown): boolean {
  return isProxyAccountError(err) && err.outcomeUnknown;
}

/** What follows an unknown outcome for most writes: the object is in state, or was, so it is read again. */
const NEXT_REFRESH_SHOWS = 'The next refresh reads the account again and shows what exists';

/**
 * A write's answer was lost and reading the account back failed too: whether it took effect is
 * not known. `cause` is the write's own error; `readBackError` the failed read; `next` what
 * happens next, true for this write (the default fits a write whose object is in state, or was:
 * an edit, a delete, or a create the caller keeps as tainted).
 */
export class UnknownOutcomeError extends ProxyAccountError<AccountErrorCode> {
  /** What the write was, e.g. "add IP '203.0.113.7' for sub-account 'alice'". */
  readonly operation: string;
  /** Why the read-back failed. */
  readonly readBackError: unknown;

  constructor(operation: string, cause: unknown, readBackError: unknown, next: string = NEXT_REFRESH_SHOWS) {
    const why = cause instanceof Error ? cause.message : String(cause);
    const readBack = readBackError instanceof Error ? readBackError.message : String(readBackError);
    super(
      'ERR_UNKNOWN_OUTCOME',
      `${operation}: the request was sent but its answer was lost (${why}), and reading the account back failed too (${readBack}); ` +
        `it may or may not have taken effect. ${next}`,
      { cause, facts: { mayHaveReachedServer: true, outcomeUnknown: true } },
    );
    this.operation = operation;
    this.readBackError = readBackError;
  }
}

/**
 * A create's answer was lost and reading the account back did not find what it makes: not proof
 * that it failed, since a request that timed out or lost its connection may still be carried out
 * by the API after the read (queued at a proxy, a load balancer or the server). So the outcome
 * stays unknown (the same code as {@link UnknownOutcomeError}), and the caller keeps the object as
 * one that may exist. `next` as for {@link UnknownOutcomeError}.
 */
export class UnseenCreateError extends ProxyAccountError<AccountErrorCode> {
  /** What the write was, e.g. "add IP '203.0.113.7' for sub-account 'alice'". */
  readonly operation: string;

  constructor(operation: string, cause: unknown, next: string = NEXT_REFRESH_SHOWS) {
    const why = cause instanceof Error ? cause.message : String(cause);
    super(
      'ERR_UNKNOWN_OUTCOME',
      `${operation}: the request was sent and its outcome is unknown (${why}); the account was read back and does not hold it yet, ` +
        `but the API may still carry the request out. ${next}.`,
      { cause, facts: { mayHaveReachedServer: true, outcomeUnknown: true } },
    );
    this.operation = operation;
  }
}

/**
 * A change in place (an edit, an activation) whose answer was lost, and which reading back does
 * not settle: the account does not show the change yet, which proves nothing (the API may still
 * carry the request out), or nothing reading back could show tells (a password, which the API
 * never shows). The change may have been made: the outcome stays unknown (the same code as
 * {@link UnknownOutcomeError}), never reported as a plain failure. `unseen` says why reading back
 * did not settle it; `next` as for {@link UnknownOutcomeError}.
 */
export class UnsettledChangeError extends ProxyAccountError<AccountErrorCode> {
  /** What the write was, e.g. "edit sub-account 'alice'". */
  readonly operation: string;

  constructor(operation: string, cause: unknown, unseen: string, next: string = NEXT_REFRESH_SHOWS) {
    const why = cause instanceof Error ? cause.message : String(cause);
    super(
      'ERR_UNKNOWN_OUTCOME',
      `${operation}: the request was sent but its answer was lost (${why}); it may or may not have taken effect: ${unseen}. ${next}.`,
      {
        cause,
        facts: { mayHaveReachedServer: true, outcomeUnknown: true },
      },
    );
    this.operation = operation;
  }
}

/** The store refused to start a write because the run is stopping (writes already sent finish). */
export class StoppedError extends ProxyAccountError {
  /** The write that was not started. */
  readonly operation: string;

  constructor(operation: string) {
    super('ERR_ABORTED', `${operation} was not started: the run is stopping (writes already sent were allowed to finish)`);
    this.operation = operation;
  }
}
