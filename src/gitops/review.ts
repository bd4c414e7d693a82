// `proxyaccount review`: a saved plan as a reviewer reads it. Grouped by account (the parent,
// then each sub-account), in domain words, the risky changes first ("needs attention"), other
// providers' resources counted and listed by address, never a secret. What a type's change means
// comes from the resource-type catalogue; what it means for the plan's other resources (objects of
// a sub-account deleted with it while still declared, a list and entry resources of one account,
// an object forgotten while another resource declares it) from the plan as a whole.
import { accountPhrase, type Catalogue, RESOURCE_TYPES, type ResourceTypeDescriptor, type Risk, USAGE_DATA_SOURCE } from '../resource-types';
import { accountOf, describeChange, deferredSubject, HIDDEN_ACCOUNT, PARENT, UNKNOWN_ACCOUNT } from './describe';
import { changeView, type DeferredChange, isProxyAccount, kindOf, type Plan, type ResourceChange } from './plan-json';

/** Counts as in terraform's plan line, plus replacements, imports and objects no longer managed. */
export interface ReviewSummary {
  add: number;
  change: number;
  destroy: number;
  replace: number;
  import: number;
  /** Objects a `removed` block forgets: they stay in the account, managed by nothing. */
  forget: number;
}

/** One change in one account. */
export interface ReviewChange {
  readonly address: string;
  readonly type: string;
  /** The change's kind (create, update, delete, replace, import, forget), or `deferred`: one the plan leaves to a later plan. */
  readonly action: string;
  readonly description: string;
}

/** A change that needs a reviewer's attention. */
export interface Attention {
  readonly kind: Risk['kind'];
  readonly address: string;
  readonly message: string;
}

/** The review of one plan (the JSON format of `proxyaccount review --format json`). */
export interface Review {
  readonly summary: ReviewSummary;
  readonly accounts: Array<{ account: string; changes: ReviewChange[] }>;
  readonly attention: Attention[];
  readonly other_resources: string[];
  /**
   * Present only when Terraform marks the plan incomplete (`complete: false`): why applying it
   * leaves part of the code for a later plan. Its changes are all listed above it all the same.
   */
  readonly incomplete?: string;
}

/** Builds the review of a plan; each type's words and risks come from the catalogue. */
export function reviewPlan(plan: Plan, catalogue: Catalogue = RESOURCE_TYPES): Review {
  const summary: ReviewSummary = { add: 0, change: 0, destroy: 0, replace: 0, import: 0, forget: 0 };
  const accounts = new Map<string, ReviewChange[]>();
  const attention: Attention[] = [];
  const other: string[] = [];
  const usage = usageByAccount(plan);
  const declared = declaredAfter(plan, catalogue);

  for (const c of plan.changes) {
    if (c.mode !== 'managed') continue;
    const kind = kindOf(c);
    if (kind === 'no-op' || kind === 'read') continue;
    if (c.importing) summary.import++;
    if (kind === 'create' || (kind === 'forget' && c.actions.includes('create'))) summary.add++;
    if (kind === 'forget') summary.forget++;
    if (kind === 'update') summary.change++;
    if (kind === 'delete') summary.destroy++;
    if (kind === 'replace') {
      summary.replace++;
      summary.add++;
      summary.destroy++;
    }
    if (!isProxyAccount(c.type)) {
      other.push(c.address);
      continue;
    }
    const account = accountOf(c, catalogue);
    const list = accounts.get(account) ?? [];
    // A forget whose objects another resource of the plan declares (the migration guide's steps) leaves nothing unmanaged.
    const takenOver = kind === 'forget' ? takenOverBy(c, account, declared, catalogue) : undefined;
    const description = describeChange(c, catalogue);
    list.push({ address: c.address, type: c.type, action: kind, description: takenOver === undefined ? description : `${description}, ${takenOver}` });
    accounts.set(account, list);
    const risks = attentionOf(c, account, usage.get(account), catalogue);
    attention.push(...(takenOver === undefined ? risks : risks.filter((r) => r.kind !== 'no_longer_managed')));
  }
  attention.push(...deletedWithAccount(plan, declared, catalogue), ...managedTwice(declared));
  for (const c of plan.deferred) {
    const deferred = deferredEntry(c, catalogue);
    if (deferred === undefined) continue;
    if (deferred === 'other') {
      other.push(c.address);
      continue;
    }
    const list = accounts.get(deferred.account) ?? [];
    list.push(deferred.change);
    accounts.set(deferred.account, list);
    attention.push(deferred.attention);
  }

  const order = [...accounts.keys()].sort((a, b) => (a === PARENT ? -1 : b === PARENT ? 1 : a.localeCompare(b)));
  return {
    summary,
    accounts: order.map((account) => ({ account, changes: accounts.get(account)! })),
    attention,
    other_resources: other.sort(),
    ...(plan.complete === false ? { incomplete: incompleteReason(plan) } : {}),
  };
}

