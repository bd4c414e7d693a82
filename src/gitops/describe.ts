// Domain words for one planned change of a proxyaccount resource ("+IP 203.0.113.7 (office)",
// "monthly limit 50 → 100 GB"), from the resource-type catalogue. Values come from a plan
// already stripped of secrets and sensitive values (plan-json.ts).
import { type Catalogue, changeVerb, RESOURCE_TYPES } from '../resource-types';
import { changeView, kindOf, type ResourceChange } from './plan-json';

/** The account a resource belongs to: a sub-account's username, or '(parent)'. */
export const PARENT = '(parent)';

/** The account of a change (its owning account attribute, after or before). */
export function accountOf(c: Pick<ResourceChange, 'type' | 'before' | 'after'>, catalogue: Catalogue = RESOURCE_TYPES): string {
  const attr = catalogue.get(c.type)?.ownerAttribute ?? 'username';
  const name = c.after[attr] ?? c.before[attr];
  return typeof name === 'string' ? name : PARENT;
}

/** The change in a reviewer's words, without the account name (the section carries it). */
export function describeChange(c: ResourceChange, catalogue: Catalogue = RESOURCE_TYPES): string {
  const d = catalogue.get(c.type);
  if (d !== undefined) return d.describeChange(changeView(c));
  // A type of a newer provider than this command: said plainly, by its name.
  return `${c.type} ${changeVerb(kindOf(c))}`;
}
