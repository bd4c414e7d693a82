// One definition for the three authoritative list resources (IPs, hostnames, proxies): each
// owns a whole list of one account. What differs per list (how entries are read, compared,
// written and shown) is a ListKind; the life cycle is here once: plan (showing every entry the
// apply will remove), create, read, update, delete, import.
import type { AccountStore } from '../../account';
import { isNotFound } from '../errors';
import { capitalize, isUnknown, type Model, type ObjectSchema, type PlanModel } from '../framework';
import type { Ctx, Resource } from '../types';
import { accountId, importAccountList, ownerPhrase, SELF_ID } from './account-ids';
import { syncList, type ListOp } from './list-sync';

/** What one list resource says about its entries: `E` as state holds them, `R` as the API lists them. */
export interface ListKind<S extends ObjectSchema, E, R> {
  /** Terraform type name, e.g. `proxyaccount_authorized_ips`. */
  readonly typeName: string;
  /** Human name, e.g. `authorized IP list`. */
  readonly displayName: string;
  /** The schema; it has `id`, `removed_entries` and the entries attribute (and `username` unless parent-only). */
  readonly schema: S;
  /** True when the list exists only for the parent account (no `username`). */
  readonly parentOnly: boolean;
  /** The declared entries of a model. */
  entriesOf(model: Model<S>): readonly E[];
  /** A model of the list; `removed` fills `removed_entries`. */
  model(username: string | null, entries: readonly E[], removed: readonly string[] | null): Model<S>;
  /** The listing as the store has it (cached), and read anew. */
  list(store: AccountStore, username: string | null, fresh: boolean): Promise<readonly R[]>;
  /** The remote list in state form, in the declared spelling where an entry stands for a declared one. */
  toState(remote: readonly R[], declared: readonly E[]): E[];
  /** How each remote entry not kept by `desired` is named in a plan (e.g. `203.0.113.7 (office)`). */
  removals(remote: readonly R[], desired: readonly E[]): string[];
  /** The same for entries of state: those of `before` that `desired` does not keep. */
  dropped(before: readonly E[], desired: readonly E[]): string[];
  /** The writes that turn `before` into `desired`. */
  diff(store: AccountStore, username: string | null, before: readonly R[], desired: readonly E[]): ListOp[];
  /** `before` with the writes known to have succeeded. */
  replay(before: readonly R[], done: readonly ListOp[], desired: readonly E[]): R[];
  /** A problem with `desired` that validation could not see (values unknown then), or undefined. */
  problem?(desired: readonly E[]): string | undefined;
}

