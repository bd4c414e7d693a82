// proxyaccount_bearer_tokens data source against a real emulator: metadata of the parent's and
// a sub-account's tokens, never a raw token; Basic credentials required.
import { bearerTokensDataSource } from '../../src/provider/data-sources/bearer-tokens';
import type { BearerToken } from '../../src/sdk';
import { dv, errors, obj, paths } from './harness';
import { startListSuite, type ListSuite } from './list-harness';

const schema = bearerTokensDataSource.schema;
let suite: ListSuite;

beforeAll(async () => {
  suite = await startListSuite();
});

afterAll(async () => {
  await suite?.stop();
});

/** What the data source should say about a token, derived from the SDK's listing. */
function expected(t: BearerToken) {
  return {
    token_id: t.id,
    label: t.label === '' ? null : t.label,
    active: t.isActive,
    expires_at: t.expiresAt === null ? null : t.expiresAt.toISOString().replace('.000Z', 'Z'),
    created_at: t.createdAt.toISOString().replace('.000Z', 'Z'),
  };
}

describe('proxyaccount_bearer_tokens data source', () => {
  it("reads the metadata of a sub-account's and the parent's tokens, sorted by ID, and never a token value", async () => {
    const { admin } = suite;
    await admin.subAccounts.create({ username: 'tok-ds' });
    const a = await admin.tokens.create({ label: 'ci', expiresAt: '2099-12-31', username: 'tok-ds' });
    const b = await admin.tokens.create({ username: 'tok-ds' });
    await admin.tokens.deactivate({ id: a.id, username: 'tok-ds' });
    const mine = await admin.tokens.create({ label: 'parent' });

    const { state, diagnostics } = await suite.readData('proxyaccount_bearer_tokens', schema, { username: 'tok-ds' });
    expect(diagnostics).toEqual([]);
    const listed = await admin.tokens.list({ username: 'tok-ds' });
    expect(state).toEqual({ username: 'tok-ds', id: 'tok-ds', tokens: [...listed].sort((x, y) => x.id - y.id).map(expected) });
    expect(state!['tokens']).toEqual([
      expect.objectContaining({ token_id: a.id, label: 'ci', active: false, expires_at: '2099-12-31T00:00:00Z' }),
      expect.objectContaining({ token_id: b.id, label: null, active: true, expires_at: null }),
    ]);
    const text = JSON.stringify(state);
    for (const raw of [a.token, b.token]) expect(text).not.toContain(raw);

    const self = await suite.readData('proxyaccount_bearer_tokens', schema, {});
    expect(self.state).toEqual({ username: null, id: '_self', tokens: [expected(mine)] });
    expect(JSON.stringify(self.state)).not.toContain(mine.token);
  });

  it('needs username and password credentials: a bearer-token provider gets a clear error', async () => {
    const { token } = await suite.admin.tokens.create({ label: 'as-provider' });
    const { state, diagnostics } = await suite.readData(
      'proxyaccount_bearer_tokens',
      schema,
      {},
      {
        PROXYACCOUNT_USERNAME: '',
        PROXYACCOUNT_PASSWORD: '',
        PROXYACCOUNT_TOKEN: token,
      },
    );
    expect(state).toBeNull();
    expect(errors(diagnostics)).toEqual([expect.objectContaining({ summary: 'Unable to read bearer tokens' })]);
    expect(errors(diagnostics)[0]!.detail).toContain('PROXYACCOUNT_USERNAME');
    expect(JSON.stringify(diagnostics)).not.toContain(token);
  });

  it('reports a missing sub-account on username, and validates username', async () => {
    const { state, diagnostics } = await suite.readData('proxyaccount_bearer_tokens', schema, { username: 'tok-nobody' });
    expect(state).toBeNull();
    expect(diagnostics).toEqual([expect.objectContaining({ summary: 'Sub-account not found', attribute: [{ attributeName: 'username' }] })]);
    const server = await suite.newServer();
    const res = await server.validateDataResourceConfig({ typeName: 'proxyaccount_bearer_tokens', config: dv(schema, obj(schema, { username: 'bad/name' })) });
    expect(paths(errors(res.diagnostics))).toEqual(['username']);
  });
});
