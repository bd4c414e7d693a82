// When a write's outcome is unknown, and the error the store throws when reading back could not
// settle it. A write whose request may have reached the API (a timeout, a dropped connection, a
// 500, a success whose body was lost) may have taken effect: the store reads the account back
// before deciding, so nothing it made is forgotten and nothing is made twice.
import { isProxyAccountError, ProxyAccountError } from '../sdk';

/** SDK codes after which a sent write may or may not have taken effect. */
const UNKNOWN_OUTCOME_CODES: ReadonlySet<string> = new Set(['ERR_TIMEOUT', 'ERR_NETWORK', 'ERR_SERVER', 'ERR_RESPONSE_PARSE', 'ERR_SERVICE_UNAVAILABLE']);

// Network failures that prove nothing reached the API (the SDK already retried them).
const NOT_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);

/** True when `err` leaves open whether the write it ended took effect. */
export function isUnknownOutcome(err: unknown): boolean {
  if (!isProxyAccountError(err) || !UNKNOWN_OUTCOME_CODES.has(err.code)) return false;
  const errorCode = (err as { errorCode?: unknown }).errorCode;
  return !(err.code === 'ERR_NETWORK' && typeof errorCode === 'string' && NOT_SENT.has(errorCode));
}

/**
 * A write's answer was lost and reading the account back failed too: whether it took effect is
 * not known. `cause` is the write's own error; `readBackError` the failed read.
 */
export class UnknownOutcomeError extends ProxyAccountError {
  /** What the write was, e.g. "add IP '203.0.113.7' for sub-account 'alice'". */
  readonly operation: string;
  /** Why the read-back failed. */
  readonly readBackError: unknown;

  constructor(operation: string, cause: unknown, readBackError: unknown) {
    const why = cause instanceof Error ? cause.message : String(cause);
    const readBack = readBackError instanceof Error ? readBackError.message : String(readBackError);
    super(
      'ERR_UNKNOWN_OUTCOME',
      `${operation}: the request was sent but its answer was lost (${why}), and reading the account back failed too (${readBack}); ` +
        'it may or may not have taken effect. The next refresh reads the account again and shows what exists',
      { cause },
    );
    this.operation = operation;
    this.readBackError = readBackError;
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
