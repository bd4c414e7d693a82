// The ephemeral bearer token at the RPC level: open creates a prefixed token expiring tomorrow by
// default and hands close what it needs; close deletes it even after StopProvider (Ctrl-C), and
// a close that finds it gone succeeds; a full allowance names the leftover ephemeral tokens.
import { EPHEMERAL_TOKEN_PREFIX } from '../../src/account';
import { decodeDynamicValue, encodeDynamicValue } from '../../src/protocol/codec';
import { bearerTokenEphemeral } from '../../src/provider/ephemeral-resources/bearer-token';
import { startEmulatedProvider, type EmulatedProvider } from './emulated-provider';
import { obj } from './harness';

const schema = bearerTokenEphemeral.schema;
let p: EmulatedProvider;

beforeAll(async () => {
  p = await startEmulatedProvider();
});

afterAll(async () => {
  await p?.close();
});

const tomorrow = (): string => new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);

async function open(config: Record<string, unknown>) {
  const server = await p.newServer();
  const res = await server.openEphemeralResource({
    typeName: 'proxyaccount_bearer_token',
    config: encodeDynamicValue(obj(schema, config as never), schema.type),
  });
  return { server, res, result: res.result === undefined ? undefined : (decodeDynamicValue(res.result, schema.type) as Record<string, unknown>) };
}

describe('ephemeral proxyaccount_bearer_token', () => {
  it('opens a prefixed token that expires tomorrow by default, and close after StopProvider still deletes it', async () => {
    const { server, res, result } = await open({ label: 'rpc' });
    expect(res.diagnostics).toEqual([]);
    expect(result).toMatchObject({ label: 'rpc', expires_at: tomorrow(), token: expect.stringMatching(/^pxa_/), token_id: expect.any(Number) });
    const listed = (await p.admin.tokens.list()).find((t) => t.id === result!.token_id);
    expect(listed).toMatchObject({ label: `${EPHEMERAL_TOKEN_PREFIX}rpc` });

    await server.stopProvider();
    const closed = await server.closeEphemeralResource({ typeName: 'proxyaccount_bearer_token', private: res.private });
    expect(closed.diagnostics).toEqual([]);
    expect((await p.admin.tokens.list()).some((t) => t.id === result!.token_id)).toBe(false);

    const again = await server.closeEphemeralResource({ typeName: 'proxyaccount_bearer_token', private: res.private });
    expect(again.diagnostics).toEqual([]);
  });

  it('says the allowance is reached and names the leftover ephemeral tokens', async () => {
    await p.emu.control.plan('demo', 'plan10');
    const made: number[] = [];
    try {
      for (;;) {
        const t = await p.admin.tokens.create({ label: `${EPHEMERAL_TOKEN_PREFIX}left-${made.length}` }).catch(() => undefined);
        if (t === undefined) break;
        made.push(t.id);
      }
      const { res } = await open({ label: 'one-more' });
      expect(res.diagnostics).toEqual([
        expect.objectContaining({
          summary: 'Token allowance reached',
          detail: expect.stringMatching(new RegExp(`allowance is reached.*${made.length} leftover ephemeral token\\(s\\).*tokens prune`, 's')),
        }),
      ]);
    } finally {
      for (const id of made) await p.admin.tokens.delete({ id });
      await p.emu.control.plan('demo', 'plan20');
    }
  });
});
