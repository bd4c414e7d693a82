// One definition for the three authoritative list resources (IPs, hostnames, proxies): each
// owns a whole list of one account. What differs per list is a ListKind: how its model reads
// and writes the parts every list has (owner, entries, removed entries), how the store reaches
// the list, and what its entries are (list-entries.ts, where the diff and the replay live). The
// life cycle is here once: plan (showing every entry the apply will remove), create, read,
// update, delete, import.
//
// Terraform plans each change again while applying, with every value known, and refuses an apply
// whose values differ from what the reviewed plan knew; that second plan cannot tell whether the
// first one knew the owner or the entries. So what the reviewed plan could not show is settled in
// the first plan: a new list whose account it cannot read promises to remove nothing
// (`removed_entries = []`, which Terraform then holds the apply to), and a list whose entries are
// not known yet names every entry the account's list holds now, any of which applying may remove.
import type { AccountStore } from '../../account';
import { isNotFound } from '../errors';
import {
  type AttributeName,
  capitalize,
  isKnown,
  type Model,
  type ModifyPlanContext,
  type ObjectSchema,
  type PlanAdjustment,
  type PlanModel,
  UNKNOWN,
  type Unknown,
} from '../framework';
import type { Ctx, Resource } from '../types';
import { accountId, importAccountList, ownerPhrase, SELF_ID } from './account-ids';
import { diff, dropped, type ListAccess, type ListEntries, removals, replay, unplannedRemovals, vanished } from './list-entries';
import { sameEntries, syncList } from './list-sync';
import { missingId } from './state-ids';

/** What every list model holds, in the same terms for every list. */
export interface ListModel<E> {
  /** The sub-account whose list it is; null for the account the provider authenticates as. */
  readonly username: string | null;
  /** The entries; none in a state that import made and no read has filled yet. */
  readonly entries: readonly E[];
  /** What the latest change removed (`removed_entries`); null until a plan fills it. */
  readonly removed: readonly string[] | null;
}

/** The same at plan time, when the owner or the entries may not be known yet. */
export interface PlannedList<E> {
  readonly username: string | null | Unknown;
  readonly entries: readonly E[] | null | Unknown;
}

/** What one list resource says about itself: `E` its entries as state holds them, `R` as the API lists them. */
export interface ListKind<S extends ObjectSchema, E, R> {
  /** Terraform type name, e.g. `proxyaccount_authorized_ips`. */
  readonly typeName: string;
  /** Human name, e.g. `authorized IP list`. */
  readonly displayName: string;
  /** The schema. */
  readonly schema: S;
  /** True when the list exists only for the parent account (no `username`). */
  readonly parentOnly: boolean;
  /** The attribute that holds the entries; plan warnings point at it. */
  readonly entriesAttribute: keyof Model<S> & string;
  /** A (partial) state model in list terms. */
  fromModel(model: Partial<Model<S>>): ListModel<E>;
  /** A plan model in list terms. */
  fromPlan(model: PlanModel<S>): PlannedList<E>;
  /** The model of a list; its `id` is {@link accountId} of the owner. */
  toModel(list: ListModel<E>): Model<S>;
  /** The planned values a list computes: `id` (on create) and `removed_entries` (once known); absent ones stay as planned. */
  toPlan(values: { readonly id?: string; readonly removed?: readonly string[] }): Partial<PlanModel<S>>;
  /** The list of `username` in the store. */
  access(store: AccountStore, username: string | null): ListAccess<E, R>;
  /** What the entries are. */
  readonly entries: ListEntries<E, R>;
  /** A problem with `desired` that validation could not see (values unknown then), or undefined. */
  problem?(desired: readonly E[]): string | undefined;
}

