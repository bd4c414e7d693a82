// Public data types of the SDK. camelCase in TypeScript; the snake_case wire names of the API contract are
// mapped in the per-area modules and nowhere else.
import type { Dispatcher } from 'undici';

/** HTTP Basic credentials of a parent account (or of a sub-account acting on itself). */
export interface BasicAuth {
  /** Account username. */
  readonly username: string;
  /** Account password. */
  readonly password: string;
}

/** A bearer token (`Authorization: Bearer …`). Token-management methods refuse it. */
export interface BearerAuth {
  /** The raw token, as returned once by `tokens.create`. */
  readonly token: string;
}

/** How the client authenticates. */
export type ClientAuth = BasicAuth | BearerAuth;

/** Options of {@link ProxyAccountClient}. */
export interface ProxyAccountClientOptions {
  /**
   * Base URL of the API, e.g. `https://api.example.com` or `https://host/prefix`. HTTPS only
   * (see `allowHttp`); no credentials, query or fragment; a path prefix is kept.
   */
  readonly baseUrl: string;
  /** Basic (`{ username, password }`) or Bearer (`{ token }`) credentials. */
  readonly auth: ClientAuth;
  /**
   * PEM certificate(s) to trust instead of the default CAs, e.g. the emulator's self-signed one.
   * Only for the client's own agent; combine it with `dispatcher` and the client refuses.
   * @default the system's default trust store
   */
  readonly caCert?: string | Buffer;
  /**
   * Skip TLS certificate verification. Explicit opt-in for throwaway test servers only.
   * @default false
   */
  readonly insecure?: boolean;
  /**
   * Permit a plain `http://` base URL, but only for a loopback host (127.0.0.0/8, ::1, localhost).
   * @default false
   */
  readonly allowHttp?: boolean;
  /**
   * Time limit of each attempt (connect, headers and body), in milliseconds.
   * @default 30000
   */
  readonly timeoutMs?: number;
  /**
   * Retries (not attempts) of a repeatable call after a 5xx (but 501 and 505), a network error or a timeout.
   * @default 3
   */
  readonly maxRetries?: number;
  /**
   * Backoff base in milliseconds: retry n waits a random time in [0, base × 2^(n-1)] (full jitter).
   * @default 250
   */
  readonly retryBaseDelayMs?: number;
  /**
   * Upper bound of any single wait between attempts, including one asked for by `Retry-After`.
   * @default 30000
   */
  readonly retryMaxDelayMs?: number;
  /**
   * undici dispatcher to send requests through (Agent, Pool, MockAgent...). The caller owns it:
   * `close()` leaves it open.
   * @default one keep-alive undici Agent per client
   */
  readonly dispatcher?: Dispatcher;
  /**
   * `User-Agent` header value.
   * @default `proxyaccount-sdk/<version>`
   */
  readonly userAgent?: string;
  /**
   * Random source in [0, 1) for backoff jitter; injectable for tests.
   * @default Math.random
   */
  readonly random?: () => number;
  /**
   * Waits between attempts; injectable for tests. Must reject when `signal` aborts.
   * @default a timer-based sleep
   */
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /**
   * Where rejected credentials are remembered across processes (a JSON file of salted hashes,
   * never the secret), or `false` to keep no memory. After a 401 the credentials are not sent
   * again, by any client using the same file, until `authFailureTtlMs` has passed.
   * @default env `PROXYACCOUNT_AUTH_FAILURE_CACHE` (a path, or `off`), else `auth-failures.json`
   * in the user's cache directory (see docs/sdk.md)
   */
  readonly authFailureCache?: string | false;
  /**
   * How long a 401 is remembered, in milliseconds.
   * @default env `PROXYACCOUNT_AUTH_FAILURE_TTL` (seconds), else 3 h 15 min (the API's 3-hour ban and a margin)
   */
  readonly authFailureTtlMs?: number;
  /**
   * Receives one `debug` call per attempt (method, path, status or error code, duration,
   * attempt number). Absent = nothing is measured or formatted.
   * @default none
   */
  readonly logger?: RequestLogger;
}

/** Fields of one request log entry. Never holds a secret, a query value or a body. */
export interface RequestLogFields {
  /** HTTP method. */
  readonly method: string;
  /** API path as in the API contract, without base-URL prefix or query. */
  readonly path: string;
  /** HTTP status, when an answer came. */
  readonly status?: number;
  /** Error code when no answer came (e.g. `ECONNRESET`, `ERR_TIMEOUT`, `ERR_ABORTED`). */
  readonly error?: string;
  /** Time from sending to the answer's end (or the failure), in milliseconds. */
  readonly durationMs: number;
  /** 1 for the first attempt, 2 for the first retry, and so on. */
  readonly attempt: number;
  /** The most retries this client makes for a call (`maxRetries`). */
  readonly maxRetries: number;
}

