// The write half of the authoritative list resources: apply a computed difference as single
// removals and additions (removals first, so a full list never hits the API's size limit
// mid-update; or, for a list that asks, additions first, so a refused add removes nothing), keep
// going past ordinary failures, and report what failed so the resource can return the state that
// reflects what actually happened.
import { isProxyAccountError } from '../errors';
import type { Ctx as ResourceContext } from '../types';

/** How many writes of one list run at once: fast on big lists, gentle on the API. */
export const LIST_WRITE_CONCURRENCY = 4;

/** Diagnostics listed one by one before the rest are summed up. */
const MAX_REPORTED = 5;

/** One single-entry write of a list sync. */
export interface ListOp {
  /** `remove` runs before every `add`, unless the list runs its additions first. */
  readonly kind: 'remove' | 'add';
  /** The entry's key (an IP, a hostname…): an add is skipped when the removal of the same key failed. */
  readonly key: string;
  /** For messages, e.g. "add IP '203.0.113.7'". */
  readonly description: string;
  /** Sends the request. */
  run(): Promise<void>;
}

/** A write that failed, with its error. */
export interface ListOpFailure<O extends ListOp = ListOp> {
  /** The write. */
  readonly op: O;
  /** What it threw. */
  readonly error: unknown;
}

/** The outcome of {@link applyListOps}. */
export interface ListSyncResult<O extends ListOp = ListOp> {
  /** Writes that succeeded. */
  readonly done: readonly O[];
  /** Writes that failed (they may or may not have taken effect). */
  readonly failed: readonly ListOpFailure<O>[];
  /** Writes not attempted: after a failure that dooms the rest, or an add whose removal failed. */
  readonly skipped: readonly O[];
}

/** True when every write succeeded. */
export function succeeded(r: ListSyncResult): boolean {
  return r.failed.length === 0 && r.skipped.length === 0;
}

/** Failures after which every further write of the same list would fail the same way. */
const SAME_FOR_EVERY_ENTRY: ReadonlySet<string> = new Set([
  // The run is stopping (the store starts no new write).
  'ERR_ABORTED',
  // The account is gone or not the caller's, or tokens need Basic credentials.
  'ERR_FORBIDDEN',
  'ERR_NOT_FOUND',
  'ERR_BASIC_AUTH_REQUIRED',
]);

/** True when no further write should be started: the client sends nothing more, or all would fail alike. */
function isFatal(err: unknown): boolean {
  return isProxyAccountError(err) && (err.clientRefusesRequests || SAME_FOR_EVERY_ENTRY.has(err.code));
}

/** True for an add the API refused because the account holds as many entries as its plan allows (402). */
function atLimit(err: unknown): boolean {
  return isProxyAccountError(err) && err.code === 'ERR_PAYMENT_REQUIRED';
}

/**
 * Runs the writes, {@link LIST_WRITE_CONCURRENCY} at a time: the removals, then the additions. With
 * `addsFirst`, the additions first, and the removals only once every addition succeeded: an add
 * the API refuses (a proxy at a wrong port, say) then leaves every listed entry in place, the one
 * it was meant to replace included. An add refused for the plan's limit alone does not hold the
 * removals back, since they may make the room it needs: it is sent again after them. Never throws.
 */
export async function applyListOps<O extends ListOp>(ops: readonly O[], order: { readonly addsFirst?: boolean } = {}): Promise<ListSyncResult<O>> {
  const done: O[] = [];
  const failed: ListOpFailure<O>[] = [];
  const skipped: O[] = [];
  let stop = false;
  const failedKeys = new Set<string>();

  const runPhase = async (phase: readonly O[]): Promise<void> => {
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < phase.length) {
        const op = phase[next++]!;
        if (stop || (op.kind === 'add' && failedKeys.has(op.key))) {
          skipped.push(op);
          continue;
        }
        try {
          await op.run();
          done.push(op);
        } catch (error) {
          failed.push({ op, error });
          failedKeys.add(op.key);
          if (isFatal(error)) stop = true;
        }
      }
    };
    const workers = Array.from({ length: Math.min(LIST_WRITE_CONCURRENCY, phase.length) }, worker);
    await Promise.all(workers);
  };

  const removes = ops.filter((o) => o.kind === 'remove');
  const adds = ops.filter((o) => o.kind === 'add');
  if (order.addsFirst !== true) {
    await runPhase(removes);
    await runPhase(adds);
    return { done, failed, skipped };
  }
  await runPhase(adds);
  const roomless = failed.filter((f) => atLimit(f.error));
  if (stop || roomless.length < failed.length) {
    skipped.push(...removes);
    return { done, failed, skipped };
  }
  // Only limits refused: their adds are tried again once the removals have made room.
  failed.length = 0;
  await runPhase(removes);
  if (!removes.some((r) => done.includes(r))) failed.push(...roomless);
  else {
    for (const f of roomless) failedKeys.delete(f.op.key);
    await runPhase(roomless.map((f) => f.op));
  }
  return { done, failed, skipped };
}

/**
 * Adds one error per failed write (the first few; the rest summed up) and says how many were
 * not attempted. `summary` such as "Unable to update authorized IP list".
 */
