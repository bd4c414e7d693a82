// The ephemeral bearer token at the RPC level: open creates a prefixed token expiring tomorrow by
// default and hands close what it needs; close deletes it even after StopProvider (Ctrl-C), and
// a close that finds it gone succeeds; a full allowance names the leftover ephemeral tokens. A
// token Terraform never closed (a failed run skips close) is deleted at Shutdown, one whose create
// is still in flight then too, and a delete the API failed is sent again; a token that may remain
// is named, with its expiry and the commands that report and delete it.
import { request } from 'undici';
import { AccountStore, EPHEMERAL_TOKEN_PREFIX, type StoreClient } from '../../src/account';
import { decodeDynamicValue, encodeDynamicValue } from '../../src/protocol/codec';
import type { ProviderServer } from '../../src/protocol/types';
import { bearerTokenEphemeral, openTokenCount } from '../../src/provider/ephemeral-resources/bearer-token';
import { FrameworkServer } from '../../src/provider/framework';
import { createProvider, type ProxyAccountServer } from '../../src/provider/provider';
import type { BearerToken } from '../../src/sdk';
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

const DAY_MS = 86_400_000;
const ymd = (ms: number): string => new Date(ms).toISOString().slice(0, 10);
const tomorrow = (): string => ymd(Date.now() + DAY_MS);

