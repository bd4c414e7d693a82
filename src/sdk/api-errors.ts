// The errors of an HTTP status the API answered: one class per status of the API contract's table,
// and the function that picks it (ban rules included). errors.ts gathers the whole hierarchy;
// import from there.
import { attemptsSuffix, ProxyAccountError, type ProxyAccountErrorCode, type RequestContext } from './error-base';
import { apiErrorFacts } from './error-facts';

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
