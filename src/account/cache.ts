// The account store's coalescing cache. Terraform refreshes every resource separately and in
// parallel, while the API lists a whole collection per call: concurrent identical reads share one
// request, results stay cached for the process, and any write to an (account, collection) drops
// that copy. A refresh of 500 IPs of one account thus costs one request.

/** What the cache holds; `subAccount` is keyed by username, the rest by account. */
export type Collection = 'ips' | 'hostnames' | 'tokens' | 'proxies' | 'subAccount';

/** Every collection, for dropping all of one account's copies. */
export const COLLECTIONS: readonly Collection[] = ['ips', 'hostnames', 'tokens', 'proxies', 'subAccount'];

interface Entry {
  readonly promise: Promise<unknown>;
}

/** Coalesced, cached reads of whole collections, keyed by (collection, account). */
export class CoalescingCache {
  private readonly entries = new Map<string, Entry>();

  /**
   * The cached value of (collection, account), or the one `fetch` produces. Concurrent callers
   * share one fetch; a failure is shared with whoever waited on it but never cached.
   */
  get<T>(collection: Collection, username: string | null, fetch: () => Promise<T>): Promise<T> {
    const k = key(collection, username);
    const existing = this.entries.get(k);
    if (existing !== undefined) return existing.promise as Promise<T>;
    const promise = fetch().then(freeze);
    const entry: Entry = { promise };
    this.entries.set(k, entry);
    promise.catch(() => {
      if (this.entries.get(k) === entry) this.entries.delete(k);
    });
    return promise;
  }

  /** Drops the cached copy of one (collection, account); the next read asks the API again. */
  invalidate(collection: Collection, username: string | null): void {
    this.entries.delete(key(collection, username));
  }

  /** Drops every cached collection of one account (e.g. after deleting a sub-account). */
  invalidateAccount(username: string | null): void {
    for (const c of COLLECTIONS) this.invalidate(c, username);
  }

  /**
   * Runs a write to (collection, account), dropping that cached copy before and after it, also
   * when the write fails (it may have taken effect). Reads started meanwhile are not reused.
   */
  async write<T>(collection: Collection, username: string | null, run: () => Promise<T>): Promise<T> {
    this.invalidate(collection, username);
    try {
      return await run();
    } finally {
      this.invalidate(collection, username);
    }
  }
}

function key(collection: Collection, username: string | null): string {
  // '\0' cannot occur in a username, so keys never collide.
  return `${collection}\u0000${username ?? ''}`;
}

function freeze<T>(value: T): T {
  // Every caller gets the same object; freezing turns an accidental mutation into an error.
  return Object.isFrozen(value) ? value : Object.freeze(value);
}
