// The colleague with the dashboard: changes the account through the account store, behind Terraform's back,
// on objects the stack manages, so that the next plan must find the drift.
import type { AccountStore } from '../../account';
import type { Plan } from '../../gitops/plan-json';
import { type Catalogue, RESOURCE_TYPES } from '../../resource-types';

/** What the stack manages, as far as the out-of-band change needs to know. */
export interface ManagedObjects {
  /** Sub-accounts with their monthly limit (GB, 0 = unlimited). */
  readonly subAccounts: ReadonlyArray<{ readonly username: string; readonly monthlyLimit: number }>;
  /** Sub-accounts whose whole IP list Terraform owns (an extra IP is drift). */
  readonly ipListOwners: readonly string[];
  /** Tokens of sub-accounts declared active, by owner and label. */
  readonly tokens: ReadonlyArray<{ readonly username: string; readonly label: string }>;
}

/** Reads the managed objects from the first plan's planned creations, by what the catalogue says each type is. */
export function managedObjects(plan: Plan, catalogue: Catalogue = RESOURCE_TYPES): ManagedObjects {
  const subAccounts: Array<{ username: string; monthlyLimit: number }> = [];
  const ipListOwners: string[] = [];
  const tokens: Array<{ username: string; label: string }> = [];
  for (const c of plan.changes) {
    const v = c.after;
    const d = catalogue.get(c.type);
    if (d === undefined || typeof v.username !== 'string') continue;
    if (d.shape === 'account') {
      subAccounts.push({ username: v.username, monthlyLimit: typeof v.monthly_limit === 'number' ? v.monthly_limit : 0 });
    } else if (d.shape === 'list' && d.collection === 'ips') {
      ipListOwners.push(v.username);
    } else if (d.shape === 'entry' && d.collection === 'tokens' && typeof v.label === 'string' && v.active !== false) {
      tokens.push({ username: v.username, label: v.label });
    }
  }
  return { subAccounts, ipListOwners, tokens };
}

/** The documentation range 203.0.113.0/24 (RFC 5737), from the top, so it rarely meets a roster's own. */
function freeIp(taken: readonly string[]): string {
  for (let host = 254; host > 0; host--) {
    const ip = `203.0.113.${host}`;
    if (!taken.includes(ip)) return ip;
  }
  throw new Error('no free address left in 203.0.113.0/24 for the out-of-band change');
}

/**
 * Makes up to three changes a colleague could make in a dashboard: an extra IP on an
 * authoritative list, a deactivated token, a raised monthly limit. Returns one sentence per change.
 */
export async function changeOutOfBand(store: AccountStore, managed: ManagedObjects, opts: { readonly canManageTokens: boolean }): Promise<string[]> {
  const done: string[] = [];

  const ipOwner = managed.ipListOwners[0];
  if (ipOwner !== undefined) {
    const ips = store.account(ipOwner).ips;
    const ip = freeIp((await ips.fresh()).map((e) => e.ip));
    const label = 'added in the dashboard';
    await ips.add(ip, label);
    done.push(`added IP ${ip} ("${label}") to ${ipOwner}`);
  }

  const token = opts.canManageTokens ? managed.tokens[0] : undefined;
  if (token !== undefined) {
    const tokens = store.account(token.username).tokens;
    const found = (await tokens.fresh()).find((t) => t.label === token.label && t.isActive);
    if (found === undefined) throw new Error(`token "${token.label}" of ${token.username} is not in the account after apply, or not active`);
    await tokens.setActive(found.id, false);
    done.push(`deactivated token "${token.label}" of ${token.username}`);
  }

  // Another sub-account than the IP's when there is one, so the drift touches several accounts.
  const sub = managed.subAccounts.find((s) => s.username !== ipOwner) ?? managed.subAccounts[0];
  if (sub !== undefined) {
    const next = sub.monthlyLimit + 25;
    await store.subAccounts.edit({ username: sub.username, monthlyLimit: next });
    const was = sub.monthlyLimit === 0 ? 'unlimited' : `${sub.monthlyLimit} GB`;
    done.push(`changed the monthly limit of ${sub.username} from ${was} to ${next} GB`);
  }

  if (done.length === 0) throw new Error('the stack manages no sub-account, so there is nothing to change out of band');
  return done;
}
