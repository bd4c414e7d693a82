// What a plan's changes mean for its other resources, read from the plan as a whole: objects of a
// sub-account the plan deletes while resources still declare them (the API deletes them with it),
// a list resource and entry resources of one account's collection (each apply undoes the other),
// two entry resources of one object, an object forgotten while another resource declares it (the
// migration guide's hand-over), and an object a delete or a replacement removes while another
// resource declares it.
// Review raises them as attention items, drift names the resources that undo a pending change.
import { accountPhrase, type Catalogue, RESOURCE_TYPES, type ResourceTypeDescriptor, type Risk, type Values } from '../resource-types';
import { accountBefore, accountOf, HIDDEN_ACCOUNT, objectName, PARENT, phraseOfAccount, UNKNOWN_ACCOUNT } from './describe';
import { isProxyAccount, kindOf, type Plan, type ResourceChange } from './plan-json';

/** An attention item of the plan as a whole (review's `Attention`). */
export interface PlanItem {
  readonly kind: Extract<Risk['kind'], 'deleted_with_account' | 'managed_twice' | 'create_before_destroy_conflict' | 'created_while_present'>;
  readonly address: string;
  readonly message: string;
}

/** A resource of this provider the plan leaves in place, with its account and the keys it declares. */
export interface Declaring {
  readonly address: string;
  readonly type: ResourceTypeDescriptor;
  /** Its account: a username, or {@link PARENT}. */
  readonly account: string;
  /** The keys it declares after the plan, as the catalogue reads them; undefined when the plan does not show them (unknown, or marked sensitive). */
  readonly keys: readonly string[] | undefined;
  /** For an entry resource whose keys the plan shows: its key as the code writes it, when the plan shows that too. */
  readonly written?: string;
  /** Its change in the plan (`no-op` included). */
  readonly kind: string;
  /** For a replacement within its account whose old object's keys the plan shows: those keys. */
  readonly replaced?: readonly string[];
}

/** What a change's resource is, for a managed resource of this provider; undefined otherwise. */
function typeOf(c: ResourceChange, catalogue: Catalogue): ResourceTypeDescriptor | undefined {
  return c.mode === 'managed' && isProxyAccount(c.type) ? catalogue.get(c.type) : undefined;
}

/** True when two keys of `d`'s collection name one object. */
export function sameKey(d: ResourceTypeDescriptor, a: string, b: string): boolean {
  return d.sameKey?.(a, b) ?? a === b;
}

/**
 * True when adding `b` to an account that holds `a` is adding what it holds: as {@link sameKey},
 * except that hostnames compare as the code writes them, since the API keeps case twins apart.
 */
function sameEntry(d: ResourceTypeDescriptor, a: string, writtenA: string | undefined, b: string, writtenB: string | undefined): boolean {
  return d.collection === 'hostnames' ? (writtenA ?? a) === (writtenB ?? b) : sameKey(d, a, b);
}

/**
 * The resources of this provider a plan leaves in place (`resource_changes` other than deletes and
 * forgets, no-ops included), with what they declare. Left out: a resource whose account the plan
 * does not show (marked sensitive, or known only after apply). One whose keys it does not show is
 * never said to overlap another.
 */
export function declaredAfter(plan: Plan, catalogue: Catalogue = RESOURCE_TYPES): Declaring[] {
  const out: Declaring[] = [];
  for (const c of plan.changes) {
    const d = typeOf(c, catalogue);
    const kind = kindOf(c);
    if (d === undefined || kind === 'delete' || kind === 'forget' || kind === 'read') continue;
    const account = accountOf(c, catalogue);
    if (account === HIDDEN_ACCOUNT || account === UNKNOWN_ACCOUNT) continue;
    const shown = keysShown(d, c.afterUnknown, c.sensitive);
    const written = shown ? d.writtenKey?.(c.after) : undefined;
    const replaced =
      kind === 'replace' && accountBefore(c, catalogue) === account && keysShown(d, new Set(), c.sensitive) ? d.managedKeys(c.before) : undefined;
    out.push({
      address: c.address,
      type: d,
      account,
      keys: shown ? d.managedKeys(c.after) : undefined,
      ...(written === undefined ? {} : { written }),
      kind,
      ...(replaced === undefined ? {} : { replaced }),
    });
  }
  return out;
}

