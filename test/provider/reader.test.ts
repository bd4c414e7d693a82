// The coalescing reader: concurrent identical reads share one request, results are cached for
// the process, writes drop exactly the (collection, account) they touch. Requests are counted.
import type { BearerToken, LabeledIp, SubAccount } from '../../src/sdk';
import { Reader, type ReaderClient } from '../../src/provider/reader';

/** A fake client counting calls per (method, account); each call resolves when released. */
class CountingClient implements ReaderClient {
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

  ips = {
    listWithLabels: (input: { username?: string } = {}) =>
      this.call(`ips:${input.username ?? ''}`, () => [...(this.ipsByAccount.get(input.username ?? '') ?? [])]),
  };
  hostnames = { list: (input: { username?: string } = {}) => this.call(`hostnames:${input.username ?? ''}`, () => ['example.com']) };
  tokens = { list: (input: { username?: string } = {}) => this.call(`tokens:${input.username ?? ''}`, (): BearerToken[] => []) };
  proxies = { list: () => this.call('proxies', () => ['us-ny.proxy.example.net:8080']) };
  subAccounts = {
    get: (username: string) =>
      this.call(`sub:${username}`, (): SubAccount => ({
        username,
        active: true,
        monthlyBandwidth: 0,
        monthlyBandwidthLimit: 0,
        totalBandwidth: 0,
        totalBandwidthLimit: 0,
      })),
  };
}

describe('Reader', () => {
  it('serves 500 concurrent reads of one account with one request', async () => {
    const client = new CountingClient();
    const reader = new Reader(client);
    const results = await Promise.all(Array.from({ length: 500 }, () => reader.listIps()));
    expect(client.count('ips:')).toBe(1);
    expect(results.every((r) => r === results[0])).toBe(true);
    expect(results[0]).toEqual([{ ip: '10.0.0.1', label: 'a' }]);
  });

  it('keeps results for the process: later reads send nothing', async () => {
    const client = new CountingClient();
    const reader = new Reader(client);
    await reader.listHostnames('alice');
    await reader.listHostnames('alice');
    await reader.listProxies();
    await reader.listProxies();
    expect(client.count('hostnames:alice')).toBe(1);
    expect(client.count('proxies')).toBe(1);
  });

  it('keys by account and collection', async () => {
    const client = new CountingClient();
    const reader = new Reader(client);
    await Promise.all([reader.listIps(), reader.listIps('alice'), reader.listIps('bob'), reader.listHostnames(), reader.listTokens('alice'), reader.getSubAccount('alice'), reader.getSubAccount('bob')]);
    expect([...client.counts.values()].every((n) => n === 1)).toBe(true);
    expect(client.counts.size).toBe(7);
  });

  it('drops exactly the written (collection, account) on a write', async () => {
    const client = new CountingClient();
    const reader = new Reader(client);
    await Promise.all([reader.listIps('alice'), reader.listIps('bob'), reader.listHostnames('alice')]);
    client.ipsByAccount.set('alice', [{ ip: '10.0.0.9', label: '' }]);
    await reader.write('ips', 'alice', async () => 'added');
    expect(await reader.listIps('alice')).toEqual([{ ip: '10.0.0.9', label: '' }]);
    await reader.listIps('bob');
    await reader.listHostnames('alice');
    expect([client.count('ips:alice'), client.count('ips:bob'), client.count('hostnames:alice')]).toEqual([2, 1, 1]);
  });

  it('does not cache a read that was in flight when a write happened', async () => {
    const client = new CountingClient();
    const reader = new Reader(client);
    client.manual = true;
    const stale = reader.listIps();
    await reader.write('ips', undefined, async () => undefined);
    client.release();
    await stale;
    client.manual = false;
    await reader.listIps();
    expect(client.count('ips:')).toBe(2);
  });

  it('drops the cache even when the write fails (it may have taken effect)', async () => {
    const client = new CountingClient();
    const reader = new Reader(client);
    await reader.listTokens();
    await expect(reader.write('tokens', undefined, async () => Promise.reject(new Error('timeout')))).rejects.toThrow('timeout');
    await reader.listTokens();
    expect(client.count('tokens:')).toBe(2);
  });

  it('shares a failure with everyone waiting but does not cache it', async () => {
    const client = new CountingClient();
    const reader = new Reader(client);
    client.failures = 1;
    const results = await Promise.allSettled([reader.getSubAccount('alice'), reader.getSubAccount('alice')]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(client.count('sub:alice')).toBe(1);
    await expect(reader.getSubAccount('alice')).resolves.toMatchObject({ username: 'alice' });
    expect(client.count('sub:alice')).toBe(2);
  });

  it('invalidateAccount drops every collection of that account only', async () => {
    const client = new CountingClient();
    const reader = new Reader(client);
    const all = (u?: string) => Promise.all([reader.listIps(u), reader.listHostnames(u), reader.listTokens(u)]);
    await all('alice');
    await all();
    reader.invalidateAccount('alice');
    await all('alice');
    await all();
    expect([client.count('ips:alice'), client.count('hostnames:alice'), client.count('tokens:alice')]).toEqual([2, 2, 2]);
    expect([client.count('ips:'), client.count('hostnames:'), client.count('tokens:')]).toEqual([1, 1, 1]);
  });

  it('freezes shared results so one caller cannot change another\'s copy', async () => {
    const reader = new Reader(new CountingClient());
    const ips = (await reader.listIps()) as LabeledIp[];
    expect(() => ips.push({ ip: '1.1.1.1', label: '' })).toThrow(TypeError);
  });
});
