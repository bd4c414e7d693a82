// `proxyaccount drift`: what a plan says changed or vanished outside Terraform, what the code says
// that is not applied yet (a normal plan's pending changes), and beyond Terraform, what the account
// holds that no resource in the state manages ("who added this IP?"), read through the account
// store: each (account, collection) once. The API cannot list sub-accounts, so only the parent and
// the sub-accounts the state names are scanned. What each resource manages comes from the
// resource-type catalogue. An object whose key only a resource of another provider configuration
// declares, one not proven to use another account (drift-providers.ts), is held by it: it may be
// that resource's object, so it is never called unmanaged, nor managed here.
import { isEphemeralTokenLabel, type AccountStore } from '../account';
import { accountPhrase, type Catalogue, type ChangeKind, type Collection, describeType, RESOURCE_TYPES, type ResourceTypeDescriptor } from '../resource-types';
import { type BearerToken, isProxyAccountError } from '../sdk';
import { describeChange } from './describe';
import { isProxyAccount, kindOf, type Plan, type ResourceChange, type StateResource } from './plan-json';

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

/**
 * An object of the scanned account whose key a resource of another provider configuration
 * declares, where that configuration's account is not proven to be another one: it may be that
 * resource's object, so it is neither called managed nor unmanaged.
 */
export interface HeldObject extends UnmanagedObject {
  /** That configuration (`proxyaccount.scoped`). */
  readonly provider: string;
  /** `this`: the configuration uses the scanned account too (its own run checks the object); `unknown`: its account could not be confirmed. */
  readonly provider_account: 'this' | 'unknown';
}

/** A token past its expiry date: a state, reported on its own (never counted as drift). */
export interface ExpiredToken {
  readonly account: string;
  readonly token_id: number;
  readonly label: string;
  readonly expired_at: string;
  readonly managed: boolean;
  /** The configuration of the resource that holds it, when another configuration's resource does (see {@link HeldObject}). */
  readonly held_by?: string;
}

/** A managed object gone from the account. */
export interface DeletedObject {
  readonly address: string;
  readonly type: string;
  /** Why it counts as deleted when the plan did not say so (a sub-account the scan did not find). */
  readonly reason?: string;
}

/** A change of the code not applied yet: a normal plan's change of this provider's resource. */
export interface PendingChange {
  readonly address: string;
  readonly type: string;
  readonly kind: ChangeKind;
  /** The change in a reviewer's words (as `proxyaccount review` says it); a deferred change's values are not known yet. */
  readonly description: string;
  /** True for a change the plan defers to a later plan. */
  readonly deferred: boolean;
}

/** Resources of this provider whose account the scan did not read. */
export interface NotScanned {
  /** Their provider configuration (`proxyaccount.other`); null for resources no longer in the code. */
  readonly provider: string | null;
  readonly resources: number;
}

/** The drift report (the JSON format of `proxyaccount drift --format json`). */
export interface DriftReport {
  /** Anything changed, deleted, pending, unmanaged or left over. */
  readonly drifted: boolean;
  /** False when a part of the check could not run (`incomplete` says which): no drift found is then not a clean report. */
  readonly complete: boolean;
  /** `code`: a normal plan, so changes not applied yet are in `pending`; `state`: a refresh-only plan, which compares with the state alone. */
  readonly compared_with: 'code' | 'state';
  /** The provider configuration whose account was scanned; null when the scan did not run. */
  readonly scanned_provider: string | null;
  /** Whether that configuration is known to use the environment's account; null when the scan did not run. */
  readonly account_confirmed: boolean | null;
  /**
   * True when the run was told which configuration to scan (`--provider`): the other
   * configurations' accounts count as checked by runs of their own, so `not_scanned` does not
   * make the report incomplete.
   */
  readonly others_checked_elsewhere: boolean;
  readonly changed: AttributeDrift[];
  readonly deleted: DeletedObject[];
  readonly pending: PendingChange[];
  readonly unmanaged: UnmanagedObject[];
  readonly expired_tokens: ExpiredToken[];
  /** Tokens of the ephemeral resource whose close never ran (`proxyaccount tokens prune` removes them). */
  readonly ephemeral_leftovers: UnmanagedObject[];
  /** Objects whose key a resource of another configuration declares, not proven another account's: neither managed nor unmanaged. */
  readonly held_by_other_configurations: HeldObject[];
  /** Resources of other provider configurations: their drift is above, their accounts were not scanned here. */
  readonly not_scanned: NotScanned[];
  /** What could not be checked this time, and why. */
  readonly incomplete: string[];
  /** What the scan cannot see, said every time. */
  readonly limits: string[];
}

