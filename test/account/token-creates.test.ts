// Token creates whose answers are lost, over an in-memory fake of the token endpoints: the store
// deletes only the token its own lost request made (never one another create of the same label
// made, in parallel or not), sends again only once the read-back found and deleted that token,
// and finishes that clean-up during a stop. A read-back that finds no such token, or several, ends
// the create with its outcome unknown: the request may still be carried out.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AccountStore, type StoreClient, type TokenWrite } from '../../src/account';
import { TokenCreateOutcomeUnknownError } from '../../src/account/token-create';
import { DEFAULT_AUTH_FAILURE_TTL_MS, ServiceUnavailableError, TimeoutError, type BearerToken } from '../../src/sdk';
import { AuthFailureMemory } from '../../src/sdk/failure-memory';

const CTX = { method: 'POST', path: '/api/token/create/', operation: 'x' };
/** Where the fake API's clock starts. */
const API_T0 = Date.UTC(2030, 0, 1);

/** Token endpoints over an array; creates are numbered from 1 and may lose their answer. */
class FakeTokens {
  tokens: BearerToken[] = [];
  sent: string[] = [];
  private nextId = 1;
  private creates = 0;
  /** Create numbers (1 = the first create sent) whose answer is lost after the token is made. */
  readonly lose = new Set<number>();
  /** Create numbers that time out before the API makes anything (the client cannot tell). */
  readonly timeOutBefore = new Set<number>();
  /** Create numbers that time out and make their token only at `serveLate()` (a request served late). */
  readonly servedLate = new Set<number>();
  private late: Array<() => void> = [];
  /** Create numbers that wait until `release()` before making their token. */
  readonly hold = new Set<number>();
  /** Runs when a held create is released, before it makes its token (e.g. another client's create). */
  onRelease: (() => void) | undefined;
  /** Listings fail (503) once this many creates were sent: the read-back after a lost answer fails. */
  listsFailAfterCreates: number | undefined;
  /** The API's clock (ms) as its answers tell it: each list and create moves it by `apiStep`. */
  apiTime = API_T0;
  /** How far each list and create moves `apiTime` (negative: a Date header a second behind the last). */
  apiStep = 1000;
  private held: Array<() => void> = [];

  /** Serves the creates that timed out and are served late: their tokens are made now. */
  serveLate(): void {
    for (const make of this.late.splice(0)) make();
  }

  release(): void {
    for (const r of this.held.splice(0)) r();
  }

  /** Resolves once a held create is waiting for `release()`. */
  async waiting(): Promise<void> {
    while (this.held.length === 0) await new Promise((r) => setImmediate(r));
  }

  /** A token made by another client of the same account. */
  makeElsewhere(label: string): number {
    const t = { id: this.nextId++, label, isActive: true, expiresAt: null, createdAt: new Date(0) };
    this.tokens.push(t);
    return t.id;
  }

  client(): StoreClient {
    return {
      serverNow: () => new Date(this.apiTime),
      tokens: {
        list: async () => {
          this.sent.push('list');
          this.apiTime += this.apiStep;
          // A turn of the event loop, so parallel creates interleave as over a network.
          await new Promise((r) => setImmediate(r));
          if (this.listsFailAfterCreates !== undefined && this.creates >= this.listsFailAfterCreates) {
            throw new ServiceUnavailableError({ method: 'GET', path: '/api/tokens/', operation: 'list tokens', status: 503, responseText: 'down' });
          }
          return [...this.tokens];
        },
        create: async (input: { label?: string }) => {
          const n = ++this.creates;
          this.sent.push(`create#${n}`);
          this.apiTime += this.apiStep;
          await new Promise((r) => setImmediate(r));
          if (this.hold.has(n)) {
            await new Promise<void>((r) => this.held.push(r));
            this.onRelease?.();
          }
          if (this.timeOutBefore.has(n)) throw new TimeoutError(CTX, 1000, 1);
          const make = () => {
            const t = { id: this.nextId++, label: input.label ?? '', isActive: true, expiresAt: null, createdAt: new Date(this.apiTime) };
            this.tokens.push(t);
            return t;
          };
          if (this.servedLate.has(n)) {
            this.late.push(make);
            throw new TimeoutError(CTX, 1000, 1);
          }
          const t = make();
          if (this.lose.has(n)) throw new TimeoutError(CTX, 1000, 1);
          return { ...t, token: `pxa_secret${t.id}` };
        },
        delete: async (input: { id: number }) => {
          this.sent.push(`delete ${input.id}`);
          this.tokens = this.tokens.filter((t) => t.id !== input.id);
        },
      },
    } as unknown as StoreClient;
  }
}

