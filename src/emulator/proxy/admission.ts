// Who may send a request through an emulated proxy, decided from the emulator's one state on its
// clock: credentials (Basic or Bearer, with an optional ip_hash), else an authorized IP or the
// address of an authorized hostname; then the parent's authorized proxies, the sub-account's
// state and every bandwidth limit that applies. Refusal messages never quote a credential.
import { hashToken } from '../secrets';
import { currentPeriodStart, isExpired, type Account, type Store } from '../store';
import { MAX_IP_HASH_LENGTH, type ProxyCredentials, validIpHash } from './credentials';

/** How long proxy servers keep accepting a deactivated token. */
export const DEACTIVATED_TOKEN_GRACE_MS = 5 * 60 * 1000;

/** Statuses of refusals (docs/emulator.md, "Proxy servers"). */
export const PROXY_STATUS = {
  /** No, bad, unknown, expired or (after the grace period) deactivated credentials. */
  authRequired: 407,
  /** Deactivated sub-account (fixed by the contract). */
  inactive: 402,
  /** The parent has not authorized this proxy, or the target is not allowed. */
  forbidden: 403,
  /** A monthly, total or parent bandwidth limit is reached (fixed by the contract). */
  limit: 509,
} as const;

/** The account a request acts as, and its sticky-session key when it sent one. */
export interface Admitted {
  readonly ok: true;
  readonly account: Account;
  readonly parent: Account;
  readonly ipHash: string | undefined;
  /** How the request was admitted, for the log. */
  readonly via: 'basic' | 'bearer' | 'ip' | 'hostname';
  /** With `via: 'hostname'`: the authorized hostname that resolved to the client's address. */
  readonly hostname?: string;
}

/** A refused request. */
export interface Refused {
  readonly ok: false;
  readonly status: number;
  readonly message: string;
}

/** Resolves a host name to its addresses (dns.lookup by default; tests inject their own). */
export type HostResolver = (hostname: string) => Promise<string[]>;

/** What a decision needs. */
export interface AdmissionInput {
  readonly store: Store;
  readonly now: number;
  /** Bare catalogue host of the proxy that received the request, e.g. `us-ny`. */
  readonly proxyHost: string;
  readonly credentials: ProxyCredentials | undefined;
  /** The client's address, IPv4-mapped IPv6 already unwrapped. */
  readonly clientAddress: string;
  readonly resolve: HostResolver;
}

/** Decides whether the request may pass, and as whom. */
export async function admit(input: AdmissionInput): Promise<Admitted | Refused> {
  const who = input.credentials === undefined ? await byAddress(input) : byCredentials(input.store, input.credentials, input.now);
  if (!who.ok) return who;
  const { store, now } = input;
  const parent = who.account.parentId === null ? who.account : store.accounts.byId(who.account.parentId);
  if (!parent) return refuse(PROXY_STATUS.authRequired, 'account not found');
  if (!store.access.hasProxy(parent.id, input.proxyHost)) {
    return refuse(PROXY_STATUS.forbidden, `proxy ${input.proxyHost} is not among the authorized proxies of this account`);
  }
  if (!who.account.active) return refuse(PROXY_STATUS.inactive, 'sub-account is deactivated');
  const reached = limitReached(store, who.account, parent, now);
  if (reached !== undefined) return refuse(PROXY_STATUS.limit, reached);
  return { ...who, parent };
}

type Who = { ok: true; account: Account; ipHash: string | undefined; via: Admitted['via']; hostname?: string } | Refused;