/** The resource definition of one authoritative list. */
export function authoritativeList<S extends ObjectSchema, E, R>(kind: ListKind<S, E, R>): Resource<S> {
  const object = (username: string | null): string => listObject(kind, username);

  /**
   * Makes the remote list equal `desired`; the entries state should hold, or undefined when nothing
   * was tried. `planned`: what the plan knew of the list, to tell removals it could not show: for
   * an update the prior state's entries, for a create the removals it showed (`removed_entries`).
   */
  const sync = async (
    ctx: Ctx,
    username: string | null,
    desired: readonly E[],
    operation: 'create' | 'update' | 'delete',
    planned?: { readonly prior: readonly E[] } | { readonly shown: readonly string[] | null },
  ) => {
    const problem = kind.problem?.(desired);
    if (problem !== undefined) {
      ctx.diagnostics.addError(`Unable to ${operation} ${kind.displayName}`, problem);
      return undefined;
    }
    const list = kind.access(ctx.data, username);
    let unseen: string[] = [];
    const outcome = await syncList(ctx, {
      operation,
      displayName: kind.displayName,
      object: object(username),
      addsFirst: kind.entries.addsFirst === true,
      fresh: () => list.fresh(),
      diff: (before) => {
        // Entries added to the account after the plan was made: authoritative, the list removes
        // them too, and says so, since the reviewed plan could not show them.
        if (planned !== undefined && 'prior' in planned) unseen = unplannedRemovals(kind.entries, before, planned.prior, desired);
        else if (planned?.shown != null) unseen = removals(kind.entries, before, desired).filter((r) => !planned.shown!.includes(r));
        return diff(kind.entries, list, before, desired);
      },
      replay: (before, done) => replay(kind.entries, before, done),
    });
    // After failed writes, only what the account no longer lists was removed (a list that adds
    // first removes nothing once an add failed).
    if (!outcome.ok) {
      const left = removals(kind.entries, outcome.remote, desired);
      unseen = unseen.filter((u) => !left.includes(u));
    }
    if (unseen.length > 0) {
      ctx.diagnostics.addWarning(
        `${capitalize(kind.displayName)} removed ${unseen.length} entr${unseen.length === 1 ? 'y' : 'ies'} the plan did not show`,
        `The ${object(username)} held entries added after the plan was made, which this apply removed as the configuration does not declare them: ${unseen.join(', ')}. ` +
          'Declare them to keep them, and add them again.',
        [{ attributeName: kind.entriesAttribute }],
      );
    }
    return { entries: outcome.ok ? [...desired] : kind.entries.toState(outcome.remote, desired), changed: outcome.changed };
  };

  return {
    typeName: kind.typeName,
    displayName: kind.displayName,
    describe: (m) => object(kind.fromModel(m).username),
    schema: kind.schema,

    modifyPlan: (ctx, { prior, planned }) => planList(kind, ctx, prior, planned),

    // Every call acts on the state's username: one edited (or lost) while the id kept naming
    // another account would read, replace or clear the other account's whole list; so would one
    // that lost its id too (a lost username reads as the provider's own account).
    checkState(state) {
      const id = (state as { readonly id?: string | null }).id ?? null;
      const lost = missingId({ id });
      if (lost !== undefined) return { ...lost, attribute: lost.attribute as keyof Model<S> & string };
      const { username } = kind.fromModel(state);
      if (id === accountId(username)) return undefined;
      const owner = username === null ? (kind.parentOnly ? "the provider's account" : 'no username') : `username ${JSON.stringify(username)}`;
      return {
        attribute: (kind.parentOnly ? 'id' : 'username') as keyof Model<S> & string,
        problem: `${owner} does not match id ${JSON.stringify(id)}`,
      };
    },

    async create(ctx, { planned }) {
      const { username, entries, removed } = kind.fromModel(planned);
      const r = await sync(ctx, username, entries, 'create', { shown: removed });
      // A create that changed nothing before failing saves nothing.
      if (r === undefined || (!r.changed && ctx.diagnostics.hasErrors())) return undefined;
      return kind.toModel({ username, entries: r.entries, removed });
    },

    async read(ctx, { state }) {
      const { username, entries, removed } = kind.fromModel(state);
      let remote: readonly R[];
      try {
        remote = await kind.access(ctx.data, username).list();
      } catch (err) {
        // The sub-account, and with it its list, is gone.
        if (username !== null && isNotFound(err)) return null;
        throw err;
      }
      // After an import, state holds no entries yet, and the list has removed nothing.
      return kind.toModel({ username, entries: kind.entries.toState(remote, entries), removed: removed ?? [] });
    },

    async update(ctx, { prior, planned }) {
      const { username, entries, removed } = kind.fromModel(planned);
      const r = await sync(ctx, username, entries, 'update', { prior: kind.fromModel(prior).entries });
      if (r === undefined) return undefined;
      return kind.toModel({ username, entries: r.entries, removed });
    },

    async delete(ctx, { prior }) {
      const { username } = kind.fromModel(prior);
      try {
        await sync(ctx, username, [], 'delete');
      } catch (err) {
        // A sub-account deleted first took its list with it.
        if (username === null || !isNotFound(err)) throw err;
      }
    },

    async import(ctx, id) {
      if (kind.parentOnly) {
        if (id.trim() !== SELF_ID) {
          ctx.diagnostics.addError(
            'Invalid import ID',
            `The ${kind.displayName} belongs to the parent account: import it with the ID "${SELF_ID}", got ${JSON.stringify(id)}.`,
          );
          return undefined;
        }
        return kind.toModel({ username: null, entries: [], removed: null });
      }
      const imported = importAccountList(ctx, id);
      return imported === undefined ? undefined : kind.toModel({ username: imported.username, entries: [], removed: null });
    },
  };
}

