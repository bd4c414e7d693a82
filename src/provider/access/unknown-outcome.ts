// A create whose outcome stays unknown: its answer was lost and reading the account back either
// failed too or did not find the object yet (a request that timed out may still be carried out by
// the API afterwards), so the object may exist. It is returned with the error rather than dropped:
// Terraform saves it marked tainted, and the next refresh reads it (gone: it leaves the state and
// is planned again; there: it is replaced, or kept with `terraform untaint`). Dropped, it could
// exist with no state, and the next apply would fail with "already exists".
import { describeProxyAccountError, isProxyAccountError } from '../errors';
import type { Ctx } from '../types';

/** What the diagnostic adds to the store's message: what Terraform does with the object kept. */
const KEPT_TAINTED =
  'It is kept in the state marked tainted, so the next refresh shows what exists: if it is not there, the next plan creates it again; ' +
  'if it is, the next plan replaces it (or `terraform untaint` keeps it as it is).';

/**
 * Runs `create`; when it fails with the store's ERR_UNKNOWN_OUTCOME (a lost answer the read-back
 * could not settle, or a create the read-back did not find yet), reports the error and returns
 * `mayExist`. Any other failure is the create's failure as before.
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
    if (!isOutcomeUnknown(err)) throw err;
    reportWith(ctx, err, summary, object, KEPT_TAINTED);
    return mayExist;
  }
}

/** True for the store's ERR_UNKNOWN_OUTCOME: a write that may or may not have taken effect. */
export function isOutcomeUnknown(err: unknown): boolean {
  return isProxyAccountError(err) && err.code === 'ERR_UNKNOWN_OUTCOME';
}

/** Reports `err` as the framework would, with the paragraph `more` after its detail. */
export function reportWith(ctx: Ctx, err: unknown, summary: string, object: string, more: string): void {
  const said = describeProxyAccountError(err, { summary, object });
  if (said === undefined) ctx.reportError(err, summary, object);
  else ctx.diagnostics.add({ ...said, detail: `${endSentence(said.detail ?? '')}\n\n${more}` });
}

/** `text` ending with a full stop. */
function endSentence(text: string): string {
  return text === '' || /[.!?]$/.test(text) ? text : `${text}.`;
}
