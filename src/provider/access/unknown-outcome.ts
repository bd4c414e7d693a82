// A create whose outcome stays unknown: its answer was lost and reading the account back failed
// too, so the object may exist. It is returned with the error rather than dropped: Terraform saves
// it marked tainted, and the next refresh reads it (gone: it leaves the state and is planned again;
// there: it is replaced, or kept with `terraform untaint`). Dropped, it could exist with no state.
import { isProxyAccountError } from '../errors';
import type { Ctx } from '../types';

/** Runs `create`; when it fails with an unknown outcome, reports the error and returns `mayExist`. */
export async function keepIfOutcomeUnknown<T>(
  ctx: Ctx,
  summary: string,
  object: string,
  mayExist: T,
  create: () => Promise<T | undefined>,
): Promise<T | undefined> {
  try {
    return await create();
  } catch (err) {
    if (!isProxyAccountError(err) || !err.outcomeUnknown) throw err;
    ctx.reportError(err, summary, object);
    return mayExist;
  }
}
