// `proxyaccount drift`: the report's shape, what the code says that is not applied yet (a normal
// plan's pending changes), and the report that joins them with what a plan says changed outside
// Terraform, the managed objects gone from the account (drift-deleted.ts) and the scan of what
// the account holds that no resource in the state manages (drift-scan.ts: a plan made without
// refreshing shows no drift). The API cannot list sub-accounts, so only the parent and the
// sub-accounts the state names are scanned. An object whose key only a resource of another
// provider configuration declares, one not proven to use another account (drift-providers.ts),
// is held by it: it may be that resource's object, so it is never called unmanaged, nor managed
// here.
import { type Catalogue, type ChangeKind, RESOURCE_TYPES } from '../resource-types';
import { describeChange } from './describe';
import { isProxyAccount, kindOf, type Plan, type ResourceChange } from './plan-json';
import { accessOverlaps, declaredAfter } from './plan-overlaps';

/** One attribute that changed outside Terraform. */
export interface AttributeDrift {
  readonly address: string;
  readonly attribute: string;
  readonly recorded: unknown;
  readonly live: unknown;
  /**
   * True when the plan does not change it back (its resource's planned change is a no-op, or keeps
   * the live value): `ignore_changes`, or code that already matches. No apply puts it back, and the
   * next apply of any change writes it into the state (drift-kept.ts). Absent otherwise, and in a
   * refresh-only plan, which compares with no code.
   */
  readonly kept_by_plan?: true;
}

/** An object of the account no resource in the state manages. */
export interface UnmanagedObject {
  /** '(parent)' or the sub-account's username. */
  readonly account: string;
  readonly kind: 'ip' | 'hostname' | 'proxy' | 'token';
  readonly value: string;
  /** The IP's or token's label ('' when none). */
  readonly label: string;
  /**
   * The list resource whose state holds it though its code (a constant list) does not declare it:
   * the plan keeps it (`ignore_changes`), so no apply removes it (drift-kept.ts). Absent otherwise.
   */
  readonly kept_by?: string;
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
  /** True for the removal of a deposed object: the rest of an unfinished replacement, not a change outside Terraform put back. */
  readonly deposed?: true;
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
  /**
   * Resources that declare an object another resource declares too (an entry resource and a list
   * of one account, two entry resources of one object), as review names them: a hazard, not
   * drift, since destroying either removes what the other still declares. Only when compared with
   * the code.
   */
  readonly managed_twice: ManagedTwice[];
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
        ...(c.deposed !== undefined ? { deposed: true as const } : {}),
        ...(undone.length > 0 ? { undone_by: undone } : {}),
      },
    ];
  };
  return [...plan.changes.flatMap((c) => of(c, false)), ...plan.deferred.flatMap((c) => of(c, true))];
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

/** A resource declaring what another resource declares too (see {@link DriftReport.managed_twice}). */
export interface ManagedTwice {
  readonly address: string;
  readonly message: string;
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
  /** Objects two resources declare. @default none */
  readonly managedTwice?: ManagedTwice[];
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
    managed_twice: parts.managedTwice ?? [],
    ephemeral_leftovers: parts.leftovers,
    held_by_other_configurations: held,
    not_scanned: scope?.notScanned ?? [],
    incomplete,
    limits,
  };
}