const ids = (tokens: readonly BearerToken[]): number[] => tokens.map((t) => t.id).sort((a, b) => a - b);

describe('parallel creates of one label with a lost answer', () => {
  it.each([
    ['ci', 'ci'],
    ['no label', null],
  ])('keep every token a create returned, and leave none that no create returned (%s)', async (_name, label) => {
    const api = new FakeTokens();
    api.lose.add(2);
    const store = new AccountStore(api.client());
    const created = await Promise.all([1, 2, 3].map(() => store.account().tokens.create({ label, expiresAt: null })));
    const returned = created.map((c) => c.token.id).sort((a, b) => a - b);
    // 0 deleted under a resource: every token returned still exists; 0 orphaned: nothing else does.
    expect(ids(api.tokens)).toEqual(returned);
    expect(new Set(returned).size).toBe(3);
    expect(created.filter((c) => c.outcome === 'recovered')).toHaveLength(1);
  });
});

describe('lost answers in a row', () => {
  it('read back before each re-send, so two lost answers leave one token, the one returned', async () => {
    const api = new FakeTokens();
    api.lose.add(1).add(2);
    const store = new AccountStore(api.client());
    const created = await store.account('alice').tokens.create({ label: 'deploy', expiresAt: null });
    expect(created.outcome).toBe('recovered');
    expect(ids(api.tokens)).toEqual([created.token.id]);
    // Each lost create is followed by a listing and the delete of what it made, then a re-send.
    expect(api.sent).toEqual(['list', 'create#1', 'list', 'delete 1', 'create#2', 'list', 'delete 2', 'create#3']);
  });

  it('give up after three lost answers, leaving no token behind', async () => {
    const api = new FakeTokens();
    api.lose.add(1).add(2).add(3);
    const store = new AccountStore(api.client());
    await expect(store.account().tokens.create({ label: 'deploy', expiresAt: null })).rejects.toMatchObject({ code: 'ERR_TIMEOUT' });
    expect(api.tokens).toEqual([]);
  });
});

