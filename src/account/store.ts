// The account store: the one typed seam between everything that reads or writes an account (the
// provider's resources and data sources, the CLI's review, drift and export) and the SDK. It
// knows no Terraform. It binds the stop signal once (reads are cancelled on stop; writes already
// sent are let finish and no new write starts), caches and coalesces list reads, drops the cached
// copy on every write, and resolves a write whose answer was lost by reading the account back
// (write-policy.ts).
// The cache knows only this process's writes: a read that must see other writers' (a data
// source) uses `fresh`.
import { type CallOptions, type GeoIpCounts, isProxyAccountError, type SubAccount, type SubAccountInput } from '../sdk';
import { CoalescingCache } from './cache';
import { StoppedError, UnsettledChangeError } from './outcome';
import { absentOn404, firstWhere, forAccount, matchHostname, matchProxy, shownAsSent, targetOf } from './store-helpers';
import { createToken, TokenCreateBook } from './token-create';
import type { AccountLists, AccountStoreOptions, HostnameList, IpList, StoreClient, SubAccountWrite, TokenList, TokenWrite, WriteOutcome } from './types';
import { Writes } from './write-policy';

export type { AccountLists, AccountStoreOptions, HostnameList, IpList, StoreClient, SubAccountWrite, TokenList, TokenWrite, WriteOutcome } from './types';

/** Why reading back did not settle a lost change in place that it could have shown. */
const CHANGE_NOT_SHOWN = 'the account was read back and does not show the change yet, but the API may still carry the request out';
/** Why nothing was read back after a lost edit with a password, sent again and lost again (each sending with the SDK's own retries). */
const PASSWORD_NOT_SHOWN =
  'it was sent again after its answer was lost, and that answer was lost too; it sets a password, which the API never shows, so reading back cannot tell';

/** Typed, cached, stop-aware access to one account and its sub-accounts. */
export class AccountStore {
  private readonly cache = new CoalescingCache();
  private readonly signal: AbortSignal | undefined;
  private readonly accounts = new Map<string, AccountLists>();
  private readonly tokenCreates: TokenCreateBook;
  private readonly writes: Writes;

  /** Wraps one client; sends nothing until asked. */
  constructor(
    private readonly client: StoreClient,
    opts: AccountStoreOptions = {},
    tokenCreates?: TokenCreateBook,
  ) {
    this.signal = opts.signal;
    this.writes = new Writes(this.cache, opts.signal);
    // Shared with the clean-up copy, so it knows which tokens' creates were answered.
    this.tokenCreates = tokenCreates ?? new TokenCreateBook();
  }

  /** The access lists and tokens of `username` (null or undefined: the authenticated account). */
  account(username?: string | null): AccountLists {
    const u = username ?? null;
    const k = u ?? '';
    let lists = this.accounts.get(k);
    if (lists === undefined) {
      lists = { username: u, ips: this.ipList(u), hostnames: this.hostnameList(u), tokens: this.tokenList(u) };
      this.accounts.set(k, lists);
    }
    return lists;
  }

