// `proxyaccount review`: a saved plan as a reviewer reads it. Grouped by account (the parent,
// then each sub-account), in domain words, the risky changes first ("needs attention"), other
// providers' resources counted and listed by address, never a secret. What a type's change means
// comes from the resource-type catalogue; what it means for the plan's other resources (objects of
// a sub-account deleted with it while still declared, a list and entry resources of one account,
// an object forgotten while another resource declares it, or while its sub-account is deleted, an
// object a delete or a replacement removes while another resource declares it) from the plan as a
// whole (plan-overlaps.ts). A replacement out of another account is shown under that account too.
import { type Catalogue, changeVerb, RESOURCE_TYPES, type Risk, USAGE_DATA_SOURCE, withArticle } from '../resource-types';
import {
  accountOf,
  deletedFromAccountOf,
  describeChange,
  describeLeaving,
  deferredSubject,
  HIDDEN_ACCOUNT,
  leftAccountOf,
  objectName,
  PARENT,
  phraseOfAccount,
  UNKNOWN_ACCOUNT,
} from './describe';
import { KEPT_WHY, keptDriftOf } from './kept-drift';
import { createBeforeDestroyConflicts, deposedKept } from './plan-create-first';
import { deletedWhileDeclared } from './plan-removals';
import { changeView, type DeferredChange, isProxyAccount, kindOf, type Plan, type ResourceChange } from './plan-json';
import {
  accountsGone,
  declaredAfter,
  entriesTwice,
  deletedWithAccount,
  type GoneAccount,
  type HandOver,
  heldInParent,
  managedTwice,
  type OpenAlready,
  reopenedInParent,
  takenOverBy,
} from './plan-overlaps';

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
  /**
   * The change's kind (create, update, delete, replace, import, forget), or `deferred`: one the
   * plan leaves to a later plan; `deleted_outside` or `changed_outside`: a change made outside
   * Terraform that applying the plan accepts into the state (all of a refresh-only plan's; of a
   * normal plan's, those its changes do not change back: kept-drift.ts).
   */
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
  /**
   * Present only for a refresh-only plan (`terraform plan -refresh-only`): it changes nothing in
   * the account, and applying it makes the state accept the changes made outside Terraform listed
   * under their accounts (`deleted_outside`, `changed_outside`).
   */
  readonly refresh_only?: true;
}

/** Builds the review of a plan; each type's words and risks come from the catalogue. */
export function reviewPlan(plan: Plan, catalogue: Catalogue = RESOURCE_TYPES): Review {
  const summary: ReviewSummary = { add: 0, change: 0, destroy: 0, replace: 0, import: 0, forget: 0 };
  const accounts = new Map<string, ReviewChange[]>();
  const attention: Attention[] = [];
  const other: string[] = [];
  const usage = usageByAccount(plan);
  const declared = declaredAfter(plan, catalogue);
  const gone = accountsGone(plan, catalogue);
  const reopened = reopenedInParent(plan, catalogue);
  const held = heldInParent(declared);
  const blocked = deposedKept(plan, catalogue);

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
    // What a removed block forgets in a sub-account the plan deletes goes with it: nothing is handed over.
    const goneWith = kind === 'forget' ? gone.get(account) : undefined;
    // A forget whose objects other resources of the plan declare (the migration guide's steps) leaves those managed.
    const handOver = kind === 'forget' && goneWith === undefined ? takenOverBy(c, account, declared, catalogue) : undefined;
    const described = describeChange(c, catalogue);
    // A deposed IP or hostname whose address's create fails on it first is not reached.
    const reached =
      c.deposed !== undefined && blocked.has(c.address)
        ? `${described}, unless the create at its address fails first, as it does or may here (create_before_destroy_conflict): then it stays`
        : described;
    const description = goneWith === undefined ? reached : forgottenWith(reached, goneWith);
    const words = handOver?.words;
    list.push({ address: c.address, type: c.type, action: kind, description: words === undefined ? description : `${description}, ${words}` });
    accounts.set(account, list);
    // A replacement out of another account deletes the old object there, and a sub-account renamed
    // deletes the old one: that account's section says so.
    const deletedFrom = deletedFromAccountOf(c, catalogue);
    if (deletedFrom !== undefined) {
      const leaving = { address: c.address, type: c.type, action: kind, description: describeLeaving(c, catalogue) };
      accounts.set(deletedFrom, [...(accounts.get(deletedFrom) ?? []), leaving]);
    }
    const left = leftAccountOf(c, catalogue);
    const risks = attentionOf(c, account, usage.get(account), catalogue, goneWith, left, reopened);
    const kept = held.has(c.address) ? risks.filter((r) => r.kind !== 'parent_access_opened') : risks;
    attention.push(...(handOver === undefined ? kept : [...handedOver(c, kept, handOver, account, catalogue), ...handOver.conflicts]));
  }
  attention.push(
    ...deletedWithAccount(plan, declared, catalogue),
    ...managedTwice(declared),
    ...entriesTwice(declared),
    ...deletedWhileDeclared(plan, declared, catalogue),
    ...createBeforeDestroyConflicts(plan, catalogue),
  );
  for (const d of acceptedDrift(plan)) {
    const accepted = acceptedEntry(d, usage, catalogue, !plan.refreshOnly);
    if (accepted === undefined) continue;
    if (accepted === 'other') {
      // Another provider's drift a normal plan keeps is none of this review's: its changes are counted, not its refresh.
      if (plan.refreshOnly) other.push(d.address);
      continue;
    }
    accounts.set(accepted.account, [...(accounts.get(accepted.account) ?? []), accepted.change]);
    attention.push(...accepted.attention);
  }
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
    ...(plan.refreshOnly ? { refresh_only: true as const } : {}),
  };
}

