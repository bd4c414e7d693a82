// The SDK's error hierarchy: one base class with a stable `code`, one small subclass per failure.
// Messages never contain a secret: server text is redacted before it gets here (see redact.ts).
// What each error says about its call (ErrorFacts) is decided in error-facts.ts.
import { apiErrorFacts, type ErrorFacts, NOTHING_SENT, provesNotSent, REFUSED_CREDENTIALS, sentFacts } from './error-facts';

export type { ErrorFacts } from './error-facts';

/** Every stable error code the SDK produces. */
export type ProxyAccountErrorCode =
  | 'ERR_INVALID_ARGUMENT'
  | 'ERR_BASIC_AUTH_REQUIRED'
  | 'ERR_CREDENTIALS_REJECTED'
  | 'ERR_CREDENTIALS_UNPROVEN'
  | 'ERR_CREDENTIALS_REMEMBERED_REJECTED'
  | 'ERR_CLIENT_CLOSED'
  | 'ERR_ABORTED'
  | 'ERR_TIMEOUT'
  | 'ERR_NETWORK'
  | 'ERR_RESPONSE_PARSE'
  | 'ERR_VALIDATION'
  | 'ERR_AUTHENTICATION'
  | 'ERR_PAYMENT_REQUIRED'
  | 'ERR_FORBIDDEN'
  | 'ERR_NOT_FOUND'
  | 'ERR_METHOD_NOT_ALLOWED'
  | 'ERR_SERVER'
  | 'ERR_SERVICE_UNAVAILABLE'
  | 'ERR_BANNED'
  | 'ERR_REDIRECT'
  | 'ERR_UNEXPECTED_STATUS';

// Registry-wide symbols, as undici does: an error thrown by another copy of the SDK (two versions
// in one node_modules tree, or a bundle next to a test's import) is still recognised, both by
// `isProxyAccountError` and by `instanceof`, which the base class redefines below.
const BRAND = Symbol.for('proxyaccount.sdk.error');
/** The names of the error's classes, most derived first, so `instanceof` of a subclass works across copies. */
const KINDS = Symbol.for('proxyaccount.sdk.error.kinds');

/** Which request an error belongs to; set on every error that concerns one API call. */
export interface RequestContext {
  /** HTTP method, e.g. `POST`. */
  readonly method: string;
  /** API path as in the API contract, without base-URL prefix or query, e.g. `/api/sub/create/`. */
  readonly path: string;
  /** What the call was doing, e.g. `create sub-account 'alice'`. */
  readonly operation: string;
}

/**
 * Base class of every error the SDK throws. `instanceof` works across copies of the SDK: an
 * instance from another copy matches this class and each class it was built from (by class name).
 * Layers above the SDK (the account store) derive their own errors from it, with codes of their own.
 */
export class ProxyAccountError<C extends string = ProxyAccountErrorCode> extends Error implements ErrorFacts {
  /** Stable machine-readable code; branch on this rather than on the message. */
  readonly code: C;
  readonly mayHaveReachedServer: boolean;
  readonly outcomeUnknown: boolean;
  readonly credentialsRejected: boolean;
  readonly clientRefusesRequests: boolean;

  /** `facts` default to "not sent" (nothing reached the API): every error that may have sent something says so. */
  constructor(code: C, message: string, options?: { cause?: unknown; facts?: Partial<ErrorFacts> }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    const facts = { ...NOTHING_SENT, ...options?.facts };
    this.mayHaveReachedServer = facts.mayHaveReachedServer;
    this.outcomeUnknown = facts.outcomeUnknown;
    this.credentialsRejected = facts.credentialsRejected;
    this.clientRefusesRequests = facts.clientRefusesRequests;
    this.name = new.target.name;
    const kinds: string[] = [];
    for (let c: unknown = new.target; typeof c === 'function' && c !== Error; c = Object.getPrototypeOf(c)) {
      kinds.push((c as { name: string }).name);
    }
    Object.defineProperty(this, BRAND, { value: true });
    Object.defineProperty(this, KINDS, { value: Object.freeze(kinds) });
  }

  /** Brand check instead of prototype identity, so errors from another copy of the SDK match. */
  static override [Symbol.hasInstance](value: unknown): boolean {
    // `this` is the class on the right of `instanceof`: this one or any subclass.
    // biome-ignore lint/complexity/noThisInStatic: the class asked about, which may be a subclass
    if (Function.prototype[Symbol.hasInstance].call(this, value)) return true;
    if (!isProxyAccountError(value)) return false;
    const kinds = (value as unknown as Record<symbol, unknown>)[KINDS];
    // biome-ignore lint/complexity/noThisInStatic: the class asked about, which may be a subclass
    return Array.isArray(kinds) && kinds.includes(this.name);
  }
}

/**
 * True for any error thrown by this SDK, including errors from another copy of it, and for the
 * errors the layers above derive from it (whose codes are their own, hence `string`); with
 * `code`, only for the SDK's errors with that code. The one way to test a code.
 */
