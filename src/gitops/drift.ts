// `proxyaccount drift`: what a refresh-only plan says changed or vanished outside Terraform, and
// beyond Terraform, what the account holds that no resource in the state manages ("who added
// this IP?"), read through the account store: each (account, collection) once. The API cannot
// list sub-accounts, so only the parent and the sub-accounts the state names are scanned. What
// each resource manages comes from the resource-type catalogue.
import { isEphemeralTokenLabel, type AccountStore } from '../account';
import { type Catalogue, type Collection, describeType, RESOURCE_TYPES } from '../resource-types';
import { isProxyAccount, kindOf, type Plan, type StateResource } from './plan-json';

/** One attribute that changed outside Terraform. */
export interface AttributeDrift {
  readonly address: string;
  readonly attribute: string;
  readonly recorded: unknown;
  readonly live: unknown;
}

/** An object of the account no resource in the state manages. */
export interface UnmanagedObject {
  /** '(parent)' or the sub-account's username. */
  readonly account: string;
  readonly kind: 'ip' | 'hostname' | 'proxy' | 'token';
  readonly value: string;
  /** The IP's or token's label ('' when none). */
  readonly label: string;
}

/** A token past its expiry date: a state, reported on its own (never counted as drift). */
export interface ExpiredToken {
  readonly account: string;
  readonly token_id: number;
  readonly label: string;
  readonly expired_at: string;
  readonly managed: boolean;
}

/** The drift report (the JSON format of `proxyaccount drift --format json`). */
export interface DriftReport {
  readonly drifted: boolean;
  readonly changed: AttributeDrift[];
  readonly deleted: Array<{ address: string; type: string }>;
  readonly unmanaged: UnmanagedObject[];
  readonly expired_tokens: ExpiredToken[];
  /** Tokens of the ephemeral resource whose close never ran (`proxyaccount tokens prune` removes them). */
  readonly ephemeral_leftovers: UnmanagedObject[];
  /** What the scan cannot see, said every time. */
  readonly limits: string[];
}

/** Progress of the scan, for a terminal or CI log. */
export interface ScanProgress {
  start(total: number): void;
  step(account: string, collection: string): void;
  stop(): void;
}

const PARENT = '(parent)';

/** Attribute drift and out-of-band deletions of a refresh-only plan. */
export function planDrift(plan: Plan): { changed: AttributeDrift[]; deleted: Array<{ address: string; type: string }> } {
  const changed: AttributeDrift[] = [];
  const deleted: Array<{ address: string; type: string }> = [];
  for (const d of plan.drift) {
    if (d.mode !== 'managed') continue;
    const kind = kindOf(d);
    if (kind === 'delete') {
      deleted.push({ address: d.address, type: d.type });
      continue;
    }
    if (kind !== 'update') continue;
    for (const attr of new Set([...Object.keys(d.before), ...Object.keys(d.after)])) {
      if (JSON.stringify(d.before[attr] ?? null) !== JSON.stringify(d.after[attr] ?? null)) {
        changed.push({ address: d.address, attribute: attr, recorded: d.before[attr] ?? null, live: d.after[attr] ?? null });
      }
    }
    for (const attr of d.secretsChanged) changed.push({ address: d.address, attribute: attr, recorded: '(sensitive)', live: '(sensitive)' });
  }
  return { changed, deleted };
}

/** What the state manages, per account (null: the parent) and collection: the keys the scan compares live objects with. */
type Managed = Map<string | null, Map<Collection, Set<string>>>;

/**
 * Reads the state through the catalogue; a type of this provider the catalogue lacks is an error,
 * never "unmanaged". So is an owning account the state marks sensitive: its objects cannot be
 * filed under an account without showing its name, and filing them under the parent (or not
 * scanning the sub-account) would hide what the scan is for.
 */
export function managedByAccount(state: readonly StateResource[], catalogue: Catalogue = RESOURCE_TYPES): Managed {
  const out: Managed = new Map([[null, new Map()]]);
  for (const r of state) {
    if (r.mode !== 'managed' || !isProxyAccount(r.type)) continue;
    const d = describeType(catalogue, r.type);
    if (r.sensitive.has(d.ownerAttribute) || r.sensitive.has('*')) {
      throw new Error(
        `${r.address}: its ${d.ownerAttribute} is marked sensitive in the state, so the scan cannot tell which account it belongs to without showing the name. ` +
          'Pass the value through nonsensitive() where the resource sets it, or run with --no-scan to report only drift of managed objects.',
      );
    }
    if (d.shape === 'account') {
      // A sub-account is an account, not an object of one: it is scanned, with its lists.
      for (const name of d.managedKeys(r.values)) if (!out.has(name)) out.set(name, new Map());
      continue;
    }
    const owner = r.values[d.ownerAttribute];
    const username = typeof owner === 'string' ? owner : null;
    const byCollection = out.get(username) ?? new Map<Collection, Set<string>>();
    out.set(username, byCollection);
    const keys = byCollection.get(d.collection) ?? new Set<string>();
    for (const k of d.managedKeys(r.values)) keys.add(k);
    byCollection.set(d.collection, keys);
  }
  return out;
}

/** The hostnames the state manages as they are spelt, per account (the managed keys are lower-cased). */
function managedHostnameSpellings(state: readonly StateResource[], catalogue: Catalogue): Map<string | null, Set<string>> {
  const out = new Map<string | null, Set<string>>();
  for (const r of state) {
    if (r.mode !== 'managed' || !isProxyAccount(r.type)) continue;
    const d = describeType(catalogue, r.type);
    if (d.collection !== 'hostnames') continue;
    const owner = r.values[d.ownerAttribute];
    const username = typeof owner === 'string' ? owner : null;
    const names = out.get(username) ?? new Set<string>();
    out.set(username, names);
    for (const h of d.shape === 'list' ? (d.entries?.(r.values) ?? []) : [d.summarize(r.values)]) if (h !== '') names.add(h);
  }
  return out;
}

