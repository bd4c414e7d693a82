// The base of the SDK's error hierarchy: the stable codes, the class every error derives from (and
// its brand, which makes `instanceof` work across copies of the SDK), and the two errors that
// concern no request. errors.ts gathers the whole hierarchy; import from there.
import { type ErrorFacts, NOTHING_SENT } from './error-facts';

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

/** `(after N attempts)` for a message, when there was more than one. */
export function attemptsSuffix(attempts: number): string {
  return attempts > 1 ? ` (after ${attempts} attempts)` : '';
}
