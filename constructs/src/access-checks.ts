// Checks of access-list entries and tokens, shared by SubAccount, ParentAccess and the roster.
// Internal: not exported from the package index.
import { AccessListMode, IpEntry } from './access-list';
import {
  Sameness, Violations, checkBoolean, checkDate, checkHostname, checkIpv4, checkText, checkUnique, isObject, isUnresolved, show,
} from './validation';

/** A token as declared: its label plus options (structurally the public TokenSpec). */
export interface TokenFields {
  readonly label: string;
  readonly expiresAt?: string;
  readonly active?: boolean;
  readonly importId?: number;
}

/**
 * Checks that a construct's props are an object (`what` says which), as plain JavaScript may pass
 * `null` or anything else: false when they are not, and nothing in them can be read.
 */
export function checkProps(v: Violations, props: unknown, what: string): boolean {
  if (isObject(props)) return true;
  v.add('props', `must be ${what}, an object (got ${show(props)})`);
  return false;
}

/** Checks an access-list mode that may come from untyped data. */
export function checkAccessListMode(v: Violations, path: string, mode: AccessListMode | undefined): void {
  const modes: string[] = Object.values(AccessListMode);
  if (mode !== undefined && !modes.includes(mode)) {
    v.add(path, `must be one of ${modes.map((m) => `'${m}'`).join(', ')} (got ${show(mode)})`);
  }
}

/**
 * Token labels of one account: compared without case, and each names its resource's construct id
 * (`Token-<label>`), where the constructs library turns a `/` into `--`: 'a/b' and 'a--b' would be
 * one construct.
 */
export const SAME_TOKEN_LABEL: Sameness = {
  same: (a, b) => tokenKey(a) === tokenKey(b),
  why: "labels compare without case, and a '/' becomes '--' in the token's construct id",
};

function tokenKey(label: string): string {
  return label.replace(/\//g, '--').toLowerCase();
}

/**
 * In ADDITIVE mode each entry is its own resource, named after the entry (`Ip-203.0.113.7`): a
 * value known only at apply (a token) cannot name one, while an AUTHORITATIVE list can hold it.
 */
export function checkNamesResource(v: Violations, path: string, value: unknown, mode: AccessListMode | undefined): void {
  if (mode !== AccessListMode.AUTHORITATIVE && isUnresolved(value)) {
    v.add(path, "ADDITIVE mode needs literal values, since each entry's resource is named after it; use AUTHORITATIVE for values known only at apply");
  }
}

/**
 * True when `list` as a whole is a token (a list known only at apply, such as a
 * `TerraformVariable`'s `listValue`): its entries cannot be checked here, and only an AUTHORITATIVE
 * list resource can hold it, since in ADDITIVE mode each entry is its own resource, named after it.
 */
export function isListToken(v: Violations, path: string, list: unknown, mode: AccessListMode | undefined): boolean {
  if (!isUnresolved(list)) return false;
  if (mode !== AccessListMode.AUTHORITATIVE) {
    v.add(path, 'a list token (a list known only at apply) is not supported in ADDITIVE mode, since each entry is its own ' +
      'resource, named after it: pass a list of values, or use AUTHORITATIVE, whose list resource takes a list known only at apply');
  }
  return true;
}

/** Why a helper cannot add an entry to a list that was given as a list token. */
export function listTokenTakesNoEntry(what: string): string {
  return `the ${what} list was given as a list token (known only at apply), and a single ${what} cannot be added to it here: put it in that list`;
}

/**
 * Checks the `ips` and `hostnames` props of an account's construct: lists of values, each entry
 * checked, or in AUTHORITATIVE mode list tokens, which Terraform and the provider check at apply.
 */
export function checkAccessEntries(v: Violations, ips: IpEntry[] | undefined, hostnames: string[] | undefined, mode: AccessListMode | undefined): void {
  if (!isListToken(v, 'ips', ips, mode)) {
    const entries = listOf(v, 'ips', ips);
    checkIpEntries(v, 'ips', entries);
    entries.forEach((e, i) => {
      if (isObject(e)) checkNamesResource(v, `ips[${i}].ip`, e.ip, mode);
    });
  }
  if (!isListToken(v, 'hostnames', hostnames, mode)) {
    const domains = listOf(v, 'hostnames', hostnames);
    checkHostnames(v, 'hostnames', domains);
    domains.forEach((d, i) => checkNamesResource(v, `hostnames[${i}]`, d, mode));
  }
}

/**
 * The entries of an optional list prop: none when it is absent. Anything else that is no list is
 * refused, `null` included, as the roster refuses it: plain JavaScript can pass one, and taking it
 * for an empty list would let an AUTHORITATIVE construct own (and empty) a list left out. The
 * holes of a sparse list become `undefined` entries, so the checks of each entry see them.
 */
export function listOf<T>(v: Violations, path: string, list: readonly T[] | undefined): readonly T[] {
  if (list === undefined) return [];
  if (Array.isArray(list)) return Array.from(list);
  v.add(path, `must be a list (got ${show(list)})`);
  return [];
}

/** Checks a list of IP entries: each address and label, at most 100, no address twice. */
export function checkIpEntries(v: Violations, path: string, entries: readonly IpEntry[]): void {
  entries.forEach((e, i) => checkNewIp(v, `${path}[${i}]`, e, []));
  if (entries.length > 100) v.add(path, `at most 100 IP addresses per account (got ${entries.length})`);
  checkUnique(v, path, entries.filter(isObject).map((e) => e.ip).filter((ip) => typeof ip === 'string'), 'IP address');
}

/** Checks a list of hostnames: each shaped like a hostname, none twice. */
export function checkHostnames(v: Violations, path: string, domains: readonly string[]): void {
  domains.forEach((d, i) => checkHostname(v, `${path}[${i}]`, d));
  checkUnique(v, path, domains.filter((d) => typeof d === 'string'), 'hostname');
}

/** Checks one IP entry, and that it is not in `existing` already. */
export function checkNewIp(v: Violations, path: string, entry: IpEntry, existing: readonly IpEntry[]): void {
  if (!isObject(entry)) {
    v.add(path, `must be an IP entry ({ ip, label }), an object (got ${show(entry)})`);
    return;
  }
  checkIpv4(v, `${path}.ip`, entry.ip);
  checkText(v, `${path}.label`, entry.label, 100);
  if (!isUnresolved(entry.ip) && existing.some((e) => e.ip === entry.ip)) {
    v.add(`${path}.ip`, `IP address ${show(entry.ip)} is already allowed`);
  }
  if (existing.length >= 100) v.add(path, `at most 100 IP addresses per account (${existing.length} already)`);
}

/** The labels of the entries of a `tokens` list that are objects (the others are reported by checkTokenSpec). */
export function tokenLabels(tokens: readonly TokenFields[]): string[] {
  return tokens.filter(isObject).map((t) => t.label);
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
  if (!isObject(token)) {
    v.add(path, `must be a token ({ label, expiresAt, active, importId }), an object (got ${show(token)})`);
    return;
  }
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
  // Only a label given can be taken: a missing one is reported above, not as a duplicate of another.
  const taken = typeof token.label === 'string' ? existing.find((l) => typeof l === 'string' && SAME_TOKEN_LABEL.same(l, token.label)) : undefined;
  if (taken === undefined) return;
  if (taken === token.label) {
    v.add(`${path}.label`, `a token labelled ${show(token.label)} already exists`);
  } else {
    v.add(`${path}.label`, `a token labelled ${show(taken)} already exists, and ${show(token.label)} is the same label (${SAME_TOKEN_LABEL.why})`);
  }
}
