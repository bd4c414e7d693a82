// `proxyaccount drift`: what a plan says changed or vanished outside Terraform, what the code says
// that is not applied yet (a normal plan's pending changes), and the report that joins them with
// the scan of what the account holds that no resource in the state manages, and of the managed
// objects it no longer holds (drift-scan.ts: a plan made without refreshing shows no drift). The
// API cannot list sub-accounts, so only the parent and the sub-accounts the state names are
// scanned. An object whose key only a resource of another provider configuration declares, one
// not proven to use another account (drift-providers.ts), is held by it: it may be that
// resource's object, so it is never called unmanaged, nor managed here.
import { accountPhrase, type Catalogue, type ChangeKind, describeType, RESOURCE_TYPES, type ResourceTypeDescriptor } from '../resource-types';
import { describeChange } from './describe';
import { isProxyAccount, kindOf, type Plan, type ResourceChange, type StateResource, type Values } from './plan-json';
import { accessOverlaps, declaredAfter, keysShown, sameKey } from './plan-overlaps';

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
  /** Why it counts as deleted when the plan did not say so (a sub-account, or an object of a list, the scan did not find). */
  readonly reason?: string;
  /** The object's key when the scan did not find it in its account's list: an IP, a hostname (in lower case), a proxy as the state holds it, a token ID; for a list resource, the entry gone. */
  readonly value?: string;
  /**
   * The resource of this configuration whose own apply removed it: an authoritative list of the
   * same account whose latest change removed its key (`removed_entries`), which this resource
   * declares. Absent when the state does not show who removed it.
   */
  readonly removed_by?: string;
}

