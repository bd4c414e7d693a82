// Domain words for one planned change of a proxyaccount resource ("+IP 203.0.113.7 (office)",
// "monthly limit 50 → 100 GB"), from the resource-type catalogue. Values come from a plan
// already stripped of secrets and sensitive values (plan-json.ts).
import { accountPhrase, type Catalogue, changeVerb, RESOURCE_TYPES, withArticle } from '../resource-types';
import { changeView, type DeferredChange, kindOf, type ResourceChange } from './plan-json';

/** What a deposed object is, in a reviewer's words. */
export const DEPOSED = 'the old object of a create_before_destroy replacement an earlier apply did not finish (deposed), which applying this plan removes';

/** The account a resource belongs to: a sub-account's username, or '(parent)'. */
export const PARENT = '(parent)';
/** The account of a change whose owning attribute the plan marks sensitive. */
export const HIDDEN_ACCOUNT = '(account not shown: sensitive)';
/** The account of a change whose owning attribute is known only after apply. */
export const UNKNOWN_ACCOUNT = '(account known after apply)';

type Owned = Pick<ResourceChange, 'type' | 'actions' | 'importing' | 'before' | 'after' | 'afterUnknown' | 'sensitive'>;

/**
 * The account of a change: its owning account attribute after the change (before it, for a
 * delete or a forget, which have no after). An unset attribute is the parent, so a move to the
 * parent files the change under the parent; one the plan hides or does not know yet says so.
 */
export function accountOf(c: Owned, catalogue: Catalogue = RESOURCE_TYPES): string {
  const attr = catalogue.get(c.type)?.ownerAttribute ?? 'username';
  if (c.sensitive.has(attr) || c.sensitive.has('*')) return HIDDEN_ACCOUNT;
  const kind = kindOf(c);
  if (kind === 'delete' || kind === 'forget') return nameOf(c.before[attr]);
  if (c.afterUnknown.has(attr) || c.afterUnknown.has('*')) return UNKNOWN_ACCOUNT;
  return nameOf(c.after[attr]);
}

/** The account a change's object is in before the plan (its owning attribute before it); {@link HIDDEN_ACCOUNT} when the plan marks it sensitive. */
export function accountBefore(c: Owned, catalogue: Catalogue = RESOURCE_TYPES): string {
  const attr = catalogue.get(c.type)?.ownerAttribute ?? 'username';
  if (c.sensitive.has(attr) || c.sensitive.has('*')) return HIDDEN_ACCOUNT;
  return nameOf(c.before[attr]);
}

/**
 * For a replacement whose old object is in another account than the one its change is filed
 * under (it moves, or the new one is known only after apply): the account the replacement
 * deletes the old object from. Undefined otherwise, and when the plan hides the account.
 */
export function leftAccountOf(c: Owned, catalogue: Catalogue = RESOURCE_TYPES): string | undefined {
  // A sub-account's own username names it, not an account it is in: its risks speak of a rename.
  if (kindOf(c) !== 'replace' || catalogue.get(c.type)?.shape === 'account') return undefined;
  const before = accountBefore(c, catalogue);
  return before !== HIDDEN_ACCOUNT && before !== accountOf(c, catalogue) ? before : undefined;
}

/**
 * The account whose section lists the deletion a replacement makes there, which the change's own
 * line, under the new account, does not show: the account an object leaves ({@link leftAccountOf}),
 * or the old username of a sub-account replaced under another one (or one known only after apply).
 */
export function deletedFromAccountOf(c: Owned, catalogue: Catalogue = RESOURCE_TYPES): string | undefined {
  if (catalogue.get(c.type)?.shape !== 'account') return leftAccountOf(c, catalogue);
  if (kindOf(c) !== 'replace') return undefined;
  const before = accountBefore(c, catalogue);
  return before !== HIDDEN_ACCOUNT && before !== PARENT && before !== accountOf(c, catalogue) ? before : undefined;
}

/** For a replacement that moves the object from one account to another: the account it leaves. */
export function previousAccountOf(c: Owned, catalogue: Catalogue = RESOURCE_TYPES): string | undefined {
  return accountOf(c, catalogue) === UNKNOWN_ACCOUNT ? undefined : leftAccountOf(c, catalogue);
}

/** An account as messages name it, from a section's name. */
export function phraseOfAccount(account: string): string {
  if (account === HIDDEN_ACCOUNT) return 'an account the plan does not name';
  if (account === UNKNOWN_ACCOUNT) return 'an account known only after apply';
  return accountPhrase(account === PARENT ? null : account);
}

