// The facts every SDK error states about the call it ended, decided here once, where what
// happened on the wire is known: callers (the account store, the provider, the CLI) read them
// instead of keeping their own lists of codes.

/**
 * What an error says about the call it ended. The SDK decides these once, where it knows what
 * happened on the wire; callers read them instead of matching codes.
 */
export interface ErrorFacts {
  /**
   * False only when the SDK knows the request never reached the API: refused before sending
   * (bad argument, rejected credentials, ban, closed client), or the connection was never made
   * (refused, DNS failure, unreachable, connect timeout, failed TLS handshake). Then the call had
   * no effect, and sending it again is safe. True for every answer and every failure after sending.
   */
  readonly mayHaveReachedServer: boolean;
  /**
   * True when the call may have taken effect and no answer says whether or how: a timeout, a
   * dropped connection or an abort after sending, a 5xx but 501 and 505 (a gateway's 502 or 504
   * included), a success whose body was unreadable. Read the account back before deciding; never assume a write failed.
   */
  readonly outcomeUnknown: boolean;
  /**
   * True when the API rejected the credentials: a 401 now, earlier in this client, or remembered
   * from an earlier run. Never retry with the same credentials: 4 failures ban the address.
   */
  readonly credentialsRejected: boolean;
  /**
   * True when this client now refuses every further call without sending it: its credentials
   * were rejected, its address is banned, or it was closed. Start no more calls with it.
   */
  readonly clientRefusesRequests: boolean;
}

/** What the errors that do not say otherwise state: nothing was sent, nothing is unknown. */
export const NOTHING_SENT: ErrorFacts = { mayHaveReachedServer: false, outcomeUnknown: false, credentialsRejected: false, clientRefusesRequests: false };

// Connection failures that prove the request never reached the server: safe to retry any call.
// UND_ERR_INVALID_ARG: undici refused the request before writing it.
const NOT_SENT_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_INVALID_ARG',
]);

// Errors the client's own connector reported: it reports errors only until it hands undici the
// connection (after the TLS handshake, for HTTPS), so no request was written before them, whatever
// their code (a reset during the handshake is an ECONNRESET like one after a request).
const UNCONNECTED = new WeakSet<object>();

/** Marks `err`, reported by the connector before it handed over a connection, as proof that nothing was sent. */
export function markUnconnected(err: unknown): void {
  if (typeof err === 'object' && err !== null) UNCONNECTED.add(err);
}

/**
 * True when a system or undici error code proves the request never reached the server, or the
 * error itself does (`error`: the connector reported it, see markUnconnected).
 */
export function provesNotSent(errorCode: string | undefined, error?: unknown): boolean {
  if (typeof error === 'object' && error !== null && UNCONNECTED.has(error)) return true;
  return errorCode !== undefined && NOT_SENT_CODES.has(errorCode);
}

/** Rejected credentials: the client refuses every further call (see the 401 guard). */
export const REFUSED_CREDENTIALS: Partial<ErrorFacts> = { credentialsRejected: true, clientRefusesRequests: true };

/** A failure with no usable answer: if the request went out, what it did is unknown. */
export function sentFacts(sent: boolean): Partial<ErrorFacts> {
  return { mayHaveReachedServer: sent, outcomeUnknown: sent };
}

/**
 * True for a status that does not say whether the change was made: a server error, or a gateway's
 * (502, 504, and the 52x of some CDNs) whose server may have made it before the answer was lost.
 * 501 and 505 say the request was not understood, so nothing was made. The same statuses are
 * retried for calls that may be repeated.
 */
export function statusLeavesOutcomeUnknown(status: number): boolean {
  return status >= 500 && status <= 599 && status !== 501 && status !== 505;
}

/**
 * True for a status that may stand in for the API's own answer: a gateway's (502, 504, the 52x of
 * some CDNs) in front of an API that may have answered 401 behind it. The API's own 500 and 503, and
 * 501 and 505, are its answers. Before the credentials are proven such a status counts as no answer
 * at all (transport.ts), since the failure it may hide counts toward the ban.
 */
export function statusMayHideTheAnswer(status: number): boolean {
  return statusLeavesOutcomeUnknown(status) && status !== 500 && status !== 503;
}

/**
 * An answer with an error status reached the server, by definition. A 5xx (but 501 and 505) does
 * not say whether the change was made before the failure; every other status says it was not.
 */
export function apiErrorFacts(code: string, status: number): Partial<ErrorFacts> {
  return {
    mayHaveReachedServer: true,
    outcomeUnknown: statusLeavesOutcomeUnknown(status),
    credentialsRejected: code === 'ERR_AUTHENTICATION',
    // The 401 guard and the ban memory refuse everything after these answers.
    clientRefusesRequests: code === 'ERR_AUTHENTICATION' || code === 'ERR_BANNED',
  };
}
