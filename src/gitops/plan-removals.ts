// Objects a delete or a replacement removes from an account while another resource of the plan
// still declares them there: what the apply then does (Terraform does not order the removal and
// another resource's create; an IP's or a hostname's create fails on what the account still holds,
// a list or a proxy takes it and loses it again), and what to do instead (a moved block, forgetting
// one of two resources, checking an import ID). Review raises them as `managed_twice` items.
import { type Catalogue, RESOURCE_TYPES, type ResourceTypeDescriptor } from '../resource-types';
import { accountBefore, accountOf, HIDDEN_ACCOUNT, objectName, phraseOfAccount } from './describe';
import { kindOf, type Plan, type ResourceChange } from './plan-json';
import { type Declaring, forgetting, keysShown, type PlanItem, phraseOf, sameKey, typeOf } from './plan-overlaps';

/**
 * Objects a delete or a replacement removes from an account while another resource of the plan
 * declares them there after it (same collection and account, keys compared as the provider
 * compares them): an entry resource destroyed while a list declares its key (the per-entry blocks
 * deleted in a migration to lists, instead of forgotten), an import or a state move that gave a
 * resource another resource's object, which its code then replaces, two entry resources of one
 * object one of which is destroyed, a list destroyed or moved to another account while entry
 * resources declare its entries. The apply removes the object, and what declares it does not add
 * it back in this apply (its state keeps it), so the account goes without it until a later one.
 */
export function deletedWhileDeclared(plan: Plan, declared: readonly Declaring[], catalogue: Catalogue = RESOURCE_TYPES): PlanItem[] {
  const out: PlanItem[] = [];
  for (const c of plan.changes) {
    const d = typeOf(c, catalogue);
    const kind = kindOf(c);
    if (d === undefined || d.shape === 'account' || (kind !== 'delete' && kind !== 'replace') || !keysShown(d, new Set(), c.sensitive)) continue;
    const account = accountBefore(c, catalogue);
    if (account === HIDDEN_ACCOUNT) continue;
    const self = declared.find((r) => r.address === c.address);
    // A list replaced within its account removes only what its new entries leave out, which managedTwice names.
    if (d.shape === 'list' && kind === 'replace' && (self === undefined || self.account === account)) continue;
    for (const key of d.managedKeys(c.before)) {
      // A replacement that declares the key again in the same account creates it anew; not so for
      // a deposed object, destroyed after that create (createBeforeDestroyConflicts names it).
      if (c.deposed === undefined && self?.account === account && self.keys?.some((k) => sameKey(d, k, key)) === true) continue;
      const holders = declared.filter(
        (r) =>
          r.address !== c.address &&
          r.type.shape !== 'account' &&
          r.type.collection === d.collection &&
          r.account === account &&
          r.keys?.some((k) => sameKey(d, k, key)) === true,
      );
      for (const holder of holders) {
        const certain = swappedCreateFirst(plan, c, holder, catalogue);
        out.push({ kind: 'managed_twice', address: c.address, message: removalMessage(c, d, account, key, holder, certain, catalogue) });
      }
    }
  }
  return out;
}

/**
 * True when `c` and `holder` are both replaced create-first (create_before_destroy) and each one's
 * new object has a key the other's old object holds (two entries swapping keys): each create runs
 * before its own destroy, so both fail, whatever the order.
 */
function swappedCreateFirst(plan: Plan, c: ResourceChange, holder: Declaring, catalogue: Catalogue): boolean {
  const h = plan.changes.find((x) => x.address === holder.address && x.deposed === undefined);
  const d = typeOf(c, catalogue);
  if (h === undefined || d === undefined || c.actions.join(',') !== 'create,delete' || h.actions.join(',') !== 'create,delete') return false;
  if (!keysShown(d, c.afterUnknown, c.sensitive) || !keysShown(d, new Set(), h.sensitive) || accountBefore(h, catalogue) !== accountOf(c, catalogue))
    return false;
  const after = d.managedKeys(c.after);
  return d.managedKeys(h.before).some((k) => after.some((a) => sameKey(d, k, a)));
}

