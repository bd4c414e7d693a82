// What the authoritative lists share about their entries: which declared entry a listed one
// stands for, the writes that turn the account's list into the declared one, and the list those
// writes leave behind when some fail. Each list says only what its entries are (ListEntries);
// the diff and the replay are written here once.
import type { ListOp } from './list-sync';

/** The store's access to one list: read it, and write it one entry at a time. */
export interface ListAccess<E, R> {
  /** The list as the store has it (cached for the run). */
  list(): Promise<readonly R[]>;
  /** The list read anew. */
  fresh(): Promise<readonly R[]>;
  /** Adds a declared entry. */
  add(entry: E): Promise<unknown>;
  /** Removes a listed entry. */
  remove(entry: R): Promise<unknown>;
}

/** What the entries of one list are: `E` as declared (and kept in state), `R` as the API lists them. */
export interface ListEntries<E, R> {
  /** What one entry is called in messages, e.g. `IP`. */
  readonly noun: string;
  /**
   * For each declared entry, the listed entry it stands for (one of `listed`, not a copy), or
   * undefined when none does. Several declared entries may stand for one listed entry.
   */
  pair(listed: readonly R[], declared: readonly E[]): ReadonlyArray<R | undefined>;
  /**
   * Whether a listed entry carries what the declared one it stands for says (an IP's label);
   * when not, it is removed and added again. @default always
   */
  upToDate?(declared: E, listed: R): boolean;
  /** Whether two declared entries stand for the same entry, so only the first is added. @default never */
  sameEntry?(a: E, b: E): boolean;
  /** The listed form of a declared entry once added (for the list left after failed writes). */
  listed(declared: E): R;
  /** Identifies an entry across its removal and its add: an add is skipped when the removal of the same key failed. */
  key(entry: R): string;
  /** An entry as messages name it, e.g. `203.0.113.7`. */
  name(entry: R): string;
  /** An entry as plans show it, e.g. `203.0.113.7 (office)`. @default its name */
  shown?(entry: R): string;
  /** The listed entries in state form: the declared spelling where an entry stands for a declared one. */
  toState(listed: readonly R[], declared: readonly E[]): E[];
  /**
   * Why the API will refuse to add a declared entry, as the account's list shows (a proxy written
   * at another port than the listed one), or undefined. A plan that reads the list refuses it.
   */
  refused?(declared: E, listed: readonly R[]): { readonly summary: string; readonly detail: string } | undefined;
  /**
   * Whether the additions run before the removals (list-sync.ts `applyListOps`): then an add the
   * API refuses removes nothing. @default removals first
   */
  readonly addsFirst?: boolean;
}

/** One write of a list sync, with the entry it writes. */
export type EntryOp<E, R> = (ListOp & { readonly kind: 'remove'; readonly entry: R }) | (ListOp & { readonly kind: 'add'; readonly entry: E });

/** The listed entries no declared entry stands for. */
function notDeclared<E, R>(entries: ListEntries<E, R>, listed: readonly R[], declared: readonly E[]): R[] {
  const kept = new Set(entries.pair(listed, declared));
  return listed.filter((r) => !kept.has(r));
}

/**
 * Of what making `listed` equal `desired` removes, the entries the plan could not show: those no
 * entry of `prior` (the list as the plan's refresh read it) stands for, added to the account since.
 */
export function unplannedRemovals<E, R>(entries: ListEntries<E, R>, listed: readonly R[], prior: readonly E[], desired: readonly E[]): string[] {
  return removals(entries, notDeclared(entries, listed, prior), desired);
}

function shown<E, R>(entries: ListEntries<E, R>, r: R): string {
  return entries.shown?.(r) ?? entries.name(r);
}

/** How a plan names what making the list `desired` removes from `listed` (the account's list). */
export function removals<E, R>(entries: ListEntries<E, R>, listed: readonly R[], desired: readonly E[]): string[] {
  return notDeclared(entries, listed, desired).map((r) => shown(entries, r));
}

/** The same for a list in state form: the entries of `before` that `desired` does not keep. */
export function dropped<E, R>(entries: ListEntries<E, R>, before: readonly E[], desired: readonly E[]): string[] {
  return removals(
    entries,
    before.map((e) => entries.listed(e)),
    desired,
  );
}

/**
 * The entries of `before` (the list as the prior state holds it) that `desired` drops and no entry
 * of `listed` stands for any more: gone from the account since the state recorded them.
 */
export function vanished<E, R>(entries: ListEntries<E, R>, listed: readonly R[], before: readonly E[], desired: readonly E[]): string[] {
  const paired = entries.pair(listed, before);
  return dropped(
    entries,
    before.filter((_, i) => paired[i] === undefined),
    desired,
  );
}

/** The writes that turn the listed `before` into `desired`: removals first, then additions. */
export function diff<E, R>(entries: ListEntries<E, R>, access: ListAccess<E, R>, before: readonly R[], desired: readonly E[]): EntryOp<E, R>[] {
  const paired = entries.pair(before, desired);
  const kept = new Set<R>();
  const toAdd: E[] = [];
  desired.forEach((d, i) => {
    const r = paired[i];
    if (r !== undefined && (entries.upToDate?.(d, r) ?? true)) kept.add(r);
    else if (!toAdd.some((a) => entries.sameEntry?.(a, d) === true)) toAdd.push(d);
  });
  const ops: EntryOp<E, R>[] = before
    .filter((r) => !kept.has(r))
    .map((r) => ({
      kind: 'remove',
      entry: r,
      key: entries.key(r),
      description: `remove ${entries.noun} '${entries.name(r)}'`,
      run: async () => void (await access.remove(r)),
    }));
  for (const d of toAdd) {
    const r = entries.listed(d);
    ops.push({
      kind: 'add',
      entry: d,
      key: entries.key(r),
      description: `add ${entries.noun} '${entries.name(r)}'`,
      run: async () => void (await access.add(d)),
    });
  }
  return ops;
}

/** `before` with the writes known to have succeeded (when the list cannot be read again). */
export function replay<E, R>(entries: ListEntries<E, R>, before: readonly R[], done: readonly EntryOp<E, R>[]): R[] {
  const removed = new Set<R>();
  const added: R[] = [];
  for (const op of done) {
    if (op.kind === 'remove') removed.add(op.entry);
    else added.push(entries.listed(op.entry));
  }
  return [...before.filter((r) => !removed.has(r)), ...added];
}
