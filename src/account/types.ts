// The account store's public types: what each account's lists offer and what a write reports.
import type { BearerToken, BearerTokenCreated, LabeledIp, ProxyAccountClient, SubAccount } from '../sdk';
import type { Collection } from './cache';

/** The slice of the SDK client the store uses (ProxyAccountClient satisfies it). */
export type StoreClient = Pick<ProxyAccountClient, 'subAccounts' | 'ips' | 'hostnames' | 'proxies' | 'tokens' | 'geoIps'> & {
  /** Closes the client's connections. @default nothing to close */
  close?(): Promise<void>;
  /** The API's time from its answers' `Date` header. @default unknown (the local clock is used) */
  serverNow?(): Date | undefined;
  /** A lock this user's processes on this machine share for `scope`. @default none (this process's queues only) */
  lockOnThisMachine?(scope: string, opts?: { readonly signal?: AbortSignal }): Promise<(() => Promise<void>) | undefined>;
};

/** Options of {@link AccountStore}. */
export interface AccountStoreOptions {
  /** Stops the run: cancels reads in flight, refuses new writes, lets sent writes finish. @default never */
  readonly signal?: AbortSignal;
}

/**
 * How a write ended: `done` (the API confirmed it), `unchanged` (nothing to do: an add of an entry
 * already there, a delete of one already gone), `recovered` (the answer was lost and reading back
 * showed the change took effect).
 */
export type WriteOutcome = 'done' | 'unchanged' | 'recovered';

/** A sub-account's state after a create that may have adopted an existing one. */
export interface SubAccountWrite {
  /** The sub-account as the API reports it. */
  readonly account: SubAccount;
  /**
   * `done`; `recovered` when the answer was lost and reading back found it made; `exists` when the
   * username was taken before anything was sent (nothing was sent; `account` is the existing one).
   */
  readonly outcome: 'done' | 'recovered' | 'exists';
}

/** A created token, with the raw value the API shows only once. */
export interface TokenWrite {
  /** The token, including its raw value. */
  readonly token: BearerTokenCreated;
  /**
   * `done`, or `recovered`: an answer was lost, so the token its request made (whose value nobody
   * can ever read) was deleted and this one created in its place.
   */
  readonly outcome: 'done' | 'recovered';
  /**
   * Tokens deleted as the unusable one a lost answer's request made (with `recovered`). Told apart
   * within this process only: a token another process created with the same label at that moment
   * (a second provider configuration, another job on the same account) would be taken for it.
   */
  readonly discarded: readonly number[];
}

/** The authorized IPs of one account. */
export interface IpList {
  /** Every entry with its label ('' = none); cached and shared by concurrent callers. */
  list(): Promise<readonly LabeledIp[]>;
  /** The list read anew, bypassing the cache. */
  fresh(): Promise<readonly LabeledIp[]>;
  /**
   * Starts the cached listing without waiting for it, for reads of single entries known to follow
   * (a refresh reads the sub-account before the entries that name it). A failure is not cached:
   * the read that needs the list asks again and reports it.
   */
  prefetch(): void;
  /** The entry of `ip`, or undefined when it is not authorized (or the sub-account is gone). */
  find(ip: string): Promise<LabeledIp | undefined>;
  /**
   * Authorizes `ip` with `label` (null = none). An entry already there with the same label is
   * `unchanged`; one with another label fails with the API's 400 (the API cannot edit labels).
   */
  add(ip: string, label: string | null): Promise<WriteOutcome>;
  /** Removes `ip`; one already gone (or whose sub-account is gone) is `unchanged`. */
  delete(ip: string): Promise<WriteOutcome>;
}

/** The authorized hostnames of one account. */
export interface HostnameList {
  /** Every hostname, as the API lists them; cached. */
  list(): Promise<readonly string[]>;
  /** The list read anew. */
  fresh(): Promise<readonly string[]>;
  /** The listed form of `domain` (exact match first, then without case), or undefined. */
  find(domain: string): Promise<string | undefined>;
  /** Authorizes `domain`; one already there is `unchanged`. */
  add(domain: string): Promise<WriteOutcome>;
  /**
   * Removes `domain` as spelled: pass the listed form (`find`), since an API may match hostnames
   * with case. One no longer listed in this spelling is `unchanged`.
   */
  delete(domain: string): Promise<WriteOutcome>;
}

/** The bearer tokens of one account (HTTP Basic credentials only). */
export interface TokenList {
  /** Every token's metadata; cached. */
  list(): Promise<readonly BearerToken[]>;
  /** The list read anew. */
  fresh(): Promise<readonly BearerToken[]>;
  /** The token with `id`, or undefined when it is gone (or the sub-account is). */
  find(id: number): Promise<BearerToken | undefined>;
  /**
   * Creates a token; a lost answer is resolved without leaving an unreadable token behind and
   * without touching a token another create made (creates of one label run one at a time).
   */
  create(input: { readonly label: string | null; readonly expiresAt: string | null }): Promise<TokenWrite>;
  /** Activates or deactivates token `id`; returns its metadata afterwards. */
  setActive(id: number, active: boolean): Promise<BearerToken>;
  /** Deletes token `id`; one already gone is `unchanged`. */
  delete(id: number): Promise<WriteOutcome>;
}

/** One account's access lists and tokens: the parent (username null) or a sub-account. */
export interface AccountLists {
  /** The sub-account, or null for the account the client authenticates as. */
  readonly username: string | null;
  /** Authorized IPs. */
  readonly ips: IpList;
  /** Authorized hostnames. */
  readonly hostnames: HostnameList;
  /** Bearer tokens. */
  readonly tokens: TokenList;
}

/** One write as the store sends it (the store's own plumbing; not exported from the package). */
export interface WriteSpec<T> {
  /** The collection it changes: its cached listing for `username` is dropped. */
  readonly collection: Collection;
  /** Whose collection: a sub-account, or null for the authenticated account. */
  readonly username: string | null;
  /** What the write is, for errors, e.g. "add IP '203.0.113.7' for sub-account 'alice'". */
  readonly operation: string;
  /** Sends the request. */
  send(): Promise<T>;
  /**
   * After an unknown outcome: the write's result when reading the account back shows it
   * happened, undefined when it shows it not made (yet): the original error is then thrown, or,
   * for a write that makes an object, UnseenCreateError (the request may still be carried out).
   * @default none: the error is thrown
   */
  readBack?(): Promise<T | undefined>;
  /**
   * The write is idempotent: after an unknown outcome it is sent once more, before any `readBack`
   * (which then settles a second lost answer). @default false
   */
  readonly resend?: boolean;
  /**
   * The error for an unknown outcome that reading back leaves open, where the write's own error
   * would read as a plain failure (an edit's 503): `readBack` gave undefined (`readBack` true), or
   * there is none (false). @default the write's own error, or for a write that makes an object
   * UnseenCreateError
   */
  unsettled?(lost: unknown, readBack: boolean): Error;
  /** May turn a known failure into a result, e.g. "already there". @default none */
  onError?(err: unknown): Promise<T | undefined>;
  /**
   * The write settles one already sent (the clean-up delete after a lost create), so a stop
   * does not refuse it. @default false
   */
  readonly settling?: boolean;
}