/** Progress of the scan, for a terminal or CI log. */
export interface ScanProgress {
  start(total: number): void;
  step(account: string, collection: string): void;
  stop(): void;
  /** A line about what happens instead of a step (an account not found). */
  note?(message: string): void;
}

const PARENT = '(parent)';

/** Attribute drift and out-of-band deletions of a plan (refresh-only or normal: both carry `resource_drift`). */
export function planDrift(plan: Plan): { changed: AttributeDrift[]; deleted: DeletedObject[] } {
  const changed: AttributeDrift[] = [];
  const deleted: DeletedObject[] = [];
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

/**
 * Whether a plan compares the account with the code: a normal plan lists every resource of the
 * state and of the code in `resource_changes` (`no-op` included); a refresh-only plan lists none.
 */
export function comparesWithCode(plan: Plan): boolean {
  return plan.changes.length > 0 || plan.deferred.length > 0;
}

/**
 * What a plan Terraform marks errored or incomplete leaves unchecked: drift reports what it holds,
 * as it does when it falls back to a refresh-only plan, and says what it could not check.
 */
export function planGaps(plan: Plan): string[] {
  if (plan.errored) {
    return [
      'the plan is incomplete because planning failed (Terraform marks it errored): the drift and pending changes of what failed to plan, ' +
        'and of everything that depends on it, were not checked. Fix the errors `terraform plan` reports, or run drift with --dir, ' +
        'which falls back to a refresh-only plan when the code cannot be planned',
    ];
  }
  if (plan.complete === false) {
    return [
      'Terraform marks the plan incomplete (made with -target, or deferring changes to a later plan): ' +
        'resources it did not plan were not checked for drift or pending changes',
    ];
  }
  return [];
}

/** The changes of this provider's resources a normal plan would make: the code not applied yet. */
export function pendingChanges(plan: Plan, catalogue: Catalogue = RESOURCE_TYPES): PendingChange[] {
  const of = (c: ResourceChange, deferred: boolean): PendingChange[] => {
    if (c.mode !== 'managed' || !isProxyAccount(c.type)) return [];
    const kind = kindOf(c);
    if (kind === 'no-op' || kind === 'read') return [];
    return [{ address: c.address, type: c.type, kind, description: deferred ? `${c.type} ${kind}` : describeChange(c, catalogue), deferred }];
  };
  return [...plan.changes.flatMap((c) => of(c, false)), ...plan.deferred.flatMap((c) => of(c, true))];
}

/** The sub-accounts the plan's own drift reports deleted (by username). */
export function subAccountsDeletedInPlan(plan: Plan, catalogue: Catalogue = RESOURCE_TYPES): Set<string> {
  const out = new Set<string>();
  for (const d of plan.drift) {
    const desc = d.mode === 'managed' && isProxyAccount(d.type) ? catalogue.get(d.type) : undefined;
    if (desc?.shape === 'account' && kindOf(d) === 'delete') for (const name of desc.managedKeys(d.before)) out.add(name);
  }
  return out;
}

/**
 * The state's resources of sub-accounts the refreshed state holds but the API no longer has (the
 * sub-account itself first, then everything of its account), as deleted objects: deleted after
 * the plan, or a 404 given by mistake. Either way their objects were not scanned, so they never
 * pass silently. The first entry of each says why; the others name the sub-account.
 */
export function missingAsDeleted(missing: readonly string[], state: readonly StateResource[], catalogue: Catalogue = RESOURCE_TYPES): DeletedObject[] {
  const out: DeletedObject[] = [];
  for (const username of missing) {
    const own: StateResource[] = [];
    const inside: StateResource[] = [];
    for (const r of state) {
      if (r.mode !== 'managed' || !isProxyAccount(r.type)) continue;
      const d = describeType(catalogue, r.type);
      if (d.shape === 'account' ? d.managedKeys(r.values).includes(username) : r.values[d.ownerAttribute] === username)
        (d.shape === 'account' ? own : inside).push(r);
    }
    const why = `${accountPhrase(username)} was not found when the account was scanned (deleted after the plan, or a 404 given by mistake), so its objects were not scanned`;
    for (const [i, r] of [...own, ...inside].entries()) {
      out.push({ address: r.address, type: r.type, reason: i === 0 ? why : `in ${accountPhrase(username)}, not found when scanned` });
    }
  }
  return out;
}

/** What the state manages in one collection of one account. */
interface CollectionKeys {
  /** The keys the scan compares live objects with. */
  readonly keys: Set<string>;
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
    else for (const k of d.managedKeys(r.values)) collection.keys.add(k);
    if (hidden.length === 0 && r.sensitive.has('label')) for (const k of d.managedKeys(r.values)) collection.labelHidden.add(k);
  }
  return out;
}

