// The account store's coalescing cache: concurrent identical reads share one request, results
// are cached for the process, writes drop exactly the (collection, account) they touch.
// Requests are counted.
import { AccountStore, type StoreClient } from '../../src/account';
import { firstWhere } from '../../src/account/store-helpers';
import type { BearerToken, LabeledIp, SubAccount } from '../../src/sdk';

/** A fake client counting calls per (method, account); each call resolves when released. */
class CountingClient {
  readonly counts = new Map<string, number>();
  private pending: Array<() => void> = [];
  manual = false;
  failures = 0;
  ipsByAccount = new Map<string, LabeledIp[]>([['', [{ ip: '10.0.0.1', label: 'a' }]]]);

  private async call<T>(what: string, result: () => T): Promise<T> {
    this.counts.set(what, (this.counts.get(what) ?? 0) + 1);
    if (this.manual) await new Promise<void>((r) => this.pending.push(r));
    else await Promise.resolve();
    if (this.failures > 0) {
      this.failures--;
      throw Object.assign(new Error('GET failed with 500'), { code: 'ERR_SERVER' });
    }
    return result();
  }

  release(): void {
    const p = this.pending;
    this.pending = [];
    for (const r of p) r();
  }

  count(what: string): number {
    return this.counts.get(what) ?? 0;
  }

  writeFails = false;

  ips = {
    listWithLabels: (input: { username?: string } = {}) =>
      this.call(`ips:${input.username ?? ''}`, () => [...(this.ipsByAccount.get(input.username ?? '') ?? [])]),
    add: async (input: { ip: string }) => ({ ip: input.ip }),
    delete: async () => undefined,
  };
  hostnames = { list: (input: { username?: string } = {}) => this.call(`hostnames:${input.username ?? ''}`, () => ['example.com']) };
  tokens = {
    list: (input: { username?: string } = {}) => this.call(`tokens:${input.username ?? ''}`, (): BearerToken[] => []),
    delete: async () => {
      if (this.writeFails) throw Object.assign(new Error('POST /api/token/delete/ failed with 403'), { code: 'ERR_FORBIDDEN' });
    },
  };
  proxies = { list: () => this.call('proxies', () => ['us-ny.proxy.example.net:8080']) };
  subAccounts = {
    get: (username: string) =>
      this.call(
        `sub:${username}`,
        (): SubAccount => ({
          username,
          active: true,
          monthlyBandwidth: 0,
          monthlyBandwidthLimit: 0,
          totalBandwidth: 0,
          totalBandwidthLimit: 0,
        }),
      ),
    delete: async () => undefined,
  };
}

/** The store over the fake client (it implements only what these tests use). */
function storeOf(client: CountingClient): AccountStore {
  return new AccountStore(client as unknown as StoreClient);
}

