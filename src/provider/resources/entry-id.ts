// Helpers shared by the per-entry resources (authorized IP, hostname, proxy, bearer token): IDs
// "ENTRY" for the authenticated account and "USERNAME/ENTRY" for a sub-account and their import,
// the optional `username` attribute that selects the sub-account, optional labels, and the
// "already exists, import it" report.
import { charset, lengthBetween, validator, type ResourceContext, type Validator } from '../framework';

/** One character a sub-account username may contain (API.md). */
export const USERNAME_CHAR = /[A-Za-z0-9.@+-]/;

/** Validators of a `username` attribute: 1–30 characters of letters, digits and `.` `@` `+` `-`. */
export function usernameValidators(): ReadonlyArray<Validator<string>> {
  return [lengthBetween(1, 30), charset(USERNAME_CHAR, 'letters A-Z a-z, digits and . @ + -')];
}

/** True when `s` is a well-formed sub-account username. */
export function isUsername(s: string): boolean {
  const chars = [...s];
  return chars.length >= 1 && chars.length <= 30 && chars.every((ch) => USERNAME_CHAR.test(ch));
}

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
export function parseImportId(
  ctx: ResourceContext,
  id: string,
  expected: string,
  checkEntry: (entry: string) => string | undefined,
): ParsedEntryId | undefined {
  const parts = id.trim().split('/');
  const entry = parts[parts.length - 1]!;
  const username = parts.length === 2 ? parts[0]! : null;
  const problem =
    parts.length > 2 ? 'it has more than one "/"'
    : entry === '' ? 'the entry is empty'
    : username !== null && !isUsername(username) ? `${JSON.stringify(username)} is not a sub-account username (1–30 letters, digits and . @ + -)`
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

/** The SDK's optional `username` argument: omitted for the authenticated account. */
export function target(username: string | null): { username?: string } {
  return username === null ? {} : { username };
}

/**
 * Validators of an optional label of at most `max` characters. The API reports "no label" as
 * "", which state holds as null; an empty configured label would plan a change forever, so it
 * is refused with advice to omit it.
 */
export function labelValidators(max: number): ReadonlyArray<Validator<string>> {
  return [
    validator<string>(`1 to ${max} characters; omit it for no label`, (v) => {
      const n = [...v].length;
      if (n === 0) return 'must not be empty: omit label (or set it to null) for no label';
      return n > max ? `must be at most ${max} characters long, got ${n}` : undefined;
    }),
  ];
}

/** The API's label ("" when none) as state holds it (null when none). */
export function labelFromRemote(label: string | undefined): string | null {
  return label === undefined || label === '' ? null : label;
}

/**
 * Reports a create refused because the entry already exists (found in the listing), with the
 * import command that brings it under Terraform instead.
 */
export function reportAlreadyExists(ctx: ResourceContext, err: unknown, summary: string, object: string, typeName: string, id: string): void {
  const message = err instanceof Error ? err.message : String(err);
  const subject = object.charAt(0).toUpperCase() + object.slice(1);
  ctx.diagnostics.addError(
    summary,
    `${subject} already exists: ${message}\n\nTo manage the existing entry with Terraform, import it: terraform import ${typeName}.NAME ${JSON.stringify(id)} (or an import block with id = ${JSON.stringify(id)}).`,
  );
}