/**
 * The plan of a list: `removed_entries` (what applying it removes, with a warning naming each),
 * and the `id` of a new list. A new list takes over whatever the account has, so it is read. When
 * the account cannot be read (its owner or the provider's configuration are not known yet) or the
 * entries are not known, see the file's opening note.
 */
async function planList<S extends ObjectSchema, E, R>(
  kind: ListKind<S, E, R>,
  ctx: ModifyPlanContext<AccountStore, AttributeName<S>>,
  prior: Model<S> | null,
  planned: PlanModel<S>,
): Promise<PlanAdjustment<S> | undefined> {
  const plan = kind.fromPlan(planned);
  if (!isKnown(plan.username)) {
    // With a prior state this is the list moving to another account: Terraform plans the new one
    // as a create next, which answers for it.
    return prior === null ? promiseNoRemovals(kind, ctx, undefined, '`username` is not known until apply') : undefined;
  }
  const owner = plan.username;
  if (prior === null && ctx.data === undefined) {
    return promiseNoRemovals(kind, ctx, owner, "the provider's configuration is not known until apply");
  }
  if (!isKnown(plan.entries) || plan.entries === null) return planUnknownEntries(kind, ctx, prior, owner);
  const desired = plan.entries;
  let removed: string[];
  let gone: string[] = [];
  if (prior !== null) {
    const before = kind.fromModel(prior).entries;
    if (sameEntries(before, desired)) return undefined;
    // What the apply will remove is what the live list holds and `desired` does not declare,
    // paired the way the apply pairs them (a proxy's forms differ between state and listing).
    // The refresh just read the list, so this is its cached copy; without the provider's data,
    // the prior state stands for it.
    if (ctx.data === undefined) removed = dropped(kind.entries, before, desired);
    else {
      const listed = await kind.access(ctx.data, owner).list();
      if (refuseEntries(kind, ctx, listed, desired)) return undefined;
      // An entry the prior state holds that the account no longer lists stays among the removals.
      // Terraform plans again while applying, with the prior state the reviewed plan had: an entry
      // deleted in between (by a per-entry resource this same apply destroys, say) would otherwise
      // make that plan differ from the reviewed one, and Terraform stop the list for nothing. (An
      // entry the state holds in a declared form the account lists differently, such as a proxy's
      // `us-ny`, is named in that form then, and the list still stops: nothing is removed.)
      gone = vanished(kind.entries, listed, before, desired);
      removed = [...removals(kind.entries, listed, desired), ...gone];
    }
  } else {
    // A new list takes over whatever the account has: read it, so the plan shows it.
    const listed = await liveList(kind, ctx.data!, owner);
    if (refuseEntries(kind, ctx, listed, desired)) return undefined;
    removed = removals(kind.entries, listed, desired);
  }
  if (removed.length > 0) {
    ctx.diagnostics.addWarning(
      `${capitalize(kind.displayName)} removes ${removed.length} entr${removed.length === 1 ? 'y' : 'ies'} not declared`,
      `Applying this plan removes from the ${listObject(kind, owner)} every entry the configuration does not declare: ${removed.join(', ')}. ` +
        `${gone.length === 0 ? '' : `Of these, ${gone.join(', ')} ${gone.length === 1 ? 'is' : 'are'} gone from the account already. `}` +
        'Declare them to keep them; to adopt an existing account safely, import the list first (terraform import, or an import block) and review the plan. ' +
        // Terraform plans again while applying: this warning then comes from that plan.
        'While applying a plan whose known removed_entries leave them out, Terraform stops this list instead ("Provider produced inconsistent final plan") and removes nothing: plan again to review them.',
      [{ attributeName: kind.entriesAttribute }],
    );
  }
  return { planned: kind.toPlan({ ...(prior === null ? { id: accountId(owner) } : {}), removed }) };
}

/**
 * Adds an error for each declared entry the API will refuse, as the account's list shows: applied,
 * its add would fail while the listed entry it was meant to stand for is removed. True when any.
 */
