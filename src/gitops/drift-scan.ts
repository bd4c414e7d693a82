// The scan of `proxyaccount drift`: what the account holds that no resource in the state manages,
// and what the state manages that the account no longer holds, read through the account store,
// each (account, collection) once. What each resource manages comes from the resource-type
// catalogue; an object whose key only a resource of another provider configuration declares is
// held by it, never called unmanaged (see drift.ts). The second direction does not rest on the
// plan having refreshed: a plan made with -refresh=false shows no drift at all.

import { isEphemeralTokenLabel, type AccountStore } from '../account';
import { accountPhrase, type Catalogue, type Collection, describeType, RESOURCE_TYPES, type ResourceTypeDescriptor } from '../resource-types';
import { type BearerToken, isProxyAccountError } from '../sdk';
import type { AbsentObject, AttributeDrift, ExpiredToken, HeldObject, ScanProgress, UnmanagedObject } from './drift';
import { isProxyAccount, isRecord, type StateResource } from './plan-json';
import { sameText } from '../util/text';

const PARENT = '(parent)';

/** One resource whose keys the state shows, with them. */
interface KeyedResource {
  readonly address: string;
  readonly type: ResourceTypeDescriptor;
  readonly keys: readonly string[];
  /** The labels the state holds of its IPs, by IP (null: none); undefined for other collections, or where the state hides them. */
  readonly labels: ReadonlyMap<string, string | null> | undefined;
}

/** What the state manages in one collection of one account. */
interface CollectionKeys {
  /** The keys the scan compares live objects with. */
  readonly keys: Set<string>;
  /** The resources those keys come from: each of their keys must be in the live list. */
  readonly resources: KeyedResource[];
  /** Keys of objects whose label the state marks sensitive: a report that lists them (an expired token) does not show it. */
  readonly labelHidden: Set<string>;
  /** Resources whose keys the state marks sensitive: which live objects they manage cannot be read. */
  readonly hidden: Array<{ readonly address: string; readonly type: ResourceTypeDescriptor; readonly attributes: string[] }>;
}

/** What the state manages, per account (null: the parent) and collection. */
type Managed = Map<string | null, Map<Collection, CollectionKeys>>;

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
    const byCollection = out.get(username) ?? new Map<Collection, CollectionKeys>();
    out.set(username, byCollection);
    const collection = byCollection.get(d.collection) ?? emptyCollection();
    byCollection.set(d.collection, collection);
    // A sensitive key is left out of the values (a label from a sensitive variable marks a list's
    // whole set of entries): read as keys none, every object it manages would show as unmanaged,
    // with the values the state hides.
    const hidden = d.keyAttributes.filter((a) => r.sensitive.has(a));
    if (hidden.length > 0) collection.hidden.push({ address: r.address, type: d, attributes: hidden });
    else {
      const keys = d.managedKeys(r.values);
      for (const k of keys) collection.keys.add(k);
      collection.resources.push({ address: r.address, type: d, keys, labels: ipLabels(d, r) });
    }
    if (hidden.length === 0 && r.sensitive.has('label')) for (const k of d.managedKeys(r.values)) collection.labelHidden.add(k);
  }
  return out;
}

function emptyCollection(): CollectionKeys {
  return { keys: new Set(), resources: [], labelHidden: new Set(), hidden: [] };
}

/**
 * The labels an IP resource's state holds, by IP (null: none), as the provider writes them; the
 * API lists each IP with its label ("" for none), so the two compare exactly. Undefined for
 * another collection, or a label the state marks sensitive. The API cannot edit a label: one that
 * differs is an IP deleted and added again outside Terraform.
 */
function ipLabels(d: ResourceTypeDescriptor, r: StateResource): Map<string, string | null> | undefined {
  if (d.collection !== 'ips' || r.sensitive.has('label')) return undefined;
  // An entry resource holds one IP and its label; a list, entries of both.
  const entries = d.shape === 'list' ? r.values[d.keyAttributes[0] ?? ''] : [r.values];
  const out = new Map<string, string | null>();
  for (const e of Array.isArray(entries) ? entries : []) {
    if (isRecord(e) && typeof e.ip === 'string' && (e.label === null || typeof e.label === 'string')) out.set(e.ip, e.label);
  }
  return out;
}

