// What every emulated proxy shares: the emulator's one store and clock, the exit pool, the
// header names and the policy, and how proxied bytes become usage.
import type { Clock } from '../clock';
import type { Store } from '../store';
import { sameAccount, type Admitted, type HostResolver } from './admission';
import type { ExitPool } from './exits';

/** The policy and names of the emulated proxies. */
export interface ProxySettings {
  /** Operator name in the header names: `X-<operator>-Country`, `X-<operator>-IP`. */
  readonly operator: string;
  /** Proxied bytes that make one GB of usage (a divisor of 10^9). */
  readonly bytesPerGb: number;
  /** Forward to any target, not only loopback ones. */
  readonly allowAnyTarget: boolean;
  /** Open connections per proxy at most. */
  readonly maxConnections: number;
}

/** Shared by the proxies of one emulator. */
export interface ProxyContext {
  readonly store: Store;
  readonly clock: Clock;
  readonly exits: ExitPool;
  readonly settings: ProxySettings;
  readonly resolve: HostResolver;
  readonly log: (line: string) => void;
}

/** The request header that restricts the exit country, lower-case as Node reports it. */
export function countryHeader(operator: string): string {
  return `X-${operator}-Country`;
}

/** The response header that reports the exit IP. */
export function exitIpHeader(operator: string): string {
  return `X-${operator}-IP`;
}

/** Per store, the rows the proxies' usage records wrote (see accessChanges). */
const usageRows = new WeakMap<Store, number>();

/**
 * The store's change count (Store.changeCount) without the rows of the proxies' usage records: it
 * moves on every other write. Open tunnels are admitted again when it moves; traffic, which can
 * change nothing but a limit, would otherwise make every tunnel's re-admission due each time any
 * of them records 64 KiB. A tunnel checks the limits at each of its own records instead, and at
 * its re-admission every second.
 */
export function accessChanges(store: Store): number {
  return store.changeCount() - (usageRows.get(store) ?? 0);
}

/**
 * Records `bytes` proxied for an admitted request as usage of its account and, for a
 * sub-account, of its parent too. Scaled so that `bytesPerGb` bytes are one GB. False when the
 * state could not take them (the emulator is stopping).
 */
export function recordTraffic(ctx: ProxyContext, who: Admitted, bytes: number): boolean {
  if (bytes <= 0) return true;
  const scaled = bytes * (1e9 / ctx.settings.bytesPerGb);
  const now = ctx.clock.now();
  try {
    const before = ctx.store.changeCount();
    ctx.store.transaction(() => {
      // A tunnel can outlive its account (deleted, or the whole state reset, which reuses ids):
      // its bytes then belong to nobody.
      if (!sameAccount(who.account, ctx.store.accounts.byId(who.account.id))) return;
      ctx.store.accounts.recordUsage(who.account.id, scaled, now);
      if (who.parent.id !== who.account.id) ctx.store.accounts.recordUsage(who.parent.id, scaled, now);
    });
    // Only after a commit: a write rolled back still moves the count, and makes a needless check due.
    usageRows.set(ctx.store, (usageRows.get(ctx.store) ?? 0) + ctx.store.changeCount() - before);
    return true;
  } catch (err) {
    // The emulator is stopping (store closed) while a tunnel closes: nothing left to count into.
    ctx.log(`proxy: usage of ${bytes} bytes not recorded: ${err instanceof Error ? err.message : String(err)}`);
    return false;
  }
}
