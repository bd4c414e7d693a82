// One attempt of an API call, as the transport (transport.ts) decides what follows it: the value
// an answer carries, or the error to throw, whether the attempt may have reached the server,
// whether it may be retried, and what it says of the credentials. Everything the server sends
// back is redacted of the call's secrets before it reaches an error.
import type { Dispatcher } from 'undici';
import { type AuthOutcome, authOutcomeOf } from './auth-guard';
import { type BaseUrl, notFoundHint } from './base-url';
import { provesNotSent, statusLeavesOutcomeUnknown } from './error-facts';
import { apiErrorFor, isBanResponse, NetworkError, type ProxyAccountError, type RequestContext, ResponseParseError, TimeoutError } from './errors';
import { classifyNetworkFailure } from './network-failure';
import { ShapeError } from './parse';
import { redactText } from './redact';
import { isGenericNotFound, parseRetryAfter, readText } from './response-text';
import type { Operation } from './operation';

/** Most bytes of a success body we accept; the API's largest answers are a few kilobytes. */
const MAX_BODY_BYTES = 16 * 1024 * 1024;
/** Most bytes of an error body we read; only the first few hundred characters are kept. */
const MAX_ERROR_BODY_BYTES = 64 * 1024;

/** What a failed attempt's error needs of the client's settings. */
export interface AttemptSettings {
  readonly timeoutMs: number;
  readonly insecure?: boolean | undefined;
}

/** Result of one attempt: a value, or an error and whether another attempt may follow. */
export type Attempt<T> =
  | { readonly ok: true; readonly value: T; readonly auth: AuthOutcome; readonly status: number }
  | {
      readonly ok: false;
      /**
       * The error to throw; `sentBefore`: an earlier attempt of the call may have reached the
       * server; `hint` adds a sentence to an API error's message (other errors ignore it).
       */
      readonly error: (attempts: number, sentBefore: boolean, hint?: string) => ProxyAccountError;
      /** Whether this attempt may have reached the server. */
      readonly sent: boolean;
      readonly retryable: boolean;
      readonly retryAfterMs?: number;
      readonly auth: AuthOutcome;
      /** The HTTP status, when an answer came. */
      readonly status?: number;
      /** The failure's code for the request log, when no answer came. */
      readonly failure?: string;
      /** The answer said the client address is banned. */
      readonly banned?: boolean;
    };

/**
 * The attempt an answer makes: its parsed value, or the error to throw (API errors built from the
 * status and the redacted body), whether it may be retried and what it says of the credentials.
 */