/**
 * True when the values show the keys a resource declares: no key attribute unknown or marked
 * sensitive, unless its stand-in is shown (a new proxy entry's `domain`, by its configured `proxy`).
 */
export function keysShown(d: ResourceTypeDescriptor, unknown: ReadonlySet<string>, hidden: ReadonlySet<string>): boolean {
  const shown = (a: string): boolean => !unknown.has(a) && !hidden.has(a);
  const standIn = (a: string): string | undefined => d.keyStandIns?.[a];
  return shown('*') && d.keyAttributes.every((a) => shown(a) || (standIn(a) !== undefined && shown(standIn(a)!)));
}

/** An entry resource and a list resource of one account's collection (see {@link accessOverlaps}). */
export interface Overlap {
  readonly entry: Declaring;
  readonly list: Declaring;
  readonly key: string;
  /** True when the list declares the key too; false when it leaves it out, so removes it. */
  readonly declaredByList: boolean;
}

/**
 * Each key an entry resource declares in a collection of an account whose whole list a list
 * resource manages: the list declares it too (managed twice), or the list removes it and the entry
 * resource adds it back, at every apply. The docs say never to combine both for one account.
 */
export function accessOverlaps(resources: readonly Declaring[]): Overlap[] {
  const out: Overlap[] = [];
  for (const entry of resources) {
    if (entry.type.shape !== 'entry' || entry.keys === undefined) continue;
    const lists = resources.filter((r) => r.type.shape === 'list' && r.type.collection === entry.type.collection && r.account === entry.account);
    for (const list of lists) {
      const listed = list.keys;
      if (listed === undefined) continue;
      for (const key of entry.keys) out.push({ entry, list, key, declaredByList: listed.some((k) => sameKey(list.type, k, key)) });
    }
  }
  return out;
}

/** The account of a {@link Declaring}, as messages name it. */
function phraseOf(account: string): string {
  return accountPhrase(account === PARENT ? null : account);
}

/** What a {@link Declaring} declares, as messages name it: its key as the code writes it, else as the catalogue reads it. */
function keysOf(r: Declaring, keys: readonly string[]): string {
  return r.written ?? keys.join(', ');
}

/** The attention items of {@link accessOverlaps}, on the entry resource. */
export function managedTwice(declared: readonly Declaring[]): PlanItem[] {
  return accessOverlaps(declared).map(({ entry, list, key, declaredByList }) => {
    const noun = entry.type.noun.one;
    const what = `${noun} ${keysOf(entry, [key])}`;
    const whole = `${list.address}, which manages the whole ${noun} list of ${phraseOf(entry.account)}`;
    // Only what an entry holds besides its key (an IP's label) can differ between the two.
    const detail = entry.type.entryDetail;
    const message = declaredByList
      ? `${what} is declared both by this resource and by ${whole}: never combine both for one account. ` +
        `Destroying either one removes it from the account while the other still declares it${detail === undefined ? '' : `, and a difference between them (${detail}) flips at every apply`}`
      : `${what} is declared by this resource but not by ${whole}: the list removes it and this resource adds it back, at every apply. ` +
        'Never combine both for one account: declare it in the list, and stop managing this resource (a removed block with destroy = false)';
    return { kind: 'managed_twice', address: entry.address, message };
  });
}

/**
 * Entry resources of the plan, left in place, that declare one object of an account (an import or
 * a state move that gave a resource another's object; a second resource declaring a key another
 * already holds, as a copied for_each entry does; a proxy added again under a new resource, which
 * the API accepts): destroying either removes the object while the other still declares it. One
 * item per pair, on the later of the two, saying what the plan does to one it creates or replaces.
 */
