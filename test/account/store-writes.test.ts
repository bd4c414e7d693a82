// The account store's write rules, over an in-memory fake of the API whose answers can be lost
// after the change is made: a stop never aborts a write already sent and refuses new ones; a
// write whose answer is lost is settled by reading back (nothing orphaned, nothing made twice);
// a create that reading back does not find yet stays unknown (the API may still make it); when
// reading back fails too, the error says both.
import { AccountStore, type StoreClient } from '../../src/account';
import { UnknownOutcomeError, UnseenCreateError, UnsettledChangeError } from '../../src/account/outcome';
import {
  AbortedError,
  NetworkError,
  TimeoutError,
  ValidationError,
  type BearerToken,
  type LabeledIp,
  type SubAccount,
  type SubAccountInput,
} from '../../src/sdk';

const CTX = { method: 'POST', path: '/api/x/', operation: 'x' };
const lost = (): TimeoutError => new TimeoutError(CTX, 1000, 1);
const refused = (): NetworkError => new NetworkError(CTX, 'connect ECONNREFUSED', 'ECONNREFUSED', 4, new Error('ECONNREFUSED'));

/** An in-memory account: each write may lose its answer (after the change) or hang until released. */
class FakeApi {
  ips = new Map<string, string>();
  subs = new Map<string, SubAccount>();
  /** Passwords set by edits (the API never shows them). */
  passwords = new Map<string, string>();
  tokens: BearerToken[] = [];
  nextId = 1;
  sent: string[] = [];
  /** Authorized proxies, listed as `domain:port` (the catalogue: us-ny.proxy.example.net:8080). */
  proxies: string[] = [];
  /** Hostnames as the API stores them; it matches them with case. */
  hostnames: string[] = [];
  /** The next write makes its change, then fails as if the answer were lost. */
  loseNextAnswer = false;
  /** The next this many writes make their change, then fail as if their answers were lost. */
  loseAnswers = 0;
  /** The next write fails before making any change, as if never sent. */
  failNextBeforeSending = false;
  /** The next write times out before making its change (the outcome is unknown to the client). */
  timeOutNextBeforeChange = false;
  /** The next this many writes time out before making their change. */
  timeOutsBeforeChange = 0;
  /** The next write fails with this error before making any change. */
  failNextWith: (() => Error) | undefined;
  /** Reads fail (the API is unreachable for the read-back). */
  readsFail = false;
  /** The next write waits until `release()`. */
  holdNextWrite = false;
  private held: Array<() => void> = [];

  release(): void {
    for (const r of this.held.splice(0)) r();
  }

  private async write<T>(name: string, apply: () => T): Promise<T> {
    this.sent.push(name);
    if (this.holdNextWrite) {
      this.holdNextWrite = false;
      await new Promise<void>((r) => this.held.push(r));
    }
    if (this.failNextBeforeSending) {
      this.failNextBeforeSending = false;
      throw refused();
    }
    const fail = this.failNextWith;
    if (fail !== undefined) {
      this.failNextWith = undefined;
      throw fail();
    }
    if (this.timeOutNextBeforeChange || this.timeOutsBeforeChange > 0) {
      this.timeOutNextBeforeChange = false;
      this.timeOutsBeforeChange = Math.max(0, this.timeOutsBeforeChange - 1);
      throw lost();
    }
    const result = apply();
    if (this.loseNextAnswer || this.loseAnswers > 0) {
      this.loseNextAnswer = false;
      this.loseAnswers = Math.max(0, this.loseAnswers - 1);
      throw lost();
    }
    return result;
  }

  private async read<T>(name: string, value: () => T): Promise<T> {
    this.sent.push(name);
    if (this.readsFail) throw refused();
    return value();
  }

