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

/** The owning account's username of a resource's values, or null for the parent. */
export function ownerOf(v: Values): string | null {
  return typeof v.username === 'string' ? v.username : null;
}
