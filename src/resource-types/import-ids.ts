// The import-ID (and resource-ID) formats: "ENTRY" or "USERNAME/ENTRY" for one object of an
// account, "_self" or "USERNAME" for a whole list, "USERNAME" for a sub-account, the proxy itself
// for a proxy. The provider's resources and the constructs (generated from here) share them.
import type { ImportIdFormat } from './types';

/** One character a sub-account username may contain: letters, digits and `.` `@` `+` `-`. */
export const USERNAME_CHAR = /[A-Za-z0-9.@+-]/;

/** True when `s` is a well-formed sub-account username (1–30 of {@link USERNAME_CHAR}). */
export function isUsername(s: string): boolean {
  const chars = [...s];
  return chars.length >= 1 && chars.length <= 30 && chars.every((ch) => USERNAME_CHAR.test(ch));
}

const USERNAME_RULE = '1–30 letters, digits and . @ + -';

/** The ID of a list that belongs to the authenticated account itself. */
export const SELF_ID = '_self';

/** What separates the account from the entry in an entry's ID. "/" is no username character. */
export const ENTRY_SEPARATOR = '/';

/** "ENTRY" for the authenticated account, "USERNAME/ENTRY" for a sub-account's. */
export function entryIdFormat(entry: string, example: string): ImportIdFormat {
  return {
    syntax: `"${entry}" or "USERNAME${ENTRY_SEPARATOR}${entry}"`,
    examples: [example, `alice${ENTRY_SEPARATOR}${example}`],
    format: (username, key) => (username === null ? key : `${username}${ENTRY_SEPARATOR}${key}`),
    parse: (id) => {
      const parts = id.trim().split(ENTRY_SEPARATOR);
      const key = parts[parts.length - 1]!;
      const username = parts.length === 2 ? parts[0]! : null;
      if (parts.length > 2) return `it has more than one "${ENTRY_SEPARATOR}"`;
      if (key === '') return 'the entry is empty';
      if (username !== null && !isUsername(username)) return `${JSON.stringify(username)} is not a sub-account username (${USERNAME_RULE})`;
      return { username, key };
    },
  };
}

/** "_self" for the authenticated account's whole list, "USERNAME" for a sub-account's. "_" is no username character, so they cannot clash. */
export const ACCOUNT_LIST_ID: ImportIdFormat = {
  syntax: `"${SELF_ID}" or "USERNAME"`,
  examples: [SELF_ID, 'alice'],
  format: (username) => username ?? SELF_ID,
  parse: (id) => {
    const s = id.trim();
    if (s === SELF_ID) return { username: null, key: '' };
    if (isUsername(s)) return { username: s, key: '' };
    return `expected "${SELF_ID}" (the account the provider authenticates as) or a sub-account username (${USERNAME_RULE}), got ${JSON.stringify(id)}`;
  },
};

/** A sub-account: its username. */
export const SUB_ACCOUNT_ID: ImportIdFormat = {
  syntax: '"USERNAME"',
  examples: ['alice'],
  format: (username, key) => username ?? key,
  parse: (id) => {
    const s = id.trim();
    return isUsername(s) ? { username: s, key: s } : `${JSON.stringify(id)} is not a sub-account username (${USERNAME_RULE})`;
  },
};

/** A proxy of the parent account: the proxy as configured (bare host, full domain or domain:port). */
export const PROXY_ID: ImportIdFormat = {
  syntax: '"PROXY"',
  examples: ['us-ny', 'us-ny.proxy.example.net:8080'],
  format: (_username, key) => key,
  parse: (id) => {
    const s = id.trim();
    return s === '' ? 'the proxy is empty' : { username: null, key: s };
  },
};