  client(): StoreClient {
    return {
      ips: {
        listWithLabels: () => this.read('GET ips', (): LabeledIp[] => [...this.ips].map(([ip, label]) => ({ ip, label }))),
        add: (input: { ip: string; label?: string }) =>
          this.write('POST ip/add', () => {
            if (this.ips.has(input.ip)) throw new ValidationError({ ...CTX, status: 400, responseText: 'already authorized' });
            this.ips.set(input.ip, input.label ?? '');
            return { ip: input.ip };
          }),
        delete: (input: { ip: string }) =>
          this.write('POST ip/delete', () => {
            if (!this.ips.delete(input.ip)) throw new ValidationError({ ...CTX, status: 400, responseText: 'not authorized' });
          }),
      },
      proxies: {
        list: () => this.read('GET proxies', () => [...this.proxies]),
        add: () =>
          this.write('POST proxy/add', () => {
            // Any accepted form names the one catalogue proxy; the answer is its full domain.
            const domain = 'us-ny.proxy.example.net';
            if (!this.proxies.includes(`${domain}:8080`)) this.proxies.push(`${domain}:8080`);
            return { proxy: domain };
          }),
        // Deleting a proxy not authorized changes nothing (the contract).
        delete: (proxy: string) =>
          this.write('POST proxy/delete', () => {
            this.proxies = this.proxies.filter((p) => !p.startsWith(`${proxy.replace(/:\d+$/, '')}:`));
          }),
      },
      hostnames: {
        list: () => this.read('GET hostnames', () => [...this.hostnames]),
        add: (input: { domain: string }) =>
          this.write('POST hostname/add', () => {
            if (this.hostnames.includes(input.domain)) throw new ValidationError({ ...CTX, status: 400, responseText: 'domain: already authorized' });
            this.hostnames.push(input.domain);
          }),
        delete: (input: { domain: string }) =>
          this.write('POST hostname/delete', () => {
            if (!this.hostnames.includes(input.domain))
              throw new ValidationError({ ...CTX, status: 400, responseText: 'domain: this hostname is not authorized' });
            this.hostnames = this.hostnames.filter((d) => d !== input.domain);
          }),
      },
      subAccounts: {
        get: (username: string) =>
          this.read('GET sub', () => {
            const s = this.subs.get(username);
            if (s === undefined) throw Object.assign(new ValidationError({ ...CTX, status: 400, responseText: '' }), { code: 'ERR_NOT_FOUND' });
            return s;
          }),
        create: (input: { username: string; monthlyLimit?: number }) =>
          this.write('POST sub/create', () => {
            if (this.subs.has(input.username)) throw new ValidationError({ ...CTX, status: 400, responseText: 'username already taken' });
            const s: SubAccount = {
              username: input.username,
              active: true,
              monthlyBandwidth: 0,
              monthlyBandwidthLimit: input.monthlyLimit ?? 0,
              totalBandwidth: 0,
              totalBandwidthLimit: 0,
            };
            this.subs.set(input.username, s);
            return s;
          }),
        edit: (input: SubAccountInput) =>
          this.write('POST sub/edit', () => {
            // Made whole, as the API makes it: the password with the fields.
            const was = this.subs.get(input.username)!;
            const s = {
              ...was,
              monthlyBandwidthLimit: input.monthlyLimit ?? was.monthlyBandwidthLimit,
              ...(input.firstName !== undefined ? { firstName: input.firstName } : {}),
            };
            this.subs.set(input.username, s);
            if (input.password !== undefined) this.passwords.set(input.username, input.password);
            return s;
          }),
        deactivate: (username: string) =>
          this.write('POST sub/deactivate', () => {
            const s = { ...this.subs.get(username)!, active: false };
            this.subs.set(username, s);
            return s;
          }),
      },
      tokens: {
        list: () => this.read('GET tokens', () => [...this.tokens]),
        create: (input: { label?: string }) =>
          this.write('POST token/create', () => {
            const t = { id: this.nextId++, label: input.label ?? '', isActive: true, expiresAt: null, createdAt: new Date(0) };
            this.tokens.push(t);
            return { ...t, token: `pxa_secret${t.id}` };
          }),
        delete: (input: { id: number }) =>
          this.write('POST token/delete', () => {
            this.tokens = this.tokens.filter((t) => t.id !== input.id);
          }),
        deactivate: (input: { id: number }) => this.setTokenActive(input.id, false),
        activate: (input: { id: number }) => this.setTokenActive(input.id, true),
      },
    } as unknown as StoreClient;
  }

  private setTokenActive(id: number, active: boolean): Promise<BearerToken> {
    return this.write(`POST token/${active ? 'activate' : 'deactivate'}`, () => {
      const i = this.tokens.findIndex((t) => t.id === id);
      this.tokens[i] = { ...this.tokens[i]!, isActive: active };
      return this.tokens[i]!;
    });
  }
}