/**
 * The changes made outside Terraform that applying the plan accepts into the state: all of a
 * refresh-only plan's drift; of a normal plan's, what its changes do not change back (an
 * `ignore_changes` keeps it, or the code already says it), which the apply of any change writes
 * into the state unseen, after which no refresh shows it. None when Terraform marks the plan not
 * applyable: applying it writes nothing.
 */
function acceptedDrift(plan: Plan): readonly ResourceChange[] {
  if (plan.refreshOnly) return plan.drift;
  return plan.applyable === false ? [] : keptDriftOf(plan);
}

/**
 * A change made outside Terraform that applying the plan accepts into the state, in the catalogue's
 * words, with what a reviewer must notice: an object deleted outside Terraform, which the state
 * forgets, and the type's own risks (a deactivation, an IP opening the parent), said to be the
 * account's already; in a normal plan (`kept`), also that the plan does not change it back.
 * Undefined for what changes nothing (a move, a data source).
 */
function acceptedEntry(
  d: ResourceChange,
  usage: Map<string, { monthly: number; total: number }>,
  catalogue: Catalogue,
  kept: boolean,
): { account: string; change: ReviewChange; attention: Attention[] } | 'other' | undefined {
  const kind = kindOf(d);
  if (d.mode !== 'managed' || kind === 'no-op' || kind === 'read') return undefined;
  if (!isProxyAccount(d.type)) return 'other';
  const account = accountOf(d, catalogue);
  if (kind === 'delete') {
    const name = objectName(d, d.before, catalogue);
    return {
      account,
      change: { address: d.address, type: d.type, action: 'deleted_outside', description: `${name} deleted outside Terraform` },
      attention: [
        {
          kind: 'deleted_outside',
          address: d.address,
          message:
            `${name} of ${phraseOfAccount(account)} was deleted outside Terraform: applying this plan makes the state forget it. ` +
            'Where the code still declares it, the next plan creates it again; where it does not, the deletion is never shown again',
        },
      ],
    };
  }
  const how = kept
    ? `changed outside Terraform and kept by this plan (${KEPT_WHY}), which accepts it into the state`
    : 'changed outside Terraform, which this plan accepts into the state';
  const risks = attentionOf(d, account, usage.get(account), catalogue, undefined, undefined).map((a) =>
    a.kind === 'account_not_shown' ? a : { ...a, message: `${how}: ${a.message}` },
  );
  const what = describeChange(d, catalogue);
  return {
    account,
    change: {
      address: d.address,
      type: d.type,
      action: 'changed_outside',
      description: kept ? `changed outside Terraform, kept by this plan (${KEPT_WHY}): ${what}` : `changed outside Terraform: ${what}`,
    },
    attention: kept ? [keptAttention(d, account, what), ...risks] : risks,
  };
}

/**
 * A normal plan's kept drift always needs attention, whatever the type's risks: nothing else in
 * the plan shows it, and once this apply writes it into the state, no refresh shows it as drift.
 */