  /** Sub-accounts of the authenticated (parent) account. */
  readonly subAccounts = {
    /** Details of `username` (cached); rejects with the SDK's NotFoundError when it does not exist. */
    get: (username: string): Promise<SubAccount> => this.cache.get('subAccount', username, () => this.client.subAccounts.get(username, this.readOptions())),
    /** Details of `username` read anew (for a data source: another process may have changed it). */
    fresh: (username: string): Promise<SubAccount> => {
      this.cache.invalidate('subAccount', username);
      return this.subAccounts.get(username);
    },
    /** Details of `username`, or undefined when it does not exist. */
    find: async (username: string): Promise<SubAccount | undefined> => absentOn404(() => this.subAccounts.get(username)),
    /**
     * Creates the sub-account. A username already taken is found first, and nothing is sent
     * (`exists`): only then can a lost answer be told apart from someone else's sub-account. When
     * the answer is lost, reading back decides: one found now was made by this request (`recovered`);
     * none found yet leaves the outcome unknown (UnseenCreateError).
     */
    create: async (input: SubAccountInput): Promise<SubAccountWrite> => {
      const op = `create sub-account '${input.username}'`;
      if (this.signal?.aborted === true) throw new StoppedError(op);
      const existing = await absentOn404(() => this.client.subAccounts.get(input.username, this.readOptions()));
      if (existing !== undefined) return { account: existing, outcome: 'exists' };
      return this.writes.send<SubAccountWrite>({
        collection: 'subAccount',
        username: input.username,
        operation: op,
        makes: true,
        send: async () => ({ account: await this.client.subAccounts.create(input), outcome: 'done' }),
        readBack: async () => {
          const found = await absentOn404(() => this.client.subAccounts.get(input.username));
          if (found === undefined) return undefined;
          // The lost request made it: bring it to what was asked (a repeatable edit). Should the
          // edit fail, the sub-account still exists, as the create sent it: it is kept either way.
          const edited = await this.client.subAccounts.edit(input).catch(() => found);
          return { account: edited, outcome: 'recovered' };
        },
      });
    },
    /**
     * Edits the sub-account (repeatable: an edit sent twice leaves the same state). When the answer
     * is lost, an edit without a password is settled by reading back: every field sent shown as
     * sent is the account as the edit leaves it, whoever made it so. A password the API never
     * shows, and the fields shown may have held the values sent before the edit: so an edit with a
     * password is sent once more instead, and a second lost answer leaves its outcome unknown
     * (UnsettledChangeError).
     */
    edit: (input: SubAccountInput): Promise<SubAccount> => {
      const op = `edit sub-account '${input.username}'`;
      return this.writes.send({
        collection: 'subAccount',
        username: input.username,
        operation: op,
        send: () => this.client.subAccounts.edit(input),
        ...(input.password === undefined ? { readBack: async () => shownAsSent(await this.client.subAccounts.get(input.username), input) } : { resend: true }),
        unsettled: (lost, readBack) => new UnsettledChangeError(op, lost, readBack ? CHANGE_NOT_SHOWN : PASSWORD_NOT_SHOWN),
      });
    },
    /** Activates or deactivates the sub-account (repeatable); a lost answer is settled by reading it back. */
    setActive: (username: string, active: boolean): Promise<SubAccount> => {
      const op = `${active ? 'activate' : 'deactivate'} sub-account '${username}'`;
      return this.writes.send({
        collection: 'subAccount',
        username,
        operation: op,
        send: () => (active ? this.client.subAccounts.activate(username) : this.client.subAccounts.deactivate(username)),
        readBack: async () => {
          const now = await this.client.subAccounts.get(username);
          return now.active === active ? now : undefined;
        },
        unsettled: (lost) => new UnsettledChangeError(op, lost, CHANGE_NOT_SHOWN),
      });
    },
    /** Deletes the sub-account and everything it held; one already gone is `unchanged`. */
    delete: async (username: string): Promise<WriteOutcome> => {
      const op = `delete sub-account '${username}'`;
      try {
        return await this.writes.send({
          collection: 'subAccount',
          username,
          operation: op,
          send: async () => {
            await this.client.subAccounts.delete(username);
            return 'done' as const;
          },
          readBack: async () => ((await absentOn404(() => this.client.subAccounts.get(username))) === undefined ? ('recovered' as const) : undefined),
        });
      } catch (err) {
        if (isProxyAccountError(err, 'ERR_NOT_FOUND')) return 'unchanged';
        throw err;
      } finally {
        this.cache.invalidateAccount(username);
      }
    },
  };

  /** Authorized proxies of the authenticated (parent) account, listed as `domain:port`. */
  readonly proxies = {
    /** Every authorized proxy; cached. */
    list: (): Promise<readonly string[]> => this.cache.get('proxies', null, () => this.client.proxies.list(this.readOptions())),
    /** The list read anew. */
    fresh: (): Promise<readonly string[]> => {
      this.cache.invalidate('proxies', null);
      return this.proxies.list();
    },
    /**
     * Authorizes `proxy` (any accepted form); returns its full domain. Adding one already there
     * changes nothing (the API contract), so an add is safe to send again after a lost answer;
     * when the second answer is lost too, the listing decides (an entry `proxy` names: its domain;
     * none yet: the outcome stays unknown).
     */
    add: async (proxy: string): Promise<string> => {
      const op = `add proxy '${proxy}'`;
      return this.writes.send({
        collection: 'proxies',
        username: null,
        operation: op,
        send: async () => (await this.client.proxies.add(proxy)).proxy,
        resend: true,
        makes: true,
        readBack: async () => matchProxy(await this.client.proxies.list(), proxy),
      });
    },
    /**
     * Removes `proxy`. Deleting one not authorized changes nothing (the API contract), so a lost
     * answer is first settled by sending it again; when that answer is lost too, the listing
     * decides, as for the other deletes: gone is done, still listed fails with the write's error
     * (the state keeps the proxy, and a later read shows whether the API carried it out).
     */
    delete: async (proxy: string): Promise<void> => {
      await this.writes.send({
        collection: 'proxies',
        username: null,
        operation: `delete proxy '${proxy}'`,
        send: async () => {
          await this.client.proxies.delete(proxy);
          return 'done' as const;
        },
        resend: true,
        readBack: async () => (matchProxy(await this.client.proxies.list(), proxy) === undefined ? ('recovered' as const) : undefined),
      });
    },
  };