function emptyCollection(): CollectionKeys {
  return { keys: new Set(), labelHidden: new Set(), hidden: [] };
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
  const result: ScanResult = { unmanaged: [], held: [], expired: [], leftovers: [], missing: [], incomplete: [] };
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
    for (const p of await store.proxies.list()) {
      if (!proxyManaged(forms, p)) file(s, null, 'proxies', { account: PARENT, kind: 'proxy', value: p, label: '' }, p);
    }
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

/** One account's IPs, hostnames and tokens, filed into `result`. */
async function scanAccount(store: AccountStore, username: string | null, s: ScanContext & { spellings: ReadonlySet<string> }): Promise<void> {
  const name = username ?? PARENT;
  const lists = store.account(username);
  const { progress } = s;
  progress.step(name, 'IPs');
  const ips = s.keys(username, 'ips');
  if (ips !== undefined) {
    for (const e of await lists.ips.list()) {
      if (!ips.keys.has(e.ip)) file(s, username, 'ips', { account: name, kind: 'ip', value: e.ip, label: e.label }, e.ip);
    }
  }
  progress.step(name, 'hostnames');
  const hostnames = s.keys(username, 'hostnames');
  if (hostnames !== undefined) {
    const live = await lists.hostnames.list();
    const isManaged = hostnameManaged(live, hostnames.keys, s.spellings);
    for (const d of live) {
      if (!isManaged(d)) file(s, username, 'hostnames', { account: name, kind: 'hostname', value: d, label: '' }, d.toLowerCase());
    }
  }
  progress.step(name, 'tokens');
  const managedTokens = s.keys(username, 'tokens');
  if (managedTokens === undefined) return;
  const tokens = await tokensOf(store, username);
  if (typeof tokens === 'string') s.result.incomplete.push(tokens);
  else sortTokens(s, username, tokens, managedTokens, s.now ?? store.now());
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

/** The limits every report states. */
export const DRIFT_LIMITS: readonly string[] = [
  'The API cannot list sub-accounts: a sub-account created outside Terraform is found only if the state names it (a resource with its username).',
  'Passwords and raw token values cannot be read back: a password changed outside Terraform is not detected.',
  'One state is taken to manage the account: objects another workspace (another state) manages in it are reported as not managed by any resource.',
];

/** The limit a refresh-only plan adds: it compares the account with the state alone. */
export const STATE_ONLY_LIMIT =
  'The plan was refresh-only: the account was compared with the Terraform state, so changes of the code not yet applied were not checked.';

/** The scanned configuration, as {@link driftReport} reports it. */
export interface ReportScope {
  readonly provider: string;
  /** Whether it is confirmed to use the environment's account. */
  readonly confirmed: boolean;
  /** Why not, when it is not. */
  readonly unconfirmed?: string | undefined;
  readonly notScanned: NotScanned[];
  /** True when the run was told which configuration to scan: the others count as checked by runs of their own. @default false */
  readonly othersCheckedElsewhere?: boolean;
  /** The other configurations whose resources may hold objects of this account, and why their account is not known. @default none */
  readonly holders?: ReadonlyArray<{ readonly provider: string; readonly sameAccount: boolean; readonly why?: string | undefined }>;
}

/** The parts {@link driftReport} puts together. */
export interface DriftParts {
  readonly changed: AttributeDrift[];
  readonly deleted: DeletedObject[];
  /** Pending changes; undefined when the plan was refresh-only (not checked). @default not checked */
  readonly pending?: PendingChange[];
  readonly unmanaged: UnmanagedObject[];
  /** Objects other configurations' resources may hold. @default none */
  readonly held?: HeldObject[];
  readonly expired: ExpiredToken[];
  readonly leftovers: UnmanagedObject[];
  readonly scanned: boolean;
  /** The configuration whose account was scanned. @default the default, unconfirmed */
  readonly scope?: ReportScope;
  readonly incomplete?: string[];
}

function count(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/**
 * What the scan's scope leaves unchecked, in the report's `incomplete`: the account not confirmed
 * (what the scan calls managed or not may then be another account's), objects only a resource of
 * an unconfirmed configuration declares, and the other configurations' accounts, unless the run
 * was told that they are checked elsewhere.
 */
function scopeGaps(scope: ReportScope, held: readonly HeldObject[]): string[] {
  const gaps: string[] = [];
  if (!scope.confirmed) {
    gaps.push(
      `the scanned account could not be confirmed to be the one provider configuration ${scope.provider} uses: ${scope.unconfirmed ?? 'not known'}. ` +
        "Its objects were compared with that configuration's resources all the same, so what is reported managed or not may be another account's",
    );
  }
  for (const h of scope.holders ?? []) {
    const n = held.filter((o) => o.provider === h.provider).length;
    if (h.sameAccount || n === 0) continue;
    gaps.push(
      `${count(n, 'object')} of the scanned account ${n === 1 ? 'matches' : 'match'} resources of provider configuration ${h.provider}, whose account could not be confirmed ` +
        `(${h.why ?? 'not known'}): listed as held by it, neither managed nor unmanaged`,
    );
  }
  if (scope.othersCheckedElsewhere === true) return gaps;
  for (const n of scope.notScanned) {
    if (n.provider === null) continue;
    gaps.push(
      `${count(n.resources, 'resource')} of provider configuration ${n.provider}: its account was not scanned for objects no resource manages ` +
        `(their drift and pending changes are above). Scan it in a run of its own (proxyaccount drift --plan PLAN --provider ${n.provider}, with that account's credentials in PROXYACCOUNT_*), ` +
        `and give this run --provider ${scope.provider}: the other configurations then count as checked elsewhere`,
    );
  }
  return gaps;
}

/** The whole report; drift = anything changed, deleted, pending, unmanaged or left over. */
export function driftReport(parts: DriftParts): DriftReport {
  const limits = [
    ...(parts.scanned ? [] : ['The unmanaged-object scan did not run (--no-scan): only drift of managed objects is reported.']),
    ...(parts.pending === undefined ? [STATE_ONLY_LIMIT] : []),
    ...DRIFT_LIMITS,
  ];
  const pending = parts.pending ?? [];
  const held = parts.held ?? [];
  const scope = parts.scanned ? (parts.scope ?? { provider: 'proxyaccount', confirmed: false, notScanned: [] }) : undefined;
  const incomplete = [...(scope === undefined ? [] : scopeGaps(scope, held)), ...(parts.incomplete ?? [])];
  return {
    drifted: parts.changed.length + parts.deleted.length + pending.length + parts.unmanaged.length + parts.leftovers.length > 0,
    complete: incomplete.length === 0,
    compared_with: parts.pending === undefined ? 'state' : 'code',
    scanned_provider: scope?.provider ?? null,
    account_confirmed: scope?.confirmed ?? null,
    others_checked_elsewhere: scope?.othersCheckedElsewhere === true,
    changed: parts.changed,
    deleted: parts.deleted,
    pending,
    unmanaged: parts.unmanaged,
    expired_tokens: parts.expired,
    ephemeral_leftovers: parts.leftovers,
    held_by_other_configurations: held,
    not_scanned: scope?.notScanned ?? [],
    incomplete,
    limits,
  };
}
