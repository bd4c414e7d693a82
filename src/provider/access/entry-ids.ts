// IDs of the per-entry resources (authorized IP, hostname, proxy, bearer token): "ENTRY" for the
// authenticated account and "USERNAME/ENTRY" for a sub-account (the resource-type catalogue's
// format, src/resource-types), and their import.
import type { Ctx } from '../types';
import type { Validator } from '../framework';
import { entryIdFormat } from '../../resource-types/import-ids';
import { missingId, type StateProblem } from './state-ids';

const ENTRY_ID = entryIdFormat('ENTRY', 'x');

/** The resource ID of an entry: `entry` for the authenticated account, else `username/entry`. */
export function entryId(username: string | null, entry: string): string {
  return ENTRY_ID.format(username, entry);
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
  const parsed = ENTRY_ID.parse(id);
  const problem = typeof parsed === 'string' ? parsed : checkEntry(parsed.key);
  if (problem !== undefined || typeof parsed === 'string') {
    ctx.diagnostics.addError('Invalid import ID', `Expected ${expected}, got ${JSON.stringify(id)}: ${(problem ?? '').replace(/\.$/, '')}.`);
    return undefined;
  }
  return { username: parsed.username, entry: parsed.key };
}

/** The first problem `attribute`'s validators find in `value` (for import IDs), else undefined. */
export function validationProblem(attribute: { readonly validators: ReadonlyArray<Validator<string>> }, name: string, value: string): string | undefined {
  for (const v of attribute.validators) {
    const [d] = v.validate(value, { path: [{ attributeName: name }], attributeName: name, sensitive: false, siblings: {} });
    if (d !== undefined) return d.detail ?? d.summary;
  }
  return undefined;
}

/**
 * The state check of an entry resource: its `id` must be there (see state-ids.ts) and be
 * `entryId(username, entry)`. The entry attribute is what reads and deletes act on, so a state
 * edited to name another entry (id kept) would otherwise delete another resource's entry; one that
 * lost it (id kept) would read as gone, plan a second entry and, on destroy, delete nothing while
 * the live one stays.
 */
export function entryIdMismatch<A extends string>(
  state: { readonly id: string | null; readonly username: string | null },
  attribute: A,
  entry: string | null,
): StateProblem<A | 'id'> | undefined {
  if (state.id === null) return missingId(state);
  if (entry !== null && state.id === entryId(state.username, entry)) return undefined;
  if (entry === null) return { attribute, problem: `${attribute} is missing, while id ${JSON.stringify(state.id)} names an object` };
  const owner = state.username === null ? 'no username' : `username ${JSON.stringify(state.username)}`;
  return { attribute, problem: `${attribute} ${JSON.stringify(entry)} with ${owner} does not match id ${JSON.stringify(state.id)}` };
}
