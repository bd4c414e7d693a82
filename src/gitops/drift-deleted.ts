// Managed objects not in the account, and why: what a plan's refresh found gone (its drift), the
// state's objects in sub-accounts the scan no longer found, and the objects the scan did not find
// in their account's lists (drift-scan.ts). Each says what the plan tells of its removal: a list
// of the same account whose latest change removed it (or that removes whatever it does not
// declare), or its sub-account deleted, or managed by nothing any more. drift.ts puts them into
// the report.
import { accountPhrase, type Catalogue, describeType, RESOURCE_TYPES, type ResourceTypeDescriptor } from '../resource-types';
import type { AbsentObject, AttributeDrift, DeletedObject } from './drift';
import { isProxyAccount, kindOf, type Plan, type StateResource, type Values } from './plan-json';
import { keysShown, sameKey } from './plan-overlaps';

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
