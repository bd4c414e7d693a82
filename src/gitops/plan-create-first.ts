// Replacements made create-first (`create_before_destroy`), read from the plan as a whole: a new
// object that keeps the key of the old one, or of a deposed object of its address (the old object
// of such a replacement an earlier apply did not finish), which the API holds once. Terraform
// creates before it destroys there, so an IP's or a hostname's create fails on the key, and a
// proxy's changes nothing before the destroy removes the proxy. Review raises them as attention
// items (`create_before_destroy_conflict`).
import { type Catalogue, RESOURCE_TYPES, type ResourceTypeDescriptor } from '../resource-types';
import { accountBefore, accountOf, HIDDEN_ACCOUNT, UNKNOWN_ACCOUNT } from './describe';
import { kindOf, type Plan, type ResourceChange } from './plan-json';
import { keysShown, type PlanItem, phraseOf, sameKey, typeOf } from './plan-overlaps';

/**
 * True when adding `b` to an account that holds `a` is adding what it holds: as {@link sameKey},
 * except that hostnames compare as the code writes them, since the API keeps case twins apart.
 */
function sameEntry(d: ResourceTypeDescriptor, a: string, writtenA: string | undefined, b: string, writtenB: string | undefined): boolean {
  return d.collection === 'hostnames' ? (writtenA ?? a) === (writtenB ?? b) : sameKey(d, a, b);
}

/**
 * Entry resources replaced create-first (`create_before_destroy`: actions create, then delete)
 * whose new object has, or may have, the old one's key in the same account, while the API holds one
 * object per key: an IP's create fails on the address the old object still holds, so the apply
 * stops there; a proxy's create changes nothing (adding a proxy already authorized is allowed),
 * and the old object's destroy, which comes after it, removes the proxy the new one stands for.
 * Keys compare as the API compares them: a hostname with its case (the API keeps case twins
 * apart), a proxy by its domain (a port other than the listing's makes the add fail instead, and a
 * form of the same proxy the provider updates in place). A new key known only after apply may be
 * the old one: said so. The same holds for a deposed object of the resource's address (see
 * {@link deposedConflicts}).
 */
export function createBeforeDestroyConflicts(plan: Plan, catalogue: Catalogue = RESOURCE_TYPES): PlanItem[] {
  const out: PlanItem[] = [];
  for (const c of plan.changes) {
    const d = typeOf(c, catalogue);
    if (d?.shape !== 'entry' || c.deposed !== undefined) continue;
    if (c.actions.join(',') === 'create,delete') out.push(...keptByReplacement(c, d, catalogue));
    out.push(...deposedConflicts(plan, c, d, catalogue));
  }
  return out;
}

/** The item of {@link createBeforeDestroyConflicts} for a replacement create-first that keeps its old object's key, if it does. */
function keptByReplacement(c: ResourceChange, d: ResourceTypeDescriptor, catalogue: Catalogue): PlanItem[] {
  const account = accountOf(c, catalogue);
  if (account !== accountBefore(c, catalogue) || account === HIDDEN_ACCOUNT || account === UNKNOWN_ACCOUNT) return [];
  if (!keysShown(d, new Set(), c.sensitive)) return [];
  const held = oldKeyOf(d, c, c.before);
  if (held === undefined) return [];
  const what = `${d.noun.one} ${d.writtenKey?.(c.before) ?? held.key} of ${phraseOf(account)}`;
  const fate =
    d.collection === 'proxies'
      ? "adding a proxy already authorized changes nothing, and the old object's destroy, which comes after it, removes the proxy: the account ends without it while the state keeps it"
      : `the create comes first and fails, the old object holding the ${d.noun.one} (the account holds each once), so the apply stops there`;
  return [
    {
      kind: 'create_before_destroy_conflict',
      address: c.address,
      message: held.sure
        ? `replaced with create_before_destroy while keeping ${what}: ${fate}. Remove create_before_destroy from this resource for this change (the destroy then comes first)`
        : `replaced with create_before_destroy by a ${d.noun.one} ${held.known ? 'whose port the plan cannot compare' : 'known only after apply'}, which may be ${what} again: then ${fate}. Remove create_before_destroy from this resource, or make the value known first`,
    },
  ];
}

/**
 * A create or a replacement whose new object has, or may have, the key of a deposed object of its
 * own address in the same account (the old object of a create_before_destroy replacement whose
 * destroy failed, and the code changed back to it). Terraform destroys a deposed object after the
 * new object's create, with or without create_before_destroy in the code: an IP's or hostname's
 * create fails on the key the deposed object holds, at this apply and every later one, and a
 * proxy's changes nothing, after which the deposed object's destroy removes the proxy. Only a
 * plan that destroys the deposed object alone, before this change, avoids it.
 */
