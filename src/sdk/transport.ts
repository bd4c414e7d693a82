// Sends one API operation over undici: builds the request, enforces the per-attempt timeout,
// maps the response to a value or an error, retries what is safe to retry, and goes through the
// 401 guard before every attempt. undici is loaded on the first request, not at import time:
// short-lived processes (plugins, CLIs) load the SDK on every start and often send nothing.
import type { Dispatcher } from 'undici';
import { AuthGuard, authOutcomeOf, CredentialsRejectedSignal, type AuthOutcome } from './auth-guard';
import type { BaseUrl } from './base-url';
import {
  AbortedError,
  apiErrorFor,
  ClientClosedError,
  CredentialsRejectedError,
  isBanResponse,
  NetworkError,
  type ProxyAccountError,
  ResponseParseError,
  TimeoutError,
  type RequestContext,
} from './errors';
import { ShapeError } from './parse';
import { redactText } from './redact';
import type { CallOptions } from './types';

/** One API call, as the per-area modules describe it. */
export interface Operation<T> {
  /** HTTP method. */
  readonly method: 'GET' | 'POST';
  /** API path exactly as in API.md, with its trailing slash. */
  readonly path: string;
  /** Human description naming the object, e.g. `create sub-account 'alice'`. */
  readonly operation: string;
  /** Query parameters (GET); undefined values are left out. */
  readonly query?: Readonly<Record<string, string | undefined>>;
  /** Form fields (POST); undefined values are left out, '' is sent as an empty field. */
  readonly form?: Readonly<Record<string, string | undefined>>;
  /**
   * Whether sending the call twice leaves the same state and answer as sending it once, so it may
   * be retried after the request may have reached the server (500, 503, reset, timeout).
   */
  readonly repeatable: boolean;
  /** Extra secrets of this call (e.g. a sub-account password) to mask in error text. */
  readonly secrets?: readonly string[];
  /** Reads the JSON body of a success; absent = the body is ignored and the call returns void. */
  readonly parse?: (body: unknown) => T;
}

/** Settings of a {@link Transport}, already validated by the client. */
export interface TransportConfig {
  readonly base: BaseUrl;
  readonly authorization: string;
  /** Values to mask in any server text: password, token, encoded credentials. */
  readonly secrets: readonly string[];
  readonly timeoutMs: number;
  readonly maxRetries: number;
  readonly retryBaseDelayMs: number;
  readonly retryMaxDelayMs: number;
  readonly userAgent: string;
  readonly random: () => number;
  readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** A caller-owned dispatcher, or a factory for the client's own agent. */
  readonly dispatcher: Dispatcher | ((undici: typeof import('undici')) => Dispatcher);
}

/** Most bytes of a success body we accept; the API's largest answers are a few kilobytes. */
const MAX_BODY_BYTES = 16 * 1024 * 1024;
/** Most bytes of an error body we read; only the first few hundred characters are kept. */
const MAX_ERROR_BODY_BYTES = 64 * 1024;

// Failures that prove the request never reached the server: safe to retry any call.
const NOT_SENT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
]);
const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT']);
// Certificate problems are configuration errors: retrying cannot help, a hint can.
const TLS_CODE_RE = /^(?:ERR_TLS_|ERR_SSL_|ERR_OSSL_|DEPTH_ZERO|SELF_SIGNED|UNABLE_TO_|CERT_|HOSTNAME_MISMATCH)/;

let undiciModule: typeof import('undici') | undefined;
function loadUndici(): typeof import('undici') {
  undiciModule ??= require('undici') as typeof import('undici');
  return undiciModule;
}

/** Result of one attempt: a value, or an error and whether another attempt may follow. */
type Attempt<T> =
  | { readonly ok: true; readonly value: T; readonly auth: AuthOutcome }
  | {
      readonly ok: false;
      readonly error: (attempts: number) => ProxyAccountError;
      readonly retryable: boolean;
      readonly retryAfterMs?: number;
      readonly auth: AuthOutcome;
    };

/** Executes operations for one client. */
export class Transport {
  private readonly guard = new AuthGuard();
  private dispatcher: Dispatcher | undefined;
  private ownDispatcher = false;
  private closed = false;

  // A true private field, so inspecting a client never shows the Authorization header.
  readonly #cfg: TransportConfig;

  constructor(cfg: TransportConfig) {
    this.#cfg = cfg;
  }

  /** What the 401 guard knows about the credentials. */
  get credentialState(): AuthGuard['credentialState'] {
    return this.guard.credentialState;
  }