export function entriesTwice(declared: readonly Declaring[]): PlanItem[] {
  const out: PlanItem[] = [];
  const entries = declared.filter((r) => r.type.shape === 'entry' && r.keys !== undefined);
  entries.forEach((later, i) => {
    for (const earlier of entries.slice(0, i)) {
      if (earlier.type.collection !== later.type.collection || earlier.account !== later.account) continue;
      const key = later.keys!.find((k) => earlier.keys!.some((e) => sameKey(later.type, e, k)));
      if (key === undefined) continue;
      // Case twins are two objects when the account lists both spellings, one when it lists one
      // (the provider reads a spelling in another case as its own): the plan does not say which.
      const twins = later.type.collection === 'hostnames' && earlier.written !== later.written;
      const what = `${later.type.noun.one} ${keysOf(later, [key])} of ${phraseOf(later.account)} is declared both by this resource and by`;
      out.push({
        kind: 'managed_twice',
        address: later.address,
        message: twins
          ? `${what} ${earlier.address}, as ${earlier.written} in another case: ${twinsFate(earlier)}`
          : `${what} ${earlier.address}: ${pairFate(later, earlier, key)}`,
      });
    }
  });
  return out;
}

/** What a forget hands over to other resources the plan leaves in place (see {@link takenOverBy}). */
export interface HandOver {
  /**
   * For the forget's change line: what declares its keys from now on, and, when it is some of a
   * list's entries only, which of them stay unmanaged; undefined when nothing takes any of them over.
   */
  readonly words: string | undefined;
  /** The entries of a forgotten list nothing takes over, as messages show them: they stay in the account, unmanaged. */
  readonly left: readonly string[];
  /** Entry resources that create an entry the forgotten list leaves in the account (see {@link createdWhilePresent}). */
  readonly conflicts: readonly PlanItem[];
}

/**
 * True when this apply adds `key` for `r`: it creates it, or replaces it onto the key, which its
 * old object did not hold (one that did removes it first, or, create_before_destroy, is
 * createBeforeDestroyConflicts' item).
 */
function adds(r: Declaring, key: string): boolean {
  return r.kind === 'create' || (r.kind === 'replace' && r.replaced?.some((k) => sameKey(r.type, k, key)) !== true);
}

/** The rest of {@link entriesTwice}'s message for hostnames in another case, `earlier` the other resource. */
function twinsFate(earlier: Declaring): string {
  return (
    'unless the account lists both spellings, they are one object, and destroying either one removes it from the account while the other still declares it. ' +
    `Keep one: forget the other (${forgetting(earlier.address)})`
  );
}

/**
 * What becomes of two entry resources of one object (the rest of {@link entriesTwice}'s message):
 * one this plan creates or replaces adds what the account already holds, which fails for an IP or
 * a hostname and changes nothing for a proxy; two it leaves as they are both hold it.
 */
function pairFate(later: Declaring, earlier: Declaring, key: string): string {
  const d = later.type;
  const fresh = [later, earlier].filter((r) => adds(r, key));
  const who = (r: Declaring): string => (r === later ? 'this resource' : r.address);
  const detail = d.entryDetail;
  const flips = detail === undefined ? '' : `, and a difference between them (${detail}) flips at every apply`;
  const both = `destroying either one removes it from the account while the other still declares it${flips}`;
  if (fresh.length === 0) return `${both}. Keep one: forget the other (${forgetting(earlier.address)})`;
  const kept = [later, earlier].find((r) => !adds(r, key));
  const once =
    kept === undefined
      ? 'Declare it once: drop one of the two from the code'
      : `Declare it once: drop ${who(fresh[0]!)} from the code, or, to give the ${d.noun.one} to it, replace ${kept.address} by a moved block (moved { from = ${kept.address} to = ${fresh[0]!.address} })`;
  const creates = kept === undefined ? 'this plan creates it for both' : `this plan creates it for ${who(fresh[0]!)}, while ${who(kept)} holds it already`;
  // The API holds an IP or a hostname once and refuses to add it again; it accepts a proxy added again.
  return d.collection === 'proxies'
    ? `${creates}: adding a proxy already authorized succeeds and changes nothing, so both then hold one object, and ${both}. ${once}`
    : `${creates}: ${kept === undefined ? 'the second create' : 'the create'} fails ("already exists": the account holds each ${d.noun.one} once), and the apply stops there. ${once}`;
}