  /**
   * A store over the same client that a stop does not refuse: for cleanup that must still run
   * after Ctrl-C, such as closing an ephemeral token (Terraform closes what it opened).
   */
  forCleanup(): AccountStore {
    return new AccountStore(this.client, {}, this.tokenCreates);
  }

  /**
   * The API's time, as its latest answer's `Date` header told it, else the local clock's: the API
   * decides whether a token has expired, so expiry is judged on its clock.
   */
  now(): number {
    return this.apiNow() ?? Date.now();
  }

  /** The API's time as its answers told it, or undefined before any answer carried a `Date`. */
  apiNow(): number | undefined {
    return this.client.serverNow?.()?.getTime();
  }

  /** Closes the client's connections; later calls fail. */
  async close(): Promise<void> {
    await this.client.close?.();
  }

  /** Geo-IP counts (never cached: they change). */
  readonly geoIps = {
    /** Counts of the open pool. */
    open: (): Promise<GeoIpCounts> => this.client.geoIps.open(this.readOptions()),
    /** Counts of the world pool. */
    world: (): Promise<GeoIpCounts> => this.client.geoIps.world(this.readOptions()),
  };

  private ipList(username: string | null): IpList {
    const target = targetOf(username);
    const ops = {
      list: () => this.cache.get('ips', username, () => this.client.ips.listWithLabels(target, this.readOptions())),
      fresh: () => {
        this.cache.invalidate('ips', username);
        return ops.list();
      },
      find: (ip: string) => absentOn404(async () => firstWhere(await ops.list(), 'ip', ip)),
      prefetch: () => {
        ops.list().catch(() => undefined);
      },
      add: async (ip: string, label: string | null): Promise<WriteOutcome> => {
        const op = `add IP '${ip}'${forAccount(username)}`;
        const listed = async () => (await this.client.ips.listWithLabels(target)).find((e) => e.ip === ip);
        const matches = async (): Promise<boolean> => (await listed())?.label === (label ?? '');
        return this.writes.send({
          collection: 'ips',
          username,
          operation: op,
          makes: true,
          send: async () => {
            await this.client.ips.add({ ip, ...(label !== null ? { label } : {}), ...target });
            return 'done' as const;
          },
          // Listed with another label: not this add's (the API refuses an IP already authorized),
          // so it is "already there", as its 400 would have said.
          readBack: async () => {
            const found = await listed();
            if (found === undefined) return undefined;
            return found.label === (label ?? '') ? 'recovered' : 'unchanged';
          },
          // "Already authorized" is a 400 like any form error: only the listing tells them apart.
          onError: async (err) => (isProxyAccountError(err, 'ERR_VALIDATION') && (await matches()) ? 'unchanged' : undefined),
        });
      },
      delete: (ip: string) =>
        this.writes.deleteEntry(
          'ips',
          username,
          `delete IP '${ip}'${forAccount(username)}`,
          () => this.client.ips.delete({ ip, ...target }),
          async () => (await this.client.ips.listWithLabels(target)).every((e) => e.ip !== ip),
        ),
    };
    return ops;
  }

  private hostnameList(username: string | null): HostnameList {
    const target = targetOf(username);
    const ops = {
      list: () => this.cache.get('hostnames', username, () => this.client.hostnames.list(target, this.readOptions())),
      fresh: () => {
        this.cache.invalidate('hostnames', username);
        return ops.list();
      },
      find: (domain: string) => absentOn404(async () => matchHostname(await ops.list(), domain)),
      add: async (domain: string): Promise<WriteOutcome> => {
        const present = async (): Promise<boolean> => matchHostname(await this.client.hostnames.list(target), domain) !== undefined;
        return this.writes.send({
          collection: 'hostnames',
          username,
          operation: `add hostname '${domain}'${forAccount(username)}`,
          makes: true,
          send: async () => {
            await this.client.hostnames.add({ domain, ...target });
            return 'done' as const;
          },
          readBack: async () => ((await present()) ? 'recovered' : undefined),
          onError: async (err) => (isProxyAccountError(err, 'ERR_VALIDATION') && (await present()) ? 'unchanged' : undefined),
        });
      },
      // Gone when the listing no longer holds this spelling: an API that matches hostnames with
      // case may keep one differing only in case, which this delete did not name (`find` gives
      // the listed spelling to delete).
      delete: (domain: string) =>
        this.writes.deleteEntry(
          'hostnames',
          username,
          `delete hostname '${domain}'${forAccount(username)}`,
          () => this.client.hostnames.delete({ domain, ...target }),
          async () => !(await this.client.hostnames.list(target)).includes(domain),
        ),
    };
    return ops;
  }

