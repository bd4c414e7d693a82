// Issue 8's problems, each reproduced at the provider's RPC level against a real emulator: a
// new authoritative list shows what it removes; an expired token is a state, not drift; a plan
// without tokens keeps state on read and lets destroy finish; state is checked before it is
// trusted; values that used to fail only at apply fail at plan time with a message that names
// the problem; `insecure` warns.
import { authorizedIpResource } from '../../src/provider/resources/authorized-ip';
import { authorizedIpsResource } from '../../src/provider/resources/authorized-ips';
import { bearerTokenResource } from '../../src/provider/resources/bearer-token';
import { subAccountResource } from '../../src/provider/resources/sub-account';
import { createProviderServer } from '../../src/provider/provider';
import { startEmulatedProvider, type EmulatedProvider } from './emulated-provider';
import { dv, errors, jsonState, obj } from './harness';
import { StepFailed } from './terraform-sim';

let p: EmulatedProvider;
const DAY_MS = 86_400_000;
const ymd = (days: number): string => new Date(Date.now() + days * DAY_MS).toISOString().slice(0, 10);
const warnings = (diags: ReadonlyArray<{ severity: string }>) => diags.filter((d) => d.severity === 'warning');

beforeAll(async () => {
  p = await startEmulatedProvider();
  await p.admin.subAccounts.create({ username: 'rel-sub' });
  await p.admin.subAccounts.create({ username: 'rel-other' });
});

afterAll(async () => {
  jest.restoreAllMocks();
  await p?.close();
});

describe('an authoritative list created over an account that has entries', () => {
  it('shows every entry the apply will remove, as a warning and in removed_entries, before anything is removed', async () => {
    await p.admin.ips.add({ ip: '198.51.100.10', label: 'by hand', username: 'rel-sub' });
    await p.admin.ips.add({ ip: '198.51.100.11', username: 'rel-sub' });
    const driver = p.driver('proxyaccount_authorized_ips', authorizedIpsResource.schema);
    const config = {
      username: 'rel-sub',
      entries: [
        { ip: '198.51.100.11', label: null },
        { ip: '203.0.113.9', label: null },
      ],
    };
    const { planned, diagnostics } = await driver.plan(null, config);
    expect(planned['removed_entries']).toEqual(['198.51.100.10 (by hand)']);
    const [warning, ...rest] = warnings(diagnostics);
    expect(rest).toEqual([]);
    expect(warning).toMatchObject({ summary: expect.stringMatching(/removes 1 entry not declared/), attribute: [{ attributeName: 'entries' }] });
    expect((warning as unknown as { detail: string }).detail).toMatch(/198\.51\.100\.10 \(by hand\).*import the list first/s);
    // Planning sent no write: the entry is still there.
    expect((await p.admin.ips.listWithLabels({ username: 'rel-sub' })).map((e) => e.ip)).toContain('198.51.100.10');
  });
});

describe('a new authoritative list whose account cannot be read at plan time', () => {
  it('fails the plan instead of planning no removals (an empty removed_entries would hide them)', async () => {
    await p.admin.ips.add({ ip: '198.51.100.20', label: 'kept by hand', username: 'rel-other' });
    const driver = p.driver('proxyaccount_authorized_ips', authorizedIpsResource.schema);
    // A failure the client does not retry (a 503 would be retried first, then fail the same way).
    await p.emu.control.fault({ path: '/api/ip_labels/', status: 403, count: 1 });
    const failed = await driver.plan(null, { username: 'rel-other', entries: [{ ip: '203.0.113.20', label: null }] }).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(failed).toBeInstanceOf(StepFailed);
    // The API's error with its facts, not an internal error.
    expect((failed as StepFailed).diagnostics).toEqual([
      expect.objectContaining({ severity: 'error', summary: 'Unable to plan authorized IP list', detail: expect.stringMatching(/403/) }),
    ]);
    expect(JSON.stringify((failed as StepFailed).diagnostics)).not.toMatch(/bug in the provider|Internal provider error/);
    expect((await p.admin.ips.listWithLabels({ username: 'rel-other' })).map((e) => e.ip)).toEqual(['198.51.100.20']);
  });

  it('still plans a list for a sub-account this apply creates (404 at plan time: nothing to remove)', async () => {
    const driver = p.driver('proxyaccount_authorized_ips', authorizedIpsResource.schema);
    const { planned, diagnostics } = await driver.plan(null, { username: 'rel-not-yet', entries: [{ ip: '203.0.113.21', label: null }] });
    expect(errors(diagnostics)).toEqual([]);
    expect(planned['removed_entries']).toEqual([]);
  });
});

