// A create whose outcome stays unknown: its answer was lost and reading the account back failed
// too, so the object may exist. It is returned with the error rather than dropped: Terraform saves
// it marked tainted, and the next refresh reads it (gone: it leaves the state and is planned again;
// there: it is replaced, or kept with `terraform untaint`). Dropped, it could exist with no state.
import { isProxyAccountError } from '../errors';
import type { Ctx } from '../types';

/**
 * Runs `create`; when it fails with the store's ERR_UNKNOWN_OUTCOME (a lost answer the read-back
 * could not settle), reports the error and returns `mayExist`. Any other failure, a lost answer
 * the read-back showed had no effect included, is the create's failure as before.
 */
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
    if (!isProxyAccountError(err) || err.code !== 'ERR_UNKNOWN_OUTCOME') throw err;
    ctx.reportError(err, summary, object);
    return mayExist;
  }
}
