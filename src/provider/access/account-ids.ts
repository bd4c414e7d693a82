// Helpers of the authoritative list resources and the list data sources: their ID is the
// sub-account's USERNAME, or "_self" for the account the provider authenticates as (the format
// is the resource-type catalogue's, src/resource-types).
import type { Ctx } from '../types';
import { ACCOUNT_LIST_ID } from '../../resource-types/import-ids';

/** The ID of a list that belongs to the authenticated account itself. */
export { SELF_ID } from '../../resource-types/import-ids';

/** The ID of the list of `username` (null = the authenticated account). */
export function accountId(username: string | null): string {
  return ACCOUNT_LIST_ID.format(username, '');
}

/** Reads an import ID: "_self" or a sub-account username. Returns the username (null for "_self"), or a problem sentence. */
export function parseAccountId(id: string): { readonly username: string | null } | string {
  const parsed = ACCOUNT_LIST_ID.parse(id);
  return typeof parsed === 'string' ? parsed : { username: parsed.username };
}

/** "of sub-account 'x'" or "of the provider's account", for messages. */
export function ownerPhrase(username: string | null): string {
  return username === null ? "of the provider's account" : `of sub-account '${username}'`;
}

/** Import of a list resource by "_self" or a username; undefined (with a diagnostic) when malformed. */
export function importAccountList(ctx: Ctx, id: string): { id: string; username: string | null } | undefined {
  const parsed = parseAccountId(id);
  if (typeof parsed === 'string') {
    ctx.diagnostics.addError('Invalid import ID', `Cannot import ${JSON.stringify(id)}: ${parsed}.`);
    return undefined;
  }
  return { id: accountId(parsed.username), username: parsed.username };
}
