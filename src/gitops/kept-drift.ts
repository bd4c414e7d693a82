// Drift a normal plan keeps: a change made outside Terraform (`resource_drift`) that the plan's own
// change of the resource does not change back, because `ignore_changes` keeps the account's value,
// or because the code already says it. Applying any plan writes it into the state (the state takes
// what the refresh found), after which no refresh shows it as drift again. Review lists what an
// apply accepts so; drift marks what no apply puts back.
import { type Catalogue, RESOURCE_TYPES } from '../resource-types';
import { kindOf, type Plan, type ResourceChange } from './plan-json';

/** Why the plan does not change a drift back, in the words review and drift both use. */
export const KEPT_WHY = 'ignore_changes, or code that already matches';

/** Same JSON value (absent and null alike). */
export function sameValue(a: unknown, b: unknown): boolean {
  return JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
}

/**
 * The part of a drift entry (an update, or a deletion) that the plan keeps, or undefined when it
 * keeps nothing of it. A deletion is kept when the plan has no change of the resource (the code
 * no longer declares it); one the code declares is created again. An update is kept whole when the
 * plan has no change of the resource. When the change is a no-op or an update, an attribute is
 * kept when the change leaves it as the account holds it (neither changed back nor shown
 * changing): all of them for a no-op, whose values are the refreshed ones. The entry returned shows
 * only those (a changed-back attribute's `before` is its live value). A resource the plan deletes,
 * replaces, forgets or defers keeps nothing: its own change says what happens to it.
 */
export function keptDrift(plan: Plan, d: ResourceChange, catalogue: Catalogue = RESOURCE_TYPES): ResourceChange | undefined {
  if (d.mode !== 'managed') return undefined;
  const kind = kindOf(d);
  if (kind !== 'update' && kind !== 'delete') return undefined;
  if (plan.deferred.some((c) => c.address === d.address)) return undefined;
  const c = plan.changes.find((x) => x.address === d.address && x.deposed === d.deposed);
  if (kind === 'delete') return c === undefined ? d : undefined;
  if (c === undefined) return d;
  const planned = kindOf(c);
  if (planned !== 'no-op' && planned !== 'update') return undefined;
  // What the API did by itself by the plan's time (a token's expiry) is no change made outside Terraform.
  const byItself = new Set(catalogue.get(d.type)?.changedByItself?.(d.before, d.after, plan.timestamp) ?? []);
  const kept = (a: string): boolean => !byItself.has(a) && !c.afterUnknown.has(a) && sameValue(c.after[a], d.after[a]) && sameValue(c.before[a], c.after[a]);
  const before: Record<string, unknown> = { ...d.before };
  let any = false;
  for (const a of new Set([...Object.keys(d.before), ...Object.keys(d.after)])) {
    if (sameValue(d.before[a], d.after[a])) continue;
    if (kept(a)) any = true;
    else before[a] = d.after[a];
  }
  const secrets = new Set([...d.secretsChanged].filter((a) => !c.secretsChanged.has(a)));
  if (!any && secrets.size === 0) return undefined;
  return { ...d, before, secretsChanged: secrets };
}

/** The drift a normal plan keeps (see {@link keptDrift}); none for a refresh-only plan, which compares with no code. */
export function keptDriftOf(plan: Plan): ResourceChange[] {
  if (plan.refreshOnly) return [];
  return plan.drift.flatMap((d) => keptDrift(plan, d) ?? []);
}