export function isProxyAccountError(e: unknown): e is ProxyAccountError<string>;
export function isProxyAccountError<C extends ProxyAccountErrorCode>(e: unknown, code: C): e is ProxyAccountError & { readonly code: C };
export function isProxyAccountError(e: unknown, code?: ProxyAccountErrorCode): boolean {
  if (typeof e !== 'object' || e === null || (e as Record<symbol, unknown>)[BRAND] !== true) return false;
  return code === undefined || (e as { code?: unknown }).code === code;
}

/** A method argument or client option broke a documented constraint; no request was made. */
export class InvalidArgumentError extends ProxyAccountError {
  /** The offending field, in the SDK's camelCase naming (e.g. `monthlyLimit`, `baseUrl`). */
  readonly field: string;

  constructor(field: string, message: string) {
    super('ERR_INVALID_ARGUMENT', `invalid ${field}: ${message}`);
    this.field = field;
  }
}

/** A token-management method was called on a client configured with a bearer token only. */
export class BasicAuthRequiredError extends ProxyAccountError {
  /** The refused operation, e.g. `list tokens`. */
  readonly operation: string;

  constructor(operation: string) {
    super('ERR_BASIC_AUTH_REQUIRED', `${operation} requires HTTP Basic authentication (username and password); token endpoints do not accept a bearer token`);
    this.operation = operation;
  }
}

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

/** Fields of an HTTP error response, already redacted and truncated. */
export interface ApiErrorDetails extends RequestContext {
  /** HTTP status code. */
  readonly status: number;
  /** The server's text (plain-text body), secrets redacted, truncated; '' when none. */
  readonly responseText: string;
  /** Seconds from a `Retry-After` header, when the server sent one. */
  readonly retryAfterSeconds?: number;
  /** `Location` header of a redirect, secrets redacted as in `responseText` (and any `user:pass@` masked). */
  readonly location?: string;
  /** How many attempts were made in total. */
  readonly attempts?: number;
  /** A sentence added to the message: what the failure likely means here, or what it risks. */
  readonly hint?: string;
  /**
   * An earlier attempt of the call may have reached the server with no answer that settles it (a
   * 500, a timeout): whatever this answer says, whether the call took effect is unknown.
   */
  readonly afterSentAttempt?: boolean;
}

/** Base of every error that carries an HTTP status from the API. */
export class ApiError extends ProxyAccountError implements RequestContext {
  /** HTTP status code. */
  readonly status: number;
  /** HTTP method of the call. */
  readonly method: string;
  /** API path of the call. */
  readonly path: string;
  /** What the call was doing. */
  readonly operation: string;
  /** The server's text, secrets redacted, truncated; '' when none. */
  readonly responseText: string;
  /** How many attempts were made in total. */
  readonly attempts: number;

  constructor(code: ProxyAccountErrorCode, d: ApiErrorDetails) {
    const text = d.responseText === '' ? '' : `: ${d.responseText}`;
    const hint = d.hint === undefined ? '' : `; ${d.hint}`;
    super(code, `${d.method} ${d.path} (${d.operation}) failed with ${d.status} ${statusText(d.status)}` + `${text}${attemptsSuffix(d.attempts ?? 1)}${hint}`, {
      facts: d.afterSentAttempt === true ? { ...apiErrorFacts(code, d.status), outcomeUnknown: true } : apiErrorFacts(code, d.status),
    });
    this.status = d.status;
    this.method = d.method;
    this.path = d.path;
    this.operation = d.operation;
    this.responseText = d.responseText;
    this.attempts = d.attempts ?? 1;
  }
}

/** 400: the server rejected the form (invalid value, duplicate, absent entry, unknown proxy...). */
export class ValidationError extends ApiError {
  constructor(d: ApiErrorDetails) {
    super('ERR_VALIDATION', d);
  }
}

/** 401: bad Basic credentials, or an invalid, inactive or expired bearer token. */
export class AuthenticationError extends ApiError {
  constructor(d: ApiErrorDetails) {
    super('ERR_AUTHENTICATION', d);
  }
}

/** 402: a plan limit (sub-accounts, proxies, tokens) or a plan without bearer tokens. */
export class PaymentRequiredError extends ApiError {
  constructor(d: ApiErrorDetails) {
    super('ERR_PAYMENT_REQUIRED', d);
  }
}

/** 403: not the caller's sub-account, `username` passed by a non-parent, or a refused method. */
export class ForbiddenError extends ApiError {
  constructor(d: ApiErrorDetails) {
    super('ERR_FORBIDDEN', d);
  }
}

/** 404: the sub-account (or other object) does not exist. */
export class NotFoundError extends ApiError {
  constructor(d: ApiErrorDetails) {
    super('ERR_NOT_FOUND', d);
  }
}

/** 405: wrong HTTP method (a bug in the SDK or a changed API). */
export class MethodNotAllowedError extends ApiError {
  constructor(d: ApiErrorDetails) {
    super('ERR_METHOD_NOT_ALLOWED', d);
  }
}