/** The resource definition of one authoritative list. */
export function authoritativeList<S extends ObjectSchema, E, R>(kind: ListKind<S, E, R>): Resource<S> {
  const usernameOf = (m: { readonly username?: unknown }): string | null => (kind.parentOnly || typeof m.username !== 'string' ? null : m.username);
  const object = (username: string | null): string => `${kind.displayName} ${ownerPhrase(username)}`;

  /** Makes the remote list equal `desired`; the entries state should hold, or undefined when nothing was tried. */
  const sync = async (ctx: Ctx, username: string | null, desired: readonly E[], operation: 'create' | 'update' | 'delete') => {
    const problem = kind.problem?.(desired);
    if (problem !== undefined) {
      ctx.diagnostics.addError(`Unable to ${operation} ${kind.displayName}`, problem);
      return undefined;
    }
    const outcome = await syncList<R>(ctx, {
      operation,
      displayName: kind.displayName,
      object: object(username),
      fresh: () => kind.list(ctx.data, username, true),
      diff: (before) => kind.diff(ctx.data, username, before, desired),
      replay: (before, done) => kind.replay(before, done, desired),
    });
    return { entries: outcome.ok ? [...desired] : kind.toState(outcome.remote, desired), changed: outcome.changed };
  };

  return {
    typeName: kind.typeName,
    displayName: kind.displayName,
    describe: (m) => object(usernameOf(m)),
    schema: kind.schema,

    async modifyPlan(ctx, { prior, planned }) {
      const username: unknown = kind.parentOnly ? null : (planned as { username?: unknown }).username;
      if (username !== undefined && username !== null && isUnknown(username as never)) return undefined;
      const owner = typeof username === 'string' ? username : null;
      const entries: unknown = (planned as Record<string, unknown>)[entriesAttribute(kind)];
      if (entries === undefined || entries === null || isUnknown(entries as never)) return undefined;
      const desired = kind.entriesOf(planned as Model<S>);
      let removed: string[];
      if (prior !== null) {
        // The refresh made prior state the live list: what it holds and the plan drops goes.
        const before = kind.entriesOf(prior) ?? [];
        removed = kind.dropped(before, desired);
        if (sameEntries(before, desired)) return undefined;
      } else {
        // A new list takes over whatever the account has: read it, so the plan shows it.
        if (ctx.data === undefined) return { planned: { id: accountId(owner) } as Partial<PlanModel<S>> };
        let live: readonly R[];
        try {
          live = await kind.list(ctx.data, owner, false);
        } catch {
          // A sub-account created in this same apply has no list yet; any other failure
          // shows at apply, where the list is read again.
          live = [];
        }
        removed = kind.removals(live, desired);
      }
      if (removed.length > 0) {
        ctx.diagnostics.addWarning(
          `${capitalize(kind.displayName)} removes ${removed.length} entr${removed.length === 1 ? 'y' : 'ies'} not declared`,
          `Applying this plan removes from the ${object(owner)} every entry the configuration does not declare: ${removed.join(', ')}. ` +
            'Declare them to keep them; to adopt an existing account safely, import the list first (terraform import, or an import block) and review the plan.',
          [{ attributeName: entriesAttribute(kind) }],
        );
      }
      return { planned: { ...(prior === null ? { id: accountId(owner) } : {}), removed_entries: removed } as unknown as Partial<PlanModel<S>> };
    },

    async create(ctx, { planned }) {
      const username = usernameOf(planned);
      const removed = removedOf(planned);
      const r = await sync(ctx, username, kind.entriesOf(planned), 'create');
      // A create that changed nothing before failing saves nothing.
      if (r === undefined || (!r.changed && ctx.diagnostics.hasErrors())) return undefined;
      return kind.model(username, r.entries, removed);
    },

    async read(ctx, { state }) {
      const username = usernameOf(state);
      let remote: readonly R[];
      try {
        remote = await kind.list(ctx.data, username, false);
      } catch (err) {
        // The sub-account, and with it its list, is gone.
        if (username !== null && isNotFound(err)) return null;
        throw err;
      }
      // After an import, state holds no entries yet, and the list has removed nothing.
      return kind.model(username, kind.toState(remote, kind.entriesOf(state) ?? []), removedOf(state) ?? []);
    },

    async update(ctx, { planned }) {
      const username = usernameOf(planned);
      const r = await sync(ctx, username, kind.entriesOf(planned), 'update');
      if (r === undefined) return undefined;
      return kind.model(username, r.entries, removedOf(planned));
    },

    async delete(ctx, { prior }) {
      const username = usernameOf(prior);
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
        return { id: SELF_ID } as Partial<Model<S>>;
      }
      return importAccountList(ctx, id) as Partial<Model<S>> | undefined;
    },
  };
}

function entriesAttribute<S extends ObjectSchema>(kind: ListKind<S, unknown, unknown>): string {
  const names = Object.keys(kind.schema.attributes).filter((n) => n !== 'id' && n !== 'username' && n !== 'removed_entries');
  return names[0]!;
}

function removedOf(m: unknown): string[] | null {
  const v = (m as { removed_entries?: unknown }).removed_entries;
  return Array.isArray(v) ? (v.filter((x) => typeof x === 'string') as string[]) : null;
}

function sameEntries(a: readonly unknown[], b: readonly unknown[]): boolean {
  const key = (x: unknown): string => JSON.stringify(x);
  const sa = new Set(a.map(key));
  return a.length === b.length && b.every((x) => sa.has(key(x)));
}
