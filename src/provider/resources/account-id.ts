// Helpers of the authoritative list resources and the list data sources: their ID is the
// sub-account's USERNAME, or "_self" for the account the provider authenticates as.
import { charset, lengthBetween, type Validator } from '../framework';

/** The ID of a list that belongs to the authenticated account itself. */
export const SELF_ID = '_self';

/** One character a sub-account username may contain (API.md). */
const USERNAME_CHAR = /[A-Za-z0-9.@+-]/;

/** Validators of a `username` attribute: 1–30 letters, digits and `.` `@` `+` `-`. */
export function usernameValidators(): ReadonlyArray<Validator<string>> {
  return [lengthBetween(1, 30), charset(USERNAME_CHAR, 'letters A-Z a-z, digits and . @ + -')];
}

/** The ID of the list of `username` (null = the authenticated account). */
export function accountId(username: string | null): string {
  return username ?? SELF_ID;
}

/**
 * Reads an import ID: "_self" or a sub-account username. Returns the username (null for
 * "_self"), or a problem sentence. "_self" cannot clash with a username: `_` is not allowed in one.
 */
export function parseAccountId(id: string): { readonly username: string | null } | string {
  const s = id.trim();
  if (s === SELF_ID) return { username: null };
  const chars = [...s];
  if (chars.length >= 1 && chars.length <= 30 && chars.every((ch) => USERNAME_CHAR.test(ch))) return { username: s };
  return `expected "${SELF_ID}" (the account the provider authenticates as) or a sub-account username (1–30 letters, digits and . @ + -), got ${JSON.stringify(id)}`;
}

/** The SDK's optional `username` argument: undefined for the authenticated account. */
export function targetOf(username: string | null): string | undefined {
  return username ?? undefined;
}

/** "of sub-account 'x'" or "of the provider's account", for messages. */
export function ownerPhrase(username: string | null): string {
  return username === null ? "of the provider's account" : `of sub-account '${username}'`;
}
