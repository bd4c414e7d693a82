// The SDK's error hierarchy: one base class with a stable `code`, one small subclass per failure.
// Messages never contain a secret: server text is redacted before it gets here (see redact.ts).
// What each error says about its call (ErrorFacts) is decided in error-facts.ts. This file holds
// the errors of a request that got no HTTP status (refused credentials, a timeout, the network);
// the base class is in error-base.ts, the errors of an HTTP status in api-errors.ts, and this file
// exports all of them.
import { attemptsSuffix, ProxyAccountError, type ProxyAccountErrorCode, type RequestContext } from './error-base';
import { type ErrorFacts, provesNotSent, REFUSED_CREDENTIALS, sentFacts } from './error-facts';

export * from './api-errors';
export {
  BasicAuthRequiredError,
  InvalidArgumentError,
  isProxyAccountError,
  ProxyAccountError,
  type ProxyAccountErrorCode,
  type RequestContext,
} from './error-base';
export type { ErrorFacts } from './error-facts';

/** Base of errors that concern one API call but carry no HTTP status. */
export class RequestError extends ProxyAccountError implements RequestContext {
  /** HTTP method of the call. */
  readonly method: string;
  /** API path of the call. */
  readonly path: string;
  /** What the call was doing. */
  readonly operation: string;

  constructor(code: ProxyAccountErrorCode, ctx: RequestContext, detail: string, options?: { cause?: unknown; facts?: Partial<ErrorFacts> }) {
    super(code, `${ctx.method} ${ctx.path} (${ctx.operation}) ${detail}`, options);
    this.method = ctx.method;
    this.path = ctx.path;
    this.operation = ctx.operation;
  }
}

/**
 * The server already answered 401 to this client; it refuses to send anything more with the same
 * credentials, because 4 failures in a short time ban the caller's address for 3 hours.
 */
export class CredentialsRejectedError extends RequestError {
  /** `sent`: an earlier attempt of this call may have reached the server (its outcome is then unknown). */
  constructor(ctx: RequestContext, sent = false) {
    super(
      'ERR_CREDENTIALS_REJECTED',
      ctx,
      "not sent: the server already rejected this client's credentials with 401; " +
        `fix them and create a new client (repeated failures trigger a 3-hour ban)${earlierAttempt(sent)}`,
      { facts: { ...REFUSED_CREDENTIALS, ...refusedAfter(sent) } },
    );
  }
}

/**
 * The client's first request, which proves the credentials, was sent and got no answer (a timeout,
 * a dropped connection): it may have been a 401 the server counted, so the client sends nothing
 * more. Another run (after the network is fixed) tries again.
 */
export class CredentialsUnprovenError extends RequestError {
  /** `sent`: an earlier attempt of this call may have reached the server (its outcome is then unknown). */
  constructor(ctx: RequestContext, sent = false) {
    super(
      'ERR_CREDENTIALS_UNPROVEN',
      ctx,
      'not sent: the first request with these credentials got no answer, so whether the API accepts them is not known; ' +
        'if they are wrong, each further request could be one more failed authentication (4 ban the client address for 3 hours), ' +
        `so this client sends nothing more. Check the network path to the API and run again${earlierAttempt(sent)}`,
      { facts: { clientRefusesRequests: true, ...refusedAfter(sent) } },
    );
  }
}

/** A retry refused before sending: what an earlier attempt may have done stays open. */
function refusedAfter(sent: boolean): Partial<ErrorFacts> {
  return sent ? sentFacts(true) : {};
}

function earlierAttempt(sent: boolean): string {
  return sent ? '; an earlier attempt of this call may have reached the server, so whether it took effect is unknown' : '';
}

/**
 * Nothing was sent because of failures remembered from earlier runs (other processes) against the
 * same API: either these same credentials were rejected, or the API's origin has had so many 401s
 * and unanswered requests (whatever the credentials) that a few more could ban the client address.
 * Nothing was sent, so the address is not banned. `credentialsRejected` is false when the origin's
 * budget was used up by unanswered requests alone: these credentials were never rejected.
 */