describe('a stop', () => {
  it('lets a write already sent finish, and refuses to start new ones without sending them', async () => {
    const api = new FakeApi();
    const stop = new AbortController();
    const store = new AccountStore(api.client(), { signal: stop.signal });
    api.holdNextWrite = true;
    const adding = store.account('alice').ips.add('203.0.113.7', 'office');
    await new Promise((r) => setImmediate(r));
    stop.abort();
    api.release();
    await expect(adding).resolves.toBe('done');
    expect(api.ips.get('203.0.113.7')).toBe('office');

    const sentBefore = api.sent.length;
    await expect(store.account('alice').ips.add('203.0.113.8', null)).rejects.toMatchObject({
      code: 'ERR_ABORTED',
      message: expect.stringMatching(/not started: the run is stopping/),
    });
    expect(api.sent.length).toBe(sentBefore);
  });
});

describe('a write whose answer is lost', () => {
  it('is recovered when reading back shows the IP was added, and is not sent twice', async () => {
    const api = new FakeApi();
    const store = new AccountStore(api.client());
    api.loseNextAnswer = true;
    await expect(store.account().ips.add('203.0.113.7', 'office')).resolves.toBe('recovered');
    expect(api.sent.filter((s) => s === 'POST ip/add')).toHaveLength(1);
  });

  it('leaves the outcome unknown when reading back does not show the timed-out add yet: the API may still make it', async () => {
    const api = new FakeApi();
    const store = new AccountStore(api.client());
    api.timeOutNextBeforeChange = true;
    const failed = await store
      .account('alice')
      .ips.add('203.0.113.7', null)
      .catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(UnseenCreateError);
    expect(failed).toMatchObject({
      code: 'ERR_UNKNOWN_OUTCOME',
      outcomeUnknown: true,
      operation: "add IP '203.0.113.7' for sub-account 'alice'",
      message: expect.stringMatching(
        /^add IP '203\.0\.113\.7' for sub-account 'alice': the request was sent and its outcome is unknown \(.*timed out.*\); the account was read back and does not hold it yet, but the API may still carry the request out\. The next refresh/,
      ),
    });
    expect((failed as Error).cause).toMatchObject({ code: 'ERR_TIMEOUT' });
    expect(api.sent).toEqual(['POST ip/add', 'GET ips']);
  });

  it.each([
    ['a sub-account create', (s: AccountStore) => s.subAccounts.create({ username: 'late' }), ['GET sub', 'POST sub/create', 'GET sub']],
    ['a hostname add', (s: AccountStore) => s.account().hostnames.add('late.example.net'), ['POST hostname/add', 'GET hostnames']],
  ])('leaves the outcome of %s unknown when its answer is lost and reading back shows nothing yet', async (_what, create, sent) => {
    const api = new FakeApi();
    const store = new AccountStore(api.client());
    api.timeOutNextBeforeChange = true;
    await expect(create(store)).rejects.toMatchObject({
      code: 'ERR_UNKNOWN_OUTCOME',
      message: expect.stringMatching(/outcome is unknown.*does not hold it yet, but the API may still carry the request out/),
    });
    expect(api.sent).toEqual(sent);
  });

  it("takes an IP listed with another label after a lost add for one already there, not this add's", async () => {
    const api = new FakeApi();
    const store = new AccountStore(api.client());
    api.ips.set('203.0.113.7', 'someone');
    api.failNextWith = lost;
    await expect(store.account().ips.add('203.0.113.7', 'office')).resolves.toBe('unchanged');
    expect(api.ips.get('203.0.113.7')).toBe('someone');
  });

  it("follows the SDK's facts, not codes: reads back after an abort in flight, not after a connect timeout", async () => {
    const api = new FakeApi();
    const store = new AccountStore(api.client());
    api.failNextWith = () => new TimeoutError(CTX, 1000, 1, undefined, false);
    await expect(store.account().ips.add('203.0.113.7', null)).rejects.toMatchObject({ code: 'ERR_TIMEOUT' });
    expect(api.sent).toEqual(['POST ip/add']);
    api.failNextWith = () => new AbortedError(CTX, undefined, true);
    await expect(store.account().ips.add('203.0.113.7', null)).rejects.toMatchObject({ code: 'ERR_UNKNOWN_OUTCOME', cause: { code: 'ERR_ABORTED' } });
    expect(api.sent).toEqual(['POST ip/add', 'POST ip/add', 'GET ips']);
  });

  it('does not read back after a connection that was refused (nothing was sent)', async () => {
    const api = new FakeApi();
    const store = new AccountStore(api.client());
    api.failNextBeforeSending = true;
    await expect(store.account().ips.add('203.0.113.7', null)).rejects.toMatchObject({ code: 'ERR_NETWORK' });
    expect(api.sent).toEqual(['POST ip/add']);
  });

  it('keeps a sub-account its lost create made, brought to what was asked', async () => {
    const api = new FakeApi();
    const store = new AccountStore(api.client());
    api.loseNextAnswer = true;
    const created = await store.subAccounts.create({ username: 'alice', monthlyLimit: 50 });
    expect(created).toMatchObject({ outcome: 'recovered', account: { username: 'alice', monthlyBandwidthLimit: 50 } });
    expect(api.sent.filter((s) => s === 'POST sub/create')).toHaveLength(1);
  });

  it('finds a username taken before and sends nothing (no silent adoption)', async () => {
    const api = new FakeApi();
    const store = new AccountStore(api.client());
    await store.subAccounts.create({ username: 'alice', monthlyLimit: 7 });
    api.sent.length = 0;
    // Even with the answer about to be lost: nothing is sent, so there is nothing to read back.
    api.loseNextAnswer = true;
    const again = await store.subAccounts.create({ username: 'alice', monthlyLimit: 50 });
    expect(again).toMatchObject({ outcome: 'exists', account: { username: 'alice', monthlyBandwidthLimit: 7 } });
    expect(api.sent).toEqual(['GET sub']);
    expect(api.subs.get('alice')!.monthlyBandwidthLimit).toBe(7);
  });

  it('keeps a sub-account its lost create made even when bringing it to what was asked fails', async () => {
    const api = new FakeApi();
    api.loseNextAnswer = true;
    const client = api.client();
    // The read-back's edit fails: the sub-account exists all the same, and state must hold it.
    const failingEdit = { ...client, subAccounts: { ...client.subAccounts, edit: () => Promise.reject(lost()) } } as unknown as StoreClient;
    const created = await new AccountStore(failingEdit).subAccounts.create({ username: 'bob', monthlyLimit: 50 });
    expect(created).toMatchObject({ outcome: 'recovered', account: { username: 'bob', monthlyBandwidthLimit: 50 } });
  });

  it('never leaves a second token with the same label: the unreadable one is deleted, one usable token remains', async () => {
    const api = new FakeApi();
    const store = new AccountStore(api.client());
    await store.account().tokens.create({ label: 'other', expiresAt: null });
    api.loseNextAnswer = true;
    const created = await store.account().tokens.create({ label: 'deploy', expiresAt: null });
    expect(created.outcome).toBe('recovered');
    expect(created.token.token).toMatch(/^pxa_secret/);
    expect(api.tokens.map((t) => t.label).sort()).toEqual(['deploy', 'other']);
    expect(api.tokens.find((t) => t.label === 'deploy')!.id).toBe(created.token.id);
  });

  it('treats a delete whose answer was lost as done when the entry is gone', async () => {
    const api = new FakeApi();
    const store = new AccountStore(api.client());
    api.ips.set('203.0.113.7', '');
    api.loseNextAnswer = true;
    await expect(store.account().ips.delete('203.0.113.7')).resolves.toBe('recovered');
    await expect(store.account().ips.delete('203.0.113.7')).resolves.toBe('unchanged');
  });

  it('fails a delete with its own error when its answer is lost and the listing still holds the entry (the state keeps it)', async () => {
    const api = new FakeApi();
    const store = new AccountStore(api.client());
    api.ips.set('203.0.113.7', '');
    api.timeOutNextBeforeChange = true;
    await expect(store.account().ips.delete('203.0.113.7')).rejects.toMatchObject({ code: 'ERR_TIMEOUT' });
    expect(api.sent).toEqual(['POST ip/delete', 'GET ips']);
  });

  it.each([
    ['a bare host', 'us-ny'],
    ['a full domain', 'US-NY.proxy.example.net'],
    ['domain:port', 'us-ny.proxy.example.net:8080'],
  ])('settles a proxy add given as %s whose answer and resent answer are both lost by reading the listing', async (_form, proxy) => {
    const api = new FakeApi();
    const store = new AccountStore(api.client());
    api.loseAnswers = 2;
    await expect(store.proxies.add(proxy)).resolves.toBe('us-ny.proxy.example.net');
    expect(api.sent).toEqual(['POST proxy/add', 'POST proxy/add', 'GET proxies']);
  });

  it('does not take another proxy in the listing for the one whose add was lost twice', async () => {
    const api = new FakeApi();
    const store = new AccountStore(api.client());
    api.proxies = ['us-nyc.proxy.example.net:8080', 'us.proxy.example.net:3128'];
    // Both sends time out before the API makes any change (which it may still do later).
    api.failNextWith = lost;
    api.timeOutNextBeforeChange = true;
    await expect(store.proxies.add('us-ny.proxy.example.net')).rejects.toMatchObject({
      code: 'ERR_UNKNOWN_OUTCOME',
      message: expect.stringMatching(/add proxy 'us-ny\.proxy\.example\.net'.*does not hold it yet/),
    });
    expect(api.sent).toEqual(['POST proxy/add', 'POST proxy/add', 'GET proxies']);
  });

  it('settles a proxy delete whose answer and resent answer are lost by the listing: gone is done, still listed fails with its own error', async () => {
    const api = new FakeApi();
    const store = new AccountStore(api.client());
    api.proxies = ['us-ny.proxy.example.net:8080'];
    api.loseAnswers = 2;
    await expect(store.proxies.delete('us-ny.proxy.example.net:8080')).resolves.toBeUndefined();
    expect(api.proxies).toEqual([]);
    expect(api.sent).toEqual(['POST proxy/delete', 'POST proxy/delete', 'GET proxies']);

    api.proxies = ['us-ny.proxy.example.net:8080'];
    api.sent = [];
    api.timeOutsBeforeChange = 2;
    await expect(store.proxies.delete('us-ny.proxy.example.net:8080')).rejects.toMatchObject({ code: 'ERR_TIMEOUT' });
    expect(api.sent).toEqual(['POST proxy/delete', 'POST proxy/delete', 'GET proxies']);
  });

  it('says the outcome of a proxy add is unknown when its answers are lost and the listing fails too', async () => {
    const api = new FakeApi();
    const store = new AccountStore(api.client());
    api.loseAnswers = 2;
    api.readsFail = true;
    await expect(store.proxies.add('us-ny')).rejects.toMatchObject({
      code: 'ERR_UNKNOWN_OUTCOME',
      message: expect.stringMatching(/add proxy 'us-ny'.*answer was lost.*reading the account back failed too/s),
    });
  });

  it('deletes a hostname by the spelling given, and a delete of a spelling not listed is not taken for one listed in another case', async () => {
    const api = new FakeApi();
    const store = new AccountStore(api.client());
    api.hostnames = ['MIXED.example.com'];
    // This API matches with case: 'mixed.example.com' is not there, so its 400 is "already gone"
    // for that spelling, and 'MIXED.example.com' is still listed.
    await expect(store.account().hostnames.delete('mixed.example.com')).resolves.toBe('unchanged');
    expect(api.hostnames).toEqual(['MIXED.example.com']);
    await expect(store.account().hostnames.delete('MIXED.example.com')).resolves.toBe('done');
    expect(api.hostnames).toEqual([]);
  });

  it('says both what was lost and why reading back failed when it cannot be settled', async () => {
    const api = new FakeApi();
    const store = new AccountStore(api.client());
    api.loseNextAnswer = true;
    api.readsFail = true;
    await expect(store.account().ips.add('203.0.113.7', null)).rejects.toMatchObject({
      code: 'ERR_UNKNOWN_OUTCOME',
      message: expect.stringMatching(/add IP '203\.0\.113\.7'.*answer was lost.*timed out.*reading the account back failed too.*ECONNREFUSED/s),
    });
  });
});