export async function answerAttempt<T>(
  op: Operation<T>,
  ctx: RequestContext,
  res: Dispatcher.ResponseData,
  secrets: readonly string[],
  base: BaseUrl,
): Promise<Attempt<T>> {
  const status = res.statusCode;
  if (status >= 200 && status < 300) {
    if (op.parse === undefined) {
      await res.body.dump();
      return { ok: true, value: undefined as T, auth: 'accepted', status };
    }
    const { text, truncated } = await readText(res.body, MAX_BODY_BYTES);
    const parseError = (detail: string, cause?: unknown) => ({
      ok: false as const,
      error: () => new ResponseParseError(ctx, status, detail, cause),
      sent: true,
      retryable: false,
      auth: 'accepted' as const,
      status,
    });
    if (truncated) return parseError(`body larger than ${MAX_BODY_BYTES} bytes`);
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (e) {
      const shown = redactText(text, secrets).slice(0, 60);
      // Not `e` itself: V8's message quotes the body around the fault, unredacted.
      const cause = new SyntaxError(`the body is not JSON (${jsonFault(e, text)})`);
      return parseError(text.trim() === '' ? 'empty body, expected JSON' : `not JSON (starts with ${JSON.stringify(shown)})`, cause);
    }
    try {
      return { ok: true, value: op.parse(json), auth: 'accepted', status };
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
    location: typeof location === 'string' ? redactLocation(location, secrets) : undefined,
  };
  const echoed = [...Object.values(op.query ?? {}), ...Object.values(op.form ?? {})].filter((v): v is string => v !== undefined);
  const banned = isBanResponse(status, details.responseText, echoed);
  return {
    ok: false,
    error: (attempts, sentBefore, hint) =>
      apiErrorFor(
        {
          ...details,
          attempts,
          afterSentAttempt: sentBefore,
          hint: hint ?? (status === 404 && isGenericNotFound(details.responseText) ? notFoundHint(base, op.path) : undefined),
        },
        echoed,
      ),
    sent: true,
    retryable: op.repeatable && statusLeavesOutcomeUnknown(status),
    retryAfterMs,
    auth: authOutcomeOf(status, banned),
    status,
    banned,
  };
}

/**
 * The attempt a request that got no answer makes (`timedOut`: its per-attempt timer fired): a
 * timeout, a TLS failure or another network error, whether it may have reached the server, and
 * whether it may be retried.
 */
export function failedAttempt<T>(
  op: Operation<T>,
  ctx: RequestContext,
  e: unknown,
  timedOut: boolean,
  secrets: readonly string[],
  cfg: AttemptSettings,
): Attempt<T> {
  const { kind, code, message } = classifyNetworkFailure(e, timedOut);
  // A failure that proves nothing was sent may be retried for any call; the error says so too
  // (`mayHaveReachedServer`), so no caller re-derives it.
  const sent = !provesNotSent(code, e);
  // undici refused the request itself (a header value, say): the same request fails again.
  const retryable = code !== 'UND_ERR_INVALID_ARG' && (op.repeatable || !sent);
  if (kind === 'timeout') {
    const ms = cfg.timeoutMs;
    return {
      ok: false,
      error: (n, before) => new TimeoutError(ctx, ms, n, e, before || sent),
      sent,
      retryable,
      auth: 'unknown',
      failure: code ?? 'ERR_TIMEOUT',
    };
  }
  // The TLS handshake failed: no HTTP request went out on this attempt, and retrying cannot help.
  const handshakeFailed = (detail: string): Attempt<T> => ({
    ok: false,
    error: (n, before) => new NetworkError(ctx, detail, code, n, e, before),
    sent: false,
    retryable: false,
    auth: 'unknown',
    failure: code,
  });
  if (kind === 'not-tls') {
    const detail =
      `the address does not speak TLS (${code ?? 'TLS handshake failed'}); check base_url's scheme and port: ` +
      'https:// must point at an HTTPS port, and a plain-HTTP server needs http:// (loopback only, with allowHttp)';
    return handshakeFailed(detail);
  }
  if (kind === 'tls') {
    const fix = cfg.insecure
      ? "the server's TLS settings are at fault, not its certificate (certificate checks are already off)"
      : "trust the server's certificate with the caCert option, or (test servers only) set insecure: true";
    const detail = `TLS ${cfg.insecure ? 'handshake' : 'certificate verification'} failed (${code}); ${fix}`;
    return handshakeFailed(detail);
  }
  const detail = redactText(code !== undefined && !message.includes(code) ? `${message} (${code})` : message, secrets);
  return {
    ok: false,
    error: (n, before) => new NetworkError(ctx, detail, code, n, e, before || sent),
    sent,
    retryable,
    auth: 'unknown',
    failure: code ?? 'ERR_NETWORK',
  };
}

/**
 * Where JSON text stops parsing, by position only (V8's messages quote the text around the fault,
 * which in a body may be a token or a password): "it ends early" or "at character 1234 of 5678".
 */
function jsonFault(err: unknown, text: string): string {
  const message = err instanceof Error ? err.message : '';
  const at = /position (\d+)/.exec(message);
  if (at !== null) return Number(at[1]) >= text.trimEnd().length ? 'it ends early' : `at character ${at[1]} of ${text.length}`;
  return /end of (JSON|data)/i.test(message) || text.trim() === '' ? 'it ends early' : `somewhere in its ${text.length} characters`;
}

/**
 * A redirect's `Location`, cleaned as the server's other text is: a userinfo (`user:pass@`) is
 * masked whatever it holds, and the rest goes through {@link redactText}, so the call's secrets
 * (percent-encoded in a query, say), `password=` pairs and token-shaped path segments are masked.
 */
function redactLocation(location: string, secrets: readonly string[]): string {
  const withoutUserinfo = location.replace(/^((?:[A-Za-z][A-Za-z0-9+.-]*:)?\/\/)[^/?#]*@/, '$1[REDACTED]@');
  return redactText(withoutUserinfo, secrets);
}