function keptAttention(d: ResourceChange, account: string, what: string): Attention {
  return {
    kind: 'kept_outside',
    address: d.address,
    message:
      `in ${phraseOfAccount(account)}, a change made outside Terraform (${what}) is kept by this plan (${KEPT_WHY}): ` +
      'applying it makes the state accept it, after which a refresh no longer shows it as drift. If the code should not allow it, ' +
      'declare the value in the code without ignore_changes, and the next plan changes it back',
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

/**
 * The attention items of a forget that hands objects over to other resources of the plan: the
 * catalogue's risks, whose "no longer managed" is replaced by what stays unmanaged. A list's
 * entries are judged from the state: Terraform reads no resource a removed block forgets, so an
 * entry added to the account since is in no plan, and stays.
 */
function handedOver(c: ResourceChange, risks: readonly Attention[], handOver: HandOver, account: string, catalogue: Catalogue): Attention[] {
  if (handOver.words === undefined) return [...risks];
  const rest = risks.filter((r) => r.kind !== 'no_longer_managed');
  if (catalogue.get(c.type)?.shape !== 'list') return rest;
  return [...rest, handOver.left.length === 0 ? listForgottenFromState(c, catalogue) : listForgottenInPart(c, handOver.left, account, catalogue)];
}

/** The attention item of a list forgotten while entry resources take all its entries over. */
function listForgottenFromState(c: ResourceChange, catalogue: Catalogue): Attention {
  const noun = nounOf(c, catalogue);
  const one = withArticle(noun.one);
  return {
    kind: 'no_longer_managed',
    address: c.address,
    message:
      `the ${noun.one} list is forgotten as the state last recorded it: Terraform does not read a resource a removed block forgets, so ${one} added to the account since is in no plan, ` +
      `and stays authorized, unmanaged. Before this apply, run terraform apply -refresh-only and review what the list then holds (or proxyaccount drift); after it, drift lists any such ${noun.one}`,
  };
}

/** The attention item of a list forgotten while entry resources take some of its entries over: the others (`left`) stay, unmanaged. */
function listForgottenInPart(c: ResourceChange, left: readonly string[], account: string, catalogue: Catalogue): Attention {
  const noun = nounOf(c, catalogue);
  const [what, verbs] =
    left.length === 1
      ? [`${noun.one} ${left[0]}`, 'it stays authorized with nothing managing it, and drift runs report it']
      : [`${noun.many} ${left.join(', ')}`, 'they stay authorized with nothing managing them, and drift runs report them'];
  return {
    kind: 'no_longer_managed',
    address: c.address,
    message:
      `the ${noun.one} list of ${phraseOfAccount(account)} is no longer managed by Terraform but stays in the account, and no resource of the plan takes over ${what}: ` +
      `${verbs} as unmanaged (the list's other entries are declared by entry resources from now on, as its change line says). ` +
      `The list is forgotten as the state last recorded it: ${withArticle(noun.one)} added to the account since stays too, and drift reports it as well`,
  };
}

/** The noun of a change's type, as messages name its objects. */
function nounOf(c: ResourceChange, catalogue: Catalogue): { readonly one: string; readonly many: string } {
  return catalogue.get(c.type)?.noun ?? { one: 'entry', many: 'entries' };
}

function attentionOf(
  c: ResourceChange,
  account: string,
  usage: { monthly: number; total: number } | undefined,
  catalogue: Catalogue,
  deletedBy: GoneAccount | undefined,
  left: string | undefined,
  reopened?: OpenAlready,
): Attention[] {
  const d = catalogue.get(c.type);
  if (d === undefined) return [];
  const unnamed = account === HIDDEN_ACCOUNT || account === UNKNOWN_ACCOUNT;
  const username = account === PARENT ? null : account;
  const phrase = username === null ? 'the parent account' : unnamed ? 'an account the plan does not name' : `sub-account '${username}'`;
  const leaving = left === undefined ? undefined : { username: left === PARENT ? null : left, phrase: phraseOfAccount(left) };
  const owner = {
    username,
    phrase,
    ...(usage !== undefined ? { usage } : {}),
    ...(deletedBy !== undefined ? { deletedBy } : {}),
    ...(leaving !== undefined ? { leaving } : {}),
    ...(reopened !== undefined && account === PARENT ? { openAlready: (key: string) => reopened(c.address, d, key) } : {}),
  };
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

/**
 * A forget's description when the plan deletes or replaces its sub-account: the catalogue says the
 * object stays in the account, but the API deletes it with the sub-account.
 */
function forgottenWith(description: string, gone: GoneAccount): string {
  return description.replace(
    changeVerb('forget'),
    `no longer managed (deleted with its sub-account, which this plan ${gone.kind === 'delete' ? 'deletes' : 'replaces'})`,
  );
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

/**
 * True when the review holds a change of the kind `failOn` names. A refresh-only plan that accepts
 * a deletion made outside Terraform counts as a destroy: applying it makes the state forget the object.
 */
export function failsOn(r: Review, failOn: FailOn): boolean {
  if (failOn === 'attention') return r.attention.length > 0;
  if (failOn === 'replace') return r.summary.replace > 0;
  return r.summary.destroy > 0 || r.accounts.some((a) => a.changes.some((c) => c.action === 'deleted_outside'));
}
