// Small phrases the descriptors share: limits in GB, an IP with its label, "+"/"−" signs, verbs.
import type { ChangeKind, ChangeView, Risk, Values } from './types';

/** A string value, else undefined. */
export function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

/** A bandwidth limit: "50 GB", "unlimited" for 0, "?" when unknown. */
export function gb(v: unknown): string {
  return typeof v === 'number' ? (v === 0 ? 'unlimited' : `${v} GB`) : '?';
}

/** An IP list entry as plans show it: `203.0.113.7 (office)`. */
export function ipEntry(v: unknown): string {
  if (typeof v === 'object' && v !== null) {
    const e = v as Record<string, unknown>;
    const ip = str(e.ip) ?? '?';
    const label = str(e.label);
    return label === undefined || label === '' ? ip : `${ip} (${label})`;
  }
  return String(v);
}

/** A noun with its indefinite article: "an IP", "a hostname". */
export function withArticle(noun: string): string {
  return `${/^[AEIOU]/.test(noun) ? 'an' : 'a'} ${noun}`;
}

/** "2 IPs (a, b)" / "1 hostname (x)". */
export function counted(noun: { readonly one: string; readonly many: string }, items: readonly string[]): string {
  return `${items.length} ${items.length === 1 ? noun.one : noun.many} (${items.join(', ')})`;
}

/** "+" for a create, "−" for a delete, "imported " for an import. */
export function sign(kind: ChangeKind): string {
  return kind === 'create' ? '+' : kind === 'delete' ? '−' : kind === 'import' ? 'imported ' : '';
}

/** The past participle of a change. */
export function verb(kind: ChangeKind): string {
  if (kind === 'forget') return 'no longer managed (it stays in the account)';
  return kind === 'create' ? 'created' : kind === 'delete' ? 'deleted' : kind === 'replace' ? 'replaced' : kind === 'import' ? 'imported' : 'changed';
}

/**
 * What a change does to `active` (a sub-account's or a token's): what the plan shows, or that it
 * does not show it (`unknown`: known only after apply; `hidden`: marked sensitive, and changed or
 * possibly changed); undefined when it does not change.
 */
export function activeChange(c: ChangeView): 'activated' | 'deactivated' | 'unknown' | 'hidden' | undefined {
  if (c.unknown.has('active') || c.unknown.has('*')) return 'unknown';
  // The plan reader compares hidden values without copying them out: an unchanged one is no change.
  if (c.hidden.has('*') || (c.hidden.has('active') && c.secretsChanged.has('active'))) return 'hidden';
  if (c.hidden.has('active')) return undefined;
  if (c.before.active !== false && c.after.active === false) return 'deactivated';
  if (c.before.active === false && c.after.active === true) return 'activated';
  return undefined;
}

/** How a change of `active` the plan does not show is described: "active known only after apply". */
export function activeNotShown(change: 'unknown' | 'hidden'): string {
  return change === 'unknown' ? 'active known only after apply' : 'active hidden (marked sensitive)';
}

/**
 * The risks of an update of `active`, read the worst way when the plan does not show it: it may
 * deactivate (`stops`: what then fails) and it may activate (`starts`: what then works again).
 * Known only after apply, the value it leaves is still known: only the other one can come. Hidden,
 * neither is known.
 */
export function activeRisks(c: ChangeView, who: string, stops: string, starts: string): Risk[] {
  const change = activeChange(c);
  if (change === undefined) return [];
  if (change === 'deactivated') return [{ kind: 'deactivation', message: `${who} is deactivated: ${stops}` }];
  if (change === 'activated') return [{ kind: 'activation', message: `${who} is activated: ${starts}` }];
  const why = change === 'unknown' ? 'its active flag is known only after apply' : 'its active flag is marked sensitive, and changes';
  const was = change === 'unknown' ? c.before.active : undefined;
  return [
    ...(was !== false ? [{ kind: 'deactivation' as const, message: `${who} may be deactivated (${why}): ${stops}` }] : []),
    ...(was !== true ? [{ kind: 'activation' as const, message: `${who} may be activated (${why}): ${starts}` }] : []),
  ];
}

/** The values a change is about: before for a delete or a forget (no after), after otherwise. */
export function subjectValues(c: ChangeView): Values {
  return c.kind === 'delete' || c.kind === 'forget' ? c.before : c.after;
}

/**
 * A `removed` block with `destroy = false`: the object stays in the account as it is, and no state
 * manages it any more. `stays` says what that leaves (what may still use the proxies).
 */
export function forgetRisk(what: string, stays: string): Risk {
  return { kind: 'no_longer_managed', message: `${what} is no longer managed by Terraform but stays in the account: ${stays}` };
}

/** An account as messages name it: "the parent account" or "sub-account 'alice'". */
export function accountPhrase(username: string | null): string {
  return username === null ? 'the parent account' : `sub-account '${username}'`;
}

/**
 * True for a replacement whose new object is in another account than its old one, as the values
 * show it (not when the plan hides the owner or knows it only after apply): its old object is
 * deleted from the account it leaves, and the new one is a new object of the other account.
 */
export function movesAccount(c: ChangeView): boolean {
  const shown = !c.hidden.has('*') && !c.hidden.has('username') && !c.unknown.has('*') && !c.unknown.has('username');
  return c.kind === 'replace' && shown && ownerOf(c.before) !== ownerOf(c.after);
}

/** The owning account's username of a resource's values, or null for the parent. */
export function ownerOf(v: Values): string | null {
  return typeof v.username === 'string' ? v.username : null;
}
