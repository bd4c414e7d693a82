// Authentication of API requests (Basic or Bearer, parent or sub-account) and the ban that four
// failures from one client address within 15 minutes earn (docs/emulator.md).
import type { Clock } from './clock';
import { strictUtf8 } from './http';
import { hashToken } from './secrets';
import { isExpired, type Account, type Store } from './store';

/** Failures within this window count toward a ban. */
export const BAN_WINDOW_MS = 15 * 60 * 1000;
/** Failures within the window that cause a ban. */
export const BAN_THRESHOLD = 4;
/** How long a ban lasts. */
export const BAN_DURATION_MS = 3 * 3600 * 1000;

/** Who is calling, and how they proved it. */
export interface Caller {
  readonly account: Account;
  readonly scheme: 'basic' | 'bearer';
}

/** The outcome of checking an Authorization header. */
export type AuthResult =
  | { readonly ok: true; readonly caller: Caller }
  /** `counted`: whether this failure counts toward a ban (a missing header does not). */
  | { readonly ok: false; readonly counted: boolean; readonly message: string };

/** An authorization header's scheme (lower-case) and the value after it (trimmed; '' when none). */
export function splitAuthorization(header: string): { scheme: string; value: string } {
  const space = header.indexOf(' ');
  return {
    scheme: (space === -1 ? header : header.slice(0, space)).toLowerCase(),
    value: space === -1 ? '' : header.slice(space + 1).trim(),
  };
}

/** Checks an `Authorization` header against the store. Messages never quote credentials. */
export function authenticate(header: string | undefined, store: Store, now: number): AuthResult {
  if (header === undefined || header.trim() === '') {
    return { ok: false, counted: false, message: 'authentication required (Basic or Bearer)' };
  }
  const { scheme, value } = splitAuthorization(header);
  if (scheme === 'basic') {
    const decoded = decodeBase64Strictly(value);
    const colon = decoded?.indexOf(':') ?? -1;
    if (decoded === undefined || colon === -1) return fail('malformed Basic credentials');
    const account = store.accounts.byUsername(decoded.slice(0, colon));
    if (!account || !store.accounts.checkPassword(account.id, decoded.slice(colon + 1))) {
      return fail('invalid username or password');
    }
    return { ok: true, caller: { account, scheme: 'basic' } };
  }
  if (scheme === 'bearer') {
    const token = value === '' ? undefined : store.tokens.byHash(hashToken(value));
    if (!token) return fail('invalid bearer token');
    if (!token.active) return fail('bearer token is inactive');
    if (isExpired(token, now)) return fail('bearer token has expired');
    const account = store.accounts.byId(token.accountId);
    if (!account) return fail('invalid bearer token');
    return { ok: true, caller: { account, scheme: 'bearer' } };
  }
  return fail('unsupported authorization scheme (use Basic or Bearer)');
}

/** Standard base64 (RFC 4648 section 4) with its padding: no base64url alphabet, nothing else. */
const BASE64_RE = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * The UTF-8 text that `value` encodes, or undefined unless it is strict base64 (RFC 7617) of
 * UTF-8. Node's decoder takes base64url, missing padding and stray characters: a client that
 * sends those would pass here and be refused (and banned after four tries) by a strict server.
 */
export function decodeBase64Strictly(value: string): string | undefined {
  if (!BASE64_RE.test(value)) return undefined;
  const bytes = Buffer.from(value, 'base64');
  // Padding bits that are not zero (`YR==` for `YQ==`) decode too: only the canonical form is base64.
  if (bytes.toString('base64') !== value) return undefined;
  return strictUtf8(bytes);
}

function fail(message: string): AuthResult {
  return { ok: false, counted: true, message };
}

/** Failure counts and bans per client address, on the emulator clock. Not persisted. */
export class BanList {
  private readonly failures = new Map<string, number[]>();
  private readonly bans = new Map<string, number>();

  constructor(private readonly clock: Clock) {}

  /** Seconds left of the address's ban, or undefined when it is not banned. */
  banSecondsLeft(address: string): number | undefined {
    const until = this.bans.get(address);
    if (until === undefined) return undefined;
    const left = until - this.clock.now();
    if (left <= 0) {
      this.bans.delete(address);
      return undefined;
    }
    return Math.ceil(left / 1000);
  }

  /** Records a failed authentication; the {@link BAN_THRESHOLD}th within the window starts a ban. */
  recordFailure(address: string): void {
    const now = this.clock.now();
    const recent = (this.failures.get(address) ?? []).filter((t) => now - t < BAN_WINDOW_MS);
    recent.push(now);
    if (recent.length >= BAN_THRESHOLD) {
      this.bans.set(address, now + BAN_DURATION_MS);
      this.failures.delete(address);
    } else {
      this.failures.set(address, recent);
    }
  }

  /** Forgets every failure and ban. */
  clear(): void {
    this.failures.clear();
    this.bans.clear();
  }

  /** Current bans, for the control API's state dump. */
  snapshot(): Array<{ address: string; until: number }> {
    const now = this.clock.now();
    return [...this.bans].filter(([, until]) => until > now).map(([address, until]) => ({ address, until }));
  }
}