/** 500: server error (retried for repeatable calls). */
export class ServerError extends ApiError {
  constructor(d: ApiErrorDetails) {
    super('ERR_SERVER', d);
  }
}

/** 503: the subscription plan lookup failed (retried for repeatable calls). */
export class ServiceUnavailableError extends ApiError {
  /** Seconds from `Retry-After`, when sent. */
  readonly retryAfterSeconds: number | undefined;

  constructor(d: ApiErrorDetails) {
    super('ERR_SERVICE_UNAVAILABLE', d);
    this.retryAfterSeconds = d.retryAfterSeconds;
  }
}

/** The caller's address is banned after repeated authentication failures (429, or a 403 about a ban). */
export class BannedError extends ApiError {
  /** Seconds until the ban ends, from `Retry-After`, when sent. */
  readonly retryAfterSeconds: number | undefined;

  constructor(d: ApiErrorDetails) {
    super('ERR_BANNED', d);
    this.retryAfterSeconds = d.retryAfterSeconds;
  }
}

/** 3xx: the server redirected, e.g. 302 from plain HTTP to HTTPS. */
export class RedirectError extends ApiError {
  /** The `Location` header, if any, cleaned as `responseText` is: secrets and any `user:pass@` are `[REDACTED]`. */
  readonly location: string | undefined;

  constructor(d: ApiErrorDetails) {
    super('ERR_REDIRECT', d);
    this.location = d.location;
  }
}

/** Any other status (e.g. 502, 418); a 5xx among them leaves the outcome unknown (`facts`). */
export class UnexpectedStatusError extends ApiError {
  constructor(d: ApiErrorDetails) {
    super('ERR_UNEXPECTED_STATUS', d);
  }
}

/**
 * Whether a response means the caller's address is banned. The API contract does not show the ban status:
 * the emulator answers 429; a 403 whose text talks about a ban is read as one too. `echoed`: the
 * request's own values, which a 403 may repeat ("ban is not one of your sub-accounts" for a
 * sub-account named `ban`): they are not the server talking about a ban.
 */
export function isBanResponse(status: number, text: string, echoed: readonly string[] = []): boolean {
  if (status === 429) return true;
  if (status !== 403) return false;
  let own = text;
  for (const v of echoed) if (v !== '') own = own.split(v).join(' ');
  return /\bban(ned)?\b/i.test(own);
}

/** Builds the error class that the API contract's table gives for `status` (and the ban rules; `echoed` as there). */
export function apiErrorFor(d: ApiErrorDetails, echoed: readonly string[] = []): ApiError {
  switch (d.status) {
    case 400:
      return new ValidationError(d);
    case 401:
      return new AuthenticationError(d);
    case 402:
      return new PaymentRequiredError(d);
    case 403:
      return isBanResponse(d.status, d.responseText, echoed) ? new BannedError(d) : new ForbiddenError(d);
    case 404:
      return new NotFoundError(d);
    case 405:
      return new MethodNotAllowedError(d);
    case 429:
      return new BannedError(d);
    case 500:
      return new ServerError(d);
    case 503:
      return new ServiceUnavailableError(d);
    default:
      return d.status >= 300 && d.status < 400 ? new RedirectError(d) : new UnexpectedStatusError(d);
  }
}

// The reason phrases we can meet; a table rather than node:http keeps the import graph small.
const STATUS_TEXT: Readonly<Record<number, string>> = {
  301: 'Moved Permanently',
  302: 'Found',
  303: 'See Other',
  307: 'Temporary Redirect',
  308: 'Permanent Redirect',
  400: 'Bad Request',
  401: 'Unauthorized',
  402: 'Payment Required',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  406: 'Not Acceptable',
  407: 'Proxy Authentication Required',
  408: 'Request Timeout',
  409: 'Conflict',
  410: 'Gone',
  411: 'Length Required',
  412: 'Precondition Failed',
  413: 'Payload Too Large',
  414: 'URI Too Long',
  415: 'Unsupported Media Type',
  421: 'Misdirected Request',
  422: 'Unprocessable Entity',
  425: 'Too Early',
  426: 'Upgrade Required',
  428: 'Precondition Required',
  429: 'Too Many Requests',
  431: 'Request Header Fields Too Large',
  451: 'Unavailable For Legal Reasons',
  500: 'Internal Server Error',
  501: 'Not Implemented',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
  505: 'HTTP Version Not Supported',
  506: 'Variant Also Negotiates',
  507: 'Insufficient Storage',
  508: 'Loop Detected',
  510: 'Not Extended',
  511: 'Network Authentication Required',
};

/** Standard reason phrase of a status, or `Unknown Status`. */
export function statusText(status: number): string {
  return STATUS_TEXT[status] ?? 'Unknown Status';
}

function attemptsSuffix(attempts: number): string {
  return attempts > 1 ? ` (after ${attempts} attempts)` : '';
}
