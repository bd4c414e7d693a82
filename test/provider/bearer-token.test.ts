// proxyaccount_bearer_token against a real emulator, driven the way Terraform drives it: create
// (the raw token kept in state), second plan empty, activation toggles, replacement, drift,
// import (token null), idempotent delete, validation, a token-only provider, expiry, and the
// refresh of many tokens costing one listing.
import { isUnknown } from '../../src/protocol/cty';
import { bearerTokenResource } from '../../src/provider/resources/bearer-token';
import { ProxyAccountClient } from '../../src/sdk';
import { countOf, startEmulatedProvider, type EmulatedProvider } from './emulated-provider';
import { decode, dv, errors, NO_PRIVATE, obj, paths } from './harness';
import type { ResourceDriver } from './terraform-sim';

const schema = bearerTokenResource.schema;
let p: EmulatedProvider;
let driver: ResourceDriver;

/** The UTC date `days` from now, YYYY-MM-DD. */
const ymd = (days: number): string => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
const RFC3339_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

beforeAll(async () => {
  p = await startEmulatedProvider();
  driver = p.driver('proxyaccount_bearer_token', schema);
  await p.admin.subAccounts.create({ username: 'tok-sub' });
});

afterAll(async () => {
  await p?.close();
});

async function remoteToken(id: number, username?: string) {
  return (await p.admin.tokens.list(username === undefined ? {} : { username })).find((t) => t.id === id);
}

/** True when the raw token authenticates at the API. */
async function tokenWorks(token: string): Promise<boolean> {
  const c = new ProxyAccountClient({ baseUrl: p.emu.url, auth: { token }, caCert: p.emu.caPem, maxRetries: 0 });
  try {
    await c.ips.list();
    return true;
  } catch {
    return false;
  } finally {
    await c.close();
  }
}

