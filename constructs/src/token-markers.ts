// Finds the marks that cdktf and cdktn leave in a value standing for a reference (a token): in data
// that should hold none (a roster read from a file), and in literal text that may hold some (see
// terraform-literal.ts). Internal: not exported from the package index.
import { Token, Tokenization } from 'cdktf';
import { Violations, show } from './validation';

// The markers of lib/tokens/private/encoding.js (the same in cdktf and cdktn): `${TfToken[..]}` for
// a string, `#{TfToken[..]}` for a list element, `&{TfToken[..]}` for a map key. The synth replaces
// each one it finds, wherever it is in a string, by what its token stands for.
const STRING_MARKERS = /[$#&]\{TfToken\[[a-zA-Z0-9:._-]+\]\}/;
// A string token's marker alone, which the synth replaces by the reference, written `${...}`.
const STRING_TOKEN_MARKER = /(\$\{TfToken\[[a-zA-Z0-9:._-]+\]\})/;
// A number token is a double with a marker in its top bits; the synth also finds one written out
// inside a string (`-1.8881545897087626e+289`), by encoding.js's pattern
// `/[-|\d|.+]+(e[-|\d|.|e|E|+]+)/g`. That one is tried from every position of a run of digits that
// no `e` ends, each try reading to the run's end: a long run takes time quadratic in its length
// (a 100 KB value in a roster file stalled the check for seconds before any length rule ran). The
// same matches, starting only where a run starts, take linear time: a try from inside a run meets
// the same end of run, and fails as the try from its start did.
const WRITTEN_NUMBERS = /(?<![-|\d.+])[-|\d.+]+e[-|\d.eE+]+/g;

/** True when the synth would read `n` as a number token (or a number list's). */
function isTokenNumber(n: number): boolean {
  return Token.isUnresolved(n) || Token.isUnresolved([n]);
}

/**
 * `text` cut at the references the synth will write into it: literal text and references in turn,
 * starting and ending with text (empty where a reference starts or ends `text`). A reference is a
 * string token's marker or a number token written out in the string; each becomes `${...}`.
 */
export function splitAtReferences(text: string): string[] {
  return text.split(STRING_TOKEN_MARKER).flatMap((part, i) => (i % 2 === 1 ? [part] : splitAtNumberTokens(part)));
}

/** `text` cut at the number tokens written out in it, as splitAtReferences. */
function splitAtNumberTokens(text: string): string[] {
  const parts: string[] = [];
  let from = 0;
  for (const match of text.matchAll(WRITTEN_NUMBERS)) {
    if (!isTokenNumber(parseFloat(match[0]))) continue;
    parts.push(text.slice(from, match.index), match[0]);
    from = match.index + match[0].length;
  }
  parts.push(text.slice(from));
  return parts;
}

// A number token as JavaScript writes it: the token doubles of cdktf and cdktn are negative, with a
// three-digit exponent (`-8.109562212591379e+298`), so this finds one whatever is around it.
const NUMBER_TOKEN_TEXT = /-\d(?:\.\d+)?e\+\d{3}/g;

/**
 * True when `text` holds a number token written out where the synth does not find it: it reads the
 * longest run of the number's characters, so after a digit, `.`, `+`, `-`, `|` or another number
 * token, or before a digit, it reads another number, and writes the token's placeholder digits
 * (`7-8.109562212591379e+298`) as text, or drops the second of two tokens.
 */
export function hidesNumberReference(text: string): boolean {
  const written = [...text.matchAll(NUMBER_TOKEN_TEXT)].filter((m) => isTokenNumber(parseFloat(m[0]))).length;
  const found = splitAtReferences(text).filter((part, i) => i % 2 === 1 && !STRING_TOKEN_MARKER.test(part)).length;
  return written > found;
}

/** True when the synth would take `value` (a string, number or object) for a reference, in whole or in part. */
export function holdsTokenMarker(value: unknown): boolean {
  if (typeof value === 'string') {
    return STRING_MARKERS.test(value) || (value.match(WRITTEN_NUMBERS) ?? []).some((n) => isTokenNumber(parseFloat(n)));
  }
  if (typeof value === 'number') return isTokenNumber(value);
  return typeof value === 'object' && value !== null && Tokenization.isResolvable(value);
}

const WHY = "which the synth would replace by another resource's value (a bearer token's, say): roster data is " +
  'literal, so references must come from code, with the AccountRoster prop allowReferences, or be declared in code';

/**
 * Reports every value of `data`, and every key, that holds a token marker, with its path in the
 * data (`teams[0].members[1].ips[0].label`). A value read from a file can hold none legitimately.
 */
export function checkNoTokenMarkers(v: Violations, path: string, data: unknown): void {
  if (holdsTokenMarker(data)) {
    v.add(path, `${typeof data === 'object' ? 'is a token (a resolvable object)' : `holds a token marker (got ${show(data)})`}, ${WHY}`);
  } else if (Array.isArray(data)) {
    data.forEach((item, i) => checkNoTokenMarkers(v, `${path}[${i}]`, item));
  } else if (typeof data === 'object' && data !== null) {
    for (const [key, item] of Object.entries(data)) {
      if (holdsTokenMarker(key)) v.add(path, `the key ${show(key)} holds a token marker, ${WHY}`);
      else checkNoTokenMarkers(v, path ? `${path}.${key}` : key, item);
    }
  }
}
