// IDs of the per-entry resources (authorized IP, hostname, proxy, bearer token): "ENTRY" for the
// authenticated account and "USERNAME/ENTRY" for a sub-account, and their import.
import type { Ctx } from '../types';
import type { Validator } from '../framework';
import { isUsername } from './usernames';

/** The resource ID of an entry: `entry` for the authenticated account, else `username/entry`. */
export function entryId(username: string | null, entry: string): string {
  return username === null ? entry : `${username}/${entry}`;
}

/** An import ID split into its parts. */
export interface ParsedEntryId {
  /** The sub-account, or null for the authenticated account. */
  readonly username: string | null;
  /** The entry itself (IP, hostname, token ID), checked by the caller's `checkEntry`. */
  readonly entry: string;
}

/**
 * Splits an import ID "ENTRY" or "USERNAME/ENTRY" and checks both parts; on a problem adds an
 * "Invalid import ID" error that shows `expected` (e.g. `"IP" or "USERNAME/IP"`) and returns
 * undefined.
 */
export function parseImportId(ctx: Ctx, id: string, expected: string, checkEntry: (entry: string) => string | undefined): ParsedEntryId | undefined {
  const parts = id.trim().split('/');
  const entry = parts[parts.length - 1]!;
  const username = parts.length === 2 ? parts[0]! : null;
  const problem =
    parts.length > 2
      ? 'it has more than one "/"'
      : entry === ''
        ? 'the entry is empty'
        : username !== null && !isUsername(username)
          ? `${JSON.stringify(username)} is not a sub-account username (1–30 letters, digits and . @ + -)`
          : checkEntry(entry);
  if (problem !== undefined) {
    ctx.diagnostics.addError('Invalid import ID', `Expected ${expected}, got ${JSON.stringify(id)}: ${problem.replace(/\.$/, '')}.`);
    return undefined;
  }
  return { username, entry };
}

/** The first problem `attribute`'s validators find in `value` (for import IDs), else undefined. */
export function validationProblem(attribute: { readonly validators: ReadonlyArray<Validator<string>> }, name: string, value: string): string | undefined {
  for (const v of attribute.validators) {
    const [d] = v.validate(value, { path: [{ attributeName: name }], attributeName: name, sensitive: false, siblings: {} });
    if (d !== undefined) return d.detail ?? d.summary;
  }
  return undefined;
}

/** A stored state's disagreement, as `checkState` reports it. */
export interface StateProblem<A extends string> {
  readonly attribute: A;
  readonly problem: string;
}

/**
 * The state check of an entry resource: its `id` must be `entryId(username, entry)`. The entry
 * attribute is what reads and deletes act on, so a state edited to name another entry (id kept)
 * would otherwise delete another resource's entry.
 */
export function entryIdMismatch<A extends string>(
  state: { readonly id: string | null; readonly username: string | null },
  attribute: A,
  entry: string | null,
): StateProblem<A> | undefined {
  if (state.id === null || entry === null || state.id === entryId(state.username, entry)) return undefined;
  const owner = state.username === null ? 'no username' : `username ${JSON.stringify(state.username)}`;
  return { attribute, problem: `${attribute} ${JSON.stringify(entry)} with ${owner} does not match id ${JSON.stringify(state.id)}` };
}