/**
 * Which live hostnames a resource manages. The provider matches a hostname ignoring case, but an
 * API may keep two spellings of one name as two entries: one managed name then stands for one live
 * spelling (the one the state spells, else the first listed), and every other spelling is an
 * object no resource manages, which the report must show.
 */
function hostnameManaged(live: readonly string[], keys: ReadonlySet<string>, spellings: ReadonlySet<string>): (hostname: string) => boolean {
  return (d) => {
    if (spellings.has(d)) return true;
    const key = d.toLowerCase();
    if (!keys.has(key)) return false;
    const variants = live.filter((x) => x.toLowerCase() === key);
    return !variants.some((x) => spellings.has(x)) && variants[0] === d;
  };
}

/** True when a declared proxy form (bare host, full domain or domain:port) stands for a listed `domain:port`. */
function proxyManaged(forms: readonly string[], listed: string): boolean {
  const domain = listed.replace(/:\d+$/, '').toLowerCase();
  return forms.some((f) => {
    const form = f.toLowerCase();
    if (form === listed.toLowerCase()) return true;
    const host = form.replace(/:\d+$/, '');
    return host.includes('.') ? host === domain : host === domain.split('.')[0];
  });
}

/** Scans every account the state manages for objects no resource manages. */
export async function scanUnmanaged(
  store: AccountStore,
  state: readonly StateResource[],
  progress: ScanProgress,
  now = Date.now(),
  catalogue: Catalogue = RESOURCE_TYPES,
): Promise<{ unmanaged: UnmanagedObject[]; expired: ExpiredToken[]; leftovers: UnmanagedObject[] }> {
  const managed = managedByAccount(state, catalogue);
  const spellings = managedHostnameSpellings(state, catalogue);
  const unmanaged: UnmanagedObject[] = [];
  const expired: ExpiredToken[] = [];
  const leftovers: UnmanagedObject[] = [];
  const keys = (username: string | null, c: Collection): ReadonlySet<string> => managed.get(username)?.get(c) ?? new Set();
  const accounts = [...managed.keys()].sort((a, b) => (a === null ? -1 : b === null ? 1 : a.localeCompare(b)));
  progress.start(accounts.length * 3 + 1);
  for (const username of accounts) {
    const name = username ?? PARENT;
    const lists = store.account(username);
    // A sub-account deleted out of band has no lists: its deletion shows as drift already.
    if (username !== null && (await store.subAccounts.find(username)) === undefined) {
      for (const c of ['IPs', 'hostnames', 'tokens']) progress.step(name, c);
      continue;
    }
    progress.step(name, 'IPs');
    const ips = keys(username, 'ips');
    for (const e of await lists.ips.list()) if (!ips.has(e.ip)) unmanaged.push({ account: name, kind: 'ip', value: e.ip, label: e.label });
    progress.step(name, 'hostnames');
    const live = await lists.hostnames.list();
    const isManaged = hostnameManaged(live, keys(username, 'hostnames'), spellings.get(username) ?? new Set());
    for (const d of live) if (!isManaged(d)) unmanaged.push({ account: name, kind: 'hostname', value: d, label: '' });
    progress.step(name, 'tokens');
    const tokens = keys(username, 'tokens');
    for (const t of await lists.tokens.list()) {
      const isManaged = tokens.has(String(t.id));
      if (t.expiresAt !== null && t.expiresAt.getTime() <= now) {
        expired.push({ account: name, token_id: t.id, label: t.label, expired_at: t.expiresAt.toISOString(), managed: isManaged });
      }
      if (isManaged) continue;
      const obj: UnmanagedObject = { account: name, kind: 'token', value: String(t.id), label: t.label };
      if (isEphemeralTokenLabel(t.label)) leftovers.push(obj);
      else unmanaged.push(obj);
    }
  }
  progress.step(PARENT, 'proxies');
  const proxies = [...keys(null, 'proxies')];
  for (const p of await store.proxies.list()) if (!proxyManaged(proxies, p)) unmanaged.push({ account: PARENT, kind: 'proxy', value: p, label: '' });
  progress.stop();
  return { unmanaged, expired, leftovers };
}

/** The limits every report states. */
export const DRIFT_LIMITS: readonly string[] = [
  'The API cannot list sub-accounts: a sub-account created outside Terraform is found only if the state names it (a resource with its username).',
  'Passwords and raw token values cannot be read back: a password changed outside Terraform is not detected.',
];

/** The whole report; drift = anything changed, deleted, unmanaged or left over. */
export function driftReport(parts: {
  changed: AttributeDrift[];
  deleted: Array<{ address: string; type: string }>;
  unmanaged: UnmanagedObject[];
  expired: ExpiredToken[];
  leftovers: UnmanagedObject[];
  scanned: boolean;
}): DriftReport {
  const limits = parts.scanned
    ? [...DRIFT_LIMITS]
    : ['The unmanaged-object scan did not run (--no-scan): only drift of managed objects is reported.', ...DRIFT_LIMITS];
  return {
    drifted: parts.changed.length + parts.deleted.length + parts.unmanaged.length + parts.leftovers.length > 0,
    changed: parts.changed,
    deleted: parts.deleted,
    unmanaged: parts.unmanaged,
    expired_tokens: parts.expired,
    ephemeral_leftovers: parts.leftovers,
    limits,
  };
}