/**
 * Why Terraform marks a plan incomplete: it defers changes (listed, with attention), or it was
 * made with `-target` (the only other reason Terraform has), which plans the targets alone.
 */
function incompleteReason(plan: Plan): string {
  const why =
    plan.deferred.length > 0
      ? 'it defers changes to a later plan (listed below)'
      : 'it was made with -target, so it plans only the targeted resources and what they depend on';
  return `Terraform marks this plan incomplete: ${why}. Applying it leaves the rest of the code for a later plan, which needs a review of its own.`;
}

/** Usage figures the plan knows: from the usage data sources in the prior state. */
function usageByAccount(plan: Plan): Map<string, { monthly: number; total: number }> {
  const out = new Map<string, { monthly: number; total: number }>();
  for (const r of plan.priorState) {
    if (r.mode !== 'data' || r.type !== USAGE_DATA_SOURCE) continue;
    const { username, monthly_bandwidth: monthly, total_bandwidth: total } = r.values;
    if (typeof username === 'string' && typeof monthly === 'number' && typeof total === 'number') out.set(username, { monthly, total });
  }
  return out;
}

function attentionOf(c: ResourceChange, account: string, usage: { monthly: number; total: number } | undefined, catalogue: Catalogue): Attention[] {
  const d = catalogue.get(c.type);
  if (d === undefined) return [];
  const unnamed = account === HIDDEN_ACCOUNT || account === UNKNOWN_ACCOUNT;
  const username = account === PARENT ? null : account;
  const phrase = username === null ? 'the parent account' : unnamed ? 'an account the plan does not name' : `sub-account '${username}'`;
  const owner = { username, phrase, ...(usage !== undefined ? { usage } : {}) };
  const risks = d.risks(changeView(c), owner).map((r) => ({ kind: r.kind, address: c.address, message: r.message }));
  // A sub-account's own username names it: hidden, it is still a sub-account, never the parent.
  if (!unnamed || d.shape === 'account') return risks;
  // Who the change grants or takes access from cannot be read from the plan: it may be the parent.
  const why = account === HIDDEN_ACCOUNT ? 'its username is marked sensitive' : 'its username is known only after apply';
  return [
    { kind: 'account_not_shown', address: c.address, message: `the plan does not say which account this change is in (${why}): it may be the parent account` },
    ...risks,
  ];
}

/** A resource of this provider the plan leaves in place, with its account and the keys it declares. */
export interface Declaring {
  readonly address: string;
  readonly type: ResourceTypeDescriptor;
  /** Its account: a username, or {@link PARENT}. */
  readonly account: string;
  /** The keys it declares after the plan, as the catalogue reads them; undefined when the plan does not show them (unknown, or marked sensitive). */
  readonly keys: readonly string[] | undefined;
  /** Its change in the plan (`no-op` included). */
  readonly kind: string;
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
    const d = c.mode === 'managed' && isProxyAccount(c.type) ? catalogue.get(c.type) : undefined;
    const kind = kindOf(c);
    if (d === undefined || kind === 'delete' || kind === 'forget' || kind === 'read') continue;
    const account = accountOf(c, catalogue);
    if (account === HIDDEN_ACCOUNT || account === UNKNOWN_ACCOUNT) continue;
    out.push({ address: c.address, type: d, account, keys: keysShown(d, c.afterUnknown, c.sensitive) ? d.managedKeys(c.after) : undefined, kind });
  }
  return out;
}