async function open(config: Record<string, unknown>, server?: ProxyAccountServer) {
  server ??= await p.newServer();
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
    expect(result).toMatchObject({ label: 'rpc', token: expect.stringMatching(/^pxa_/), token_id: expect.any(Number) });
    // Tomorrow; the day after in the last minutes before midnight (UTC).
    expect([tomorrow(), ymd(Date.now() + 2 * DAY_MS)]).toContain(result!['expires_at']);
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

describe('ephemeral proxyaccount_bearer_token that Terraform does not close', () => {
  /** The release the server runs at Shutdown (src/protocol/server.ts), as createProviderServer wires it. */
  const release = async (server: ProviderServer, withinMs: number, log: (message: string) => void): Promise<void> => {
    if (server.releaseOnShutdown === undefined) throw new Error('the provider server has no release hook');
    await server.releaseOnShutdown(withinMs, log);
  };
  const exists = async (id: unknown): Promise<boolean> => (await p.admin.tokens.list()).some((t) => t.id === id);

  it('is deleted at Shutdown, after StopProvider too, and a close that comes later finds it gone', async () => {
    const { server, res, result } = await open({ label: 'failed-run' });
    expect(res.diagnostics).toEqual([]);
    expect(await exists(result!['token_id'])).toBe(true);
    // A failed run: Terraform stops the provider, skips close, then shuts it down.
    await server.stopProvider();
    const logged: string[] = [];
    await release(server, 1_500, (m) => logged.push(m));
    expect(logged).toEqual([]);
    expect(await exists(result!['token_id'])).toBe(false);
    expect(openTokenCount()).toBe(0);
    const closed = await server.closeEphemeralResource({ typeName: 'proxyaccount_bearer_token', private: res.private });
    expect(closed.diagnostics).toEqual([]);
  });

  it('is deleted at Shutdown when its create was still in flight: the release waits for the answer', async () => {
    const { server, requests } = await p.recordedServer();
    // The create is answered only after the release has started.
    await p.emu.control.fault({ path: '/api/token/create/', method: 'POST', delayMs: 500, count: 1 });
    const opening = open({ label: 'in-flight' }, server);
    while (!requests.includes('POST /api/token/create/')) await new Promise((resolve) => setTimeout(resolve, 5));
    const logged: string[] = [];
    await release(server, 5_000, (m) => logged.push(m));
    const { res, result } = await opening;
    expect(res.diagnostics).toEqual([]);
    expect(logged).toEqual([]);
    expect(await exists(result!['token_id'])).toBe(false);
    expect(openTokenCount()).toBe(0);
  });

  it('is deleted at Shutdown after a delete the API failed (a 5xx): the delete is sent again', async () => {
    const { server, result } = await open({ label: 'delete-503' });
    await p.emu.control.fault({ path: '/api/token/delete/', method: 'POST', status: 503, count: 1 });
    const logged: string[] = [];
    try {
      await release(server, 5_000, (m) => logged.push(m));
      expect(logged).toEqual([]);
      expect(await exists(result!['token_id'])).toBe(false);
    } finally {
      await clearFaults();
    }
  });

  it('a delete that keeps failing until the time is up is logged with the token id, its expiry, drift and tokens prune, never its value', async () => {
    const { server, result } = await open({ label: 'delete-fails' });
    await p.emu.control.fault({ path: '/api/token/delete/', method: 'POST', status: 503, count: 50 });
    const logged: string[] = [];
    try {
      await release(server, 500, (m) => logged.push(m));
      expect(logged).toEqual([expect.stringContaining(`ephemeral bearer token ${String(result!['token_id'])} not deleted at shutdown (`)]);
      expect(logged[0]).toContain(
        `Bearer token ${String(result!['token_id'])} may remain active until it expires on ${String(result!['expires_at'])} (UTC, on the API's clock). \`proxyaccount drift\` reports it; \`proxyaccount tokens prune\` deletes it`,
      );
      expect(logged[0]).not.toContain(String(result!['token']));
      expect(await exists(result!['token_id'])).toBe(true);
    } finally {
      await clearFaults();
      // Still open: a later release deletes it (and leaves nothing open for the next tests).
      await release(server, 5_000, () => {});
    }
    expect(await exists(result!['token_id'])).toBe(false);
  });

  it('is not deleted again at Shutdown once close has run', async () => {
    const { server, res } = await open({ label: 'closed-run' });
    await server.closeEphemeralResource({ typeName: 'proxyaccount_bearer_token', private: res.private });
    expect(openTokenCount()).toBe(0);
  });

  it('a failing close names the token, its expiry, drift and tokens prune, never its value', async () => {
    const { server, res, result } = await open({ label: 'close-fails' });
    await p.emu.control.fault({ path: '/api/token/delete/', status: 500, count: 10 });
    try {
      const closed = await server.closeEphemeralResource({ typeName: 'proxyaccount_bearer_token', private: res.private });
      expect(closed.diagnostics).toEqual([
        expect.objectContaining({
          severity: 'error',
          summary: 'Unable to close ephemeral bearer token',
          detail: expect.stringContaining(
            `Bearer token ${String(result!['token_id'])} may remain active until it expires on ${String(result!['expires_at'])} (UTC, on the API's clock). \`proxyaccount drift\` reports it; \`proxyaccount tokens prune\` deletes it`,
          ),
        }),
      ]);
      expect(JSON.stringify(closed.diagnostics)).not.toContain(String(result!['token']));
      expect(await exists(result!['token_id'])).toBe(true);
    } finally {
      await clearFaults();
      await p.admin.tokens.delete({ id: Number(result!['token_id']) });
    }
  });

  it('an open whose answer is lost and whose read-back fails names the label, the expiry, drift and tokens prune', async () => {
    const before = new Set((await p.admin.tokens.list()).map((t) => t.id));
    // A first open and close tell this server the API's clock: the next open reads no listing for it.
    const first = await open({ label: 'lost-first' });
    await first.server.closeEphemeralResource({ typeName: 'proxyaccount_bearer_token', private: first.res.private });
    const server = first.server;
    // The listing read right before the create is served; the create's answer is lost; every read-back fails.
    await p.emu.control.fault({ path: '/api/tokens/', method: 'GET', pass: true, count: 1 });
    await p.emu.control.fault({ path: '/api/token/create/', method: 'POST', dropResponse: true, count: 1 });
    await p.emu.control.fault({ path: '/api/tokens/', method: 'GET', status: 503, count: 50 });
    try {
      const { res } = await open({ label: 'lost', expires_at: ymd(Date.now() + 3 * DAY_MS) }, server);
      expect(res.diagnostics).toEqual([
        expect.objectContaining({
          severity: 'error',
          detail: expect.stringContaining(
            `A bearer token labelled '${EPHEMERAL_TOKEN_PREFIX}lost' may remain active until it expires on ${ymd(Date.now() + 3 * DAY_MS)} (UTC, on the API's clock). \`proxyaccount drift\` reports it; \`proxyaccount tokens prune\` deletes it`,
          ),
        }),
      ]);
    } finally {
      await clearFaults();
      for (const t of await p.admin.tokens.list()) if (!before.has(t.id)) await p.admin.tokens.delete({ id: t.id });
    }
  });
});

/** Removes every pending fault (the control API's DELETE /_emulator/faults). */
async function clearFaults(): Promise<void> {
  const res = await request(`${p.emu.url}/_emulator/faults`, {
    method: 'DELETE',
    dispatcher: p.emu.dispatcher,
    headers: { authorization: `Bearer ${p.emu.adminToken}` },
  });
  await res.body.dump();
}

/** A provider whose account is `client`, configured as Terraform does. */
async function providerOver(client: StoreClient): Promise<ProxyAccountServer> {
  const server: ProxyAccountServer = new FrameworkServer({ ...createProvider({ env: {} }), configure: async () => new AccountStore(client) });
  const providerSchema = createProvider().schema;
  const res = await server.configureProvider({ terraformVersion: '1.11.4', config: encodeDynamicValue(obj(providerSchema, {}), providerSchema.type) });
  if (res.diagnostics.length > 0) throw new Error(JSON.stringify(res.diagnostics));
  return server;
}

/**
 * An account whose API's clock reads `apiTime`, told by its answers: unknown until the first
 * request, as in a process that has sent none. Creates record the expiry they were sent.
 */
function accountAt(apiTime: string) {
  const sent: Array<string | undefined> = [];
  let answered = false;
  const tokens: BearerToken[] = [];
  const client = {
    serverNow: () => (answered ? new Date(apiTime) : undefined),
    tokens: {
      list: async () => {
        answered = true;
        return [...tokens];
      },
      create: async (input: { label?: string; expiresAt?: string }) => {
        answered = true;
        sent.push(input.expiresAt);
        const t = { id: tokens.length + 1, label: input.label ?? '', isActive: true, expiresAt: null, createdAt: new Date(0) };
        tokens.push(t);
        return { ...t, token: `pxa_fake${t.id}` };
      },
    },
  } as unknown as StoreClient;
  return { client, sent };
}

describe("ephemeral proxyaccount_bearer_token on the API clock, not this machine's", () => {
  afterEach(() => {
    jest.restoreAllMocks();
  });

  it.each([
    ['midday', '2031-05-10T12:00:00Z', '2031-05-11'],
    ['four minutes before its midnight (the create may arrive on its next day)', '2031-05-10T23:56:00Z', '2031-05-12'],
  ])("defaults to the day after the API's date at %s, even when the first answer comes from open itself", async (_when, apiTime, expected) => {
    // This machine believes it is days earlier.
    jest.spyOn(Date, 'now').mockReturnValue(Date.parse('2031-05-01T12:00:00Z'));
    const account = accountAt(apiTime);
    const { res, result } = await open({ label: 'clock' }, await providerOver(account.client));
    expect(res.diagnostics).toEqual([]);
    expect(result!['expires_at']).toBe(expected);
    expect(account.sent).toEqual([expected]);
  });

  it("refuses an expires_at that is not after the API's today, sending no create", async () => {
    jest.spyOn(Date, 'now').mockReturnValue(Date.parse('2031-05-01T12:00:00Z'));
    const account = accountAt('2031-05-10T12:00:00Z');
    const { res } = await open({ label: 'clock', expires_at: '2031-05-10' }, await providerOver(account.client));
    expect(res.diagnostics).toEqual([
      expect.objectContaining({
        severity: 'error',
        summary: 'Expiry date not in the future',
        attribute: [{ attributeName: 'expires_at' }],
        detail: expect.stringMatching(/2031-05-10 is not after today \(2031-05-10, UTC, on the API's clock\)/),
      }),
    ]);
    expect(account.sent).toEqual([]);
    // A date this machine's clock would refuse is the API's to judge.
    const later = await open({ label: 'clock', expires_at: '2031-05-11' }, await providerOver(account.client));
    expect(later.res.diagnostics).toEqual([]);
    expect(account.sent).toEqual(['2031-05-11']);
  });

  // Last in this file: the emulator's clock only moves forward.
  it('opens against an emulator whose clock is two days ahead, in a process that has sent nothing yet', async () => {
    await p.emu.control.advanceClock(2 * 86_400);
    const before = await p.admin.tokens.list();
    const apiToday = ymd(p.admin.serverNow()!.getTime());
    expect(apiToday > tomorrow()).toBe(true);

    const refused = await open({ label: 'ahead', expires_at: tomorrow() });
    expect(refused.res.diagnostics).toEqual([
      expect.objectContaining({ summary: 'Expiry date not in the future', attribute: [{ attributeName: 'expires_at' }] }),
    ]);
    expect(await p.admin.tokens.list()).toEqual(before);

    const { server, res, result } = await open({ label: 'ahead' });
    expect(res.diagnostics).toEqual([]);
    const expiresAt = String(result!['expires_at']);
    expect(expiresAt > apiToday).toBe(true);
    expect(expiresAt <= ymd(Date.parse(apiToday) + 2 * DAY_MS)).toBe(true);
    const listed = (await p.admin.tokens.list()).find((t) => t.id === result!['token_id']);
    expect(listed?.expiresAt?.toISOString().slice(0, 10)).toBe(expiresAt);
    await server.closeEphemeralResource({ typeName: 'proxyaccount_bearer_token', private: res.private });
  });
});
