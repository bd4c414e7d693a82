// The tokens-prune use case: only tokens with the prefix and older than the age, in the parent and
// the named sub-accounts; a dry run deletes nothing; a prefix that could reach a managed token, or
// a sub-account that does not exist, is refused before any delete; a stop lets the delete in
// flight finish, starts none after it and says what was not reached.
import { EPHEMERAL_TOKEN_PREFIX } from '../../src/account';
import { PruneStoppedError, pruneTokens } from '../../src/gitops/use-cases';
import { FakeAccount, token } from './fake-account';

const NOW = Date.parse('2026-06-01T12:00:00Z');
const OLD = new Date('2026-06-01T09:00:00Z');
const FRESH = new Date('2026-06-01T11:50:00Z');

function account(): FakeAccount {
  const a = new FakeAccount().sub('alice', { tokens: [token(21, `${EPHEMERAL_TOKEN_PREFIX}b`, OLD), token(22, 'deploy', OLD)] });
  a.lists('').tokens.push(token(11, `${EPHEMERAL_TOKEN_PREFIX}a`, OLD), token(12, `${EPHEMERAL_TOKEN_PREFIX}c`, FRESH), token(13, 'ci', OLD));
  return a;
}

describe('pruneTokens', () => {
  it('deletes old tokens with the prefix in the parent and the named sub-accounts, and returns them', async () => {
    const fake = account();
    const seen: number[] = [];
    const pruned = await pruneTokens({ store: fake.store(), olderThanMs: 3_600_000, usernames: ['alice'], now: NOW, onToken: (t) => seen.push(t.id) });
    expect(pruned.map((t) => [t.username, t.id])).toEqual([
      [null, 11],
      ['alice', 21],
    ]);
    expect(seen).toEqual([11, 21]);
    expect(fake.deleted).toEqual([11, 21]);
  });

  it('on a dry run lists the same tokens and deletes nothing', async () => {
    const fake = account();
    const pruned = await pruneTokens({ store: fake.store(), olderThanMs: 3_600_000, usernames: ['alice'], now: NOW, dryRun: true });
    expect(pruned.map((t) => t.id)).toEqual([11, 21]);
    expect(fake.deleted).toEqual([]);
  });

  it("judges age on the API's clock, which stamped the tokens, not on the runner's", async () => {
    const fake = account();
    fake.apiNow = NOW;
    // No `now`: the runner's clock (today, months after NOW) would make token 12 old too.
    const pruned = await pruneTokens({ store: fake.store(), olderThanMs: 3_600_000, usernames: ['alice'] });
    expect(pruned.map((t) => t.id)).toEqual([11, 21]);
  });

  it.each(['', 'c', 'ci', 'tf-', 'TF-EPHEMERAL:'])('refuses the prefix %j, which could reach managed tokens, before reading anything', async (prefix) => {
    const fake = account();
    await expect(pruneTokens({ store: fake.store(), prefix, olderThanMs: 0 })).rejects.toThrow(
      `--prefix must start with '${EPHEMERAL_TOKEN_PREFIX}', the ephemeral resource's label prefix`,
    );
    expect(fake.requests).toEqual([]);
    expect(fake.deleted).toEqual([]);
  });

  it("takes a prefix that narrows the ephemeral resource's", async () => {
    const fake = account();
    const pruned = await pruneTokens({ store: fake.store(), prefix: `${EPHEMERAL_TOKEN_PREFIX}b`, olderThanMs: 3_600_000, usernames: ['alice'], now: NOW });
    expect(pruned.map((t) => t.id)).toEqual([21]);
    expect(fake.deleted).toEqual([21]);
  });

  it('looks every sub-account up first: one that does not exist is named before anything is deleted', async () => {
    const fake = account();
    await expect(pruneTokens({ store: fake.store(), olderThanMs: 3_600_000, usernames: ['alice', 'nosuch'], now: NOW })).rejects.toThrow(
      "the parent account has no sub-account 'nosuch': nothing was deleted",
    );
    expect(fake.deleted).toEqual([]);
    expect(fake.requests.filter((r) => r.startsWith('delete'))).toEqual([]);
  });

  it('on a stop, finishes and reports the delete in flight, starts no other, and says what it did not reach', async () => {
    const fake = account();
    fake.lists('').tokens.push(token(14, `${EPHEMERAL_TOKEN_PREFIX}d`, OLD));
    const stop = new AbortController();
    // Ctrl-C while the first delete is on the wire: it is carried out all the same.
    fake.onDelete = () => stop.abort();
    const seen: number[] = [];
    const run = pruneTokens({
      store: fake.store({ signal: stop.signal }),
      signal: stop.signal,
      olderThanMs: 3_600_000,
      usernames: ['alice'],
      now: NOW,
      onToken: (t) => seen.push(t.id),
    });
    const err = await run.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(PruneStoppedError);
    const stopped = err as PruneStoppedError;
    expect(fake.deleted).toEqual([11]);
    expect(seen).toEqual([11]);
    expect(stopped.pruned.map((t) => t.id)).toEqual([11]);
    // Tokens 12, 13 and 14 of the parent were listed but not examined; alice's were never read.
    expect(stopped.notExamined).toBe(3);
    expect(stopped.notRead).toEqual(['alice']);
    expect(stopped.message).toBe("the run stopped: 1 token(s) deleted, 3 listed token(s) not examined; the tokens of sub-account 'alice' were not read");
  });

  it('says which delete it is sending before it is sent, with the token it then reports', async () => {
    const fake = account();
    const events: string[] = [];
    let sending: unknown;
    // The delete is on the wire here: a hard exit now must be able to name it.
    fake.onDelete = (id) => events.push(`on the wire ${id}`);
    await pruneTokens({
      store: fake.store(),
      olderThanMs: 3_600_000,
      usernames: ['alice'],
      now: NOW,
      onDeleting: (t) => {
        sending = t;
        events.push(`sending ${t.id} '${t.label}' of ${t.username ?? 'the parent'}`);
      },
      onToken: (t) => events.push(`deleted ${t.id}${t === sending ? ' (the one sent)' : ''}`),
    });
    expect(events).toEqual([
      `sending 11 '${EPHEMERAL_TOKEN_PREFIX}a' of the parent`,
      'on the wire 11',
      'deleted 11 (the one sent)',
      `sending 21 '${EPHEMERAL_TOKEN_PREFIX}b' of alice`,
      'on the wire 21',
      'deleted 21 (the one sent)',
    ]);
  });

  it('on a dry run sends nothing, so says of no delete that it is sending it', async () => {
    const sending: number[] = [];
    await pruneTokens({
      store: account().store(),
      olderThanMs: 3_600_000,
      usernames: ['alice'],
      now: NOW,
      dryRun: true,
      onDeleting: (t) => sending.push(t.id),
    });
    expect(sending).toEqual([]);
  });
});