/** An object a resource of the scanned configuration manages whose key the scan did not find in its account's list. */
export interface AbsentObject {
  readonly address: string;
  readonly type: string;
  /** The owning sub-account; null for the parent. */
  readonly account: string | null;
  /** Its key, as {@link DeletedObject.value}. */
  readonly value: string;
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
  /**
   * Resources of this configuration that undo this change at every apply (absent: none): an entry
   * resource declaring a key the list of its account leaves out, and that list, which removes it.
   */
  readonly undone_by?: string[];
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

/** What the plan tells of where a managed object that is not in the account went. */
interface RemovalFacts {
  /** The list resources of the state: their account and the keys their latest change removed. */
  readonly lists: ReadonlyArray<{
    readonly address: string;
    readonly type: ResourceTypeDescriptor;
    readonly account: string | null;
    readonly removed: readonly string[];
  }>;
  /** The sub-accounts a resource of the state or of the code manages. */
  readonly subAccounts: ReadonlySet<string>;
  /** The sub-accounts the plan's own drift reports deleted. */
  readonly subAccountsDeleted: ReadonlySet<string>;
}

/** The owning account of values: a username, null for the parent, undefined when not shown. */
function ownerIn(d: ResourceTypeDescriptor, v: Values, hidden: ReadonlySet<string>): string | null | undefined {
  if (hidden.has(d.ownerAttribute) || hidden.has('*')) return undefined;
  const owner = v[d.ownerAttribute];
  return typeof owner === 'string' ? owner : null;
}

function removalFacts(plan: Plan, catalogue: Catalogue): RemovalFacts {
  const lists: Array<RemovalFacts['lists'][number]> = [];
  const subAccounts = new Set<string>();
  const managedBy = (type: string): ResourceTypeDescriptor | undefined => (isProxyAccount(type) ? catalogue.get(type) : undefined);
  for (const r of plan.priorState) {
    const d = r.mode === 'managed' ? managedBy(r.type) : undefined;
    if (d === undefined) continue;
    if (d.shape === 'account') for (const name of d.managedKeys(r.values)) subAccounts.add(name);
    const account = ownerIn(d, r.values, r.sensitive);
    if (d.shape === 'list' && account !== undefined) lists.push({ address: r.address, type: d, account, removed: d.removedKeys?.(r.values) ?? [] });
  }
  for (const c of [...plan.changes, ...plan.drift]) {
    const d = c.mode === 'managed' ? managedBy(c.type) : undefined;
    if (d?.shape === 'account') for (const name of [...d.managedKeys(c.before), ...d.managedKeys(c.after)]) subAccounts.add(name);
  }
  return { lists, subAccounts, subAccountsDeleted: subAccountsDeletedInPlan(plan, catalogue) };
}

/** What is known of who removed an object not in the account (empty: nothing, only that it is gone). */
interface Cause {
  readonly reason?: string;
  readonly removed_by?: string;
}

/**
 * Whether a list of the same account removes an entry resource's object: proven when the list's
 * latest change removed its key (`removed_entries`); else the list is named, since it removes what
 * it does not declare, but not said to have done it.
 */
function listCause(d: ResourceTypeDescriptor, account: string | null | undefined, key: string | undefined, facts: RemovalFacts): Cause {
  if (d.shape !== 'entry' || account === undefined || key === undefined) return {};
  const lists = facts.lists.filter((l) => l.type.collection === d.collection && l.account === account);
  const whole = (address: string): string =>
    `${address}, which manages the whole ${d.noun.one} list of ${accountPhrase(account)} and removes what it does not declare`;
  const remover = lists.find((l) => l.removed.some((k) => sameKey(d, k, key)));
  if (remover !== undefined) {
    return {
      removed_by: remover.address,
      reason: `removed by Terraform's own apply of ${whole(remover.address)} (its latest change removed it: removed_entries); this resource adds it back at every apply: never combine both for one account`,
    };
  }
  const list = lists[0];
  if (list === undefined) return {};
  return {
    reason: `${list.address} manages the whole ${d.noun.one} list of ${accountPhrase(account)} as well, and removes what it does not declare: never combine both for one account`,
  };
}

/**
 * Whether the object went with its sub-account, which the plan's drift reports deleted, or which
 * no resource manages any more (whoever deleted it, the API deletes its objects with it).
 */
function accountCause(d: ResourceTypeDescriptor, account: string | null | undefined, facts: RemovalFacts): string | undefined {
  if (account === undefined || account === null || d.shape === 'account') return undefined;
  const phrase = accountPhrase(account);
  if (facts.subAccountsDeleted.has(account)) return `${phrase} is not in the account either: the API deletes a sub-account's IPs, hostnames and tokens with it`;
  if (facts.subAccounts.has(account)) return undefined;
  return `no resource of this configuration manages ${phrase}: if it was deleted (by an apply that stopped declaring it, or outside Terraform), the API deleted this with it`;
}

/** Attribute drift, and managed objects the plan's refresh no longer found, of a plan (refresh-only or normal: both carry `resource_drift`). */
export function planDrift(plan: Plan, catalogue: Catalogue = RESOURCE_TYPES): { changed: AttributeDrift[]; deleted: DeletedObject[] } {
  const changed: AttributeDrift[] = [];
  const deleted: DeletedObject[] = [];
  const facts = removalFacts(plan, catalogue);
  for (const d of plan.drift) {
    if (d.mode !== 'managed') continue;
    const kind = kindOf(d);
    if (kind === 'delete') {
      const desc = isProxyAccount(d.type) ? catalogue.get(d.type) : undefined;
      const key = desc !== undefined && keysShown(desc, new Set(), d.sensitive) ? desc.managedKeys(d.before)[0] : undefined;
      const owner = desc === undefined ? undefined : ownerIn(desc, d.before, d.sensitive);
      const byList = desc === undefined ? {} : listCause(desc, owner, key, facts);
      const reasons = [byList.reason, byList.removed_by === undefined && desc !== undefined ? accountCause(desc, owner, facts) : undefined];
      const reason = reasons.filter((r): r is string => r !== undefined).join('; ');
      deleted.push({
        address: d.address,
        type: d.type,
        ...(reason === '' ? {} : { reason }),
        ...(byList.removed_by === undefined ? {} : { removed_by: byList.removed_by }),
      });
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
  // An entry resource and the list of its account that leaves its key out undo each other.
  const undoing = accessOverlaps(declaredAfter(plan, catalogue)).filter((o) => !o.declaredByList);
  const undoneBy = (address: string): string[] => [
    ...new Set(undoing.flatMap((o) => (o.entry.address === address ? [o.list.address] : o.list.address === address ? [o.entry.address] : []))),
  ];
  const of = (c: ResourceChange, deferred: boolean): PendingChange[] => {
    if (c.mode !== 'managed' || !isProxyAccount(c.type)) return [];
    const kind = kindOf(c);
    if (kind === 'no-op' || kind === 'read') return [];
    const undone = deferred ? [] : undoneBy(c.address);
    return [
      {
        address: c.address,
        type: c.type,
        kind,
        description: deferred ? `${c.type} ${kind}` : describeChange(c, catalogue),
        deferred,
        ...(undone.length > 0 ? { undone_by: undone } : {}),
      },
    ];
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

/**
 * The keys each resource keeps managing after the plan's own change of it, by address: none for a
 * delete or a forget, the `after` keys of an update or a replacement whose keys the plan shows.
 * Resources without such a change are not listed.
 */
function keysKept(plan: Plan, catalogue: Catalogue): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const c of plan.changes) {
    if (c.mode !== 'managed' || !isProxyAccount(c.type)) continue;
    const kind = kindOf(c);
    const d = describeType(catalogue, c.type);
    const shown = !c.afterUnknown.has('*') && !c.sensitive.has('*') && !d.keyAttributes.some((a) => c.afterUnknown.has(a) || c.sensitive.has(a));
    if (kind === 'delete' || kind === 'forget') out.set(c.address, new Set());
    else if ((kind === 'update' || kind === 'replace') && shown) out.set(c.address, new Set(d.managedKeys(c.after)));
  }
  return out;
}

/**
 * The managed objects the scan did not find in their account's lists, as deleted objects. A plan
 * made without refreshing (`-refresh=false`) holds no drift and the state as last applied, so it
 * cannot show them; a refreshing plan holds the account as it was when planned, so these were
 * deleted since. Left out: what the plan's own drift reports deleted (never twice), and an object
 * the plan's own change stops managing (a delete, a forget, a list leaving the entry out): that
 * change is pending already, and the object's absence is what the code asks for.
 */
export function absentAsDeleted(absent: readonly AbsentObject[], plan: Plan, catalogue: Catalogue = RESOURCE_TYPES): DeletedObject[] {
  const reported = new Set(plan.drift.filter((d) => d.mode === 'managed' && kindOf(d) === 'delete').map((d) => d.address));
  const kept = keysKept(plan, catalogue);
  const facts = removalFacts(plan, catalogue);
  return absent
    .filter((a) => !reported.has(a.address) && kept.get(a.address)?.has(a.value) !== false)
    .map((a) => {
      const d = describeType(catalogue, a.type);
      const what = d.shape === 'list' ? 'this entry of the list' : `this ${d.noun.one}`;
      // The scan found its account, so only a list of it can be the cause; said only when the state shows it.
      const { reason: why, removed_by } = listCause(d, a.account, a.value, facts);
      const gone = 'removed since the state last recorded it (a plan made without refreshing does not show it), or after the plan';
      const reason =
        `${what} was not found in the ${d.noun.many} of ${accountPhrase(a.account)} when the account was scanned: ` +
        (removed_by !== undefined ? why : why === undefined ? gone : `${gone}; ${why}`);
      return { address: a.address, type: a.type, value: a.value, reason, ...(removed_by === undefined ? {} : { removed_by }) };
    });
}

/** Attribute drift the scan found (an IP's label), without what the plan's own drift reports of the same resource (never twice). */
export function scanChanges(changed: readonly AttributeDrift[], plan: Plan): AttributeDrift[] {
  const reported = new Set(plan.drift.map((d) => d.address));
  return changed.filter((c) => !reported.has(c.address));
}

/** The limits every report states. */
export const DRIFT_LIMITS: readonly string[] = [
  'The API cannot list sub-accounts: a sub-account created outside Terraform is found only if the state names it (a resource with its username).',
  'Passwords and raw token values cannot be read back: a password changed outside Terraform is not detected.',
  'One state is taken to manage the account: objects another workspace (another state) manages in it are reported as not managed by any resource.',
];

/**
 * The limit a plan drift did not make adds: nothing in a plan's JSON says whether it refreshed, and
 * one made without refreshing (`-refresh=false`) shows no drift. The scan still compares what it
 * lists with the state.
 */
export function givenPlanLimit(scanned: boolean): string {
  const still = scanned
    ? 'the scan still finds managed objects missing from the account and IP labels that differ, but no other attribute changed outside Terraform is seen'
    : 'without the scan (--no-scan), no drift of managed objects is seen then';
  return `The plan was given (--plan), and whether it refreshed cannot be told from it: made without refreshing (-refresh=false), it shows no drift; ${still}.`;
}

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
  /** True for a plan drift did not make (`--plan`): whether it refreshed is not known. @default false */
  readonly planGiven?: boolean;
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
    ...(parts.planGiven === true ? [givenPlanLimit(parts.scanned)] : []),
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