/**
 * How to stop managing the resource at `address` without destroying its object, for advice: a
 * removed block names a whole resource (Terraform refuses instance keys there: "Resource instance
 * keys not allowed"), so an instance is forgotten with terraform state rm.
 */
function forgetting(address: string): string {
  return address.includes('[')
    ? `terraform state rm '${address}' before the apply: a removed block cannot name one instance of a resource`
    : 'a removed block with lifecycle { destroy = false }';
}

/**
 * Entry resources the plan creates or replaces in the parent account whose every key another
 * resource the plan leaves as it is already declares there (a copied for_each entry, a key a list
 * of the parent holds): those keys have the parent's access already, so saying the new object
 * opens it tells the reviewer nothing; {@link entriesTwice} and {@link managedTwice} say what goes
 * wrong.
 */
export function heldInParent(declared: readonly Declaring[]): Set<string> {
  // An entry's key is never updated in place; a list's update may add the key, so only one unchanged holds it already.
  const unchanged = (r: Declaring): boolean => r.kind === 'no-op' || (r.type.shape === 'entry' && r.kind === 'update');
  const holders = declared.filter((r) => r.account === PARENT && r.type.shape !== 'account' && unchanged(r));
  const out = new Set<string>();
  for (const r of declared) {
    if (r.type.shape !== 'entry' || r.account !== PARENT || r.keys === undefined || r.keys.length === 0 || (r.kind !== 'create' && r.kind !== 'replace'))
      continue;
    const held = (key: string): boolean =>
      holders.some((h) => h.address !== r.address && h.type.collection === r.type.collection && h.keys?.some((k) => sameKey(r.type, k, key)) === true);
    if (r.keys.every(held)) out.add(r.address);
  }
  return out;
}

/**
 * For a forget: what other resources the plan leaves in place declare of the forgotten object, as
 * the migration guide's steps do (an entry resource forgotten and a list declaring its key; a list
 * forgotten and entry resources declaring its entries), in words; undefined when the plan does not
 * show its keys. A list's entry that an entry resource creates, rather than imports, is not taken
 * over: the removed block leaves it in the account, so the create fails on it (a proxy's add
 * succeeds, the API accepting a proxy already authorized).
 */
export function takenOverBy(c: ResourceChange, account: string, declared: readonly Declaring[], catalogue: Catalogue = RESOURCE_TYPES): HandOver | undefined {
  const d = catalogue.get(c.type);
  if (d === undefined || d.shape === 'account' || !keysShown(d, new Set(), c.sensitive)) return undefined;
  const entries = entriesOf(d, c.before);
  if (entries.length === 0) return undefined;
  const other = d.shape === 'list' ? 'entry' : 'list';
  const by = declared.filter((r) => r.type.shape === other && r.type.collection === d.collection && r.account === account);
  const held: Array<{ readonly shown: string; readonly holder: Declaring }> = [];
  const left: string[] = [];
  const conflicts: PlanItem[] = [];
  for (const e of entries) {
    const holder = by.find((r) => r.keys?.some((k) => sameKey(d, k, e.key)) === true);
    if (holder !== undefined && createsWhatStays(holder)) conflicts.push(createdWhilePresent(c, d, e, holder, account));
    if (holder === undefined || createsWhatStays(holder)) left.push(e.shown);
    else held.push({ shown: e.shown, holder });
  }
  if (held.length === 0) return { words: undefined, left, conflicts };
  if (left.length === 0) return { words: `declared by ${[...new Set(held.map((h) => h.holder.address))].join(', ')} from now on`, left, conflicts };
  const declaring = held.map((h) => `${h.shown} declared by ${h.holder.address}`).join(', ');
  return { words: `${declaring} from now on; ${left.join(', ')} ${left.length === 1 ? 'stays' : 'stay'} authorized, unmanaged`, left, conflicts };
}