  /** Runs `op`, retrying as its `repeatable` flag and the failure allow. */
  async call<T>(op: Operation<T>, opts: CallOptions = {}): Promise<T> {
    const ctx: RequestContext = { method: op.method, path: op.path, operation: op.operation };
    const { signal } = opts;
    for (let attempt = 1; ; attempt++) {
      if (this.closed) throw new ClientClosedError(ctx);
      if (signal?.aborted) throw new AbortedError(ctx, signal.reason);
      let release: (outcome: AuthOutcome) => void;
      try {
        release = await this.guard.acquire(signal);
      } catch (e) {
        if (e instanceof CredentialsRejectedSignal) throw new CredentialsRejectedError(ctx);
        throw new AbortedError(ctx, e);
      }
      let result: Attempt<T> | undefined;
      try {
        if (this.closed) throw new ClientClosedError(ctx);
        result = await this.attempt(op, ctx, signal);
      } finally {
        release(result?.auth ?? 'unknown');
      }
      if (result.ok) return result.value;
      if (!result.retryable || attempt > this.#cfg.maxRetries) throw result.error(attempt);
      try {
        await this.#cfg.sleep(this.backoff(attempt, result.retryAfterMs), signal);
      } catch (e) {
        throw new AbortedError(ctx, e);
      }
    }
  }

  /** Closes the client's own agent (never a caller's dispatcher); later calls fail. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.ownDispatcher && this.dispatcher !== undefined) await this.dispatcher.close();
  }

  /** Wait before retry number `retry` (1-based): full jitter, or `Retry-After`, both capped. */
  private backoff(retry: number, retryAfterMs: number | undefined): number {
    const cap = this.#cfg.retryMaxDelayMs;
    if (retryAfterMs !== undefined) return Math.min(retryAfterMs, cap);
    const ceiling = Math.min(cap, this.#cfg.retryBaseDelayMs * 2 ** (retry - 1));
    return Math.floor(this.#cfg.random() * ceiling);
  }

  private getDispatcher(): Dispatcher {
    if (this.dispatcher === undefined) {
      const d = this.#cfg.dispatcher;
      if (typeof d === 'function') {
        this.dispatcher = d(loadUndici());
        this.ownDispatcher = true;
      } else {
        this.dispatcher = d;
      }
    }
    return this.dispatcher;
  }

  private buildRequest(op: Operation<unknown>): { url: string; body: string | undefined } {
    let url = this.#cfg.base.origin + this.#cfg.base.prefix + op.path;
    const query = toParams(op.query).toString();
    if (query !== '') url += `?${query}`;
    const body = op.method === 'POST' ? toParams(op.form).toString() : undefined;
    return { url, body };
  }

  private async attempt<T>(op: Operation<T>, ctx: RequestContext, signal?: AbortSignal): Promise<Attempt<T>> {
    const { url, body } = this.buildRequest(op);
    const headers: Record<string, string> = {
      authorization: this.#cfg.authorization,
      'user-agent': this.#cfg.userAgent,
      accept: 'application/json',
    };
    if (body !== undefined) headers['content-type'] = 'application/x-www-form-urlencoded';

    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort(new Error('attempt timed out'));
    }, this.#cfg.timeoutMs);
    const onCallerAbort = (): void => controller.abort(signal?.reason);
    signal?.addEventListener('abort', onCallerAbort, { once: true });
    const secrets = [...this.#cfg.secrets, ...(op.secrets ?? [])];
    try {
      const res = await loadUndici().request(url, {
        method: op.method,
        headers,
        body,
        dispatcher: this.getDispatcher(),
        signal: controller.signal,
        headersTimeout: this.#cfg.timeoutMs,
        bodyTimeout: this.#cfg.timeoutMs,
      });
      return await this.readResponse(op, ctx, res, secrets);
    } catch (e) {
      if (signal?.aborted === true) {
        return { ok: false, error: () => new AbortedError(ctx, signal.reason), retryable: false, auth: 'unknown' };
      }
      return this.failure(op, ctx, e, timedOut, secrets);
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onCallerAbort);
    }
  }

  private async readResponse<T>(
    op: Operation<T>,
    ctx: RequestContext,
    res: Dispatcher.ResponseData,
    secrets: readonly string[],
  ): Promise<Attempt<T>> {
    const status = res.statusCode;
    if (status >= 200 && status < 300) {
      if (op.parse === undefined) {
        await res.body.dump();
        return { ok: true, value: undefined as T, auth: 'accepted' };
      }
      const { text, truncated } = await readText(res.body, MAX_BODY_BYTES);
      const parseError = (detail: string, cause?: unknown) => ({
        ok: false as const,
        error: () => new ResponseParseError(ctx, status, detail, cause),
        retryable: false,
        auth: 'accepted' as const,
      });
      if (truncated) return parseError(`body larger than ${MAX_BODY_BYTES} bytes`);
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch (e) {
        const shown = redactText(text, secrets).slice(0, 60);
        return parseError(text.trim() === '' ? 'empty body, expected JSON' : `not JSON (starts with ${JSON.stringify(shown)})`, e);
      }
      try {
        return { ok: true, value: op.parse(json), auth: 'accepted' };
      } catch (e) {
        return parseError(e instanceof ShapeError ? e.message : 'unexpected shape', e);
      }
    }

    const { text } = await readText(res.body, MAX_ERROR_BODY_BYTES);
    const retryAfterMs = parseRetryAfter(res.headers['retry-after']);
    const location = res.headers.location;
    const details = {
      ...ctx,
      status,
      responseText: redactText(text, secrets),
      retryAfterSeconds: retryAfterMs === undefined ? undefined : Math.ceil(retryAfterMs / 1000),
      location: typeof location === 'string' ? location : undefined,
    };
    return {
      ok: false,
      error: (attempts) => apiErrorFor({ ...details, attempts }),
      retryable: op.repeatable && (status === 500 || status === 503),
      retryAfterMs,
      auth: authOutcomeOf(status, isBanResponse(status, details.responseText)),
    };
  }

  private failure<T>(
    op: Operation<T>,
    ctx: RequestContext,
    e: unknown,
    timedOut: boolean,
    secrets: readonly string[],
  ): Attempt<T> {
    if (this.closed) return { ok: false, error: () => new ClientClosedError(ctx), retryable: false, auth: 'unknown' };
    const code = errorCode(e);
    const notSent = code !== undefined && NOT_SENT_CODES.has(code);
    const retryable = op.repeatable || notSent;
    if (timedOut || (code !== undefined && TIMEOUT_CODES.has(code))) {
      const ms = this.#cfg.timeoutMs;
      return { ok: false, error: (n) => new TimeoutError(ctx, ms, n, e), retryable, auth: 'unknown' };
    }
    if (code !== undefined && TLS_CODE_RE.test(code)) {
      const detail =
        `TLS certificate verification failed (${code}); trust the server's certificate with the ` +
        'caCert option, or (test servers only) set insecure: true';
      return { ok: false, error: (n) => new NetworkError(ctx, detail, code, n, e), retryable: false, auth: 'unknown' };
    }
    const message = errorMessage(e);
    const detail = redactText(code !== undefined && !message.includes(code) ? `${message} (${code})` : message, secrets);
    return { ok: false, error: (n) => new NetworkError(ctx, detail, code, n, e), retryable, auth: 'unknown' };
  }
}

function toParams(fields: Readonly<Record<string, string | undefined>> | undefined): URLSearchParams {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(fields ?? {})) if (v !== undefined) params.append(k, v);
  return params;
}

/** The `code` of an error or of the first error inside an AggregateError. */
function errorCode(e: unknown): string | undefined {
  if (typeof e !== 'object' || e === null) return undefined;
  const code = (e as { code?: unknown }).code;
  if (typeof code === 'string') return code;
  const inner = (e as { errors?: unknown }).errors;
  return Array.isArray(inner) && inner.length > 0 ? errorCode(inner[0]) : errorCode((e as { cause?: unknown }).cause);
}

/** The message of an error; an AggregateError (one error per address tried) has none of its own. */
function errorMessage(e: unknown): string {
  if (!(e instanceof Error)) return String(e);
  if (e.message !== '') return e.message;
  const inner = (e as { errors?: unknown }).errors;
  if (Array.isArray(inner) && inner[0] instanceof Error && inner[0].message !== '') return inner[0].message;
  return e.name;
}

async function readText(
  body: Dispatcher.ResponseData['body'],
  limit: number,
): Promise<{ text: string; truncated: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
    if (size + buf.length > limit) {
      chunks.push(buf.subarray(0, limit - size));
      body.destroy();
      return { text: Buffer.concat(chunks).toString('utf8'), truncated: true };
    }
    chunks.push(buf);
    size += buf.length;
  }
  return { text: Buffer.concat(chunks).toString('utf8'), truncated: false };
}

/** `Retry-After` as milliseconds from now: delta-seconds or an HTTP date; undefined if absent/bad. */
export function parseRetryAfter(value: string | string[] | undefined, now = Date.now()): number | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  if (v === undefined) return undefined;
  const s = v.trim();
  if (/^\d+$/.test(s)) return Number(s) * 1000;
  const date = Date.parse(s);
  if (Number.isNaN(date) || !/[a-z]/i.test(s)) return undefined;
  return Math.max(0, date - now);
}