/** True when the keys a resource declares are all in its values (none unknown or marked sensitive). */
export function keysShown(d: ResourceTypeDescriptor, unknown: ReadonlySet<string>, hidden: ReadonlySet<string>): boolean {
  return !unknown.has('*') && !hidden.has('*') && !d.keyAttributes.some((a) => unknown.has(a) || hidden.has(a));
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

/** The attention items of {@link accessOverlaps}, on the entry resource. */
function managedTwice(declared: readonly Declaring[]): Attention[] {
  return accessOverlaps(declared).map(({ entry, list, key, declaredByList }) => {
    const noun = entry.type.noun.one;
    const whole = `${list.address}, which manages the whole ${noun} list of ${phraseOf(entry.account)}`;
    const message = declaredByList
      ? `${noun} ${key} is declared both by this resource and by ${whole}: never combine both for one account. ` +
        'Destroying either one removes it from the account while the other still declares it, and a difference between them (a label) flips at every apply'
      : `${noun} ${key} is declared by this resource but not by ${whole}: the list removes it and this resource adds it back, at every apply. ` +
        'Never combine both for one account: declare it in the list, and stop managing this resource (a removed block with destroy = false)';
    return { kind: 'managed_twice', address: entry.address, message };
  });
}

/**
 * For a forget: what another resource the plan leaves in place declares all of the forgotten
 * object, as the migration guide's steps do (an entry resource forgotten and a list declaring its
 * key; a list forgotten and entry resources declaring its entries), in words; else undefined.
 */
function takenOverBy(c: ResourceChange, account: string, declared: readonly Declaring[], catalogue: Catalogue): string | undefined {
  const d = catalogue.get(c.type);
  if (d === undefined || d.shape === 'account' || !keysShown(d, new Set(), c.sensitive)) return undefined;
  const keys = d.managedKeys(c.before);
  const other = d.shape === 'list' ? 'entry' : 'list';
  const by = declared.filter((r) => r.type.shape === other && r.type.collection === d.collection && r.account === account);
  const holder = (key: string): Declaring | undefined => by.find((r) => r.keys?.some((k) => sameKey(d, k, key)) === true);
  if (keys.length === 0 || !keys.every((k) => holder(k) !== undefined)) return undefined;
  const addresses = [...new Set(keys.map((k) => holder(k)!.address))];
  return `declared by ${addresses.join(', ')} from now on`;
}

/**
 * The resources of the plan that still declare objects of a sub-account the plan deletes or
 * replaces, without being deleted or replaced themselves: the API deletes a sub-account's IPs,
 * hostnames and tokens with it, so this apply removes what they claim, and the state keeps them.
 */
function deletedWithAccount(plan: Plan, declared: readonly Declaring[], catalogue: Catalogue): Attention[] {
  const out: Attention[] = [];
  for (const c of plan.changes) {
    const d = c.mode === 'managed' && isProxyAccount(c.type) ? catalogue.get(c.type) : undefined;
    const kind = kindOf(c);
    if (d?.shape !== 'account' || (kind !== 'delete' && kind !== 'replace')) continue;
    for (const gone of d.managedKeys(c.before)) {
      // Replaced under the same name (or created again by another resource), the sub-account is there after the apply.
      const again = declared.some((r) => r.type.shape === 'account' && r.keys?.includes(gone) === true);
      const verb = kind === 'delete' ? 'deletes' : 'replaces';
      for (const r of declared) {
        if (r.type.shape === 'account' || r.account !== gone || r.kind === 'replace') continue;
        const what =
          r.type.shape === 'list'
            ? `the ${r.type.noun.one} list`
            : r.keys !== undefined && r.keys.length > 0
              ? `${r.type.noun.one} ${r.keys.join(', ')}`
              : `one ${r.type.noun.one}`;
        const next = again
          ? 'the next apply creates it again in the new sub-account'
          : `the next plan creates it again, and its apply fails: no sub-account '${gone}' is left. ` +
            `Remove it from the code with the sub-account${renamed(d, c) ? `, or set its ${r.type.ownerAttribute} to ${c.address}.${d.keyAttributes[0] ?? r.type.ownerAttribute} so that it follows the rename` : ''}`;
        out.push({
          kind: 'deleted_with_account',
          address: r.address,
          message:
            `declares ${what} of sub-account '${gone}', which this plan ${verb} (${c.address}) with its IPs, hostnames and tokens: ` +
            `the apply removes what this resource claims, and the state keeps it; ${next}`,
        });
      }
    }
  }
  return out;
}

/** True for a sub-account's replacement that changes its username. */
function renamed(d: ResourceTypeDescriptor, c: ResourceChange): boolean {
  const [before] = d.managedKeys(c.before);
  const [after] = d.managedKeys(c.after);
  return before !== undefined && after !== undefined && before !== after;
}

/**
 * A change the plan defers: applying it does not make it, and the plan that will make it is not
 * this one. Filed under its account, never dropped, with attention, since nobody has reviewed what
 * it will do. Undefined for what no change of the plan would show either (data sources, no-ops).
 */
function deferredEntry(c: DeferredChange, catalogue: Catalogue): { account: string; change: ReviewChange; attention: Attention } | 'other' | undefined {
  const kind = kindOf(c);
  if (c.mode !== 'managed' || kind === 'no-op' || kind === 'read') return undefined;
  if (!isProxyAccount(c.type)) return 'other';
  const subject = deferredSubject(c, catalogue);
  return {
    account: accountOf(c, catalogue),
    change: { address: c.address, type: c.type, action: 'deferred', description: `${subject} deferred to a later plan (${c.reason})` },
    attention: {
      kind: 'change_deferred',
      address: c.address,
      message: `this plan defers the ${subject} (Terraform's reason: ${c.reason}): applying it does not make the change, and the later plan that does needs a review of its own`,
    },
  };
}

/** True when the review holds any change (other providers' and deferred ones included). */
export function hasChanges(r: Review): boolean {
  const s = r.summary;
  return s.add + s.change + s.destroy + s.import + s.forget > 0 || r.accounts.length > 0 || r.other_resources.length > 0;
}

/** The `--fail-on` conditions. */
export type FailOn = 'destroy' | 'replace' | 'attention';

/** True when the review holds a change of the kind `failOn` names. */
export function failsOn(r: Review, failOn: FailOn): boolean {
  if (failOn === 'attention') return r.attention.length > 0;
  if (failOn === 'replace') return r.summary.replace > 0;
  return r.summary.destroy > 0;
}