/** An object of a change (its `before` or `after` values) in the words that name it: `IP 203.0.113.7`, `token 8 'deploy'`. */
export function objectName(c: ResourceChange, values: ResourceChange['before'], catalogue: Catalogue = RESOURCE_TYPES): string {
  const d = catalogue.get(c.type);
  if (d === undefined) return c.type;
  return d.name?.(values, changeView(c)) ?? d.noun.one;
}

/**
 * The line of a replacement under the account its old object leaves ({@link deletedFromAccountOf}),
 * which the change's own line, under the new account, does not show: that account loses the object,
 * or, for a sub-account renamed, is itself deleted.
 */
export function describeLeaving(c: ResourceChange, catalogue: Catalogue = RESOURCE_TYPES): string {
  const account = accountOf(c, catalogue);
  if (catalogue.get(c.type)?.shape === 'account') {
    const by = account === UNKNOWN_ACCOUNT ? 'a sub-account whose username is known only after apply' : objectName(c, c.after, catalogue);
    return `${catalogue.get(c.type)!.noun.one} deleted: replaced by ${by}`;
  }
  const to = phraseOfAccount(account);
  if (catalogue.get(c.type)?.shape === 'list') {
    const noun = catalogue.get(c.type)!.noun.one;
    return `${objectName(c, c.before, catalogue)} deleted, its entries removed from the account: replaced by ${withArticle(noun)} list in ${to}`;
  }
  return `${objectName(c, c.before, catalogue)} deleted: replaced by ${objectName(c, c.after, catalogue)} in ${to}`;
}

function nameOf(username: unknown): string {
  return typeof username === 'string' ? username : PARENT;
}

/** The change in a reviewer's words, without the account name (the section carries it). */
export function describeChange(c: ResourceChange, catalogue: Catalogue = RESOURCE_TYPES): string {
  // Not the resource's own change: the rest of a replacement an earlier apply did not finish.
  if (c.deposed !== undefined) return `${objectName(c, c.before, catalogue)} ${changeVerb(kindOf(c))}: ${DEPOSED}`;
  const d = catalogue.get(c.type);
  const described = d !== undefined ? d.describeChange(changeView(c)) : `${c.type} ${changeVerb(kindOf(c))}`; // a newer provider's type: by its name
  const causes = kindOf(c) === 'replace' ? replaceCauses(c) : [];
  const words = causes.length > 0 ? `${described}, ${causes.join(', and ')}` : described;
  const from = previousAccountOf(c, catalogue);
  return from === undefined ? words : `${words}, moved from ${from === PARENT ? 'the parent account' : `sub-account '${from}'`}`;
}

/**
 * Why Terraform replaces the object, in its words (`action_reason`), beside the attributes it says
 * force it (`replace_paths`: names, never values). A replacement that `replace_triggered_by` or
 * `-replace` forces has no such attribute: without its reason, a credential would be seen rotated
 * by a change that does not touch it. The plan's JSON does not say what `replace_triggered_by`
 * referred to.
 */
function replaceCauses(c: ResourceChange): string[] {
  const reason = c.actionReason === undefined ? undefined : REPLACE_REASONS.get(c.actionReason);
  const forced = [...c.replacedBy].sort();
  return [...(reason === undefined ? [] : [reason]), ...(forced.length > 0 ? [`forced by a change of ${forced.join(' and ')}`] : [])];
}

/** Terraform's reasons for a replacement that its `replace_paths` do not give. */
const REPLACE_REASONS: ReadonlyMap<string, string> = new Map([
  ['replace_by_triggers', 'forced by a change of what its replace_triggered_by names'],
  ['replace_by_request', 'requested with -replace'],
  ['replace_because_tainted', 'because it is tainted (an earlier apply did not finish it, or terraform taint marked it)'],
]);

/**
 * What a deferred change would do, in a reviewer's words: its type and action only, since a
 * deferred change's values are mostly unknown ("IP list create").
 */
export function deferredSubject(c: DeferredChange, catalogue: Catalogue = RESOURCE_TYPES): string {
  const d = catalogue.get(c.type);
  const what = d === undefined ? c.type : d.shape === 'list' ? `${d.noun.one} list` : d.noun.one;
  return `${what} ${kindOf(c)}`;
}