describe('a lost answer whose read-back fails too', () => {
  it('throws what a later reading needs: the account, the label and the API time it ran in; it says a token may exist', async () => {
    const api = new FakeTokens();
    api.makeElsewhere('deploy');
    api.makeElsewhere('other');
    api.lose.add(1);
    api.listsFailAfterCreates = 1;
    const store = new AccountStore(api.client());
    const failed = await store
      .account('alice')
      .tokens.create({ label: 'deploy', expiresAt: null })
      .then(
        () => undefined,
        (err: unknown) => err,
      );
    expect(failed).toBeInstanceOf(TokenCreateOutcomeUnknownError);
    // The API's time after the listing before the send (API_T0 + 1 s), and after the failed read-back (+3 s).
    expect(failed).toMatchObject({ code: 'ERR_UNKNOWN_OUTCOME', account: 'alice', label: 'deploy', sentFrom: API_T0 + 1000, givenUpAt: API_T0 + 3000 });
    const message = (failed as Error).message;
    expect(message).toMatch(/reading the account back failed too .*503.*A token labelled 'deploy' may now exist whose value nobody received$/);
    // Not the promise of other writes, false for a token no state names.
    expect(message).not.toMatch(/next refresh/);
    // Nothing was deleted: the token the lost request made is there, beside the others.
    expect(api.tokens).toHaveLength(3);
  });

  it("never ends its span before it starts, when the answers' clock steps back within a second", async () => {
    const api = new FakeTokens();
    api.apiStep = -400;
    api.lose.add(1);
    api.listsFailAfterCreates = 1;
    const store = new AccountStore(api.client());
    const failed = (await store
      .account()
      .tokens.create({ label: 'deploy', expiresAt: null })
      .then(
        () => undefined,
        (err: unknown) => err,
      )) as TokenCreateOutcomeUnknownError;
    expect([failed.sentFrom, failed.givenUpAt]).toEqual([API_T0 - 400, API_T0 - 400]);
  });

  it('spans from before the first send, when a re-send after a recovered lost answer is lost too', async () => {
    const api = new FakeTokens();
    api.lose.add(1).add(2);
    // The first read-back finds the first lost token (deleted, then sent again); the second fails.
    api.listsFailAfterCreates = 2;
    const store = new AccountStore(api.client());
    const failed = (await store
      .account()
      .tokens.create({ label: 'deploy', expiresAt: null })
      .then(
        () => undefined,
        (err: unknown) => err,
      )) as TokenCreateOutcomeUnknownError;
    expect(failed).toBeInstanceOf(TokenCreateOutcomeUnknownError);
    expect(api.sent).toEqual(['list', 'create#1', 'list', 'delete 1', 'create#2', 'list']);
    // From the listing before the first send (+1 s) to the second read-back's failure (+5 s).
    expect([failed.sentFrom, failed.givenUpAt]).toEqual([API_T0 + 1000, API_T0 + 5000]);
    expect(failed).toMatchObject({ readBack: 'failed', strays: [] });
    expect(api.tokens.map((t) => t.id)).toEqual([2]);
  });

  it('sends no later create of the same (account, label) in this process, and says why', async () => {
    const api = new FakeTokens();
    api.lose.add(1);
    api.listsFailAfterCreates = 1;
    const store = new AccountStore(api.client());
    await expect(store.account().tokens.create({ label: 'deploy', expiresAt: null })).rejects.toBeInstanceOf(TokenCreateOutcomeUnknownError);
    api.listsFailAfterCreates = undefined;
    await expect(store.account().tokens.create({ label: 'deploy', expiresAt: null })).rejects.toMatchObject({
      code: 'ERR_UNSETTLED_CREATE',
      mayHaveReachedServer: false,
      message: expect.stringMatching(
        /create bearer token 'deploy' was not sent: an earlier create of tokens labelled 'deploy' in this run had its answer lost/,
      ),
    });
    expect(api.sent.filter((s) => s.startsWith('create'))).toEqual(['create#1']);
    // Other labels and other accounts go on.
    await store.account().tokens.create({ label: 'ci', expiresAt: null });
    await store.account('alice').tokens.create({ label: 'deploy', expiresAt: null });
    expect(api.sent.filter((s) => s.startsWith('create'))).toEqual(['create#1', 'create#2', 'create#3']);
  });
});

describe('a stop during a lost token answer', () => {
  it('still deletes the token the lost request made, and sends no new create', async () => {
    const api = new FakeTokens();
    api.lose.add(1);
    api.hold.add(1);
    const stop = new AbortController();
    const store = new AccountStore(api.client(), { signal: stop.signal });
    const creating = store.account().tokens.create({ label: 'deploy', expiresAt: null });
    await api.waiting();
    stop.abort();
    api.release();
    await expect(creating).rejects.toMatchObject({ code: 'ERR_ABORTED', message: expect.stringMatching(/create bearer token 'deploy'.*not started/) });
    expect(api.tokens).toEqual([]);
    expect(api.sent.filter((s) => s.startsWith('create'))).toEqual(['create#1']);
  });
});