/** A forgotten object's entries, each by its key and as messages show it (a list's IP with its label). */
function entriesOf(d: ResourceTypeDescriptor, v: Values): Array<{ readonly key: string; readonly shown: string }> {
  const keys = d.managedKeys(v);
  if (d.shape === 'entry') return keys.map((key) => ({ key, shown: d.writtenKey?.(v) ?? key }));
  // Both read the list in its order; they differ in length only where an entry has no key, shown then by key.
  const shown = d.entries?.(v);
  return keys.map((key, i) => ({ key, shown: shown?.length === keys.length ? shown[i]! : key }));
}

/** True for an entry resource whose create fails on an entry a forgotten list leaves in the account: an IP or a hostname the plan creates. */
function createsWhatStays(holder: Declaring): boolean {
  return holder.type.shape === 'entry' && holder.kind === 'create' && holder.type.collection !== 'proxies';
}

/**
 * The attention item of an entry resource that creates `entry`, which the list `c` forgets and
 * so leaves in the account: the create fails on it (a hostname in another case may be a second
 * object, where the API keeps case twins apart), and the fix is to import it.
 */
function createdWhilePresent(
  c: ResourceChange,
  d: ResourceTypeDescriptor,
  entry: { readonly key: string; readonly shown: string },
  holder: Declaring,
  account: string,
): PlanItem {
  const noun = holder.type.noun.one;
  const written = holder.written ?? entry.key;
  const id = holder.type.importId.format(account === PARENT ? null : account, written);
  const twin = d.collection === 'hostnames' && written !== entry.shown;
  const fate = twin
    ? `the create fails where the API takes the two spellings for one ${noun}, or else adds ${written} beside it, and ${entry.shown} stays authorized with nothing managing it`
    : `the create fails, the account holding each ${noun} once, so the apply ends in an error and the ${noun} stays with nothing managing it`;
  return {
    kind: 'created_while_present',
    address: holder.address,
    message:
      `creates ${noun} ${written} of ${phraseOf(account)}, which the forgotten ${c.address} leaves in the account${twin ? ` as ${entry.shown}` : ''} (a removed block does not delete what it forgets): ${fate}. ` +
      `Import it into this resource instead of creating it (an import block with id = ${JSON.stringify(id)})`,
  };
}

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

/**
 * Whether a key the change at `address` grants the parent account (in the collection of `d`) had
 * the parent's access already: another change of the plan removes it from the parent (a resource
 * renamed without a `moved` block, entries taking over from a list destroyed) or forgets it there
 * (a removed block: the object stays, as when entries are handed over to a list or back). Saying
 * that granting it opens the parent tells the reviewer nothing; what may go wrong there is its
 * own item.
 */
export type OpenAlready = (address: string, d: ResourceTypeDescriptor, key: string) => boolean;

/** The {@link OpenAlready} of a plan: the parent's keys its deletes, replacements and forgets take from their resources. */
export function reopenedInParent(plan: Plan, catalogue: Catalogue = RESOURCE_TYPES): OpenAlready {
  const removed: Array<{ readonly address: string; readonly d: ResourceTypeDescriptor; readonly key: string }> = [];
  for (const c of plan.changes) {
    const d = typeOf(c, catalogue);
    const kind = kindOf(c);
    if (d === undefined || d.shape === 'account' || (kind !== 'delete' && kind !== 'replace' && kind !== 'forget')) continue;
    if (accountBefore(c, catalogue) !== PARENT || !keysShown(d, new Set(), c.sensitive)) continue;
    for (const key of d.managedKeys(c.before)) removed.push({ address: c.address, d, key });
  }
  return (address, d, key) => removed.some((r) => r.address !== address && r.d.collection === d.collection && sameKey(d, r.key, key));
}

