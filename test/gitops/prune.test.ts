// The tokens-prune use case: only tokens with the prefix and older than the age, in the parent and
// the named sub-accounts; a dry run deletes nothing; an empty prefix is refused before any request.
import { EPHEMERAL_TOKEN_PREFIX } from '../../src/account';
import { pruneTokens } from '../../src/gitops/use-cases';
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

  it('refuses an empty prefix before reading anything', async () => {
    const fake = account();
    await expect(pruneTokens({ store: fake.store(), prefix: '', olderThanMs: 0 })).rejects.toThrow(/--prefix must not be empty/);
    expect(fake.requests).toEqual([]);
  });
});
