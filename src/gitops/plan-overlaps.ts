// What a plan's changes mean for its other resources, read from the plan as a whole: objects of a
// sub-account the plan deletes while resources still declare them (the API deletes them with it),
// a list resource and entry resources of one account's collection (each apply undoes the other),
// two entry resources of one object, an object forgotten while another resource declares it (the
// migration guide's hand-over), and an object a delete or a replacement removes while another
// resource declares it. Objects removed while another resource declares them are
// plan-removals.ts's, replacements made create-first plan-create-first.ts's.
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
export function typeOf(c: ResourceChange, catalogue: Catalogue): ResourceTypeDescriptor | undefined {
  return c.mode === 'managed' && isProxyAccount(c.type) ? catalogue.get(c.type) : undefined;
}

/** True when two keys of `d`'s collection name one object. */
export function sameKey(d: ResourceTypeDescriptor, a: string, b: string): boolean {
  return d.sameKey?.(a, b) ?? a === b;
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
export function phraseOf(account: string): string {
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
export function forgetting(address: string): string {
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
  // A list's entries go to entry resources; an entry to a list, or to another entry resource (a
  // rename done with a removed block and an import, or slipped: a create).
  const takes = (r: Declaring): boolean => (d.shape === 'list' ? r.type.shape === 'entry' : r.type.shape !== 'account');
  const by = declared.filter((r) => r.address !== c.address && takes(r) && r.type.collection === d.collection && r.account === account);
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
