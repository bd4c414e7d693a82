// What the transport reads from an answer's body and headers: the text (up to a limit), whether a
// 404 names an object or only a path the server does not serve, and `Retry-After`.
import type { Dispatcher } from 'undici';

/**
 * A 404 that names no object (no text, a bare "not found", an HTML page): what a server says for a
 * path it does not serve at all, rather than for a sub-account or token that does not exist.
 */
export function isGenericNotFound(text: string): boolean {
  const t = text.trim();
  return t === '' || /^(404\b.*|not found\.?)$/i.test(t) || t.startsWith('<');
}

/** The body as UTF-8, cut at `limit` bytes (then `truncated`, and the rest is not read). */
export async function readText(body: Dispatcher.ResponseData['body'], limit: number): Promise<{ text: string; truncated: boolean }> {
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
