// The re-admissions of an open tunnel: at most one runs at a time (a chunk that finds one due while
// one runs waits for it, and runs another only if one is still due after it), and the proxies' own
// usage records make none due, while any other write does.
import { createClock } from '../../src/emulator/clock';
import { accessChanges, type ProxyContext, recordTraffic } from '../../src/emulator/proxy/context';
import { TunnelCheck } from '../../src/emulator/proxy/tunnel-check';
import { Store } from '../../src/emulator/store';

/** A store whose change count the test sets, and a readmit() the test answers one call at a time. */
function harness() {
  let changes = 0;
  const store = { changeCount: () => changes } as unknown as Store;
  const clock = createClock();
  const calls: Array<(why: string | undefined) => void> = [];
  let inFlight = 0;
  let mostInFlight = 0;
  const readmit = (): Promise<string | undefined> => {
    inFlight += 1;
    mostInFlight = Math.max(mostInFlight, inFlight);
    return new Promise((resolve) =>
      calls.push((why) => {
        inFlight -= 1;
        resolve(why);
      }),
    );
  };
  const check = new TunnelCheck({ store, clock }, { admittedAt: { changes: 0, time: clock.now() }, readmit });
  return {
    check,
    write: () => (changes += 1),
    calls,
    mostInFlight: () => mostInFlight,
    /** Answers the oldest readmit() still waiting. */
    answer: async (why: string | undefined) => {
      calls.shift()!(why);
      // Lets the waiting calls see the answer (and start the next run, if they do).
      for (let i = 0; i < 10; i += 1) await Promise.resolve();
    },
  };
}

test('while a re-admission runs, calls that find another due wait for it, then run one more, one at a time', async () => {
  const h = harness();
  h.write();
  expect(h.check.due()).toBe(true);
  const first = h.check.run();
  h.write(); // written while the first one reads: another is due
  const waiting = [h.check.run(), h.check.run(), h.check.run()];
  expect(h.calls.length).toBe(1);
  await h.answer(undefined);
  expect(await first).toBeUndefined();
  expect(h.calls.length).toBe(1); // one more for all three, not one each
  expect(h.check.due()).toBe(false);
  await h.answer(undefined);
  expect(await Promise.all(waiting)).toEqual([undefined, undefined, undefined]);
  expect(h.mostInFlight()).toBe(1);
});

test('a call while one runs that saw the current state takes its answer, a refusal included', async () => {
  const h = harness();
  h.write();
  const first = h.check.run();
  const second = h.check.run(); // nothing written since the first one marked the state
  expect(h.calls.length).toBe(1);
  await h.answer('invalid bearer token');
  expect(await Promise.all([first, second])).toEqual(['invalid bearer token', 'invalid bearer token']);
  expect(h.mostInFlight()).toBe(1);
});

test('a refusal answers the calls waiting for it, without another run', async () => {
  const h = harness();
  h.write();
  const first = h.check.run();
  h.write();
  const waiting = h.check.run();
  await h.answer('proxy authentication required');
  expect(h.calls.length).toBe(0);
  expect(await first).toBe('proxy authentication required');
  expect(await waiting).toBe('proxy authentication required');
});

test("the proxies' usage records leave accessChanges where it was; any other write moves it", () => {
  const clock = createClock();
  const store = Store.open(undefined, clock, [{ username: 'acme', password: 'acme-Password1', plan: 'plan20', subAccountLimit: null }]);
  try {
    const account = store.accounts.byUsername('acme')!;
    const ctx = { store, clock, settings: { bytesPerGb: 1000 }, log: () => undefined } as unknown as ProxyContext;
    const start = accessChanges(store);
    expect(recordTraffic(ctx, { ok: true, account, parent: account, ipHash: undefined, via: 'bearer' }, 65_536)).toBe(true);
    expect(store.accounts.usage(account.id, 0).totalBytes).toBeGreaterThan(0);
    expect(accessChanges(store)).toBe(start);
    // Usage recorded otherwise (the control API's) is a write like any other.
    store.accounts.recordUsage(account.id, 1, clock.now());
    expect(accessChanges(store)).not.toBe(start);
    const next = accessChanges(store);
    store.accounts.update(account.id, { monthlyLimit: 3 });
    expect(accessChanges(store)).not.toBe(next);
  } finally {
    store.close();
  }
});
