// A JSON view of the whole emulator state for tests and demos (GET /_emulator/state). It holds no
// password, password hash, raw token or token hash.
import type { BanList } from './auth';
import { formatIso } from './clock';
import type { FaultList } from './faults';
import { accountDetails } from './routes/subaccounts';
import { tokenMetadata } from './routes/tokens';
import { currentPeriodStart, type Account, type Store } from './store';

function accessOf(store: Store, account: Account, now: number): Record<string, unknown> {
  return {
    ips: store.access.ips(account.id),
    hostnames: store.access.hostnames(account.id),
    tokens: store.tokens.list(account.id).map((t) => tokenMetadata(t, now)),
  };
}

/** Builds the state dump. */
export function snapshot(store: Store, bans: BanList, faults: FaultList, now: number, clockOffsetMs: number): unknown {
  return {
    now: formatIso(now),
    clockOffsetSeconds: clockOffsetMs / 1000,
    accounts: store.accounts.parents().map((parent) => ({
      ...accountDetails(store, parent, now),
      plan: parent.plan,
      subAccountLimit: parent.subAccountLimit,
      billingPeriodStart: formatIso(currentPeriodStart(parent.periodAnchor, now)),
      ...accessOf(store, parent, now),
      proxies: store.access.proxies(parent.id),
      subAccounts: store.accounts.subAccounts(parent.id).map((sub) => ({ ...accountDetails(store, sub, now), ...accessOf(store, sub, now) })),
    })),
    bans: bans.snapshot().map((b) => ({ address: b.address, until: formatIso(b.until) })),
    faults: faults.snapshot(),
  };
}
