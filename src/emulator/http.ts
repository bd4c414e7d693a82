// Request and response plumbing shared by the API and control routes: bounded body reading,
// strict form/query decoding, and the three reply shapes the API uses (JSON, text, empty).
import type { IncomingMessage, ServerResponse } from 'node:http';

/** Largest request body accepted; larger ones get 413. */
export const MAX_BODY_BYTES = 64 * 1024;

/** An error that becomes a plain-text response with `status`. Its message must hold no secret. */
export class HttpError extends Error {
  /** @param headers extra response headers, e.g. `Allow` or `Retry-After` */
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

/** What a route handler returns. */
export type Reply =
  | { readonly status: number; readonly json: unknown; readonly headers?: Readonly<Record<string, string>> }
  | { readonly status: number; readonly text: string }
  | { readonly status: 200 | 204; readonly empty: true };

/** Decoded name/value pairs of a query string or form body; each name appears once. */
export type Params = ReadonlyMap<string, string>;

/** Field names quoted in messages as they are; any other name could carry control characters. */
const PLAIN_NAME_RE = /^[A-Za-z0-9_]{1,64}$/;

/** True for a field name that messages may quote as it is (letters, digits and `_`). */
export function isPlainName(name: string): boolean {
  return PLAIN_NAME_RE.test(name);
}

/**
 * Decodes `application/x-www-form-urlencoded` text. Unlike URLSearchParams it rejects malformed
 * percent-encoding instead of passing it through, and a name given twice: which of its values
 * counts is a guess (`username=alice&username=` must not quietly act on the caller).
 * @param what names the source in error messages ("request body", "query string")
 */
export function parseForm(text: string, what: string): Params {
  const params = new Map<string, string>();
  if (text === '') return params;
  for (const pair of text.split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const name = decodeFormPart(eq === -1 ? pair : pair.slice(0, eq), what);
    const value = decodeFormPart(eq === -1 ? '' : pair.slice(eq + 1), what);
    if (params.has(name)) {
      throw new HttpError(400, `${PLAIN_NAME_RE.test(name) ? name : 'a field'}: given more than once in ${what}`);
    }
    params.set(name, value);
  }
  return params;
}

function decodeFormPart(raw: string, what: string): string {
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' '));
  } catch {
    throw new HttpError(400, `malformed percent-encoding in ${what}`);
  }
}

const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * The bytes as UTF-8 text, or undefined when they are not valid UTF-8 (a replacement character
 * would stand for whatever the client meant, and be stored or compared).
 */
export function strictUtf8(bytes: Uint8Array): string | undefined {
  try {
    return UTF8.decode(bytes);
  } catch {
    return undefined;
  }
}

/** The request body as UTF-8 text; 400 when it is not valid UTF-8. */
export function bodyText(body: Buffer, what = 'request body'): string {
  const text = strictUtf8(body);
  if (text === undefined) throw new HttpError(400, `${what} is not valid UTF-8`);
  return text;
}

/** Reads the whole request body, refusing (413) anything over {@link MAX_BODY_BYTES}. */
export async function readBody(req: IncomingMessage): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? '0');
  if (declared > MAX_BODY_BYTES) throw tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of req as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) throw tooLarge();
      chunks.push(chunk);
    }
  } catch (err) {
    if (err instanceof HttpError) throw err;
    // The client went away mid-body, or Node ended the connection (a body not whole in time, a
    // malformed one): nothing to serve, and not an emulator bug.
    throw new IncompleteBodyError();
  }
  return Buffer.concat(chunks);
}

/**
 * A request whose body never arrived whole: its connection ended first. Nobody is left to answer
 * on it, unless it still is open; then it gets 400.
 */
export class IncompleteBodyError extends HttpError {
  constructor() {
    super(400, 'request body incomplete', { Connection: 'close' });
  }
}

function tooLarge(): HttpError {
  // Close the connection: the rest of the body is never read.
  return new HttpError(413, `request body larger than ${MAX_BODY_BYTES} bytes`, { Connection: 'close' });
}

/** Labels of UTF-8 itself. */
const UTF8_LABELS: ReadonlySet<string> = new Set(['utf-8', 'utf8']);
/** Labels of charsets in which an all-ASCII body means what it means in UTF-8. */
const ASCII_COMPATIBLE_LABELS: ReadonlySet<string> = new Set(['us-ascii', 'iso-8859-1', 'latin1']);
/** A percent-escape of an octet above 0x7F: what an ASCII-compatible charset reads otherwise than UTF-8. */
const HIGH_ESCAPE_RE = /%[89a-f][0-9a-f]/i;
const UTF8_BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/**
 * Checks that a POST body is form-encoded (JSON and other types get 400, docs/emulator.md) in
 * UTF-8, and decodes it. A missing Content-Type is fine only with an empty body.
 */
