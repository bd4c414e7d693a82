// How a request failed when no answer came, from the error undici or Node gave: it timed out, the
// address does not speak TLS, TLS itself failed (a certificate, most often), or the network did.
// The transport turns the kind into the SDK's error and its hint; what the code proves about the
// request having gone out is error-facts.ts's to say.

/** What kind of failure, the error's code (from an AggregateError's first error or a cause too) and its message. */
export interface NetworkFailure {
  readonly kind: 'timeout' | 'not-tls' | 'tls' | 'other';
  readonly code: string | undefined;
  readonly message: string;
}

const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT']);
// Certificate problems are configuration errors: retrying cannot help, a hint can.
const TLS_CODE_RE = /^(?:ERR_TLS_|ERR_SSL_|ERR_OSSL_|DEPTH_ZERO|SELF_SIGNED|UNABLE_TO_|CERT_|HOSTNAME_MISMATCH)/;
// What OpenSSL reports when the other side answers a TLS hello in plain HTTP (or another protocol):
// no certificate setting can fix that, the URL's scheme or port is wrong.
const NOT_TLS_CODES = new Set(['EPROTO', 'ERR_SSL_WRONG_VERSION_NUMBER', 'ERR_SSL_PACKET_LENGTH_TOO_LONG', 'ERR_SSL_HTTP_REQUEST']);
const NOT_TLS_MESSAGE_RE = /wrong version number|packet length too long|http request/i;

/** `timedOut`: the transport's own per-attempt timer fired (undici's timeouts are told by their codes). */
export function classifyNetworkFailure(e: unknown, timedOut: boolean): NetworkFailure {
  const code = errorCode(e);
  const message = errorMessage(e);
  if (timedOut || (code !== undefined && TIMEOUT_CODES.has(code))) return { kind: 'timeout', code, message };
  if ((code !== undefined && NOT_TLS_CODES.has(code)) || NOT_TLS_MESSAGE_RE.test(message)) return { kind: 'not-tls', code, message };
  if (code !== undefined && TLS_CODE_RE.test(code)) return { kind: 'tls', code, message };
  return { kind: 'other', code, message };
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
