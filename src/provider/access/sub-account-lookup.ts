// The data sources' shared "sub-account not found": a read of a sub-account's data that the
// API answers with 404 is an error on `username`, not a bug.
import { isNotFound } from '../errors';
import type { Ctx } from '../types';

/**
 * Runs `read` for the account `username` (null: the provider's own). On 404 for a sub-account,
 * adds "Sub-account not found" on `username` and returns undefined; other failures propagate.
 */
export async function readOfAccount<T>(ctx: Ctx, username: string | null, read: () => Promise<T>): Promise<T | undefined> {
  try {
    return await read();
  } catch (err) {
    if (!isNotFound(err) || username === null) throw err;
    ctx.diagnostics.addError('Sub-account not found', `The parent account has no sub-account '${username}'.`, [{ attributeName: 'username' }]);
    return undefined;
  }
}