function byCredentials(store: Store, credentials: ProxyCredentials, now: number): Who {
  if (credentials.scheme === 'bearer') {
    const token = store.tokens.byHash(hashToken(credentials.token));
    if (!token) return refuse(PROXY_STATUS.authRequired, 'invalid bearer token');
    if (isExpired(token, now)) return refuse(PROXY_STATUS.authRequired, 'bearer token has expired');
    if (!token.active && (token.deactivatedAt === null || now - token.deactivatedAt >= DEACTIVATED_TOKEN_GRACE_MS)) {
      return refuse(PROXY_STATUS.authRequired, 'bearer token is inactive');
    }
    const account = store.accounts.byId(token.accountId);
    if (!account) return refuse(PROXY_STATUS.authRequired, 'invalid bearer token');
    return { ok: true, account, ipHash: credentials.ipHash, via: 'bearer' };
  }
  const account = store.accounts.byUsername(credentials.username);
  if (account) {
    // `rest` is the password, or ip_hash:password: a password may itself hold a colon, so the
    // whole of it is tried first.
    if (store.accounts.checkPassword(account.id, credentials.rest)) return { ok: true, account, ipHash: undefined, via: 'basic' };
    const colon = credentials.rest.indexOf(':');
    if (colon > 0 && store.accounts.checkPassword(account.id, credentials.rest.slice(colon + 1))) {
      const ipHash = credentials.rest.slice(0, colon);
      // The same rule as a Bearer token's ip_hash (credentials.ts).
      if (!validIpHash(ipHash)) return refuse(PROXY_STATUS.authRequired, `ip_hash must be 1-${MAX_IP_HASH_LENGTH} printable characters`);
      return { ok: true, account, ipHash, via: 'basic' };
    }
  }
  return refuse(PROXY_STATUS.authRequired, 'invalid username or password');
}

/** Without credentials: the account that authorized the client's IP, else one of its hostnames. */
async function byAddress(input: AdmissionInput): Promise<Who> {
  const { store, clientAddress } = input;
  const byIp = store.access.accountsWithIp(clientAddress)[0];
  if (byIp !== undefined) {
    const account = store.accounts.byId(byIp);
    if (account) return { ok: true, account, ipHash: undefined, via: 'ip' };
  }
  for (const { accountId, domain } of store.access.allHostnames()) {
    let addresses: string[];
    try {
      addresses = await input.resolve(domain);
    } catch {
      continue; // A hostname that does not resolve authorizes nobody.
    }
    if (addresses.some((a) => unmapIpv4(a) === clientAddress)) {
      const account = store.accounts.byId(accountId);
      if (account) return { ok: true, account, ipHash: undefined, via: 'hostname', hostname: domain };
    }
  }
  return refuse(PROXY_STATUS.authRequired, 'proxy authentication required');
}

/** Which limit stops the account, if any: its own monthly or total, or its parent's. */
export function limitReached(store: Store, account: Account, parent: Account, now: number): string | undefined {
  const since = currentPeriodStart(parent.periodAnchor, now);
  const check = (who: Account, whose: string): string | undefined => {
    if (who.monthlyLimit === 0 && who.totalLimit === 0) return undefined;
    const used = store.accounts.usage(who.id, since);
    if (who.monthlyLimit > 0 && used.periodBytes >= who.monthlyLimit * 1e9) return `${whose} monthly bandwidth limit is reached`;
    if (who.totalLimit > 0 && used.totalBytes >= who.totalLimit * 1e9) return `${whose} total bandwidth limit is reached`;
    return undefined;
  };
  return (
    check(account, account.parentId === null ? 'the' : 'the sub-account') ?? (account.id === parent.id ? undefined : check(parent, "the parent account's"))
  );
}

/**
 * What usage can change of an admission, checked without the rest of it (after a tunnel records its
 * own bytes): its account and parent are still the very same, the account is active and no limit is
 * reached. Undefined while it may go on, else why not.
 */
export function stillAllowed(store: Store, who: Admitted, now: number): string | undefined {
  const account = store.accounts.byId(who.account.id);
  const parent = who.parent.id === who.account.id ? account : store.accounts.byId(who.parent.id);
  if (!sameAccount(who.account, account) || !sameAccount(who.parent, parent)) return 'its account no longer exists';
  if (!account.active) return 'sub-account is deactivated';
  return limitReached(store, account, parent, now);
}

/**
 * True when `b` is the very account `a` was: same id, username and creation time. Ids alone are not
 * enough: a reset of the state reuses them.
 */
export function sameAccount(a: Account, b: Account | undefined): b is Account {
  return b !== undefined && b.id === a.id && b.username === a.username && b.createdAt === a.createdAt;
}

/** `::ffff:127.0.0.2` → `127.0.0.2`: IPv4 clients of a dual-stack socket. */
export function unmapIpv4(address: string): string {
  return address.startsWith('::ffff:') && address.includes('.') ? address.slice(7) : address;
}

function refuse(status: number, message: string): Refused {
  return { ok: false, status, message };
}
