// The API's clock decides expiry, with the real terraform: the emulator's clock is moved past a
// token's expiry while this machine's clock is not. The emulator dates its answers by its own
// clock, the provider judges "expired" by that date, so the plan is empty (no active = false ->
// true that the API would refuse) and the apply succeeds.
import { useAccount } from './helpers/account';

jest.setTimeout(180_000);

const account = useAccount({ resetEach: false });

const ymd = (days: number): string => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);

describe('a token the API says has expired, on a runner whose clock says it has not', () => {
  it('plans nothing and applies cleanly, warning that the token has expired', async () => {
    const ws = await account.workspace();
    ws.config(`
resource "proxyaccount_bearer_token" "ci" {
  label      = "clock"
  expires_at = "${ymd(2)}"
}
`);
    await ws.apply();
    await account.em.control.advanceClock(3 * 86_400);
    const [token] = await account.client.tokens.list();
    expect(token?.isActive).toBe(false);
    const plan = await ws.planExitCode();
    expect(plan.code).toBe(0);
    expect(plan.stdout).toMatch(/Bearer token has expired/);
    expect(plan.stdout).not.toMatch(/active\s+= false -> true/);
    const apply = await ws.apply();
    expect(apply.stdout).toMatch(/0 added, 0 changed, 0 destroyed|No changes/);
  });
});