export class CredentialsRememberedRejectedError extends RequestError {
  /** When the memory of the rejection expires and the credentials will be tried again. */
  readonly until: Date;
  /** The memory file; deleting it (or fixing the credentials) clears the refusal. */
  readonly file: string;
  /** When the refusal is the origin's budget: how many 401s it gave that are remembered. */
  readonly originFailures: number | undefined;
  /**
   * When the refusal is the origin's budget: how many requests to it got no answer (each may have
   * been a 401 the API counted) that are remembered.
   */
  readonly unansweredProbes: number | undefined;

  constructor(
    ctx: RequestContext,
    until: Date,
    file: string,
    budget?: { readonly origin: string; readonly failures: number; readonly unanswered?: number; readonly banAfter: number },
    sent = false,
  ) {
    const clear = `delete ${file} or set PROXYACCOUNT_AUTH_FAILURE_CACHE=off`;
    super(
      'ERR_CREDENTIALS_REMEMBERED_REJECTED',
      ctx,
      (budget === undefined
        ? `not sent: the API rejected these same credentials with 401 in an earlier run; they are not ` +
          `sent again until ${until.toISOString()} because 4 failures ban the client address for 3 hours. ` +
          `Fix the credentials; if they are right now (e.g. the password was reset), ${clear}`
        : budgetRefusal(budget, until, clear)) + earlierAttempt(sent),
      { facts: { ...rememberedFacts(budget), ...refusedAfter(sent) } },
    );
    this.until = until;
    this.file = file;
    this.originFailures = budget?.failures;
    this.unansweredProbes = budget?.unanswered;
  }
}

/** Why the origin's budget refuses: its remembered 401s, and its unanswered requests, which the API may have counted. */
function budgetRefusal(
  budget: { readonly origin: string; readonly failures: number; readonly unanswered?: number; readonly banAfter: number },
  until: Date,
  clear: string,
): string {
  const unanswered = budget.unanswered ?? 0;
  if (unanswered === 0) {
    return (
      `not sent: ${budget.origin} rejected ${budget.failures} authentications from this machine in earlier runs (with any credentials), ` +
      `and the API bans the client address for 3 hours after ${budget.banAfter}; nothing is sent to it until ${until.toISOString()}, ` +
      `so that another wrong password cannot bring the ban. Fix the credentials; once they are right, ${clear}`
    );
  }
  const rejected = budget.failures === 0 ? '' : `${budget.origin} rejected ${budget.failures} authentications from this machine, and `;
  // Said plainly: right credentials are paused too, which looks like a bug unless the reason is given.
  return (
    `not sent: ${rejected}${unanswered} requests to ${budget.origin} got no answer (a timeout, a dropped connection or a gateway error) ` +
    `in earlier runs (with any credentials), and the API may have counted each as a failed authentication; it bans the client address ` +
    `for 3 hours after ${budget.banAfter}, so one more failure could complete the ban. Every credential, right ones included, is paused ` +
    `for ${budget.origin} on this machine until ${until.toISOString()}, when enough of these entries have expired. ` +
    `Fix the credentials if they are wrong; once they are right (or if the API was only unreachable), ${clear}`
  );
}

/**
 * A refusal by the memory: rejected credentials when a 401 is remembered (for these credentials,
 * or among the origin's), otherwise only a pause after unanswered requests.
 */
function rememberedFacts(budget: { readonly failures: number } | undefined): Partial<ErrorFacts> {
  return budget === undefined || budget.failures > 0 ? REFUSED_CREDENTIALS : { clientRefusesRequests: true };
}

/**
 * An earlier answer of this client said its address is banned (429, or a 403 about a ban); the
 * client sends nothing more, because each request could extend the ban.
 */
