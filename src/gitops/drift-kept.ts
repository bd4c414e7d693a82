// What the code does not put back (kept-drift.ts): a change made outside Terraform that the plan
// keeps (`ignore_changes`, or code that already matches) is marked so, since no apply changes it
// back and the next apply of anything writes it into the state. After that the state holds it, and
// a list's entries the state holds count as managed: an IP added to a list whose `entries` are
// ignored would pass every scan. Where the code gives the list's entries as a constant (the plan's
// `configuration`), an entry the plan keeps that the code does not declare is reported as managed
// by no resource, naming the list that keeps it.
import { type Catalogue, RESOURCE_TYPES, type ResourceTypeDescriptor } from '../resource-types';
import type { AttributeDrift, UnmanagedObject } from './drift';
import { keptDrift, sameValue } from './kept-drift';
import { isProxyAccount, kindOf, type Plan, type StateResource } from './plan-json';

/** The plan's attribute drift, each attribute the plan keeps marked `kept_by_plan` (only for a plan that compares with the code). */
export function markKept(changed: readonly AttributeDrift[], plan: Plan): AttributeDrift[] {
  return changed.map((c) => {
    const d = plan.drift.find((x) => x.address === c.address);
    const kept = d === undefined ? undefined : keptDrift(plan, d);
    if (kept === undefined) return c;
    const isKept = kept.secretsChanged.has(c.attribute) || !sameValue(kept.before[c.attribute], kept.after[c.attribute]);
    return isKept ? { ...c, kept_by_plan: true as const } : c;
  });
}

/** A list the plan keeps entries of that its code does not declare. */
export interface UndeclaredEntries {
  readonly address: string;
  readonly type: ResourceTypeDescriptor;
  /** The owning sub-account; null for the parent. */
  readonly account: string | null;
  /** The keys (IPs, hostnames in lower case) its state keeps and its code does not declare. */
  readonly keys: ReadonlySet<string>;
  /** Those of them the plan's own drift shows added outside Terraform (reported there, not again). */
  readonly shownAsDrift: ReadonlySet<string>;
}

/**
 * The IP and hostname lists whose planned change (a no-op, or an update) keeps entries the code's
 * constant value of the list does not declare: `ignore_changes` keeps them. A list the code gives
 * otherwise (a variable, an expression), or whose entries the plan hides, cannot be told.
 */
export function undeclaredEntries(plan: Plan, catalogue: Catalogue = RESOURCE_TYPES): UndeclaredEntries[] {
  const out: UndeclaredEntries[] = [];
  for (const c of plan.changes) {
    const d = c.mode === 'managed' && isProxyAccount(c.type) ? catalogue.get(c.type) : undefined;
    if (d?.shape !== 'list' || (d.collection !== 'ips' && d.collection !== 'hostnames')) continue;
    const attribute = d.keyAttributes[0];
    const declared = attribute === undefined ? undefined : plan.constants.get(c.address)?.[attribute];
    const kind = kindOf(c);
    if (attribute === undefined || !Array.isArray(declared) || (kind !== 'no-op' && kind !== 'update')) continue;
    if (c.afterUnknown.has(attribute) || c.sensitive.has(attribute) || c.sensitive.has(d.ownerAttribute)) continue;
    const code = new Set(d.managedKeys({ [attribute]: declared }));
    const keys = new Set(d.managedKeys(c.after).filter((k) => !code.has(k)));
    if (keys.size === 0) continue;
    const owner = c.after[d.ownerAttribute];
    const drift = plan.drift.find((x) => x.address === c.address);
    const before = new Set(drift === undefined ? [] : d.managedKeys(drift.before));
    const added = drift === undefined || keptDrift(plan, drift) === undefined ? [] : d.managedKeys(drift.after).filter((k) => !before.has(k));
    out.push({ address: c.address, type: d, account: typeof owner === 'string' ? owner : null, keys, shownAsDrift: new Set(added.filter((k) => keys.has(k))) });
  }
  return out;
}

/** The state the scan compares with: each such list without the entries its code does not declare, so that the scan finds them. */
export function withoutUndeclared(state: readonly StateResource[], lists: readonly UndeclaredEntries[]): StateResource[] {
  return state.map((r) => {
    const l = lists.find((x) => x.address === r.address);
    const attribute = l?.type.keyAttributes[0];
    const entries = attribute === undefined ? undefined : r.values[attribute];
    if (l === undefined || attribute === undefined || !Array.isArray(entries)) return r;
    const kept = entries.filter((e) => !l.keys.has(l.type.managedKeys({ [attribute]: [e] })[0] ?? ''));
    return { ...r, values: { ...r.values, [attribute]: kept } };
  });
}

/**
 * The scan's unmanaged objects, those a list keeps undeclared named by it (`kept_by`), less those
 * the plan's own drift already shows added to it outside Terraform (never twice).
 */
export function markUndeclared(unmanaged: readonly UnmanagedObject[], lists: readonly UndeclaredEntries[]): UnmanagedObject[] {
  const kind = (l: UndeclaredEntries): UnmanagedObject['kind'] => (l.type.collection === 'ips' ? 'ip' : 'hostname');
  const out: UnmanagedObject[] = [];
  for (const o of unmanaged) {
    const key = o.kind === 'hostname' ? o.value.toLowerCase() : o.value;
    const l = lists.find((x) => (x.account ?? '(parent)') === o.account && kind(x) === o.kind && x.keys.has(key));
    if (l === undefined) out.push(o);
    else if (!l.shownAsDrift.has(key)) out.push({ ...o, kept_by: l.address });
  }
  return out;
}