/**
 * Why one collection of an account is not scanned, or undefined when it is: a resource there whose
 * keys the state marks sensitive. Which live objects it manages cannot be told without them, and
 * listing them all as unmanaged would be false drift showing what the state hides.
 */
function hiddenReason(username: string | null, collection: CollectionKeys): string | undefined {
  if (collection.hidden.length === 0) return undefined;
  const { type } = collection.hidden[0]!;
  const which = collection.hidden.map((h) => `the ${h.attributes.join(' and ')} of ${h.address}`).join(', ');
  const lists = collection.hidden.some((h) => h.type.shape === 'list')
    ? `; an authoritative list still shows ${type.noun.many} added outside Terraform as its own drift, or as a pending change`
    : '';
  return (
    `the ${type.noun.many} of ${accountPhrase(username)} were not checked for objects no resource manages: the state marks ${which} sensitive, ` +
    `so which of the account's ${type.noun.many} ${collection.hidden.length === 1 ? 'it manages' : 'they manage'} cannot be read without showing them${lists}`
  );
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

/** What {@link scanUnmanaged} found. */
export interface ScanResult {
  readonly unmanaged: UnmanagedObject[];
  /** Objects another configuration's resource may hold (see {@link HeldObject}). */
  readonly held: HeldObject[];
  readonly expired: ExpiredToken[];
  readonly leftovers: UnmanagedObject[];
  /** Sub-accounts the state names that the API did not find: not scanned. */
  readonly missing: string[];
  /** Objects the scanned configuration's resources manage whose key the live list lacks (lists not read are not checked). */
  readonly absent: AbsentObject[];
  /** Labels of managed IPs that differ from the state's. */
  readonly changed: AttributeDrift[];
  /** Parts of the scan that could not run, and why. */
  readonly incomplete: string[];
}

/** Resources of another provider configuration, not proven to be another account's: an object with one of their keys is held by them. */
export interface HoldingResources {
  readonly provider: string;
  /** True when the configuration is proven to use the scanned account too. */
  readonly sameAccount: boolean;
  readonly state: readonly StateResource[];
}

/** What one other configuration's resources declare, per account and collection. */
interface Holder {
  readonly provider: string;
  readonly account: HeldObject['provider_account'];
  readonly managed: Managed;
}

/** The other configuration whose resources declare a key (a proxy: the listed `domain:port`) of one collection of one account, if any. */
type HolderOf = (username: string | null, c: Collection, key: string) => Holder | undefined;

/** The tokens of one account, or the reason they could not be listed (a plan without bearer tokens answers 402). */
async function tokensOf(store: AccountStore, username: string | null): Promise<readonly BearerToken[] | string> {
  try {
    return await store.account(username).tokens.list();
  } catch (err) {
    if (!isProxyAccountError(err, 'ERR_PAYMENT_REQUIRED')) throw err;
    return (
      `the tokens of ${accountPhrase(username)} could not be listed (${err.message}): the account's plan has no bearer tokens, ` +
      'so tokens it holds from before (a downgrade deactivates them) are not shown'
    );
  }
}

/**
 * Scans every account the state manages for objects no resource manages. Token expiry is judged on
 * the API's clock (its answers' `Date`, read after the tokens are listed) unless `now` is given.
 * `holding`: other configurations' resources whose keys set an object apart as held, never
 * unmanaged; their sub-accounts are not looked up (they may be another account's).
 */
export async function scanUnmanaged(
  store: AccountStore,
  state: readonly StateResource[],
  progress: ScanProgress,
  now?: number,
  catalogue: Catalogue = RESOURCE_TYPES,
  holding: readonly HoldingResources[] = [],
): Promise<ScanResult> {
  const managed = managedByAccount(state, catalogue);
  const holders: Holder[] = holding.map((h) => ({
    provider: h.provider,
    account: h.sameAccount ? 'this' : 'unknown',
    managed: managedByAccount(h.state, catalogue),
  }));
  const spellings = managedHostnameSpellings(state, catalogue);
  const result: ScanResult = { unmanaged: [], held: [], expired: [], leftovers: [], missing: [], absent: [], changed: [], incomplete: [] };
  // A collection whose keys the state hides (any configuration's) is not listed at all: its objects are not shown.
  const keys: KeysOf = (username, c) => {
    const collection = managed.get(username)?.get(c) ?? emptyCollection();
    const hidden = [...collection.hidden, ...holders.flatMap((h) => h.managed.get(username)?.get(c)?.hidden ?? [])];
    const why = hiddenReason(username, { ...collection, hidden });
    if (why === undefined) return collection;
    result.incomplete.push(why);
    return undefined;
  };
  const holderOf: HolderOf = (username, c, key) =>
    holders.find((h) => {
      const k = h.managed.get(username)?.get(c);
      return k !== undefined && (c === 'proxies' ? proxyManaged([...k.keys], key) : k.keys.has(key));
    });
  const named = [...managed.keys()].sort((a, b) => (a === null ? -1 : b === null ? 1 : a.localeCompare(b)));
  // Looked up first, so that the progress counts only the accounts really scanned.
  const accounts: Array<string | null> = [];
  for (const username of named) {
    if (username === null || (await store.subAccounts.find(username)) !== undefined) accounts.push(username);
    else result.missing.push(username);
  }
  for (const username of result.missing) progress.note?.(`${username}: not found, not scanned`);
  progress.start(accounts.length * 3 + 1);
  const s = { keys, holderOf, progress, result, now };
  for (const username of accounts) await scanAccount(store, username, { ...s, spellings: spellings.get(username) ?? new Set() });
  progress.step(PARENT, 'proxies');
  const proxies = keys(null, 'proxies');
  if (proxies !== undefined) {
    const forms = [...proxies.keys];
    const listed = await store.proxies.list();
    for (const p of listed) {
      if (!proxyManaged(forms, p)) file(s, null, 'proxies', { account: PARENT, kind: 'proxy', value: p, label: '' }, p);
    }
    fileAbsent(s, null, proxies, (form) => listed.some((p) => proxyManaged([form], p)));
  }
  progress.stop();
  return result;
}

/** The keys of one collection of one account the scan compares with, or undefined when it is not scanned. */
type KeysOf = (username: string | null, c: Collection) => CollectionKeys | undefined;

/** What the scan of each account shares. */
interface ScanContext {
  readonly keys: KeysOf;
  readonly holderOf: HolderOf;
  readonly progress: ScanProgress;
  readonly result: ScanResult;
  readonly now: number | undefined;
}

/** Files an object the scanned configuration does not manage: held, when another configuration's resource declares its key; else unmanaged. */
function file(s: ScanContext, username: string | null, c: Collection, obj: UnmanagedObject, key: string): void {
  const holder = s.holderOf(username, c, key);
  if (holder === undefined) {
    s.result.unmanaged.push(obj);
    return;
  }
  // A label the holder's state marks sensitive is the live object's label too: it is not shown.
  const hidden = holder.managed.get(username)?.get(c)?.labelHidden.has(key) === true;
  s.result.held.push({ ...obj, ...(hidden ? { label: '(sensitive)' } : {}), provider: holder.provider, provider_account: holder.account });
}

/** Files the objects of `c`'s resources whose key `listed` does not find in the live list: absent from the account. */
function fileAbsent(s: ScanContext, username: string | null, c: CollectionKeys, listed: (key: string) => boolean): void {
  for (const r of c.resources) {
    for (const value of r.keys) if (!listed(value)) s.result.absent.push({ address: r.address, type: r.type.typeName, account: username, value });
  }
}

/**
 * Files the IPs whose live label differs from the one the state holds, as attribute drift: an
 * entry resource's `label`; a list's entries, those that differ only (recorded and live).
 */
function fileRelabelled(s: ScanContext, c: CollectionKeys, live: ReadonlyMap<string, string>): void {
  // The API's "" (no label) is the state's null.
  const liveLabel = (ip: string): string | null => (live.get(ip) === '' ? null : (live.get(ip) ?? null));
  for (const r of c.resources) {
    const differ = [...(r.labels ?? [])].filter(([ip, label]) => live.has(ip) && !sameLabel(liveLabel(ip), label));
    if (differ.length === 0) continue;
    if (r.type.shape === 'list') {
      s.result.changed.push({
        address: r.address,
        attribute: r.type.keyAttributes[0] ?? 'entries',
        recorded: differ.map(([ip, label]) => ({ ip, label })),
        live: differ.map(([ip]) => ({ ip, label: liveLabel(ip) })),
      });
    } else for (const [ip, label] of differ) s.result.changed.push({ address: r.address, attribute: 'label', recorded: label, live: liveLabel(ip) });
  }
}

/** Labels compare as Terraform holds them (see util/text.ts): a decomposed accent in the account is the state's composed one. */
function sameLabel(live: string | null, recorded: string | null): boolean {
  return live === null || recorded === null ? live === recorded : sameText(live, recorded);
}

/** One account's IPs, hostnames and tokens, filed into `result`. */
async function scanAccount(store: AccountStore, username: string | null, s: ScanContext & { spellings: ReadonlySet<string> }): Promise<void> {
  const name = username ?? PARENT;
  const lists = store.account(username);
  const { progress } = s;
  progress.step(name, 'IPs');
  const ips = s.keys(username, 'ips');
  if (ips !== undefined) {
    const live = await lists.ips.list();
    for (const e of live) {
      if (!ips.keys.has(e.ip)) file(s, username, 'ips', { account: name, kind: 'ip', value: e.ip, label: e.label }, e.ip);
    }
    const labels = new Map(live.map((e) => [e.ip, e.label]));
    fileAbsent(s, username, ips, (ip) => labels.has(ip));
    fileRelabelled(s, ips, labels);
  }
  progress.step(name, 'hostnames');
  const hostnames = s.keys(username, 'hostnames');
  if (hostnames !== undefined) {
    const live = await lists.hostnames.list();
    const isManaged = hostnameManaged(live, hostnames.keys, s.spellings);
    for (const d of live) {
      if (!isManaged(d)) file(s, username, 'hostnames', { account: name, kind: 'hostname', value: d, label: '' }, d.toLowerCase());
    }
    // Managed keys are lower-cased: any spelling of the name is the object.
    const names = new Set(live.map((d) => d.toLowerCase()));
    fileAbsent(s, username, hostnames, (key) => names.has(key));
  }
  progress.step(name, 'tokens');
  const managedTokens = s.keys(username, 'tokens');
  if (managedTokens === undefined) return;
  const tokens = await tokensOf(store, username);
  if (typeof tokens === 'string') {
    s.result.incomplete.push(tokens);
    return;
  }
  sortTokens(s, username, tokens, managedTokens, s.now ?? store.now());
  const ids = new Set(tokens.map((t) => String(t.id)));
  fileAbsent(s, username, managedTokens, (id) => ids.has(id));
}

/** Files one account's tokens: expired (a state), unmanaged or held, or an ephemeral resource's leftover. */
function sortTokens(s: ScanContext, username: string | null, tokens: readonly BearerToken[], managed: CollectionKeys, now: number): void {
  const name = username ?? PARENT;
  for (const t of tokens) {
    const id = String(t.id);
    const isManaged = managed.keys.has(id);
    const holder = isManaged ? undefined : s.holderOf(username, 'tokens', id);
    if (t.expiresAt !== null && t.expiresAt.getTime() <= now) {
      const label = managed.labelHidden.has(id) || holder?.managed.get(username)?.get('tokens')?.labelHidden.has(id) === true ? '(sensitive)' : t.label;
      const expired: ExpiredToken = { account: name, token_id: t.id, label, expired_at: t.expiresAt.toISOString(), managed: isManaged };
      s.result.expired.push(holder === undefined ? expired : { ...expired, held_by: holder.provider });
    }
    if (isManaged) continue;
    const obj: UnmanagedObject = { account: name, kind: 'token', value: id, label: t.label };
    if (isEphemeralTokenLabel(t.label)) s.result.leftovers.push(obj);
    else file(s, username, 'tokens', obj, id);
  }
}
