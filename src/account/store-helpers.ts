// Small helpers of the account store: targets, phrases, 404 as absence, lookups in cached lists,
// a sub-account's fields as an edit sends them.
import { isProxyAccountError, type SubAccount, type SubAccountInput } from '../sdk';

/** The SDK's optional `username` argument: left out for the authenticated account. */
export function targetOf(username: string | null): { username?: string } {
  return username === null ? {} : { username };
}

export function forAccount(username: string | null): string {
  return username === null ? '' : ` for sub-account '${username}'`;
}

/** The value of `read`, or undefined when it fails with 404 (the sub-account does not exist). */
export async function absentOn404<T>(read: () => Promise<T | undefined>): Promise<T | undefined> {
  try {
    return await read();
  } catch (err) {
    if (isProxyAccountError(err, 'ERR_NOT_FOUND')) return undefined;
    throw err;
  }
}

/** The listed form of `domain`: an exact match, else a match without case (DNS names). */
export function matchHostname(listed: readonly string[], domain: string): string | undefined {
  return listed.find((d) => d === domain) ?? listed.find((d) => d.toLowerCase() === domain.toLowerCase());
}

/**
 * The full domain of the listed proxy (`domain:port`) that `proxy`, in a form the add accepts,
 * names: the same entry for `domain:port`, the same domain for a full domain, the domain's first
 * label for a bare host; compared without case (DNS names). This is what the add answers.
 */
export function matchProxy(listed: readonly string[], proxy: string): string | undefined {
  const given = proxy.toLowerCase();
  const domainOf = (entry: string): string => {
    const colon = entry.lastIndexOf(':');
    return colon === -1 ? entry : entry.slice(0, colon);
  };
  const names = (entry: string): boolean => {
    const e = entry.toLowerCase();
    if (given.includes(':')) return e === given;
    const domain = domainOf(e);
    return given.includes('.') ? domain === given : domain.split('.')[0] === given;
  };
  const found = listed.find(names);
  return found === undefined ? undefined : domainOf(found);
}

/** Per cached list: its entries by the value of one field (the first entry holding each value). */
const indexes = new WeakMap<readonly object[], Map<PropertyKey, Map<unknown, object>>>();

/**
 * The first entry of `list` whose `field` is `value`, as `list.find` gives it. A refresh looks up
 * each of a list's entries in it (99 authorized IPs: 99 lookups), so a frozen list (the cache's)
 * is indexed once, on its first lookup; any other list is searched.
 */
export function firstWhere<E extends object, K extends keyof E>(list: readonly E[], field: K, value: E[K]): E | undefined {
  if (!Object.isFrozen(list)) return list.find((e) => e[field] === value);
  let byField = indexes.get(list);
  if (byField === undefined) {
    byField = new Map();
    indexes.set(list, byField);
  }
  let index = byField.get(field) as Map<unknown, E> | undefined;
  if (index === undefined) {
    index = new Map();
    for (const e of list) if (!index.has(e[field])) index.set(e[field], e);
    byField.set(field, index);
  }
  return index.get(value);
}

/** The fields of an edit the API shows back (a password it never shows). */
const SHOWN_FIELDS = ['firstName', 'lastName', 'email', 'monthlyLimit', 'totalLimit'] as const;
type ShownField = (typeof SHOWN_FIELDS)[number];

/** `field` of a sub-account as an edit sends it: an absent name or email is '' (the edit that clears it). */
function shownValue(s: SubAccount, field: ShownField): string | number {
  switch (field) {
    case 'monthlyLimit':
      return s.monthlyBandwidthLimit;
    case 'totalLimit':
      return s.totalBandwidthLimit;
    default:
      return s[field] ?? '';
  }
}

/** `now` when it shows every field `input` sends as sent, else undefined. */
export function shownAsSent(now: SubAccount, input: SubAccountInput): SubAccount | undefined {
  return SHOWN_FIELDS.every((f) => input[f] === undefined || shownValue(now, f) === input[f]) ? now : undefined;
}
