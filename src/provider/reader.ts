// The per-process coalescing reader. Terraform refreshes every resource separately and in
// parallel, while the API lists a whole collection per call: concurrent identical reads share one
// request, results stay cached for the process, and any write to an (account, collection) drops
// that copy. A refresh of 500 IPs of one account thus costs one request.
import type { BearerToken, CallOptions, LabeledIp, SubAccount, UsernameTarget } from '../sdk';

/** What the reader caches; `subAccount` is keyed by username, the rest by account. */
export type Collection = 'ips' | 'hostnames' | 'tokens' | 'proxies' | 'subAccount';

/** The slice of the SDK client the reader uses (ProxyAccountClient satisfies it). */
export interface ReaderClient {
  /** Authorized IPs. */
  readonly ips: { listWithLabels(input?: UsernameTarget, opts?: CallOptions): Promise<LabeledIp[]> };
  /** Authorized hostnames. */
  readonly hostnames: { list(input?: UsernameTarget, opts?: CallOptions): Promise<string[]> };
  /** Bearer tokens. */
  readonly tokens: { list(input?: UsernameTarget, opts?: CallOptions): Promise<BearerToken[]> };
  /** Authorized proxies. */
  readonly proxies: { list(opts?: CallOptions): Promise<string[]> };
  /** Sub-accounts. */
  readonly subAccounts: { get(username: string, opts?: CallOptions): Promise<SubAccount> };
}

/** Options of {@link Reader}. */
export interface ReaderOptions {
  /** Aborts shared requests (the provider's StopProvider signal). @default never aborted */
  readonly signal?: AbortSignal;
}

interface Entry {
  readonly promise: Promise<unknown>;
}

/** Coalesced, cached reads of whole collections; writes go through {@link Reader.write}. */
export class Reader {
  private readonly entries = new Map<string, Entry>();
  private readonly callOptions: CallOptions;

  /** Wraps one client; sends nothing until asked. */
  constructor(
    private readonly client: ReaderClient,
    opts: ReaderOptions = {},
  ) {
    // One caller's signal must not abort a request other callers share, so only the
    // process-wide stop signal is passed on.
    this.callOptions = opts.signal !== undefined ? { signal: opts.signal } : {};
  }

  /** Authorized IPs with labels of the account (`username` = a sub-account; omitted = self). */
  listIps(username?: string): Promise<readonly LabeledIp[]> {
    return this.cached('ips', username, () => this.client.ips.listWithLabels(target(username), this.callOptions));
  }

  /** Authorized hostnames of the account. */
  listHostnames(username?: string): Promise<readonly string[]> {
    return this.cached('hostnames', username, () => this.client.hostnames.list(target(username), this.callOptions));
  }

  /** Bearer-token metadata of the account. */
  listTokens(username?: string): Promise<readonly BearerToken[]> {
    return this.cached('tokens', username, () => this.client.tokens.list(target(username), this.callOptions));
  }

  /** Authorized proxies of the authenticated (parent) account, as `domain:port`. */
  listProxies(): Promise<readonly string[]> {
    return this.cached('proxies', undefined, () => this.client.proxies.list(this.callOptions));
  }

  /** One sub-account's details; rejects with the SDK's NotFoundError when it does not exist. */
  getSubAccount(username: string): Promise<SubAccount> {
    return this.cached('subAccount', username, () => this.client.subAccounts.get(username, this.callOptions));
  }

  /** Drops the cached copy of one (collection, account); the next read asks the API again. */
  invalidate(collection: Collection, username?: string): void {
    this.entries.delete(key(collection, username));
  }

  /** Drops every cached collection of one account (e.g. after deleting a sub-account). */
  invalidateAccount(username?: string): void {
    for (const c of COLLECTIONS) this.invalidate(c, username);
  }

  /**
   * Runs a write to (collection, account) and drops that cached copy before and after it, also
   * when the write fails (it may have taken effect). Reads started meanwhile are not cached.
   */
  async write<T>(collection: Collection, username: string | undefined, run: () => Promise<T>): Promise<T> {
    this.invalidate(collection, username);
    try {
      return await run();
    } finally {
      this.invalidate(collection, username);
    }
  }

  private cached<T>(collection: Collection, username: string | undefined, fetch: () => Promise<T>): Promise<T> {
    const k = key(collection, username);
    const existing = this.entries.get(k);
    if (existing !== undefined) return existing.promise as Promise<T>;
    const promise = fetch().then(freeze);
    const entry: Entry = { promise };
    this.entries.set(k, entry);
    // A failure is shared with whoever waited on it, but never cached: the next read retries.
    promise.catch(() => {
      if (this.entries.get(k) === entry) this.entries.delete(k);
    });
    return promise;
  }
}

const COLLECTIONS: readonly Collection[] = ['ips', 'hostnames', 'tokens', 'proxies', 'subAccount'];

function key(collection: Collection, username: string | undefined): string {
  // '\0' cannot occur in a username, so keys never collide.
  return `${collection}\u0000${username ?? ''}`;
}

function target(username: string | undefined): UsernameTarget {
  return username === undefined ? {} : { username };
}

function freeze<T>(value: T): T {
  // Every caller gets the same object; freezing turns an accidental mutation into an error.
  return Object.isFrozen(value) ? value : Object.freeze(value);
}
