// Reads the credentials a proxy client sent: `Proxy-Authorization` (or `Authorization`, for
// clients that can only send that), Basic `username[:ip_hash]:password` or Bearer
// `token[:ip_hash]`. Nothing here is ever logged or echoed.
import type { IncomingHttpHeaders } from 'node:http';
import { decodeBase64Strictly, splitAuthorization } from '../auth';

/** Credentials found on a proxy request. */
export type ProxyCredentials =
  | {
      readonly scheme: 'basic';
      readonly username: string;
      /** The text after the username: `password`, or `ip_hash:password` (the split needs the account). */
      readonly rest: string;
      /** Which header carried them (stripped before forwarding). */
      readonly header: 'proxy-authorization' | 'authorization';
    }
  | {
      readonly scheme: 'bearer';
      readonly token: string;
      readonly ipHash: string | undefined;
      readonly header: 'proxy-authorization' | 'authorization';
    };

/** The outcome of reading the headers: none sent, credentials, or a malformed header. */
export type CredentialsResult =
  | { readonly kind: 'none' }
  | { readonly kind: 'ok'; readonly credentials: ProxyCredentials }
  | { readonly kind: 'malformed'; readonly reason: string };

/** Longest ip_hash accepted: a caller-chosen session key, not a payload. */
export const MAX_IP_HASH_LENGTH = 128;

/**
 * Reads `Proxy-Authorization`, else `Authorization` when it holds Bearer or Basic credentials
 * that a proxy can use. An `Authorization` header of another scheme, or malformed, is the
 * target's (a Digest, an AWS signature, a GitHub token): no credentials, and it is forwarded.
 */
export function readCredentials(headers: IncomingHttpHeaders): CredentialsResult {
  const proxyHeader = headers['proxy-authorization'];
  if (proxyHeader !== undefined) return parse(proxyHeader, 'proxy-authorization');
  const plain = headers.authorization;
  if (plain !== undefined) {
    const read = parse(plain, 'authorization');
    return read.kind === 'malformed' ? { kind: 'none' } : read;
  }
  return { kind: 'none' };
}

function parse(header: string, name: 'proxy-authorization' | 'authorization'): CredentialsResult {
  const { scheme, value } = splitAuthorization(header);
  if (scheme === 'basic') {
    // Decoded as the API decodes them: a client sending base64url or junk is refused here too,
    // not let through by the proxies and banned by the API.
    const decoded = decodeBase64Strictly(value);
    const colon = decoded?.indexOf(':') ?? -1;
    if (decoded === undefined || colon <= 0) return { kind: 'malformed', reason: 'malformed Basic credentials' };
    return { kind: 'ok', credentials: { scheme: 'basic', username: decoded.slice(0, colon), rest: decoded.slice(colon + 1), header: name } };
  }
  if (scheme === 'bearer') {
    if (value === '') return { kind: 'malformed', reason: 'empty Bearer credentials' };
    const colon = value.indexOf(':');
    const token = colon === -1 ? value : value.slice(0, colon);
    const ipHash = colon === -1 ? undefined : value.slice(colon + 1);
    if (token === '' || ipHash === '') return { kind: 'malformed', reason: 'malformed Bearer credentials' };
    if (ipHash !== undefined && !validIpHash(ipHash)) return { kind: 'malformed', reason: `ip_hash must be 1-${MAX_IP_HASH_LENGTH} printable characters` };
    return { kind: 'ok', credentials: { scheme: 'bearer', token, ipHash, header: name } };
  }
  return { kind: 'malformed', reason: 'unsupported authorization scheme (use Basic or Bearer)' };
}

/** True for an ip_hash the emulator accepts: printable ASCII, no spaces, bounded. */
export function validIpHash(value: string): boolean {
  return value.length >= 1 && value.length <= MAX_IP_HASH_LENGTH && /^[\x21-\x7e]+$/.test(value);
}