export class ClientBannedError extends RequestError {
  /** Seconds left of the ban when this call was refused, when the server said how long. */
  readonly retryAfterSeconds: number | undefined;

  constructor(ctx: RequestContext, retryAfterSeconds: number | undefined, sent = false) {
    const wait = retryAfterSeconds === undefined ? 'for an unknown time' : `for about ${retryAfterSeconds} more seconds`;
    super(
      'ERR_BANNED',
      ctx,
      `not sent: the API has banned this client address after repeated authentication failures (${wait}); ` +
        `no further requests are sent by this client. Wait for the ban to end, and fix the credentials first${earlierAttempt(sent)}`,
      { facts: { clientRefusesRequests: true, ...refusedAfter(sent) } },
    );
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/**
 * The client was closed with `close()` before this call, or between or during its attempts;
 * `sent` says whether a request of the call had gone out by then.
 */
export class ClientClosedError extends RequestError {
  constructor(ctx: RequestContext, sent = false) {
    super('ERR_CLIENT_CLOSED', ctx, sent ? 'was interrupted: the client was closed' : 'not sent: the client is closed', {
      facts: { ...sentFacts(sent), clientRefusesRequests: true },
    });
  }
}

/**
 * The caller's AbortSignal fired. `sent` says whether a request of this call had gone out by then:
 * if so, it may have taken effect ({@link ErrorFacts.outcomeUnknown}).
 */
export class AbortedError extends RequestError {
  constructor(ctx: RequestContext, cause?: unknown, sent = false) {
    super('ERR_ABORTED', ctx, 'was aborted by the caller', { cause, facts: sentFacts(sent) });
  }
}

/** An attempt took longer than `timeoutMs` (after any retries). */
export class TimeoutError extends RequestError {
  /** The per-attempt limit that was exceeded, in milliseconds. */
  readonly timeoutMs: number;
  /** How many attempts were made in total. */
  readonly attempts: number;

  /** `sent` is false only when no attempt got as far as connecting (a connect timeout each time). */
  constructor(ctx: RequestContext, timeoutMs: number, attempts: number, cause?: unknown, sent = true) {
    super('ERR_TIMEOUT', ctx, `timed out after ${timeoutMs} ms${attemptsSuffix(attempts)}`, {
      cause,
      facts: sentFacts(sent),
    });
    this.timeoutMs = timeoutMs;
    this.attempts = attempts;
  }
}

/** The connection failed (refused, reset, DNS, TLS...); `cause` holds the underlying error. */
export class NetworkError extends RequestError {
  /** The underlying system or undici error code, e.g. `ECONNREFUSED`, when there is one. */
  readonly errorCode: string | undefined;
  /** How many attempts were made in total. */
  readonly attempts: number;

  /**
   * `sent` is false when no attempt reached the API (refused, DNS, unreachable, TLS handshake
   * failed); by default it is read from `errorCode`.
   */
  constructor(ctx: RequestContext, detail: string, errorCode: string | undefined, attempts: number, cause: unknown, sent = !provesNotSent(errorCode)) {
    super('ERR_NETWORK', ctx, `failed: ${detail}${attemptsSuffix(attempts)}`, { cause, facts: sentFacts(sent) });
    this.errorCode = errorCode;
    this.attempts = attempts;
  }
}

/**
 * A successful status came with a body the SDK cannot read. When the body is not JSON, `cause` is a
 * `SyntaxError` saying where parsing stopped, by position only: the body may hold a token's value.
 */
export class ResponseParseError extends RequestError {
  /** HTTP status of the unreadable response. */
  readonly status: number;

  constructor(ctx: RequestContext, status: number, detail: string, cause?: unknown) {
    // The call succeeded, but what it made (an id, a token's value) is lost with the body.
    super('ERR_RESPONSE_PARSE', ctx, `returned ${status} with an unreadable body: ${detail}`, {
      cause,
      facts: sentFacts(true),
    });
    this.status = status;
  }
}
