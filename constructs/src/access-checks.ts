// Checks of access-list entries and tokens, shared by SubAccount, ParentAccess and the roster.
// Internal: not exported from the package index.
import { AccessListMode, IpEntry } from './access-list';
import {
  Violations, checkBoolean, checkDate, checkHostname, checkIpv4, checkText, checkUnique, isUnresolved, show,
} from './validation';

/** A token as declared: its label plus options (structurally the public TokenSpec). */
export interface TokenFields {
  readonly label: string;
  readonly expiresAt?: string;
  readonly active?: boolean;
  readonly importId?: number;
}

/** Checks an access-list mode that may come from untyped data. */
export function checkAccessListMode(v: Violations, path: string, mode: AccessListMode | undefined): void {
  const modes: string[] = Object.values(AccessListMode);
  if (mode !== undefined && !modes.includes(mode)) {
    v.add(path, `must be one of ${modes.map((m) => `'${m}'`).join(', ')} (got ${show(mode)})`);
  }
}

/** Checks a list of IP entries: each address and label, at most 100, no address twice. */
export function checkIpEntries(v: Violations, path: string, entries: readonly IpEntry[]): void {
  entries.forEach((e, i) => checkNewIp(v, `${path}[${i}]`, e, []));
  if (entries.length > 100) v.add(path, `at most 100 IP addresses per account (got ${entries.length})`);
  checkUnique(v, path, entries.map((e) => e.ip).filter((ip) => typeof ip === 'string'), 'IP address');
}

/** Checks a list of hostnames: each shaped like a hostname, none twice. */
export function checkHostnames(v: Violations, path: string, domains: readonly string[]): void {
  domains.forEach((d, i) => checkHostname(v, `${path}[${i}]`, d));
  checkUnique(v, path, domains.filter((d) => typeof d === 'string'), 'hostname');
}

/** Checks one IP entry, and that it is not in `existing` already. */
export function checkNewIp(v: Violations, path: string, entry: IpEntry, existing: readonly IpEntry[]): void {
  checkIpv4(v, `${path}.ip`, entry.ip);
  checkText(v, `${path}.label`, entry.label, 100);
  if (!isUnresolved(entry.ip) && existing.some((e) => e.ip === entry.ip)) {
    v.add(`${path}.ip`, `IP address ${show(entry.ip)} is already allowed`);
  }
  if (existing.length >= 100) v.add(path, `at most 100 IP addresses per account (${existing.length} already)`);
}

/** Checks one hostname, and that it is not in `existing` already. */
export function checkNewHostname(v: Violations, path: string, domain: string, existing: readonly string[]): void {
  checkHostname(v, path, domain);
  if (!isUnresolved(domain) && existing.some((d) => d.toLowerCase() === String(domain).toLowerCase())) {
    v.add(path, `hostname ${show(domain)} is already allowed`);
  }
}

/** Checks one token's label, expiry and activity; `existing` are labels already taken. */
export function checkTokenSpec(v: Violations, path: string, token: TokenFields, existing: readonly string[]): void {
  if (typeof token.label !== 'string' && !isUnresolved(token.label)) {
    v.add(`${path}.label`, `is required: a string of 1 to 100 characters (got ${show(token.label)})`);
  } else {
    checkText(v, `${path}.label`, token.label, 100);
    if (isUnresolved(token.label)) v.add(`${path}.label`, 'must be a plain string: it names the token resource');
  }
  checkDate(v, `${path}.expiresAt`, token.expiresAt);
  checkBoolean(v, `${path}.active`, token.active);
  const id = token.importId;
  if (id !== undefined && !isUnresolved(id) && (typeof id !== 'number' || !Number.isSafeInteger(id) || id < 1)) {
    v.add(`${path}.importId`, `must be the numeric ID of an existing token, a whole number >= 1 (got ${show(id)})`);
  }
  if (existing.includes(token.label)) v.add(`${path}.label`, `a token labelled ${show(token.label)} already exists`);
}
