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

/** Decoded name/value pairs of a query string or form body; the last of repeated names wins. */
export type Params = ReadonlyMap<string, string>;

/**
 * Decodes `application/x-www-form-urlencoded` text. Unlike URLSearchParams it rejects malformed
 * percent-encoding instead of passing it through.
 * @param what names the source in error messages ("request body", "query string")
 */
export function parseForm(text: string, what: string): Params {
  const params = new Map<string, string>();
  if (text === '') return params;
  for (const pair of text.split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const rawName = eq === -1 ? pair : pair.slice(0, eq);
    const rawValue = eq === -1 ? '' : pair.slice(eq + 1);
    try {
      params.set(decodeURIComponent(rawName.replace(/\+/g, ' ')), decodeURIComponent(rawValue.replace(/\+/g, ' ')));
    } catch {
      throw new HttpError(400, `malformed percent-encoding in ${what}`);
    }
  }
  return params;
}

/** Reads the whole request body, refusing (413) anything over {@link MAX_BODY_BYTES}. */
export async function readBody(req: IncomingMessage): Promise<string> {
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
    // The client went away mid-body: nothing to serve, and not an emulator bug.
    throw new HttpError(400, 'request body incomplete', { Connection: 'close' });
  }
  return Buffer.concat(chunks).toString('utf8');
}

function tooLarge(): HttpError {
  // Close the connection: the rest of the body is never read.
  return new HttpError(413, `request body larger than ${MAX_BODY_BYTES} bytes`, { Connection: 'close' });
}

/**
 * Checks that a POST body is form-encoded (JSON and other types get 400, docs/emulator.md) and
 * decodes it. A missing Content-Type is fine only with an empty body.
 */
export function decodeFormBody(contentType: string | undefined, body: string): Params {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === 'application/x-www-form-urlencoded' || (type === '' && body === '')) {
    return parseForm(body, 'request body');
  }
  throw new HttpError(400, 'request body must be application/x-www-form-urlencoded');
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
  } else if (reply.status === 204) {
    res.writeHead(204);
    res.end();
  } else {
    res.writeHead(reply.status, { 'Content-Length': 0 });
    res.end();
  }
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