describe('an expired bearer token', () => {
  it('stays as it is in the plan, with a warning naming the token and the date, instead of planning active = true forever', async () => {
    const driver = p.driver('proxyaccount_bearer_token', bearerTokenResource.schema);
    const config = { label: 'expiring', expires_at: ymd(2) };
    const state = await driver.create(config);
    await p.emu.control.advanceClock(3 * 86_400);
    const refreshed = (await driver.read(state))!;
    expect(refreshed['active']).toBe(false);
    // The plan runs when the date has passed on this machine's clock too.
    const now = Date.now();
    const clock = jest.spyOn(Date, 'now').mockReturnValue(now + 3 * DAY_MS);
    try {
      const { planned, diagnostics } = await driver.plan(refreshed, config);
      expect(planned).toEqual(refreshed);
      expect(warnings(diagnostics)).toEqual([
        expect.objectContaining({
          summary: 'Bearer token has expired',
          detail: expect.stringMatching(new RegExp(`'expiring'.*expired on ${config.expires_at}.*set a later expires_at`, 's')),
        }),
      ]);
      // Rotation is one obvious change: a later expires_at replaces the token.
      const rotated = await driver.plan(refreshed, { ...config, expires_at: ymd(30) });
      expect(rotated.requiresReplace).toEqual([[{ attributeName: 'expires_at' }]]);
    } finally {
      clock.mockRestore();
    }
  });

  it('refuses an expires_at that is not after today at plan time', async () => {
    const driver = p.driver('proxyaccount_bearer_token', bearerTokenResource.schema);
    const failure = await driver
      .plan(null, { label: 'late', expires_at: ymd(-1) })
      .catch((e: unknown) => e as { diagnostics: Array<{ summary: string; detail: string }> });
    expect(failure).toMatchObject({
      diagnostics: [expect.objectContaining({ summary: 'Expiry date not in the future', detail: expect.stringMatching(/is not after today/) })],
    });
  });
});

describe('an account moved to a plan without bearer tokens', () => {
  it('keeps token state on refresh with a warning, and lets destroy finish, instead of failing on 402', async () => {
    const owner = 'rel-free';
    await p.admin.subAccounts.create({ username: owner });
    const driver = p.driver('proxyaccount_bearer_token', bearerTokenResource.schema);
    const state = await driver.create({ label: 'on-free', username: owner });
    await p.emu.control.plan('demo', 'trial');
    try {
      const server = await p.newServer();
      const read = await server.readResource({
        typeName: 'proxyaccount_bearer_token',
        currentState: dv(bearerTokenResource.schema, state),
        private: new Uint8Array(),
      });
      expect(errors(read.diagnostics)).toEqual([]);
      expect(warnings(read.diagnostics)).toEqual([expect.objectContaining({ summary: "The account's plan does not allow bearer tokens" })]);
      const destroyed = await driver.apply(state, null, null);
      expect(errors(destroyed.diagnostics)).toEqual([]);
      expect(destroyed.state).toBeNull();
    } finally {
      await p.emu.control.plan('demo', 'plan20');
    }
    // The API answers 402 for token create and list only: the delete itself went through.
    expect((await p.admin.tokens.list({ username: owner })).map((t) => t.id)).not.toContain(state['token_id']);
  });
});

describe('stored state is checked, not trusted', () => {
  it('refuses to act on a sub-account whose username was edited to another managed one, and the other survives', async () => {
    const driver = p.driver('proxyaccount_sub_account', subAccountResource.schema);
    const mine = await driver.create({ username: 'rel-mine' });
    const edited = { ...mine, username: 'rel-other' };
    const destroyed = await driver.apply(edited, null, null);
    expect(destroyed.state).toEqual(edited);
    expect(errors(destroyed.diagnostics)).toEqual([
      expect.objectContaining({
        summary: 'Inconsistent sub-account state',
        attribute: [{ attributeName: 'username' }],
        detail: expect.stringMatching(/nothing was sent to the API.*terraform state rm/s),
      }),
    ]);
    await expect(p.admin.subAccounts.get('rel-other')).resolves.toMatchObject({ username: 'rel-other' });
    await expect(p.admin.subAccounts.get('rel-mine')).resolves.toMatchObject({ username: 'rel-mine' });
  });

  it.each([-1, 1e30])('keeps a token whose token_id is %p in state with an error, instead of dropping it and planning a second one', async (bad) => {
    const driver = p.driver('proxyaccount_bearer_token', bearerTokenResource.schema);
    const state = await driver.create({ label: `bad-id-${String(bad)}` });
    const corrupted = { ...state, token_id: bad };
    const server = await p.newServer();
    const read = await server.readResource({
      typeName: 'proxyaccount_bearer_token',
      currentState: dv(bearerTokenResource.schema, corrupted),
      private: new Uint8Array(),
    });
    expect(errors(read.diagnostics)).toEqual([
      expect.objectContaining({ summary: 'Inconsistent bearer token state', attribute: [{ attributeName: 'token_id' }] }),
    ]);
    expect(read.newState).toEqual(dv(bearerTokenResource.schema, corrupted));
  });

  it('blames a value of the wrong type on the stored state and names the attribute, not the provider', async () => {
    const server = await p.newServer();
    const raw = new TextEncoder().encode(
      JSON.stringify({
        ...JSON.parse(new TextDecoder().decode(jsonState(subAccountResource.schema, obj(subAccountResource.schema, { id: 'x', username: 'x' })))),
        monthly_limit: 'lots',
      }),
    );
    const res = await server.upgradeResourceState({ typeName: 'proxyaccount_sub_account', version: 0, rawState: { json: raw } });
    expect(res.diagnostics).toEqual([
      expect.objectContaining({
        summary: 'Invalid value in stored state',
        attribute: [{ attributeName: 'monthly_limit' }],
        detail: expect.not.stringMatching(/bug in the provider/),
      }),
    ]);
    expect(res.diagnostics[0]!.detail).toMatch(/state file.*monthly_limit/s);
  });
});