describe('proxyaccount_bearer_token', () => {
  it('creates a token, keeps the raw token in state through reads, and a second plan is empty', async () => {
    const config = { label: 'ci', expires_at: ymd(30) };
    const { planned } = await driver.plan(null, config);
    expect(isUnknown(planned['token']!)).toBe(true);
    expect(planned['active']).toBe(true);

    const state = await driver.create(config);
    const id = state['token_id'] as number;
    expect(state).toEqual(
      obj(schema, {
        ...config,
        id: String(id),
        active: true,
        token_id: id,
        created_at: expect.stringMatching(RFC3339_UTC),
        token: expect.stringMatching(/^pxa_/),
      }),
    );
    const remote = await remoteToken(id);
    expect(remote).toMatchObject({ label: 'ci', isActive: true });
    expect(remote!.expiresAt!.toISOString().slice(0, 10)).toBe(config.expires_at);
    expect(state['created_at']).toBe(remote!.createdAt.toISOString().replace('.000Z', 'Z'));
    expect(await tokenWorks(state['token'] as string)).toBe(true);

    const refreshed = await driver.read(state);
    expect(refreshed).toEqual(state);
    const second = await driver.plan(refreshed, config);
    expect(second.planned).toEqual(refreshed);
    expect(second.requiresReplace).toEqual([]);
  });

  it('creates a deactivated token of a sub-account (ID USERNAME/TOKEN_ID), with no label and no expiry', async () => {
    const state = await driver.create({ username: 'tok-sub', active: false });
    const id = state['token_id'] as number;
    expect(state).toMatchObject({ id: `tok-sub/${id}`, label: null, expires_at: null, active: false, username: 'tok-sub' });
    expect(await remoteToken(id, 'tok-sub')).toMatchObject({ isActive: false, label: '', expiresAt: null });
    expect(await remoteToken(id)).toBeUndefined();
    expect(await driver.read(state)).toEqual(state);
  });

  it('toggles active in place, keeping the raw token', async () => {
    const state = await driver.create({ label: 'toggle' });
    const off = await driver.update(state, { label: 'toggle', active: false });
    expect(off).toEqual({ ...state, active: false });
    expect(await remoteToken(state['token_id'] as number)).toMatchObject({ isActive: false });
    const on = await driver.update(off, { label: 'toggle' });
    expect(on).toEqual(state);
    expect(await tokenWorks(state['token'] as string)).toBe(true);
  });

  it('replaces the token when label, expires_at or username changes', async () => {
    const state = await driver.create({ label: 'rep', expires_at: ymd(20) });
    expect((await driver.plan(state, { label: 'rep2', expires_at: ymd(20) })).requiresReplace).toEqual([[{ attributeName: 'label' }]]);
    expect((await driver.plan(state, { label: 'rep', expires_at: ymd(21) })).requiresReplace).toEqual([[{ attributeName: 'expires_at' }]]);
    expect((await driver.plan(state, { label: 'rep' })).requiresReplace).toEqual([[{ attributeName: 'expires_at' }]]);
    const moved = await driver.plan(state, { label: 'rep', expires_at: ymd(20), username: 'tok-sub' });
    expect(moved.requiresReplace).toEqual([[{ attributeName: 'username' }]]);
    expect(errors(await driver.destroy(state))).toEqual([]);
  });

  it('detects drift: a token deactivated outside plans an update that reactivates it; a deleted one leaves state', async () => {
    const config = { label: 'drift' };
    const state = await driver.create(config);
    const id = state['token_id'] as number;
    await p.admin.tokens.deactivate({ id });
    const drifted = (await driver.read(state))!;
    expect(drifted['active']).toBe(false);
    expect(drifted['token']).toBe(state['token']);
    const fixed = await driver.update(drifted, config);
    expect(fixed['active']).toBe(true);
    expect(await remoteToken(id)).toMatchObject({ isActive: true });

    await p.admin.tokens.delete({ id });
    expect(await driver.read(fixed)).toBeNull();
  });

  it('reads tokens of a sub-account deleted outside Terraform as gone, and destroys them without error', async () => {
    await p.admin.subAccounts.create({ username: 'tok-doomed' });
    const state = await driver.create({ username: 'tok-doomed' });
    await p.admin.subAccounts.delete('tok-doomed');
    expect(await driver.read(state)).toBeNull();
    expect(errors(await driver.destroy(state))).toEqual([]);
  });

  it('imports by TOKEN_ID and USERNAME/TOKEN_ID; the raw token is null and the configuration then matches', async () => {
    const expiry = ymd(40);
    const own = await p.admin.tokens.create({ label: 'imported', expiresAt: expiry });
    const sub = await p.admin.tokens.create({ username: 'tok-sub' });

    const a = await driver.import(String(own.id));
    expect(a.diagnostics).toEqual([]);
    expect(a.state).toEqual(
      obj(schema, {
        id: String(own.id),
        label: 'imported',
        expires_at: expiry,
        active: true,
        token_id: own.id,
        created_at: expect.stringMatching(RFC3339_UTC),
        token: null,
      }),
    );
    expect((await driver.plan(a.state, { label: 'imported', expires_at: expiry })).planned).toEqual(a.state);

    const b = await driver.import(`tok-sub/${sub.id}`);
    expect(b.state).toMatchObject({ id: `tok-sub/${sub.id}`, username: 'tok-sub', token_id: sub.id, label: null, token: null });
    // A token of another account is not found under this one.
    expect((await driver.import(`tok-sub/${own.id}`)).state).toBeNull();
    for (const id of ['abc', '0', '-3', 'tok-sub/1.5', 'a/b/1', 'bad user/1']) {
      const res = await driver.import(id);
      expect(res.state).toBeNull();
      expect(res.diagnostics).toEqual([expect.objectContaining({ summary: 'Invalid import ID' })]);
    }
    // The id of a pending create names no token: the error says so, and how to find the token.
    const pending = await driver.import('pending:2025-01-31T09:30:00.000Z/2025-01-31T09:30:41.250Z');
    expect(pending.state).toBeNull();
    expect(pending.diagnostics).toEqual([
      expect.objectContaining({ summary: 'Invalid import ID', detail: expect.stringMatching(/names no token.*by its token ID.*proxyaccount_bearer_tokens/) }),
    ]);
  });

  it('deletes, and deleting again (already gone: 404) succeeds', async () => {
    const state = await driver.create({ username: 'tok-sub', label: 'del' });
    expect(errors(await driver.destroy(state))).toEqual([]);
    expect(await remoteToken(state['token_id'] as number, 'tok-sub')).toBeUndefined();
    expect(errors(await driver.destroy(state))).toEqual([]);
  });

  it('validates every constraint on its attribute', async () => {
    const diags = errors(await driver.validate({ label: 'x'.repeat(101), expires_at: '2030-02-30', username: 'no spaces' }));
    expect(paths(diags).sort()).toEqual(['expires_at', 'label', 'username']);
    const empty = errors(await driver.validate({ label: '' }));
    expect(paths(empty)).toEqual(['label']);
    expect(empty[0]!.detail).toMatch(/omit label/);
    expect(paths(errors(await driver.validate({ expires_at: '30-01-2030' })))).toEqual(['expires_at']);
    // The ephemeral resource's prefix: \`tokens prune\` would delete such a token.
    const ephemeral = errors(await driver.validate({ label: 'tf-ephemeral:deploy' }));
    expect(paths(ephemeral)).toEqual(['label']);
    expect(ephemeral[0]!.detail).toMatch(/must not start with "tf-ephemeral:".*tokens prune/);
    expect(errors(await driver.validate({ label: 'x'.repeat(100), expires_at: '2030-01-31', username: 'tok-sub' }))).toEqual([]);
  });

  it('refreshes many tokens of one account in parallel with one listing request', async () => {
    const created = [];
    for (let i = 0; i < 8; i++) created.push(await p.admin.tokens.create({ label: `bulk-${i}`, username: 'tok-sub' }));
    const states = created.map((t) =>
      obj(schema, {
        id: `tok-sub/${t.id}`,
        label: t.label,
        active: true,
        username: 'tok-sub',
        token_id: t.id,
        created_at: t.createdAt.toISOString().replace('.000Z', 'Z'),
        token: t.token,
      }),
    );
    const { server, requests } = await p.recordedServer();
    const answers = await Promise.all(
      states.map((s) =>
        server.readResource({ typeName: 'proxyaccount_bearer_token', currentState: dv(schema, s), private: NO_PRIVATE, clientCapabilities: undefined }),
      ),
    );
    expect(answers.flatMap((a) => a.diagnostics)).toEqual([]);
    expect(answers.map((a) => decode(schema, a.newState))).toEqual(states);
    expect(countOf(requests, 'GET /api/tokens/')).toBe(1);
    expect(requests).toHaveLength(1);
  });

  it('with a token-only provider, says that tokens need username and password, and sends nothing', async () => {
    const state = await driver.create({ label: 'for-token-only' });
    const tokenEnv = { PROXYACCOUNT_USERNAME: undefined, PROXYACCOUNT_PASSWORD: undefined, PROXYACCOUNT_TOKEN: state['token'] as string };
    const { server, requests } = await p.recordedServer(tokenEnv);
    const res = await server.readResource({
      typeName: 'proxyaccount_bearer_token',
      currentState: dv(schema, state),
      private: NO_PRIVATE,
      clientCapabilities: undefined,
    });
    expect(res.diagnostics).toEqual([expect.objectContaining({ severity: 'error', summary: 'Bearer tokens need username and password' })]);
    expect(res.diagnostics[0]!.detail).toMatch(/PROXYACCOUNT_USERNAME, PROXYACCOUNT_PASSWORD/);
    expect(res.diagnostics[0]!.detail).not.toContain(state['token'] as string);
    expect(requests).toEqual([]);

    const tokenOnly = p.driver('proxyaccount_bearer_token', schema, tokenEnv);
    const { planned } = await tokenOnly.plan(null, { label: 'nope' });
    const created = await tokenOnly.apply(null, planned, { label: 'nope' });
    expect(created.state).toBeNull();
    expect(created.diagnostics).toEqual([expect.objectContaining({ summary: 'Bearer tokens need username and password' })]);
    const destroyed = await tokenOnly.apply(state, null, null);
    expect(destroyed.state).toEqual(state);
    expect(errors(destroyed.diagnostics)).toHaveLength(1);
  });

  // Last: it moves the emulator's clock forward.
  it('reads an expired token as inactive, and explains on `active` why it cannot be activated', async () => {
    const config = { label: 'short-lived', expires_at: ymd(2) };
    const state = await driver.create(config);
    await p.emu.control.advanceClock(3 * 86_400);
    const expired = (await driver.read(state))!;
    expect(expired['active']).toBe(false);
    expect(expired['expires_at']).toBe(config.expires_at);

    // The plan judges expiry by the API's clock, which has passed it: nothing to activate.
    const { planned } = await driver.plan(expired, config);
    expect(planned['active']).toBe(false);
    // A plan made without the API's clock (no answer yet, this machine's clock behind) may still
    // ask to activate it: the API's refusal becomes a diagnostic on `active`, and state stays.
    const res = await driver.apply(expired, { ...expired, active: true }, config);
    expect(res.state).toEqual(expired);
    expect(errors(res.diagnostics)).toEqual([expect.objectContaining({ summary: 'Bearer token has expired', attribute: [{ attributeName: 'active' }] })]);
    expect(res.diagnostics[0]!.detail).toMatch(new RegExp(`expired on ${config.expires_at}.*active = false.*expires_at`, 's'));
    // Saying active = false accepts the expired token as it is: nothing to change.
    const quiet = await driver.plan(expired, { ...config, active: false });
    expect(quiet.planned).toEqual(expired);
  });
});
