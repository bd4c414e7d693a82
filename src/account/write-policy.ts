// How the account store sends a write: refused before sending once the run is stopping (unless
// it settles a write already sent), never cancelled once sent, the cached listing dropped, and a
// lost answer (timeout, dropped connection) decided by reading the account back: an idempotent
// write is sent once more first; a write that makes an object and is not found yet stays unknown
// (UnseenCreateError), since the lost request may still be carried out after the read, and so does
// a change in place that reading back does not show (the store's own error, `unsettled`).
import { isProxyAccountError } from '../sdk';
import type { CoalescingCache, Collection } from './cache';
import { isUnknownOutcome, StoppedError, UnknownOutcomeError, UnseenCreateError } from './outcome';
import type { WriteOutcome, WriteSpec } from './types';

/** A write as the store sends it. */
export interface StoreWrite<T> extends WriteSpec<T> {
  /**
   * The write makes an object (a create, an add): a `readBack` that does not find it leaves the
   * outcome unknown (UnseenCreateError) instead of throwing the write's own error, since the lost
   * request may still be carried out after the read. A delete's negative read-back ("still there")
   * needs no such care: the object stays where it is recorded, and a later read shows it gone.
   * @default false
   */
  readonly makes?: boolean;
}

/** The store's writes to one account, over its cache and stop signal. */
export class Writes {
  constructor(
    private readonly cache: CoalescingCache,
    private readonly signal: AbortSignal | undefined,
  ) {}

  /** A delete: `unchanged` when the entry (or its sub-account) is already gone. */
  async deleteEntry(
    collection: Collection,
    username: string | null,
    op: string,
    send: () => Promise<void>,
    gone: () => Promise<boolean>,
    settling = false,
  ): Promise<WriteOutcome> {
    const goneOr404 = async (): Promise<boolean> => {
      try {
        return await gone();
      } catch (err) {
        if (isProxyAccountError(err, 'ERR_NOT_FOUND')) return true;
        throw err;
      }
    };
    try {
      return await this.send({
        collection,
        username,
        operation: op,
        send: async () => {
          await send();
          return 'done' as const;
        },
        readBack: async () => ((await goneOr404()) ? 'recovered' : undefined),
        // The API answers 400 for an entry that is not there, but also for other form errors:
        // only the listing can confirm it is gone.
        onError: async (err) =>
          (isProxyAccountError(err, 'ERR_VALIDATION') || isProxyAccountError(err, 'ERR_NOT_FOUND')) && (await goneOr404()) ? 'unchanged' : undefined,
        settling,
      });
    } catch (err) {
      if (isProxyAccountError(err, 'ERR_NOT_FOUND')) return 'unchanged';
      throw err;
    }
  }

  /**
   * Sends one write: refused before sending when the run is stopping (unless it is `settling` a
   * write already sent), never cancelled once sent (no stop signal reaches it). On an unknown outcome, `readBack` decides: a value is the
   * write's result; undefined is "not made yet", which for a write that `makes` an object leaves
   * the outcome unknown (UnseenCreateError) and otherwise throws the original error. When
   * `resend` is true because the write is idempotent, it is first sent once more, and `readBack`
   * decides only if that answer is lost too; `unsettled` gives the error of an outcome it leaves
   * open. `onError` may turn a known failure into a result (e.g. "already there").
   */
  async send<T>(w: StoreWrite<T>): Promise<T> {
    const { collection, username, operation: op, send, readBack, resend = false, onError, settling = false, makes = false, unsettled } = w;
    if (this.signal?.aborted === true && !settling) throw new StoppedError(op);
    try {
      return await this.cache.write(collection, username, send);
    } catch (err) {
      if (isUnknownOutcome(err)) {
        let lost = err;
        if (resend) {
          try {
            return await this.cache.write(collection, username, send);
          } catch (again) {
            if (!isUnknownOutcome(again)) throw again;
            lost = again;
          }
        }
        if (readBack !== undefined) {
          let settled: T | undefined;
          try {
            settled = await readBack();
          } catch (readErr) {
            throw new UnknownOutcomeError(op, lost, readErr);
          }
          if (settled !== undefined) return settled;
          if (makes) throw new UnseenCreateError(op, lost);
        }
        if (unsettled !== undefined) throw unsettled(lost, readBack !== undefined);
        throw lost;
      }
      const handled = onError === undefined ? undefined : await onError(err);
      if (handled !== undefined) return handled;
      throw err;
    }
  }
}