export function reportListFailures(ctx: ResourceContext, r: ListSyncResult, summary: string, object: string): void {
  for (const { op, error } of r.failed.slice(0, MAX_REPORTED)) ctx.reportError(error, summary, `${object}: ${op.description}`);
  const extra = r.failed.length - MAX_REPORTED;
  const notTried = r.skipped.length;
  if (extra > 0 || notTried > 0) {
    const parts = [
      ...(extra > 0 ? [`${extra} more change(s) failed`] : []),
      ...(notTried > 0 ? [`${notTried} change(s) were not attempted after the failures above`] : []),
    ];
    ctx.diagnostics.addError(
      summary,
      `${capitalize(object)}: ${parts.join('; ')}. ${r.done.length} change(s) succeeded and are recorded in state; the next plan shows what remains to be done.`,
    );
  }
}

function capitalize(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/**
 * After failed writes: the remote list read again (the truth), or when that read fails too,
 * `fallback()` (the list before plus the writes known to have succeeded) with a warning.
 */
export async function listAfterFailure<T>(
  ctx: ResourceContext,
  reread: () => Promise<readonly T[]>,
  fallback: () => readonly T[],
  object: string,
): Promise<readonly T[]> {
  try {
    return await reread();
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    ctx.diagnostics.addWarning(
      'Unable to read the list again after failed changes',
      `${capitalize(object)}: ${why}. The state records the list as it was plus the changes known to have succeeded; the next refresh reads the truth.`,
    );
    return fallback();
  }
}

/** What {@link syncList} needs to know about one list; `O` its writes. */
export interface ListSync<R, O extends ListOp> {
  /** `create`, `update` or `delete`, for the error summary. */
  readonly operation: 'create' | 'update' | 'delete';
  /** The resource's display name, e.g. "authorized IP list". */
  readonly displayName: string;
  /** The object for messages, e.g. "authorized IP list of sub-account 'alice'". */
  readonly object: string;
  /** Whether the additions run before the removals ({@link applyListOps}). @default false */
  readonly addsFirst?: boolean;
  /** The remote list as it is now, not from the refresh's cache. */
  fresh(): Promise<readonly R[]>;
  /** The writes that turn `before` into the desired list. */
  diff(before: readonly R[]): O[];
  /** `before` with the writes known to have succeeded (when the list cannot be read again). */
  replay(before: readonly R[], done: readonly O[]): R[];
}

/** The outcome of {@link syncList}. */
export type ListSyncOutcome<R> =
  | { readonly ok: true; readonly changed: boolean }
  | { readonly ok: false; readonly changed: boolean; readonly remote: readonly R[] };

/**
 * Makes a remote list equal the desired one: reads it, applies the difference, and after any
 * failure reports it and reads the list again, so state can record what actually happened.
 * A delete that finds the list empty after failures counts as done (an entry that vanished
 * meanwhile fails its removal). Throws only when the first read fails.
 */
export async function syncList<R, O extends ListOp>(ctx: ResourceContext, s: ListSync<R, O>): Promise<ListSyncOutcome<R>> {
  const before = await s.fresh();
  const ops = s.diff(before);
  const result = await applyListOps(ops, { addsFirst: s.addsFirst === true });
  if (succeeded(result)) return { ok: true, changed: ops.length > 0 };
  const changed = result.done.length > 0;
  if (s.operation === 'delete') {
    const now = await s.fresh().catch(() => undefined);
    if (now !== undefined && now.length === 0) return { ok: true, changed: true };
  }
  reportListFailures(ctx, result, `Unable to ${s.operation} ${s.displayName}`, s.object);
  let reread = true;
  const remote = await listAfterFailure(
    ctx,
    () => s.fresh(),
    () => {
      reread = false;
      return s.replay(before, result.done);
    },
    s.object,
  );
  // A write whose answer was lost may have taken effect: the list read again says whether; unread,
  // it counts as a change, so a new list keeps its state rather than leave an entry no state holds.
  const mayHaveChanged = reread ? !sameEntries(before, remote) : result.failed.some((f) => isProxyAccountError(f.error) && f.error.outcomeUnknown);
  // Kept with an error, a new list is saved tainted by Terraform, whose next plan replaces it:
  // every entry removed, then added again. Said, with the way to keep it.
  if (s.operation === 'create' && (changed || mayHaveChanged)) {
    ctx.diagnostics.addWarning(
      `The ${s.displayName} is kept, marked tainted`,
      `${capitalize(s.object)}: its create failed after changing the account, so Terraform saves it marked tainted, and the next plan replaces it: every entry removed, then added again, ` +
        'which leaves the account without them for a moment. `terraform untaint ADDRESS` keeps it instead: the next plan then changes only the entries that differ.',
    );
  }
  return { ok: false, changed: changed || mayHaveChanged, remote };
}

/** True when two lists hold the same entries, in any order. */
export function sameEntries(a: readonly unknown[], b: readonly unknown[]): boolean {
  const key = (x: unknown): string => JSON.stringify(x);
  const keys = new Set(a.map(key));
  return a.length === b.length && b.every((x) => keys.has(key(x)));
}