export function decodeFormBody(contentType: string | undefined, body: Buffer): Params {
  const [type, ...parameters] = (contentType ?? '').split(';').map((part) => part.trim().toLowerCase());
  if (type !== 'application/x-www-form-urlencoded' && !(type === '' && body.length === 0)) {
    throw new HttpError(400, 'request body must be application/x-www-form-urlencoded');
  }
  const charset = parameters.find((p) => p.startsWith('charset='))?.slice('charset='.length);
  if (charset !== undefined) checkCharset(charset.replace(/^"(.*)"$/, '$1'), body);
  // Refused, not stripped: a form body has no byte order mark, so a server that does not expect
  // one reads it as part of the first name, and that field (`username`, say) is lost there.
  if (body.subarray(0, UTF8_BOM.length).equals(UTF8_BOM)) {
    throw new HttpError(400, 'request body starts with a UTF-8 byte order mark (EF BB BF): a form body takes none');
  }
  return parseForm(bodyText(body), 'request body');
}

/**
 * Percent-escapes are read as UTF-8 whatever the label says, so a Latin-1 client's `%E9` (é)
 * would become another character: a charset other than UTF-8 is refused, except US-ASCII and
 * Latin-1 for a body whose bytes and escapes are all ASCII, which every one of them reads alike.
 */
function checkCharset(label: string, body: Buffer): void {
  if (UTF8_LABELS.has(label)) return;
  if (!ASCII_COMPATIBLE_LABELS.has(label)) {
    throw new HttpError(400, 'request body must be UTF-8: a charset other than utf-8 is not supported (us-ascii and iso-8859-1 only for an all-ASCII body)');
  }
  if (body.some((byte) => byte > 0x7f) || HIGH_ESCAPE_RE.test(body.toString('latin1'))) {
    throw new HttpError(
      400,
      `request body must be UTF-8: with charset=${label} only an all-ASCII body is accepted (no byte or percent-escape above 7F); send other text as UTF-8, with charset=utf-8 or none`,
    );
  }
}

/** An HTTP `Date` header value (IMF-fixdate) for the time `ms`. */
export function httpDate(ms: number): string {
  return new Date(ms).toUTCString();
}

/** Writes `reply` to `res`. */
export function sendReply(res: ServerResponse, reply: Reply): void {
  if ('json' in reply) {
    const body = JSON.stringify(reply.json);
    res.writeHead(reply.status, {
      ...reply.headers,
      'Content-Type': 'application/json',
      'Content-Length': Buffer.byteLength(body),
    });
    res.end(body);
  } else if ('text' in reply) {
    sendText(res, reply.status, reply.text);
  } else {
    sendEmpty(res, reply.status);
  }
}

/** True for the statuses whose answer HTTP forbids content (RFC 9110): 204, 205 and 304. */
export function forbidsContent(status: number): boolean {
  return status === 204 || status === 205 || status === 304;
}

/**
 * Writes an answer without a body: with `Content-Length: 0`, except for 204 and 304, which must
 * not carry one (a client would wait for, or count, bytes that never come).
 */
export function sendEmpty(res: ServerResponse, status: number, headers: Readonly<Record<string, string>> = {}): void {
  res.writeHead(status, status === 204 || status === 304 ? headers : { ...headers, 'Content-Length': 0 });
  res.end();
}

/** Writes a plain-text response (the API's error format). */
export function sendText(res: ServerResponse, status: number, text: string, headers: Readonly<Record<string, string>> = {}): void {
  const body = `${text}\n`;
  res.writeHead(status, {
    ...headers,
    'Content-Type': 'text/plain; charset=utf-8',
    'Content-Length': Buffer.byteLength(body),
  });
  res.end(body);
}

/** Splits `req.url` into its path and decoded query parameters. */
export function splitUrl(rawUrl: string | undefined): { path: string; query: string } {
  const url = rawUrl ?? '/';
  const q = url.indexOf('?');
  return q === -1 ? { path: url, query: '' } : { path: url.slice(0, q), query: url.slice(q + 1) };
}
