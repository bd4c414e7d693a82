// The API's clock decides whether a token has expired: the provider reads the `Date` header of
// the API's answers and judges expiry by it, not by this machine's clock. Both disagreements are
// played against the emulator, one provider server per command as Terraform runs it (refresh,
// then plan, then apply).
import { bearerTokenResource } from '../../src/provider/resources/bearer-token';
import { startEmulatedProvider, type EmulatedProvider } from './emulated-provider';
import { ResourceDriver } from './terraform-sim';

let p: EmulatedProvider;
const DAY_MS = 86_400_000;
const ymd = (days: number): string => new Date(Date.now() + days * DAY_MS).toISOString().slice(0, 10);
const warnings = (diags: ReadonlyArray<{ severity: string; summary: string }>) => diags.filter((d) => d.severity === 'warning').map((d) => d.summary);

beforeAll(async () => {
  p = await startEmulatedProvider();
});

beforeEach(async () => {
  await p.emu.control.reset();
});

afterAll(async () => {
  jest.restoreAllMocks();
  await p?.close();
});

/** A driver whose steps share one provider server, as one terraform command does. */
async function oneCommand(): Promise<ResourceDriver> {
  const server = await p.newServer();
  return new ResourceDriver(async () => server, bearerTokenResource.typeName, bearerTokenResource.schema);
}

describe('the API clock past a token expiry, this machine not', () => {
  it('plans nothing for the expired token (no active = false -> true) and warns why', async () => {
    const config = { label: 'api-expired', expires_at: ymd(2) };
    const state = await p.driver(bearerTokenResource.typeName, bearerTokenResource.schema).create(config);
    await p.emu.control.advanceClock(3 * 86_400);
    const plan = await oneCommand();
    const refreshed = (await plan.read(state))!;
    expect(refreshed['active']).toBe(false);
    const { planned, diagnostics } = await plan.plan(refreshed, config);
    expect(planned).toEqual(refreshed);
    expect(warnings(diagnostics)).toEqual(['Bearer token has expired']);
  });
});

describe('this machine past a token expiry, the API clock not', () => {
  it('activates the token as configured: the API says it has not expired', async () => {
    const config = { label: 'local-expired', expires_at: ymd(2), active: false };
    const state = await p.driver(bearerTokenResource.typeName, bearerTokenResource.schema).create(config);
    const now = Date.now();
    const clock = jest.spyOn(Date, 'now').mockReturnValue(now + 3 * DAY_MS);
    try {
      const command = await oneCommand();
      const refreshed = (await command.read(state))!;
      expect(refreshed['active']).toBe(false);
      const wanted = { ...config, active: true };
      const { planned, diagnostics } = await command.plan(refreshed, wanted);
      expect(planned['active']).toBe(true);
      expect(warnings(diagnostics)).toEqual([]);
      const applied = await command.apply(refreshed, planned, wanted);
      expect(applied.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
      expect(applied.state?.['active']).toBe(true);
    } finally {
      clock.mockRestore();
    }
    const listed = (await p.admin.tokens.list()).find((t) => t.id === state['token_id']);
    expect(listed?.isActive).toBe(true);
  });
});