function refuseEntries<S extends ObjectSchema, E, R>(
  kind: ListKind<S, E, R>,
  ctx: ModifyPlanContext<AccountStore, AttributeName<S>>,
  listed: readonly R[],
  desired: readonly E[],
): boolean {
  let any = false;
  for (const d of desired) {
    const refusal = kind.entries.refused?.(d, listed);
    if (refusal === undefined) continue;
    ctx.diagnostics.addError(refusal.summary, refusal.detail, [{ attributeName: kind.entriesAttribute }]);
    any = true;
  }
  return any;
}

/** The account's list as the plan reads it; a sub-account created in this same apply has none yet. */
async function liveList<S extends ObjectSchema, E, R>(kind: ListKind<S, E, R>, store: AccountStore, owner: string | null): Promise<readonly R[]> {
  try {
    return await kind.access(store, owner).list();
  } catch (err) {
    // Not found: a sub-account this apply creates (404). Any other failure fails the plan: taken
    // for an empty list, it would hide from the plan the entries applying it removes.
    if (owner === null || !isNotFound(err)) throw err;
    return [];
  }
}

/**
 * The plan of a new list whose account cannot be read: it shows no removal, and promises none
 * (`removed_entries = []`). Terraform's plan while applying, which can read it, must agree: with an
 * undeclared entry there, Terraform stops the apply of this list, and nothing is removed.
 */
function promiseNoRemovals<S extends ObjectSchema, E, R>(
  kind: ListKind<S, E, R>,
  ctx: ModifyPlanContext<AccountStore, AttributeName<S>>,
  owner: string | null | undefined,
  why: string,
): PlanAdjustment<S> {
  const list = owner === undefined ? `The ${kind.displayName}` : `The ${listObject(kind, owner)}`;
  ctx.diagnostics.addWarning(
    `${capitalize(kind.displayName)} cannot be read before apply`,
    `${list}: ${why}, so this plan cannot read the account's list or show which of its entries the configuration does not declare. ` +
      'It plans to remove none of them (removed_entries = []), and Terraform holds the apply to that: should the list hold an entry the configuration does not declare, the apply of this list stops ("Provider produced inconsistent final plan", naming it in removed_entries) and removes nothing; the next plan then shows it, for review. ' +
      'To adopt the list in one apply, import it first, or make the value known first (apply what it depends on with -target).',
    [{ attributeName: kind.entriesAttribute }],
  );
  return { planned: kind.toPlan({ ...(owner === undefined ? {} : { id: accountId(owner) }), removed: [] }) };
}

/**
 * The plan of a list whose entries are not known yet: what applying it removes is not known
 * either (`removed_entries` unknown), so the warning names every entry the account's list holds
 * now, any of which it removes unless declared. An empty list has nothing to remove.
 */
async function planUnknownEntries<S extends ObjectSchema, E, R>(
  kind: ListKind<S, E, R>,
  ctx: ModifyPlanContext<AccountStore, AttributeName<S>>,
  prior: Model<S> | null,
  owner: string | null,
): Promise<PlanAdjustment<S>> {
  const id = prior === null ? { id: accountId(owner) } : {};
  // Without the provider's data (an update: a new list never gets here), the state stands for the list.
  const held =
    ctx.data === undefined ? dropped(kind.entries, kind.fromModel(prior!).entries, []) : removals(kind.entries, await liveList(kind, ctx.data, owner), []);
  if (held.length === 0) return { planned: kind.toPlan({ ...id, removed: [] }) };
  ctx.diagnostics.addWarning(
    `${capitalize(kind.displayName)} may remove entries this plan cannot show`,
    `The ${listObject(kind, owner)}: \`${kind.entriesAttribute}\` is not known until apply, so this plan cannot show which entries of the account's list the configuration does not declare. ` +
      `It holds now: ${held.join(', ')}; applying this plan removes each of them the configuration turns out not to declare, and any entry added to the list between this plan and its apply. ` +
      `Declare the ones to keep, or make \`${kind.entriesAttribute}\` known first (apply what it depends on with -target) to see the removals in removed_entries.`,
    [{ attributeName: kind.entriesAttribute }],
  );
  // An update keeps the prior removed_entries unless told, which the plan made while applying
  // (with the entries known) would contradict.
  return { planned: { ...kind.toPlan(id), removed_entries: UNKNOWN } as Partial<PlanModel<S>> };
}

/** The list for messages, e.g. "authorized IP list of sub-account 'alice'". */
function listObject(kind: { readonly displayName: string }, username: string | null): string {
  return `${kind.displayName} ${ownerPhrase(username)}`;
}