function deposedConflicts(plan: Plan, c: ResourceChange, d: ResourceTypeDescriptor, catalogue: Catalogue): PlanItem[] {
  const kind = kindOf(c);
  if (kind !== 'create' && kind !== 'replace') return [];
  const account = accountOf(c, catalogue);
  if (account === HIDDEN_ACCOUNT || account === UNKNOWN_ACCOUNT) return [];
  const out: PlanItem[] = [];
  for (const old of plan.changes) {
    if (old.address !== c.address || old.deposed === undefined || kindOf(old) !== 'delete') continue;
    if (accountBefore(old, catalogue) !== account || !keysShown(d, new Set(), old.sensitive)) continue;
    const held = oldKeyOf(d, c, old.before);
    if (held === undefined) continue;
    const what = `${d.noun.one} ${d.writtenKey?.(old.before) ?? held.key} of ${phraseOf(account)}`;
    const verb = kind === 'create' ? 'creates' : 'is replaced by';
    const subject = held.sure
      ? `${verb} ${what}`
      : `${verb} a ${d.noun.one} ${held.known ? 'whose port the plan cannot compare' : 'known only after apply'}, which may be ${what}`;
    const fate =
      d.collection === 'proxies'
        ? "adding a proxy already authorized changes nothing, and the deposed object's destroy, which comes after it, removes the proxy: the account ends without it while the state keeps it"
        : `the create fails on the ${d.noun.one} the deposed object holds (the account holds each once) and the apply stops there, as every later one will while the deposed object stays`;
    const first =
      kind === 'replace'
        ? `the code still declaring ${d.writtenKey?.(c.before) ?? d.managedKeys(c.before).join(', ')}, as the current object does`
        : 'the code without this resource';
    out.push({
      kind: 'create_before_destroy_conflict',
      address: c.address,
      message:
        `${subject}, which its deposed object (the old object of a create_before_destroy replacement an earlier apply did not finish) still holds: ` +
        `Terraform destroys a deposed object only after the new object's create, with or without create_before_destroy in the code, so ${fate}. ` +
        `First apply a plan that only destroys the deposed object (${first}), then this change`,
    });
  }
  return out;
}

/**
 * The addresses whose deposed object an IP's or a hostname's create at the same address comes
 * before and fails on, or may ({@link deposedConflicts}): the apply stops there, so the deposed
 * object stays. A proxy's create changes nothing, and the deposed object's destroy does run.
 */
export function deposedKept(plan: Plan, catalogue: Catalogue = RESOURCE_TYPES): Set<string> {
  const out = new Set<string>();
  for (const c of plan.changes) {
    const d = typeOf(c, catalogue);
    if (d?.shape !== 'entry' || c.deposed !== undefined || d.collection === 'proxies') continue;
    if (deposedConflicts(plan, c, d, catalogue).length > 0) out.add(c.address);
  }
  return out;
}

/**
 * Whether `c`'s new object has the key of an old object whose values are `old`: the key, `sure`
 * when the plan shows it is the same, else when it may be (the new key known only after apply,
 * `known` false, or a proxy's port the plan cannot compare); undefined when it is another.
 */
function oldKeyOf(d: ResourceTypeDescriptor, c: ResourceChange, old: ResourceChange['before']): { key: string; sure: boolean; known: boolean } | undefined {
  const before = d.managedKeys(old);
  const known = keysShown(d, c.afterUnknown, c.sensitive);
  const after = known ? d.managedKeys(c.after) : [];
  const key = known ? before.find((k) => after.some((a) => sameEntry(d, k, d.writtenKey?.(old), a, d.writtenKey?.(c.after)))) : before[0];
  if (key === undefined) return undefined;
  // A proxy's port: another than the old form's is another proxy (its add fails); against a form
  // without one, the listing's port is not in the plan.
  const port = d.collection === 'proxies' && known ? portsOf(d.writtenKey?.(old), d.writtenKey?.(c.after)) : 'same';
  if (port === 'other') return undefined;
  return { key, sure: known && port === 'same', known };
}

/** How a proxy's new form's port compares with its old form's: `unknown` when only the new one has a port. */
function portsOf(before: string | undefined, after: string | undefined): 'same' | 'other' | 'unknown' {
  const port = (form: string | undefined): string | undefined => /:(\d+)$/.exec(form ?? '')?.[1];
  const a = port(after);
  if (a === undefined) return 'same';
  const b = port(before);
  return b === undefined ? 'unknown' : a === b ? 'same' : 'other';
}