describe('values that used to fail only at apply', () => {
  it.each([
    [{ username: 'lim', monthly_limit: 1e20 }, 'monthly_limit', /must be at most 999999999999999/],
    // biome-ignore lint/correctness/noPrecisionLoss: the point: 2^53 + 1 is what a user may write, and a JS number cannot hold it.
    [{ username: 'lim', total_limit: 9007199254740993 }, 'total_limit', /must be at most 999999999999999/],
  ])('refuses %p at validation, on %s', async (config, attribute, message) => {
    const diags = errors(await p.driver('proxyaccount_sub_account', subAccountResource.schema).validate(config));
    expect(diags).toEqual([expect.objectContaining({ attribute: [{ attributeName: attribute }], detail: expect.stringMatching(message) })]);
  });

  it.each([
    ['2026-02-30', /February 2026 has 28 days/],
    ['2026-13-01', /month 13 does not exist/],
  ])('says why %s is not a date', async (date, message) => {
    const diags = errors(await p.driver('proxyaccount_bearer_token', bearerTokenResource.schema).validate({ label: 'x', expires_at: date }));
    expect(diags).toEqual([expect.objectContaining({ detail: expect.stringMatching(message) })]);
  });

  it.each([
    ['010.0.0.1', /"010" has a leading zero \(write 10\)/],
    ['10.0.0.0/8', /CIDR range is not accepted/],
    ['2001:db8::1', /IPv6 addresses are not accepted/],
    ['10.0.0', /3 dot-separated parts instead of 4/],
  ])('names the problem with the IPv4 address %s', async (ip, message) => {
    const ipDiags = errors(await p.driver('proxyaccount_authorized_ip', authorizedIpResource.schema).validate({ ip }));
    expect(ipDiags).toEqual([expect.objectContaining({ attribute: [{ attributeName: 'ip' }], detail: expect.stringMatching(message) })]);
  });

  it('answers PROXYACCOUNT_REQUEST_TIMEOUT=1e9 in seconds, at configure', async () => {
    const server = createProviderServer({ env: { ...p.env, PROXYACCOUNT_REQUEST_TIMEOUT: '1e9' } });
    const { encodeDynamicValue } = await import('../../src/protocol/codec');
    const { createProvider } = await import('../../src/provider/provider');
    const schema = createProvider().schema;
    const res = await server.configureProvider({ terraformVersion: '1.11.4', config: encodeDynamicValue(obj(schema, {}), schema.type) });
    expect(errors(res.diagnostics)).toEqual([
      expect.objectContaining({
        attribute: [{ attributeName: 'request_timeout' }],
        detail: expect.stringMatching(/PROXYACCOUNT_REQUEST_TIMEOUT must be a number of seconds greater than 0 and at most 3600/),
      }),
    ]);
    expect(JSON.stringify(res.diagnostics)).not.toMatch(/timeoutMs|milli/);
  });

  it('warns when TLS verification is off', async () => {
    const server = createProviderServer({ env: { ...p.env, PROXYACCOUNT_INSECURE: 'true', PROXYACCOUNT_CA_CERT_FILE: '' } });
    const { encodeDynamicValue } = await import('../../src/protocol/codec');
    const { createProvider } = await import('../../src/provider/provider');
    const schema = createProvider().schema;
    const res = await server.configureProvider({ terraformVersion: '1.11.4', config: encodeDynamicValue(obj(schema, {}), schema.type) });
    expect(res.diagnostics).toEqual([
      expect.objectContaining({ severity: 'warning', summary: 'TLS certificate verification is off', attribute: [{ attributeName: 'insecure' }] }),
    ]);
  });
});
