// The client: checks its options once, builds the Authorization header, and hands one shared
// transport to the per-area APIs. Nothing here does I/O; the first request loads undici.
import { createSecureContext, type SecureContext } from 'node:tls';
import { authFailureMemoryFrom } from './auth-failure-options';
import { parseBaseUrl } from './base-url';
import { InvalidArgumentError } from './errors';
import type { AuthFailureMemory } from './failure-memory';
import { GeoIpsApi } from './geoips';
import { HostnamesApi } from './hostnames';
import { IpsApi } from './ips';
import { ProxiesApi } from './proxies';
import { SpareConnections } from './spare-connections';
import { SubAccountsApi } from './sub-accounts';
import { TokensApi } from './tokens';
import { Transport } from './transport';
import type { BasicAuth, BearerAuth, CallOptions, ProxyAccountClientOptions, RequestLogger } from './types';
import { checkCallOptions, checkKnownKeys, checkPemCertificates, keysOf, optBool, optFunction } from './validation';
import { SDK_VERSION } from './version';

/** Default per-attempt timeout (ms). */
export const DEFAULT_TIMEOUT_MS = 30_000;
/** Default number of retries. */
export const DEFAULT_MAX_RETRIES = 3;
/** Default backoff base (ms). */
export const DEFAULT_RETRY_BASE_DELAY_MS = 250;
/** Default cap of one wait between attempts (ms). */
export const DEFAULT_RETRY_MAX_DELAY_MS = 30_000;
/** Default `User-Agent`. */
export const DEFAULT_USER_AGENT = `proxyaccount-sdk/${SDK_VERSION}`;

// setTimeout's limit; a larger timeout would fire at once.
const MAX_TIMER_MS = 2_147_483_647;

// An option outside these is refused: `timeout` for `timeoutMs` would keep the default without a word.
const OPTION_KEYS = keysOf<ProxyAccountClientOptions>({
  baseUrl: true,
  auth: true,
  caCert: true,
  insecure: true,
  allowHttp: true,
  timeoutMs: true,
  maxRetries: true,
  retryBaseDelayMs: true,
  retryMaxDelayMs: true,
  dispatcher: true,
  userAgent: true,
  random: true,
  sleep: true,
  authFailureCache: true,
  authFailureTtlMs: true,
  logger: true,
});
// Both forms' keys: giving both forms at once is refused with its own message.
const AUTH_KEYS = keysOf<BasicAuth & BearerAuth>({ username: true, password: true, token: true });

/** Typed client of the proxy-service account API. */
export class ProxyAccountClient {
  /** Sub-accounts: create, edit, get, deactivate, activate, delete. */
  readonly subAccounts: SubAccountsApi;
  /** Authorized IP addresses. */
  readonly ips: IpsApi;
  /** Authorized hostnames. */
  readonly hostnames: HostnamesApi;
  /** Authorized proxies. */
  readonly proxies: ProxiesApi;
  /** Bearer tokens (HTTP Basic only). */
  readonly tokens: TokensApi;
  /** Geo-IP counts. */
  readonly geoIps: GeoIpsApi;
  // A true private field: util.inspect and JSON.stringify of the client never reach the credentials.
  readonly #transport: Transport;
  readonly #authFailures: AuthFailureMemory | undefined;
  readonly #origin: string;