/** A sub-account the plan deletes or replaces, by its username before the plan. */
export interface GoneAccount {
  /** The sub-account resource. */
  readonly address: string;
  readonly kind: 'delete' | 'replace';
}

/** The sub-accounts the plan deletes or replaces (the API deletes their IPs, hostnames and tokens with them), by username before the plan. */
export function accountsGone(plan: Plan, catalogue: Catalogue = RESOURCE_TYPES): Map<string, GoneAccount> {
  const out = new Map<string, GoneAccount>();
  for (const c of plan.changes) {
    const d = typeOf(c, catalogue);
    const kind = kindOf(c);
    if (d?.shape !== 'account' || (kind !== 'delete' && kind !== 'replace')) continue;
    for (const name of d.managedKeys(c.before)) out.set(name, { address: c.address, kind });
  }
  return out;
}

/**
 * The resources of the plan that still declare objects of a sub-account the plan deletes or
 * replaces, without being deleted themselves, nor replaced or created into another account: the
 * API deletes a sub-account's IPs, hostnames and tokens with it, so this apply removes what they
 * claim (or fails to create it), and the state keeps it.
 */
export function deletedWithAccount(plan: Plan, declared: readonly Declaring[], catalogue: Catalogue = RESOURCE_TYPES): PlanItem[] {
  const out: PlanItem[] = [];
  for (const c of plan.changes) {
    const d = typeOf(c, catalogue);
    const kind = kindOf(c);
    if (d?.shape !== 'account' || (kind !== 'delete' && kind !== 'replace')) continue;
    for (const gone of d.managedKeys(c.before)) {
      // Replaced under the same name (or created again by another resource), the sub-account is there after the apply.
      const again = declared.some((r) => r.type.shape === 'account' && r.keys?.includes(gone) === true);
      const verb = kind === 'delete' ? 'deletes' : 'replaces';
      for (const r of declared) {
        // A replacement into the sub-account created again lands in the new one.
        if (r.type.shape === 'account' || r.account !== gone || (r.kind === 'replace' && again)) continue;
        const owner = r.type.ownerAttribute;
        const follow = renamed(d, c) ? `, or set its ${owner} to ${c.address}.${d.keyAttributes[0] ?? owner} so that it follows the rename` : '';
        const what =
          r.type.shape === 'list'
            ? `the ${r.type.noun.one} list`
            : r.keys !== undefined && r.keys.length > 0
              ? `${r.type.noun.one} ${keysOf(r, r.keys)}`
              : `one ${r.type.noun.one}`;
        out.push({
          kind: 'deleted_with_account',
          address: r.address,
          message: `declares ${what} of sub-account '${gone}', which this plan ${verb} (${c.address}) with its IPs, hostnames and tokens: ${nextApplies(r, gone, again)}${again ? '' : `. Remove it from the code with the sub-account${follow}`}`,
        });
      }
    }
  }
  return out;
}

/** What this apply and the next do to a resource of a sub-account this plan deletes (`again`: creates anew under its name). */
function nextApplies(r: Declaring, gone: string, again: boolean): string {
  // Created (or replaced) by this apply, before or after the account's delete: Terraform does not order the two.
  if ((r.kind === 'create' || r.kind === 'replace') && !again) {
    return `this apply creates it in a sub-account it deletes, so the create fails (no sub-account '${gone}' is left) or the object goes with the account while the state keeps it`;
  }
  const next = again
    ? 'the next apply creates it again in the new sub-account'
    : `the next plan creates it again, and its apply fails: no sub-account '${gone}' is left`;
  return `the apply removes what this resource claims, and the state keeps it; ${next}`;
}

/** True for a sub-account's replacement that changes its username. */
function renamed(d: ResourceTypeDescriptor, c: ResourceChange): boolean {
  const [before] = d.managedKeys(c.before);
  const [after] = d.managedKeys(c.after);
  return before !== undefined && after !== undefined && before !== after;
}