/** A sink for the SDK's request log, e.g. one that writes Terraform-style lines at DEBUG. */
export interface RequestLogger {
  /** Called once per attempt; `message` is a short fixed text, `fields` the details. */
  debug(message: string, fields: RequestLogFields): void;
}

/** Per-call options, accepted as the last argument of every method. */
export interface CallOptions {
  /** Aborts the call (including waits between retries); the call rejects with `AbortedError`. */
  readonly signal?: AbortSignal;
}

/** Fields of sub-account create and edit. Edit sends exactly the fields given. */
export interface SubAccountInput {
  /** 1–30 characters of A–Z, a–z, 0–9, `.`, `@`, `+`, `-`; globally unique. */
  readonly username: string;
  /** Up to 128 characters; write-only. */
  readonly password?: string;
  /** Up to 20 characters; `''` is sent as an empty field (clears it on edit). */
  readonly firstName?: string;
  /** Up to 20 characters; `''` is sent as an empty field (clears it on edit). */
  readonly lastName?: string;
  /** Email address, up to 255 characters; `''` is sent as an empty field (clears it on edit). */
  readonly email?: string;
  /** Monthly bandwidth limit in GB, integer ≥ 0; 0 = no limit. */
  readonly monthlyLimit?: number;
  /** Total bandwidth limit in GB, integer ≥ 0; 0 = no limit. */
  readonly totalLimit?: number;
}

/** A sub-account as the API returns it (AccountDetails). */
export interface SubAccount {
  /** Username. */
  username: string;
  /** False when deactivated. */
  active: boolean;
  /** GB used in the current billing period (may be fractional). */
  monthlyBandwidth: number;
  /** Monthly limit in GB; 0 = no limit. */
  monthlyBandwidthLimit: number;
  /** GB used in total. */
  totalBandwidth: number;
  /** Total limit in GB; 0 = no limit. */
  totalBandwidthLimit: number;
  /** Present only when set. */
  firstName?: string;
  /** Present only when set. */
  lastName?: string;
  /** Present only when set. */
  email?: string;
}

/** Targets a sub-account; omitted = the authenticated account. */
export interface UsernameTarget {
  /** Sub-account username (the caller must be its parent). */
  readonly username?: string;
}

/** Input of `ips.add`. */
export interface IpAddInput extends UsernameTarget {
  /** Strict dotted-quad IPv4 address. */
  readonly ip: string;
  /** Optional label, up to 100 characters. */
  readonly label?: string;
}

/** Input of `ips.delete`. */
export interface IpDeleteInput extends UsernameTarget {
  /** Strict dotted-quad IPv4 address. */
  readonly ip: string;
}

/** Response of `ips.add`. */
export interface AuthorizedIp {
  /** The address. */
  ip: string;
  /** Present when the server returned one. */
  label?: string;
}

/** One entry of `ips.listWithLabels`. */
export interface LabeledIp {
  /** The address. */
  ip: string;
  /** The label; `''` when none was set. */
  label: string;
}

/** Input of `hostnames.add` and `hostnames.delete`. */
export interface HostnameInput extends UsernameTarget {
  /** Hostname; non-empty, no whitespace. */
  readonly domain: string;
}

/** Input of `tokens.create`. */
export interface TokenCreateInput extends UsernameTarget {
  /** Up to 100 characters. */
  readonly label?: string;
  /** Expiry date `YYYY-MM-DD`; omitted (or `''`) = no expiry. */
  readonly expiresAt?: string;
}

/** Input of `tokens.activate`, `tokens.deactivate` and `tokens.delete`. */
export interface TokenIdInput extends UsernameTarget {
  /** Token id, a positive integer. */
  readonly id: number;
}

/** Bearer-token metadata. */
export interface BearerToken {
  /** Token id. */
  id: number;
  /** Label; `''` when none. */
  label: string;
  /** Whether the token is active. */
  isActive: boolean;
  /** Expiry instant; `null` = never. A date-time without timezone is read as UTC. */
  expiresAt: Date | null;
  /** Creation instant. A date-time without timezone is read as UTC. */
  createdAt: Date;
}

/** Response of `tokens.create`: the metadata plus the raw token, shown only this once. */
export interface BearerTokenCreated extends BearerToken {
  /** The raw token. Store it now: the service keeps only a hash. */
  token: string;
}

/** Geo-IP map: ISO country code → number of proxy IPs. */
export type GeoIpCounts = Record<string, number>;