/** The message of {@link deletedWhileDeclared}: what `c` removes (`key` of `account`), which `holder` declares. */
function removalMessage(
  c: ResourceChange,
  d: ResourceTypeDescriptor,
  account: string,
  key: string,
  holder: Declaring,
  certain: boolean,
  catalogue: Catalogue,
): string {
  const what = `${d.noun.one} ${d.shape === 'entry' ? (d.writtenKey?.(c.before) ?? key) : key}`;
  const where = phraseOf(account);
  const replace = kindOf(c) === 'replace';
  const destroys = c.deposed === undefined ? 'destroys' : 'destroys the deposed object holding';
  // The message the migration guide's case has always had: the list is planned before the destroy.
  if (d.shape === 'entry' && !replace && holder.type.shape === 'list') {
    return (
      `${destroys} ${what} of ${where}, which ${holder.address} declares: the destroy removes it from the account, and the list does not add it back in this apply, ` +
      'so the account goes without it until the next apply. To hand it over to the list, forget this resource instead (a removed block with lifecycle { destroy = false })'
    );
  }
  const to = phraseOfAccount(accountOf(c, catalogue));
  const subject =
    d.shape === 'list'
      ? `${replace ? `replaces the ${d.noun.one} list of ${where} by one in ${to}` : `destroys the ${d.noun.one} list of ${where}`}, removing ${what}`
      : `${replace ? 'replaces' : destroys} ${what} of ${where}`;
  const how =
    d.shape === 'list'
      ? 'the apply removes it from the account'
      : certain
        ? `the replacement would delete it from the account once it has created ${objectName(c, c.after, catalogue)}`
        : replace
          ? `${c.importing ? 'this plan imports it into this resource, and ' : ''}the replacement deletes it from the account to create ${objectName(c, c.after, catalogue)} in ${to}`
          : 'the destroy removes it from the account';
  return `${subject}, which ${holder.address} declares too: ${how}; ${holderFate(holder, d, certain)}. ${removalAdvice(c, d, holder, certain)}`;
}

/** What to do instead of what {@link removalMessage} describes. */
function removalAdvice(c: ResourceChange, d: ResourceTypeDescriptor, holder: Declaring, certain: boolean): string {
  const replace = kindOf(c) === 'replace';
  if (d.shape === 'list') {
    // A list another list holds: an import with a wrong ID, or a state move, gave this resource its object.
    if (replace && c.importing) return 'Check the import ID: it names a list another resource manages';
    if (holder.type.shape === 'list') return 'Two resources hold one list: undo the state move that gave it to this resource (terraform state mv it back)';
    return 'To hand its entries over to entry resources, forget the list instead (a removed block with lifecycle { destroy = false })';
  }
  if (replace && c.importing) return 'Check the import ID: it names an object another resource manages';
  if (certain) return 'Remove create_before_destroy from these resources for this change (each destroy then comes before its create)';
  // A resource renamed without a moved block: its old address destroyed, its new one created.
  if (holder.type === d && (holder.kind === 'create' || holder.kind === 'replace')) {
    const index = /^(.*)\[\d+\]$/;
    const shifted = index.exec(c.address)?.[1];
    return shifted !== undefined && shifted === index.exec(holder.address)?.[1]
      ? `A count shifted: key ${shifted} by value instead (for_each, with a moved block from each index to its key), so that removing one ${d.noun.one} leaves the others in place`
      : `If this is a rename, declare it with a moved block (moved { from = ${c.address} to = ${holder.address} }): the object then stays, with no change`;
  }
  return replace
    ? `Two resources hold one object: forget one of them (a removed block with lifecycle { destroy = false } for a whole resource, terraform state rm for an instance) rather than replace it`
    : `To stop managing it here only, forget this resource instead (${forgetting(c.address)})`;
}

/**
 * What becomes of the resource that declares an object this apply removes. One this apply creates
 * or replaces too, Terraform does not order with the removal: an IP's or a hostname's create fails
 * if it runs first (the API holds each once), a proxy's adds what the removal then removes.
 */
function holderFate(holder: Declaring, d: ResourceTypeDescriptor, certain: boolean): string {
  const noun = d.noun.one;
  const exists = `("already exists": the account holds each ${noun} once)`;
  if (certain)
    return `${holder.address}'s create comes before its own destroy, as this one's does, so both fail ${exists} and the apply stops there, at every apply`;
  if (holder.kind === 'create' || holder.kind === 'replace') {
    const verb = holder.kind === 'create' ? 'creates' : 'replaces';
    // A list takes over what the account already holds, as a proxy's add accepts one already there.
    if (holder.type.shape === 'list')
      return `Terraform does not order this and what ${holder.address} ${verb}: a list takes over the ${noun} the account holds, so if that runs first, this removes it while the list's state keeps it`;
    if (d.collection === 'proxies')
      return `Terraform does not order this and what ${holder.address} ${verb}: if that runs first, this removes what it made while its state keeps it`;
    return `Terraform does not order this and ${holder.address}'s create: if that runs first, it fails ${exists} and the ${noun} is absent from the account until a later apply creates it`;
  }
  return `${holder.address}'s state keeps it, so the account goes without it until a later plan finds it gone and creates it again`;
}