  /** Validates `options` (throws InvalidArgumentError naming the option); sends nothing. */
  constructor(options: ProxyAccountClientOptions) {
    if (typeof options !== 'object' || options === null) {
      throw new InvalidArgumentError('options', 'must be an object');
    }
    checkKnownKeys(options, OPTION_KEYS, 'the client options');
    const o = options;
    const allowHttp = optBool(o.allowHttp, 'allowHttp');
    const insecure = optBool(o.insecure, 'insecure');
    const base = parseBaseUrl(o.baseUrl, allowHttp);
    const { authorization, secrets, basic } = authHeader(o.auth);
    const timeoutMs = optNumber(o.timeoutMs, 'timeoutMs', DEFAULT_TIMEOUT_MS, 1, MAX_TIMER_MS, true);
    const maxRetries = optNumber(o.maxRetries, 'maxRetries', DEFAULT_MAX_RETRIES, 0, 100, true);
    const retryBaseDelayMs = optNumber(o.retryBaseDelayMs, 'retryBaseDelayMs', DEFAULT_RETRY_BASE_DELAY_MS, 0, MAX_TIMER_MS);
    const retryMaxDelayMs = optNumber(o.retryMaxDelayMs, 'retryMaxDelayMs', DEFAULT_RETRY_MAX_DELAY_MS, 0, MAX_TIMER_MS);
    const userAgent = o.userAgent === undefined ? DEFAULT_USER_AGENT : checkUserAgent(o.userAgent);
    const ca = o.caCert === undefined ? undefined : checkPemCertificates(o.caCert, 'caCert');
    const random = optFunction(o.random, 'random') ?? Math.random;
    const sleep = optFunction(o.sleep, 'sleep') ?? defaultSleep;
    const authFailures = authFailureMemoryFrom(o.authFailureCache, o.authFailureTtlMs);
    const logger = checkLogger(o.logger);

    let dispatcher: TransportDispatcher;
    if (o.dispatcher !== undefined) {
      if (typeof o.dispatcher !== 'object' || o.dispatcher === null || typeof o.dispatcher.dispatch !== 'function') {
        throw new InvalidArgumentError('dispatcher', 'must be an undici Dispatcher (Agent, Pool, MockAgent...)');
      }
      // TLS settings belong to whoever owns the connections; silently ignoring them would be worse.
      if (ca !== undefined) {
        throw new InvalidArgumentError('caCert', 'cannot be combined with dispatcher; configure TLS on the dispatcher');
      }
      if (insecure) {
        throw new InvalidArgumentError('insecure', 'cannot be combined with dispatcher; configure TLS on the dispatcher');
      }
      dispatcher = o.dispatcher;
    } else {
      dispatcher = (undici) => {
        const spares = new SpareConnections(undici.buildConnector({ ...trustOptions(ca), rejectUnauthorized: !insecure, timeout: timeoutMs }));
        return { agent: new undici.Agent({ connect: spares.connect }), spares };
      };
    }

    this.#authFailures = authFailures;
    this.#origin = base.origin;
    this.#transport = new Transport({
      base,
      authorization,
      secrets,
      timeoutMs,
      maxRetries,
      retryBaseDelayMs,
      retryMaxDelayMs,
      userAgent,
      random,
      sleep,
      dispatcher,
      insecure,
      authFailures,
      logger,
    });
    this.subAccounts = new SubAccountsApi(this.#transport);
    this.ips = new IpsApi(this.#transport);
    this.hostnames = new HostnamesApi(this.#transport);
    this.proxies = new ProxiesApi(this.#transport);
    this.tokens = new TokensApi(this.#transport, basic);
    this.geoIps = new GeoIpsApi(this.#transport);
  }

  /**
   * What the 401 guard knows about this client's credentials: `unverified` until a response
   * proves them, `accepted`, `rejected` after a 401, or `unanswered` after the first request got
   * no answer (it may have been an unseen 401); after either, every later call fails unsent.
   */
  get credentialState(): 'unverified' | 'accepted' | 'rejected' | 'unanswered' {
    return this.#transport.credentialState;
  }

  /**
   * Proves the credentials with one cheap read (the account's own IP list), unless an answer
   * already proved them; a request already out to do so is waited for instead. Rejects like any
   * call (e.g. `AuthenticationError` on 401, unsent errors when an earlier 401 is known).
   */
  async verifyCredentials(opts?: CallOptions): Promise<void> {
    await this.#transport.call({ method: 'GET', path: '/api/ips/', operation: 'verify the credentials', repeatable: true, onlyToProveCredentials: true }, opts);
  }

  /**
   * The API's time, from the `Date` header of its latest answer (advanced by the time elapsed
   * since), or undefined before any answer carried one. Whether a token has expired is judged on
   * this clock, not the local one.
   */
  serverNow(): Date | undefined {
    return this.#transport.serverClock.now();
  }

  /**
   * Opens a connection to the API ahead of the first request (TCP and TLS, as the first request
   * would), so that request does not wait for the connection's round trips: call it as soon as you
   * know requests will follow. Nothing is sent on it, so it never counts as a failed
   * authentication. The first request takes it, the credential probe included; unused, it closes
   * after 10 s or with the client, and it never keeps the process alive. If it fails, the request
   * opens its own, unless it timed out: the request then has that timeout rather than wait a whole
   * timeout more. Does nothing with a caller's `dispatcher`, on a closed client, or after a 401.
   */
  preconnect(): void {
    this.#transport.preconnect();
  }

  /**
   * Takes a lock that this user's processes on this machine share for `scope` at this client's API
   * origin (a file beside the failed-authentication memory), and resolves with its release. For
   * work that must not overlap the same work of another process on the same account: the account
   * store's token creates, which can tell the token of their own lost request from another's only
   * while no other create of that label runs. Resolves with undefined, and the caller goes on
   * unlocked, when the client keeps no memory (`authFailureCache: false`) or its directory is not
   * private. Rejects with `signal`'s reason when stopped while waiting, and with
   * InvalidArgumentError, before anything waits, for a scope that is not a non-empty string or
   * options other than `{ signal }`.
   */
  async lockOnThisMachine(scope: string, opts: CallOptions = {}): Promise<(() => Promise<void>) | undefined> {
    // Checked with or without a memory: a call that works only where a memory is kept is a bug
    // found on another machine.
    if (typeof scope !== 'string' || scope === '') throw new InvalidArgumentError('scope', 'must be a non-empty string naming the work that must not overlap');
    const { signal } = checkCallOptions(opts);
    if (this.#authFailures === undefined) return undefined;
    return this.#authFailures.lockBeside('scope', `${this.#origin}\u0000${scope}`, signal);
  }

  /** Closes the client's own keep-alive agent (never a caller's `dispatcher`); later calls fail. */
  async close(): Promise<void> {
    await this.#transport.close();
  }
}

type TransportDispatcher = ConstructorParameters<typeof Transport>[0]['dispatcher'];

function authHeader(auth: unknown): { authorization: string; secrets: string[]; basic: boolean } {
  if (typeof auth !== 'object' || auth === null) {
    throw new InvalidArgumentError('auth', 'must be { username, password } or { token }');
  }
  checkKnownKeys(auth, AUTH_KEYS, 'auth', 'auth.');
  const a = auth as Record<string, unknown>;
  const hasToken = a.token !== undefined;
  const hasBasic = a.username !== undefined || a.password !== undefined;
  if (hasToken && hasBasic) {
    throw new InvalidArgumentError('auth', 'give either { username, password } or { token }, not both');
  }
  if (hasToken) {
    if (typeof a.token !== 'string' || a.token === '') {
      throw new InvalidArgumentError('auth.token', 'must be a non-empty string');
    }
    if (/[\s\u0000-\u001f\u007f]/.test(a.token)) {
      throw new InvalidArgumentError('auth.token', 'must not contain whitespace or control characters');
    }
    // It is sent as a header value, which holds Latin-1 only: undici would refuse it at every request.
    if (/[^\u0021-\u007e\u0080-\u00ff]/.test(a.token)) {
      throw new InvalidArgumentError('auth.token', 'must contain only visible Latin-1 characters (as a header value)');
    }
    return { authorization: `Bearer ${a.token}`, secrets: [a.token], basic: false };
  }
  if (typeof a.username !== 'string' || a.username === '') {
    throw new InvalidArgumentError('auth.username', 'must be a non-empty string');
  }
  if (a.username.includes(':') || /[\u0000-\u001f\u007f]/.test(a.username)) {
    throw new InvalidArgumentError('auth.username', 'must not contain ":" or control characters');
  }
  if (typeof a.password !== 'string' || a.password === '') {
    throw new InvalidArgumentError('auth.password', 'must be a non-empty string');
  }
  const encoded = Buffer.from(`${a.username}:${a.password}`, 'utf8').toString('base64');
  return { authorization: `Basic ${encoded}`, secrets: [a.password, encoded], basic: true };
}

function optNumber(v: unknown, field: string, dflt: number, min: number, max: number, integer = false): number {
  if (v === undefined) return dflt;
  if (typeof v !== 'number' || !Number.isFinite(v) || v < min || v > max || (integer && !Number.isInteger(v))) {
    throw new InvalidArgumentError(field, `must be ${integer ? 'an integer' : 'a number'} from ${min} to ${max}`);
  }
  return v;
}

function checkLogger(v: unknown): RequestLogger | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== 'object' || v === null || typeof (v as { debug?: unknown }).debug !== 'function') {
    throw new InvalidArgumentError('logger', 'must be an object with a debug(message, fields) method');
  }
  return v as RequestLogger;
}

function checkUserAgent(v: unknown): string {
  if (typeof v !== 'string' || v.trim() === '' || /[\r\n\u0000]/.test(v)) {
    throw new InvalidArgumentError('userAgent', 'must be a non-empty single-line string');
  }
  // A header value: tabs, spaces and visible Latin-1 characters (undici refuses the rest at every request).
  if (/[^\t\u0020-\u007e\u0080-\u00ff]/.test(v)) {
    throw new InvalidArgumentError(
      'userAgent',
      'must contain only visible Latin-1 characters, spaces and tabs (as a header value), no control characters or DEL',
    );
  }
  return v;
}

/**
 * The TLS trust of the client's connections. With `ca`, one secure context made once: given `ca`
 * alone, each new connection would parse every certificate again, which costs tens of
 * milliseconds a connection for a bundle of a hundred (the provider's default trust plus
 * NODE_EXTRA_CA_CERTS is about 290). A bundle that does not parse is left to the connection, which
 * reports it as before.
 */
function trustOptions(ca: string | Buffer | undefined): { ca?: string | Buffer; secureContext?: SecureContext } {
  if (ca === undefined) return {};
  try {
    return { secureContext: createSecureContext({ ca }) };
  } catch {
    return { ca };
  }
}

function defaultSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