describe('another client creating tokens of the same label meanwhile', () => {
  it('deletes none of the tokens it cannot tell apart, names them, and sends the create no more', async () => {
    const api = new FakeTokens();
    api.lose.add(1);
    api.hold.add(1);
    let theirs = 0;
    api.onRelease = () => {
      theirs = api.makeElsewhere('deploy');
    };
    const store = new AccountStore(api.client());
    const creating = store.account().tokens.create({ label: 'deploy', expiresAt: null });
    await api.waiting();
    api.release();
    const failed = (await creating.then(
      () => undefined,
      (err: unknown) => err,
    )) as TokenCreateOutcomeUnknownError;
    expect(failed).toBeInstanceOf(TokenCreateOutcomeUnknownError);
    const ours = api.tokens.find((t) => t.id !== theirs)!.id;
    expect(failed).toMatchObject({ code: 'ERR_UNKNOWN_OUTCOME', readBack: 'several', readBackError: undefined });
    expect([...failed.strays].sort((a, b) => a - b)).toEqual([theirs, ours].sort((a, b) => a - b));
    expect(failed.message).toContain(`holds tokens ${failed.strays.join(', ')} labelled 'deploy' that no answer named`);
    expect(failed.message).toMatch(/none was deleted and the create was not sent again$/);
    expect(failed.message).not.toMatch(/failed too/);
    expect(api.sent).toEqual(['list', 'create#1', 'list']);
    // Unsettled: a later create of the label in this run is refused, not sent.
    await expect(store.account().tokens.create({ label: 'deploy', expiresAt: null })).rejects.toMatchObject({ code: 'ERR_UNSETTLED_CREATE' });
    expect(api.sent.filter((s) => s.startsWith('create') || s.startsWith('delete'))).toEqual(['create#1']);
  });
});

describe('a lost answer whose read-back shows no token yet (a request served late)', () => {
  it.each([
    ['deploy', "no new token labelled 'deploy' yet", "A token labelled 'deploy' may yet appear"],
    [null, 'no new token without a label yet', 'A token without a label may yet appear'],
  ])('is not sent again: one send, the span in the error, the label unsettled (%s)', async (label, none, mayAppear) => {
    const api = new FakeTokens();
    api.makeElsewhere('other');
    api.servedLate.add(1);
    const store = new AccountStore(api.client());
    const failed = (await store
      .account('alice')
      .tokens.create({ label, expiresAt: null })
      .then(
        () => undefined,
        (err: unknown) => err,
      )) as TokenCreateOutcomeUnknownError;
    expect(failed).toBeInstanceOf(TokenCreateOutcomeUnknownError);
    // The listing before the send (+1 s), the send (+2 s), the read-back that found nothing (+3 s).
    expect(failed).toMatchObject({
      code: 'ERR_UNKNOWN_OUTCOME',
      outcomeUnknown: true,
      account: 'alice',
      label: label ?? '',
      sentFrom: API_T0 + 1000,
      givenUpAt: API_T0 + 3000,
      readBack: 'none',
      strays: [],
      readBackError: undefined,
    });
    // Says what happened: the read-back answered and showed nothing yet; not that it failed.
    expect(failed.message).toContain('the request was sent but its answer was lost (');
    expect(failed.message).toContain(`the account was read back and holds ${none}, but the request may still be carried out`);
    expect(failed.message).toMatch(new RegExp(`so it was not sent again\\. ${mayAppear} whose value nobody received$`));
    expect(failed.message).not.toMatch(/failed too|next refresh/);
    expect(api.sent).toEqual(['list', 'create#1', 'list']);
    // The first request is served now: its token is the only one of the label, made in the span's
    // wake; a re-send would have left a second one, active, whose value nobody has.
    api.serveLate();
    expect(api.tokens.filter((t) => t.label === (label ?? ''))).toHaveLength(1);
    // Unsettled: no later create of the label for alice is sent in this run.
    await expect(store.account('alice').tokens.create({ label, expiresAt: null })).rejects.toMatchObject({
      code: 'ERR_UNSETTLED_CREATE',
      message: expect.stringMatching(/reading the account back did not settle whether it made a token \(it may still make one\)/),
    });
    expect(api.sent.filter((s) => s.startsWith('create'))).toEqual(['create#1']);
  });
});

