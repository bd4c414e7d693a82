// The roster reader's rules (constructs/src/roster-data.ts `readRoster` and the checks it calls in
// validation.ts, access-checks.ts and token-markers.ts), repeated here because src cannot import
// the jsii package: `export --format roster` leaves out every object the reader would refuse and
// names it, so an exported roster is always read. Keep the two in step;
// test/gitops/export-roster.test.ts reads exported rosters with the real reader.
// Each check returns why a value is refused (a phrase about "it"), or undefined.

const USERNAME = /^[A-Za-z0-9.@+-]{1,30}$/;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const LABEL = '[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?';
const HOSTNAME = new RegExp(`^${LABEL}(?:\\.${LABEL})*$`);
// A last label the resolver reads as a number (decimal, or 0x and hex digits) makes an IP address.
const NUMERIC_LABEL = /^(?:[0-9]+|0x[0-9a-f]*)$/i;
const PROXY = new RegExp(`^(${LABEL}(?:\\.${LABEL})*)(?::(\\d{1,5}))?$`);
// Control characters, DEL and bidi overrides/isolates.
const UNSAFE_TEXT = /[\u0000-\u001f\u007f\u202a-\u202e\u2066-\u2069]/;
// cdktf's reference markers (token-markers.ts): a string's, a list element's, a map key's, and a
// number token written out in a string. A file may hold none, so the reader refuses them.
const STRING_MARKERS = /[$#&]\{TfToken\[[a-zA-Z0-9:._-]+\]\}/;
const WRITTEN_NUMBERS = /[-|\d|.+]+(e[-|\d|.|e|E|+]+)/g;
// A member's construct id is its username; the constructs library keeps children in a plain object.
const TAKEN_IDS: readonly string[] = Object.getOwnPropertyNames(Object.prototype);

/** The most IPs one account of a roster holds. */
export const MAX_ROSTER_IPS = 100;
/** The longest first or last name, and IP or token label, in characters (code points). */
export const MAX_NAME = 20;
export const MAX_LABEL = 100;

/** True when cdktf would read the number as a reference (the top 16 bits of the double mark a token, or a number list's). */
function isTokenNumber(n: number): boolean {
  const top = new Uint32Array(new Float64Array([n]).buffer)[1]! >>> 16;
  return top === 0xfdff || top === 0xfbff;
}

/** True when the synth would take (part of) the string for a reference. */
function holdsTokenMarker(value: string): boolean {
  return STRING_MARKERS.test(value) || (value.match(WRITTEN_NUMBERS) ?? []).some((n) => isTokenNumber(Number.parseFloat(n)));
}

/** A text field (a name, a label): not empty, at most `max` characters, no unsafe character, no reference marker. */
export function textProblem(value: string, max: number): string | undefined {
  if (value === '') return 'it is empty';
  const length = Array.from(value).length;
  if (length > max) return `it is ${length} characters long, more than the ${max} a roster accepts`;
  if (UNSAFE_TEXT.test(value)) return 'it holds a control or bidi-override character';
  return markerProblem(value);
}

/** Any string written into the roster: no reference marker. */
export function markerProblem(value: string): string | undefined {
  return holdsTokenMarker(value) ? 'it holds a CDKTF reference marker (TfToken[…]), which a roster file may not hold' : undefined;
}

/** A member's username. */
export function usernameProblem(username: string): string | undefined {
  if (!USERNAME.test(username)) return "it is not 1 to 30 letters, digits, '.', '@', '+' or '-'";
  if (TAKEN_IDS.includes(username)) {
    return "a username is the member's construct id, and Object.prototype has that name taken; declare this sub-account with a SubAccount of another id";
  }
  return markerProblem(username);
}

/** A member's e-mail address. */
export function emailProblem(email: string): string | undefined {
  if (Array.from(email).length > 255 || !EMAIL.test(email)) return 'it is not an e-mail address of at most 255 characters';
  return markerProblem(email);
}

/** The largest traffic limit the reader (and the provider) takes, in GB. */
export const MAX_LIMIT_GB = 999_999_999_999_999;

/** A traffic limit: a whole number of GB from 0 to MAX_LIMIT_GB. */
export function limitProblem(gb: number): string | undefined {
  return Number.isSafeInteger(gb) && gb >= 0 && gb <= MAX_LIMIT_GB ? undefined : `it is not a whole number of GB from 0 to ${MAX_LIMIT_GB}`;
}

/** An IPv4 address, dotted quad without leading zeros. */
export function ipProblem(ip: string): string | undefined {
  const parts = ip.split('.');
  const ok = parts.length === 4 && parts.every((p) => /^(0|[1-9]\d{0,2})$/.test(p) && Number(p) <= 255);
  return ok ? undefined : 'it is not an IPv4 address a roster accepts';
}

/** A hostname: labels of letters, digits and inner hyphens; no wildcard; not an IP address in any form. */
export function hostnameProblem(hostname: string): string | undefined {
  const ok = hostname.length <= 253 && HOSTNAME.test(hostname) && !NUMERIC_LABEL.test(hostname.split('.').pop() ?? '');
  return ok
    ? markerProblem(hostname)
    : 'it is not a hostname a roster accepts (letters, digits and inner hyphens, no wildcard, not an IP address: a numeric last label such as 7 or 0x1f makes one)';
}

/** A proxy as the reader parses it: its name lower-cased, and its port. */
function parseProxy(value: string): { name: string; port: number | undefined } | undefined {
  const match = PROXY.exec(value);
  if (match === null || match[1]!.length > 253 || NUMERIC_LABEL.test(match[1]!.split('.').pop() ?? '')) return undefined;
  const port = match[2] === undefined ? undefined : Number(match[2]);
  if (port !== undefined && (port < 1 || port > 65535 || !match[1]!.includes('.'))) return undefined;
  return { name: match[1]!.toLowerCase(), port };
}

/** A proxy: a bare host, a full domain, or domain:port. */
export function proxyProblem(proxy: string): string | undefined {
  return parseProxy(proxy) === undefined ? 'it is not a proxy a roster accepts (a host, a full domain or domain:port)' : markerProblem(proxy);
}

/** How the reader finds two entries of one list to be one, and says why. */
export interface Sameness {
  readonly same: (a: string, b: string) => boolean;
  readonly why: string;
}

/** Hostnames and IP addresses: compared without case. */
export const IGNORING_CASE: Sameness = { same: (a, b) => a.toLowerCase() === b.toLowerCase(), why: 'case does not matter' };

/** Proxies: the same name, or a bare host and the full domain it begins, ports aside, whatever the case. */
export const SAME_PROXY: Sameness = {
  same: (a, b) => {
    const x = parseProxy(a);
    const y = parseProxy(b);
    if (x === undefined || y === undefined) return false;
    if (x.port !== undefined && y.port !== undefined && x.port !== y.port) return false;
    const bare = (f: { name: string }): boolean => !f.name.includes('.');
    if (bare(x) === bare(y)) return x.name === y.name;
    return bare(x) ? y.name.split('.')[0] === x.name : x.name.split('.')[0] === y.name;
  },
  why: 'a bare host stands for the full domain it begins, and case does not matter',
};

/** Token labels of one account: compared without case, and a '/' is '--' in the token's construct id. */
export const SAME_TOKEN_LABEL: Sameness = {
  same: (a, b) => a.replace(/\//g, '--').toLowerCase() === b.replace(/\//g, '--').toLowerCase(),
  why: "labels compare without case, and a '/' is '--' in the token's construct id",
};

/** A token's import ID: a whole number >= 1. */
export function importIdProblem(id: number): string | undefined {
  return Number.isSafeInteger(id) && id >= 1 ? undefined : 'its ID is not a whole number >= 1';
}