describe('a change in place whose answer is lost (finding: a rotation that took effect reported as a plain failure)', () => {
  const alice = (api: FakeApi, monthly = 5): void => {
    api.subs.set('alice', { username: 'alice', active: true, monthlyBandwidth: 0, monthlyBandwidthLimit: monthly, totalBandwidth: 0, totalBandwidthLimit: 0 });
  };

  it('settles an edit without a password by reading back: every field shown as sent is the account as the edit leaves it', async () => {
    const api = new FakeApi();
    alice(api);
    api.loseNextAnswer = true;
    const edited = await new AccountStore(api.client()).subAccounts.edit({ username: 'alice', monthlyLimit: 50 });
    expect(edited).toMatchObject({ username: 'alice', monthlyBandwidthLimit: 50 });
    expect(api.sent).toEqual(['POST sub/edit', 'GET sub']);
  });

  it('sends an edit with a password once more when its answer is lost, since reading back cannot show a password', async () => {
    const api = new FakeApi();
    alice(api);
    api.loseNextAnswer = true;
    const edited = await new AccountStore(api.client()).subAccounts.edit({ username: 'alice', password: 'New-Pass-1', monthlyLimit: 50 });
    expect(edited).toMatchObject({ username: 'alice', monthlyBandwidthLimit: 50 });
    expect(api.passwords.get('alice')).toBe('New-Pass-1');
    expect(api.sent).toEqual(['POST sub/edit', 'POST sub/edit']);
  });

  it('stays unknown when both answers of an edit with a password are lost, though the fields shown hold what it sends: it may never have been made, and the password is never said', async () => {
    const api = new FakeApi();
    // The account holds the limit the edit sends already (changed outside Terraform since the plan).
    alice(api, 50);
    api.timeOutsBeforeChange = 2;
    const failed = await new AccountStore(api.client()).subAccounts
      .edit({ username: 'alice', password: 'New-Pass-2', monthlyLimit: 50 })
      .catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(UnsettledChangeError);
    expect(failed).toMatchObject({
      code: 'ERR_UNKNOWN_OUTCOME',
      outcomeUnknown: true,
      operation: "edit sub-account 'alice'",
      message: expect.stringMatching(
        /^edit sub-account 'alice': the request was sent but its answer was lost \(.*timed out.*\); it may or may not have taken effect: it was sent again after its answer was lost, and that answer was lost too; it sets a password, which the API never shows, so reading back cannot tell\. The next refresh reads the account again and shows what exists\.$/,
      ),
    });
    expect((failed as Error).message).not.toContain('New-Pass-2');
    expect(api.passwords.has('alice')).toBe(false);
    expect(api.sent).toEqual(['POST sub/edit', 'POST sub/edit']);
  });

  it('stays unknown when reading back does not show the edit yet (the API may still make it), not a plain failure', async () => {
    const api = new FakeApi();
    alice(api);
    api.timeOutNextBeforeChange = true;
    const failed = await new AccountStore(api.client()).subAccounts.edit({ username: 'alice', monthlyLimit: 50 }).catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(UnsettledChangeError);
    expect((failed as Error).message).toMatch(
      /^edit sub-account 'alice': .*it may or may not have taken effect: the account was read back and does not show the change yet, but the API may still carry the request out\./,
    );
    expect(api.sent).toEqual(['POST sub/edit', 'GET sub']);
  });

  it('says both what was lost and why reading back failed when an edit cannot be settled', async () => {
    const api = new FakeApi();
    alice(api);
    api.loseNextAnswer = true;
    api.readsFail = true;
    const failed = await new AccountStore(api.client()).subAccounts.edit({ username: 'alice', monthlyLimit: 50 }).catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(UnknownOutcomeError);
    expect((failed as Error).message).toMatch(
      /edit sub-account 'alice'.*answer was lost.*reading the account back failed too.*may or may not have taken effect/s,
    );
  });

  it("settles a token's lost deactivation by reading the tokens back, and leaves one not shown yet unknown", async () => {
    const api = new FakeApi();
    api.tokens.push({ id: 4, label: 'ci', isActive: true, expiresAt: null, createdAt: new Date(0) });
    const tokens = new AccountStore(api.client()).account('alice').tokens;
    api.loseNextAnswer = true;
    await expect(tokens.setActive(4, false)).resolves.toMatchObject({ id: 4, isActive: false });
    expect(api.sent).toEqual(['POST token/deactivate', 'GET tokens']);
    api.timeOutNextBeforeChange = true;
    await expect(tokens.setActive(4, true)).rejects.toMatchObject({
      code: 'ERR_UNKNOWN_OUTCOME',
      message: expect.stringMatching(
        /^activate bearer token 4 for sub-account 'alice': .*may or may not have taken effect: the account was read back and does not show the change yet/,
      ),
    });
  });

  it('settles a lost deactivation by reading back, and leaves one not shown yet unknown', async () => {
    const api = new FakeApi();
    alice(api);
    const store = new AccountStore(api.client());
    api.loseNextAnswer = true;
    await expect(store.subAccounts.setActive('alice', false)).resolves.toMatchObject({ username: 'alice', active: false });
    api.subs.set('alice', { ...api.subs.get('alice')!, active: true });
    api.timeOutNextBeforeChange = true;
    await expect(store.subAccounts.setActive('alice', false)).rejects.toMatchObject({
      code: 'ERR_UNKNOWN_OUTCOME',
      message: expect.stringMatching(
        /^deactivate sub-account 'alice': .*may or may not have taken effect: the account was read back and does not show the change yet/,
      ),
    });
  });
});
