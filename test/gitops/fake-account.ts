// An account held in memory behind the SDK client's shape, for the GitOps use cases' unit tests:
// the real AccountStore runs over it, so tests see what the commands see. Not a test file.
import { AccountStore, type AccountStoreOptions, type StoreClient } from '../../src/account';
import { NotFoundError, PaymentRequiredError, type BearerToken, type LabeledIp, type SubAccount } from '../../src/sdk';

/** One account's lists ('' is the parent). */
export interface FakeLists {
  ips: LabeledIp[];
  hostnames: string[];
  tokens: BearerToken[];
}

/** A token as the API lists it. */
export function token(id: number, label: string, createdAt = new Date('2026-01-01T00:00:00Z'), expiresAt: Date | null = null): BearerToken {
  return { id, label, createdAt, expiresAt, isActive: true };
}

/** The fake account: `accounts` by username ('' the parent), the parent's proxies, every request made. */
export class FakeAccount {
  readonly accounts = new Map<string, FakeLists>([['', { ips: [], hostnames: [], tokens: [] }]]);
  proxies: string[] = [];
  readonly requests: string[] = [];
  readonly deleted: number[] = [];

  /** Adds a sub-account with these lists. */
  sub(username: string, lists: Partial<FakeLists> = {}): this {
    this.accounts.set(username, { ips: [], hostnames: [], tokens: [], ...lists });
    return this;
  }

  lists(username: string | undefined): FakeLists {
    const l = this.accounts.get(username ?? '');
    if (l === undefined) {
      throw new NotFoundError({ method: 'GET', path: '/api/sub/', operation: `read sub-account '${username}'`, status: 404, responseText: 'not found' });
    }
    return l;
  }

  /** The API's clock (its answers' `Date`), when the test sets one. */
  apiNow: number | undefined;

  /** Set: listing tokens fails with this error. */
  tokenListError: (() => Error) | undefined;

  /** The plan has no bearer tokens: listing them answers 402, as the API does on plan `trial`. */
  planWithoutTokens(): this {
    this.tokenListError = () =>
      new PaymentRequiredError({
        method: 'GET',
        path: '/api/tokens/',
        operation: 'list tokens',
        status: 402,
        responseText: 'plan trial does not include bearer tokens',
      });
    return this;
  }

  /** Called as a delete request is handled (before it answers): a test stops the run there. */
  onDelete: ((id: number) => void) | undefined;

  /** A real account store over this account (with the options given, a stop signal say). */
  store(opts: AccountStoreOptions = {}): AccountStore {
    const at = (what: string, input: { username?: string } = {}): FakeLists => {
      this.requests.push(`${what} ${input.username ?? '(parent)'}`);
      return this.lists(input.username);
    };
    const client = {
      ips: { listWithLabels: async (input?: { username?: string }) => [...at('ips', input).ips] },
      hostnames: { list: async (input?: { username?: string }) => [...at('hostnames', input).hostnames] },
      tokens: {
        list: async (input?: { username?: string }) => {
          const l = at('tokens', input);
          if (this.tokenListError !== undefined) throw this.tokenListError();
          return [...l.tokens];
        },
        delete: async (input: { id: number; username?: string }) => {
          this.onDelete?.(input.id);
          const l = at('delete token', input);
          l.tokens = l.tokens.filter((t) => t.id !== input.id);
          this.deleted.push(input.id);
        },
      },
      proxies: { list: async () => [...this.proxies] },
      serverNow: () => (this.apiNow === undefined ? undefined : new Date(this.apiNow)),
      subAccounts: {
        get: async (username: string): Promise<SubAccount> => {
          this.requests.push(`sub-account ${username}`);
          this.lists(username);
          return { username, active: true, monthlyBandwidth: 0, monthlyBandwidthLimit: 10, totalBandwidth: 0, totalBandwidthLimit: 0 };
        },
      },
    };
    return new AccountStore(client as unknown as StoreClient, opts);
  }
}