  private tokenList(username: string | null): TokenList {
    const target = targetOf(username);
    // `settling`: the delete finishes a write already sent (a lost create), so a stop allows it.
    const deleteToken = (id: number, settling: boolean): Promise<WriteOutcome> =>
      this.writes.deleteEntry(
        'tokens',
        username,
        `delete bearer token ${id}${forAccount(username)}`,
        () => this.client.tokens.delete({ id, ...target }),
        async () => (await this.client.tokens.list(target)).every((t) => t.id !== id),
        settling,
      );
    const ops = {
      list: () => this.cache.get('tokens', username, () => this.client.tokens.list(target, this.readOptions())),
      fresh: () => {
        this.cache.invalidate('tokens', username);
        return ops.list();
      },
      find: (id: number) => absentOn404(async () => firstWhere(await ops.list(), 'id', id)),
      create: (input: { readonly label: string | null; readonly expiresAt: string | null }): Promise<TokenWrite> => {
        const op = `create bearer token${input.label === null ? '' : ` '${input.label}'`}${forAccount(username)}`;
        const label = input.label ?? '';
        const read = (options: CallOptions) => this.client.tokens.list(target, options);
        const key = `${username ?? ''}\u0000${label}`;
        return this.tokenCreates.serial(key, () =>
          this.onThisMachine(`token-create\u0000${key}`, op, () =>
            createToken(this.tokenCreates, {
              op,
              account: username,
              label,
              stopping: () => this.signal?.aborted === true,
              now: () => this.now(),
              list: () => read(this.readOptions()),
              readBack: () => read({}),
              send: () =>
                this.writes.send({
                  collection: 'tokens',
                  username,
                  operation: op,
                  send: () =>
                    this.client.tokens.create({
                      ...(input.label !== null ? { label: input.label } : {}),
                      ...(input.expiresAt !== null ? { expiresAt: input.expiresAt } : {}),
                      ...target,
                    }),
                }),
              discard: (id) => deleteToken(id, true),
            }),
          ),
        );
      },
      // A lost answer is settled by reading the token back, as a sub-account's (de)activation is.
      setActive: (id: number, active: boolean) => {
        const op = `${active ? 'activate' : 'deactivate'} bearer token ${id}${forAccount(username)}`;
        return this.writes.send({
          collection: 'tokens',
          username,
          operation: op,
          send: () => (active ? this.client.tokens.activate({ id, ...target }) : this.client.tokens.deactivate({ id, ...target })),
          readBack: async () => {
            const now = (await this.client.tokens.list(target)).find((t) => t.id === id);
            return now?.isActive === active ? now : undefined;
          },
          unsettled: (lost) => new UnsettledChangeError(op, lost, CHANGE_NOT_SHOWN),
        });
      },
      delete: (id: number) => deleteToken(id, false),
    };
    return ops;
  }

  /**
   * Runs `run` holding the client's lock for `scope` on this machine, when it has one: the token
   * creates of other processes (a provider per aliased configuration, a CLI beside an apply) then
   * wait for each other as this process's do. A stop while waiting starts nothing.
   */
  private async onThisMachine<T>(scope: string, op: string, run: () => Promise<T>): Promise<T> {
    // A stop before this is refused by the lock (it rejects with the stop's reason) or, without
    // one, by `run` itself (createToken starts with that check).
    let release: (() => Promise<void>) | undefined;
    try {
      release = await this.client.lockOnThisMachine?.(scope, this.readOptions());
    } catch (err) {
      if (this.signal?.aborted === true) throw new StoppedError(op);
      throw err;
    }
    try {
      return await run();
    } finally {
      await release?.();
    }
  }

  private readOptions(): CallOptions {
    return this.signal === undefined ? {} : { signal: this.signal };
  }
}