describe('AccountStore cache', () => {
  it('serves 500 concurrent reads of one account with one request', async () => {
    const client = new CountingClient();
    const store = storeOf(client);
    const results = await Promise.all(Array.from({ length: 500 }, () => store.account().ips.list()));
    expect(client.count('ips:')).toBe(1);
    expect(results.every((r) => r === results[0])).toBe(true);
    expect(results[0]).toEqual([{ ip: '10.0.0.1', label: 'a' }]);
  });

  it('keeps results for the process: later reads send nothing', async () => {
    const client = new CountingClient();
    const store = storeOf(client);
    await store.account('alice').hostnames.list();
    await store.account('alice').hostnames.list();
    await store.proxies.list();
    await store.proxies.list();
    expect(client.count('hostnames:alice')).toBe(1);
    expect(client.count('proxies')).toBe(1);
  });

  it('keys by account and collection', async () => {
    const client = new CountingClient();
    const store = storeOf(client);
    await Promise.all([
      store.account().ips.list(),
      store.account('alice').ips.list(),
      store.account('bob').ips.list(),
      store.account().hostnames.list(),
      store.account('alice').tokens.list(),
      store.subAccounts.get('alice'),
      store.subAccounts.get('bob'),
    ]);
    expect([...client.counts.values()].every((n) => n === 1)).toBe(true);
    expect(client.counts.size).toBe(7);
  });

  it('drops exactly the written (collection, account) on a write', async () => {
    const client = new CountingClient();
    const store = storeOf(client);
    await Promise.all([store.account('alice').ips.list(), store.account('bob').ips.list(), store.account('alice').hostnames.list()]);
    client.ipsByAccount.set('alice', [{ ip: '10.0.0.9', label: '' }]);
    await store.account('alice').ips.add('10.0.0.9', null);
    expect(await store.account('alice').ips.list()).toEqual([{ ip: '10.0.0.9', label: '' }]);
    await store.account('bob').ips.list();
    await store.account('alice').hostnames.list();
    expect([client.count('ips:alice'), client.count('ips:bob'), client.count('hostnames:alice')]).toEqual([2, 1, 1]);
  });

  it('does not cache a read that was in flight when a write happened', async () => {
    const client = new CountingClient();
    const store = storeOf(client);
    client.manual = true;
    const stale = store.account().ips.list();
    await store.account().ips.delete('10.0.0.1');
    client.release();
    await stale;
    client.manual = false;
    await store.account().ips.list();
    expect(client.count('ips:')).toBe(2);
  });

  it('drops the cache even when the write fails (it may have taken effect)', async () => {
    const client = new CountingClient();
    const store = storeOf(client);
    await store.account().tokens.list();
    client.writeFails = true;
    await expect(store.account().tokens.delete(7)).rejects.toThrow('403');
    await store.account().tokens.list();
    expect(client.count('tokens:')).toBe(2);
  });

  it('shares a failure with everyone waiting but does not cache it', async () => {
    const client = new CountingClient();
    const store = storeOf(client);
    client.failures = 1;
    const results = await Promise.allSettled([store.subAccounts.get('alice'), store.subAccounts.get('alice')]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(client.count('sub:alice')).toBe(1);
    await expect(store.subAccounts.get('alice')).resolves.toMatchObject({ username: 'alice' });
    expect(client.count('sub:alice')).toBe(2);
  });

  it('deleting a sub-account drops every collection of that account only', async () => {
    const client = new CountingClient();
    const store = storeOf(client);
    const all = (u?: string) => Promise.all([store.account(u).ips.list(), store.account(u).hostnames.list(), store.account(u).tokens.list()]);
    await all('alice');
    await all();
    await store.subAccounts.delete('alice');
    await all('alice');
    await all();
    expect([client.count('ips:alice'), client.count('hostnames:alice'), client.count('tokens:alice')]).toEqual([2, 2, 2]);
    expect([client.count('ips:'), client.count('hostnames:'), client.count('tokens:')]).toEqual([1, 1, 1]);
  });

  it("freezes shared results so one caller cannot change another's copy", async () => {
    const store = storeOf(new CountingClient());
    const ips = (await store.account().ips.list()) as LabeledIp[];
    expect(() => ips.push({ ip: '1.1.1.1', label: '' })).toThrow(TypeError);
  });

  it('finds IPs in the cached list, and in the new list after a write', async () => {
    const client = new CountingClient();
    client.ipsByAccount.set('alice', [
      { ip: '10.0.0.1', label: 'first' },
      { ip: '10.0.0.2', label: '' },
      { ip: '10.0.0.1', label: 'second' },
    ]);
    const store = storeOf(client);
    const ips = store.account('alice').ips;
    expect(await ips.find('10.0.0.1')).toEqual({ ip: '10.0.0.1', label: 'first' });
    expect(await ips.find('10.0.0.2')).toEqual({ ip: '10.0.0.2', label: '' });
    expect(await ips.find('10.0.0.3')).toBeUndefined();
    expect(client.count('ips:alice')).toBe(1);
    client.ipsByAccount.set('alice', [{ ip: '10.0.0.3', label: 'new' }]);
    await store.account('alice').ips.add('10.0.0.3', 'new');
    expect(await ips.find('10.0.0.3')).toEqual({ ip: '10.0.0.3', label: 'new' });
    expect(await ips.find('10.0.0.1')).toBeUndefined();
  });
});

describe('firstWhere', () => {
  const list = [
    { id: 1, name: 'a' },
    { id: 2, name: 'b' },
    { id: 1, name: 'c' },
  ];

  it('gives the first entry with the value, as find does, on a frozen list and on any other', () => {
    for (const l of [list, Object.freeze([...list])]) {
      expect(firstWhere(l, 'id', 1)).toBe(list[0]);
      expect(firstWhere(l, 'name', 'c')).toBe(list[2]);
      expect(firstWhere(l, 'id', 3)).toBeUndefined();
    }
  });

  it('searches a list that can still change each time', () => {
    const open = [...list];
    expect(firstWhere(open, 'id', 3)).toBeUndefined();
    open.push({ id: 3, name: 'd' });
    expect(firstWhere(open, 'id', 3)).toBe(open[3]);
  });
});
