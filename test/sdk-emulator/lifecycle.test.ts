// State that changes with time and plans, through the SDK against a real emulator: token expiry,
// plan downgrade, usage figures and billing periods.
import { AuthenticationError, PaymentRequiredError, ValidationError } from '../../src/sdk';
import { ACME, dateInDays, useEmulator } from './setup';

const { emu, client } = useEmulator();
const DAY = 86_400;

describe('token expiry', () => {
  it('an expired token no longer authenticates and cannot be activated', async () => {
    const acme = client(ACME);
    const created = await acme.tokens.create({ label: 'short', expiresAt: dateInDays(2) });
    const bearer = client({ token: created.token });
    await expect(bearer.ips.list()).resolves.toEqual([]);

    await acme.tokens.deactivate({ id: created.id });
    await emu().control.advanceClock(3 * DAY);

    const [listed] = await acme.tokens.list();
    expect(listed.id).toBe(created.id);
    expect(listed.expiresAt?.getTime()).toBeLessThan(Date.now() + 3 * DAY * 1000);
    const refused = await acme.tokens.activate({ id: created.id }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ValidationError);
    expect(String(refused)).not.toContain(created.token);

    // A fresh client (the first one saw no 401) with the expired token is refused.
    await expect(client({ token: created.token }).ips.list()).rejects.toBeInstanceOf(AuthenticationError);
  });

  it('a deactivated token is refused, and works again after activation', async () => {
    const acme = client(ACME);
    const { id, token } = await acme.tokens.create({ label: 'toggle' });
    await acme.tokens.deactivate({ id });
    const first = client({ token });
    await expect(first.hostnames.list()).rejects.toBeInstanceOf(AuthenticationError);
    expect(first.credentialState).toBe('rejected');
    await acme.tokens.activate({ id });
    await expect(client({ token }).hostnames.list()).resolves.toEqual([]);
  });
});

describe('plan downgrade', () => {
  it('to a plan without tokens deactivates every token of the account and its sub-accounts', async () => {
    const acme = client(ACME);
    await acme.subAccounts.create({ username: 'alice' });
    const own = await acme.tokens.create({ label: 'own' });
    const subs = await acme.tokens.create({ label: 'alice', username: 'alice' });

    await emu().control.plan(ACME.username, 'trial');
    await expect(acme.tokens.list()).rejects.toBeInstanceOf(PaymentRequiredError);
    await expect(acme.tokens.create()).rejects.toBeInstanceOf(PaymentRequiredError);
    await expect(client({ token: own.token }).ips.list()).rejects.toBeInstanceOf(AuthenticationError);
    await expect(client({ token: subs.token }).ips.list()).rejects.toBeInstanceOf(AuthenticationError);

    await emu().control.plan(ACME.username, 'plan20');
    const after = await acme.tokens.list();
    expect(after).toEqual([expect.objectContaining({ id: own.id, isActive: false })]);
    await expect(acme.tokens.list({ username: 'alice' })).resolves.toEqual([expect.objectContaining({ id: subs.id, isActive: false })]);
  });
});

describe('usage figures', () => {
  it('monthly and total bandwidth, and the billing period', async () => {
    const acme = client(ACME);
    await acme.subAccounts.create({ username: 'alice', monthlyLimit: 5, totalLimit: 50 });
    await emu().control.usage('alice', 1.5);
    await emu().control.usage('alice', 0.25);
    await expect(acme.subAccounts.get('alice')).resolves.toMatchObject({
      monthlyBandwidth: 1.75,
      totalBandwidth: 1.75,
      monthlyBandwidthLimit: 5,
      totalBandwidthLimit: 50,
    });

    // The next billing period (30 days on the emulator clock) starts monthly usage afresh.
    await emu().control.advanceClock(31 * DAY);
    await emu().control.usage('alice', 2);
    const later = await acme.subAccounts.get('alice');
    expect(later.monthlyBandwidth).toBe(2);
    expect(later.totalBandwidth).toBe(3.75);
    expect(later.totalBandwidth).toBeGreaterThanOrEqual(later.monthlyBandwidth);
  });
});
