// Turns a server's error body into text that is safe to put in an error message: known secrets
// and anything shaped like a credential are masked, control characters flattened, length capped.

/** Longest server text kept in an error (characters). */
export const RESPONSE_TEXT_MAX = 300;

const MASK = '[REDACTED]';

// Shapes of credentials that may appear in echoed text whatever their value.
/** An `Authorization:` (or `Proxy-Authorization=`) header echo, with its value. */
const AUTH_HEADER_RE = /\b((?:proxy-)?authorization)\s*[:=]\s*("[^"]*"|'[^']*'|(?:(?:basic|bearer)\s+)?\S+)/gi;
/** A Basic/Bearer credential; it has a digit or symbol in it, so "Basic authentication" survives. */
const SCHEME_CREDENTIAL_RE = /\b(basic|bearer)\s+(?=[A-Za-z0-9._~+/=:-]*[0-9._~+/=:-])[A-Za-z0-9._~+/=:-]{4,}/gi;
/**
 * `password=x` or a quoted `"password": "x"`. An unquoted `password: must be…` is prose (the
 * emulator starts its 400 texts with the field name); the real password is masked exactly anyway.
 */
const SECRET_PAIR_RE = /\b(password|passwd|token|secret|api[_-]?key)(?:("?\s*=\s*)(?:"[^"]*"|'[^']*'|[^\s,;&}]+)|("?\s*:\s*)(?:"[^"]*"|'[^']*'))/gi;
/**
 * A token-like string: a short lowercase prefix, `_`, and a long random tail with a digit (`pxa_…`).
 * Wherever it starts, even glued to letters or digits before it: a word boundary there would let
 * `xxxpxa_…` through whole.
 */
const PREFIXED_TOKEN_RE = /[a-z]{2,8}_(?=[A-Za-z0-9_-]*[0-9])[A-Za-z0-9_-]{16,}/g;

// Shorter secrets would mask ordinary words of the message; the API contract's secrets are never that short.
const MIN_SECRET_LENGTH = 3;

/**
 * Masks `secrets` (exact values) and credential-shaped text in `text`, flattens control
 * characters and whitespace, and truncates to {@link RESPONSE_TEXT_MAX} characters.
 */
export function redactText(text: string, secrets: readonly string[]): string {
  let out = text;
  // Longest first, so a secret containing another is masked whole.
  const sorted = secrets.filter((s) => s.length >= MIN_SECRET_LENGTH).sort((a, b) => b.length - a.length);
  for (const secret of sorted) out = out.split(secret).join(MASK);
  out = out.replace(AUTH_HEADER_RE, (_m, name: string) => `${name}: ${MASK}`);
  out = out.replace(SCHEME_CREDENTIAL_RE, (_m, scheme: string) => `${scheme} ${MASK}`);
  out = out.replace(SECRET_PAIR_RE, (_m, name: string, eq: string | undefined, colon: string | undefined) => `${name}${eq ?? colon ?? ''}${MASK}`);
  out = out.replace(PREFIXED_TOKEN_RE, MASK);
  out = out.replace(/[\s\u0000-\u001f\u007f]+/g, ' ').trim();
  if (out.length > RESPONSE_TEXT_MAX) out = `${out.slice(0, RESPONSE_TEXT_MAX)}…`;
  return out;
}

/**
 * The forms a secret takes on the wire, so an echo of any of them is masked: as given, form-encoded
 * the way URLSearchParams sends it (`+` for spaces, `%XX` escapes, in either hex case), as a URI
 * component (`%20`), and JSON-escaped (a server echoing the field inside a JSON string).
 */
export function wireForms(secret: string): string[] {
  const form = new URLSearchParams([['', secret]]).toString().slice(1);
  const uri = encodeURIComponent(secret);
  const json = JSON.stringify(secret).slice(1, -1);
  const lowerHex = (s: string): string => s.replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase());
  return [...new Set([secret, form, lowerHex(form), uri, lowerHex(uri), json])];
}