describe('two stores of one process on the same account (two provider aliases)', () => {
  it("never delete each other's token: creates of one label wait for each other across stores", async () => {
    const api = new FakeTokens();
    // The first create times out before the API makes anything: its read-back would find the other
    // store's token, made meanwhile, had the creates overlapped. It finds none, so it stays unknown.
    api.timeOutBefore.add(1);
    const client = api.client();
    const first = new AccountStore(client);
    const second = new AccountStore(client);
    const [one, two] = await Promise.allSettled([
      first.account().tokens.create({ label: 'ci', expiresAt: null }),
      second.account().tokens.create({ label: 'ci', expiresAt: null }),
    ]);
    expect(one).toMatchObject({ status: 'rejected', reason: { code: 'ERR_UNKNOWN_OUTCOME', readBack: 'none' } });
    expect(two.status).toBe('fulfilled');
    expect(ids(api.tokens)).toEqual([(two as PromiseFulfilledResult<TokenWrite>).value.token.id]);
    expect(api.sent.filter((s) => s.startsWith('delete'))).toEqual([]);
  });
});

describe('two processes on one machine (a provider per aliased configuration, a CLI beside an apply)', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'proxyaccount-token-lock-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** The store of another process: its own copy of the modules, so its own queues. */
  function storeOfAnotherProcess(client: StoreClient): AccountStore {
    let Store: typeof AccountStore | undefined;
    jest.isolateModules(() => {
      Store = (require('../../src/account') as typeof import('../../src/account')).AccountStore;
    });
    expect(Store).not.toBe(AccountStore);
    return new Store!(client);
  }

  /** The fake's token endpoints, with the machine's lock as the SDK client takes it (a file beside the memory). */
  function machineClient(api: FakeTokens): StoreClient {
    const memory = new AuthFailureMemory(join(dir, 'auth-failures.json'), DEFAULT_AUTH_FAILURE_TTL_MS);
    return { ...api.client(), lockOnThisMachine: (scope, opts) => memory.lockBeside('scope', scope, opts?.signal) };
  }

  it("never delete each other's token: the second process's create waits for the first's to settle", async () => {
    const api = new FakeTokens();
    // The first create is held, then times out having made nothing: had the other process made a
    // token of the label meanwhile, the read-back would take it for the lost one and delete it.
    api.timeOutBefore.add(1);
    api.hold.add(1);
    const first = new AccountStore(machineClient(api));
    const second = storeOfAnotherProcess(machineClient(api));
    const one = first.account('alice').tokens.create({ label: 'ci', expiresAt: null });
    await api.waiting();
    const two = second.account('alice').tokens.create({ label: 'ci', expiresAt: null });
    // Time for the second process to list and send, were it not waiting for the machine's lock.
    for (let i = 0; i < 50 && !api.sent.includes('create#2'); i++) await new Promise((r) => setTimeout(r, 2));
    api.release();
    // The first create's read-back finds nothing of its own: unknown, never sent again.
    await expect(one).rejects.toMatchObject({ code: 'ERR_UNKNOWN_OUTCOME', readBack: 'none' });
    const created = await two;
    expect(ids(api.tokens)).toEqual([created.token.id]);
    expect(created.discarded).toEqual([]);
    expect(api.sent.filter((s) => s.startsWith('create'))).toEqual(['create#1', 'create#2']);
    expect(readdirSync(dir).filter((f) => f.endsWith('.lock'))).toEqual([]);
  });

  it('a stop while waiting for the other process sends nothing', async () => {
    const api = new FakeTokens();
    api.hold.add(1);
    const first = new AccountStore(machineClient(api));
    const stop = new AbortController();
    const second = new (storeOfAnotherProcess(machineClient(api)).constructor as typeof AccountStore)(machineClient(api), { signal: stop.signal });
    const one = first.account().tokens.create({ label: 'ci', expiresAt: null });
    await api.waiting();
    const two = second.account().tokens.create({ label: 'ci', expiresAt: null });
    await new Promise((r) => setTimeout(r, 50));
    stop.abort(new Error('stopped'));
    await expect(two).rejects.toMatchObject({ code: 'ERR_ABORTED', message: expect.stringMatching(/create bearer token 'ci' was not started/) });
    api.release();
    await one;
    expect(api.sent.filter((s) => s.startsWith('create'))).toEqual(['create#1']);
  });
});
