// The shared rules table: one truth for the syntax of usernames, hostnames, labels and IPv4
// addresses that the SDK, the emulator, the provider and the constructs all check. Each case has
// a short name (values may hold invisible characters), the value, and the expected verdict.
// Change a verdict only with the API's rules (docs/emulator.md, "The API it implements") in hand; a copy that disagrees is fixed, not the table.

/** One value and whether the rule accepts it. */
export interface RuleCase {
  /** A readable, unique name within its rule (used in the known-disagreement lists). */
  readonly name: string;
  /** The value as a user would write it. */
  readonly value: string;
  /** Whether it is valid. */
  readonly valid: boolean;
}

/** The rules the table covers. */
export type RuleName = 'username' | 'hostname' | 'ipLabel' | 'tokenLabel' | 'ipv4';

const c = (name: string, value: string, valid: boolean): RuleCase => ({ name, value, valid });

/** Sub-account usernames (the API's rule): 1–30 characters of A–Z a–z 0–9 . @ + - */
const USERNAMES: readonly RuleCase[] = [
  c('simple', 'alice', true),
  c('one character', 'a', true),
  c('every allowed symbol', 'a.b@c+d-e', true),
  c('email-like', 'ci@example.com', true),
  c('digits only', '12345', true),
  c('30 characters', 'u'.repeat(30), true),
  c('31 characters', 'u'.repeat(31), false),
  c('empty', '', false),
  c('space inside', 'al ice', false),
  c('leading space', ' alice', false),
  c('trailing newline', 'alice\n', false),
  c('underscore', 'al_ice', false),
  c('slash', 'team/alice', false),
  c('colon', 'alice:x', false),
  c('exclamation', 'alice!', false),
  c('accented letter', 'alicé', false),
  c('fullwidth letter', 'ａlice', false),
  c('NUL', 'ali\u0000ce', false),
  c('bidi override', '\u202Ealice', false),
  c('zero-width space', 'ali\u200Bce', false),
];

/**
 * Hostnames: DNS labels of letters, digits and inner hyphens joined by dots; no wildcard; not an
 * IP address in any form the resolver reads, so the last label is not a number (decimal, or 0x hex).
 */
const HOSTNAMES: readonly RuleCase[] = [
  c('two labels', 'example.com', true),
  c('three labels', 'ci.example.com', true),
  c('single label', 'localhost', true),
  c('upper case', 'CI.Example.COM', true),
  c('inner hyphen', 'my-build.example.com', true),
  c('digits in labels', '123.example.com', true),
  c('punycode', 'xn--bcher-kva.example', true),
  c('63-character label', `${'a'.repeat(63)}.example.com`, true),
  c('64-character label', `${'a'.repeat(64)}.example.com`, false),
  c('253 characters', `${'a'.repeat(61)}.${'b'.repeat(61)}.${'c'.repeat(61)}.${'d'.repeat(61)}.examp`, true),
  c('254 characters', `${'a'.repeat(61)}.${'b'.repeat(61)}.${'c'.repeat(61)}.${'d'.repeat(61)}.exampl`, false),
  c('wildcard', '*.example.com', false),
  c('IPv4 address', '203.0.113.7', false),
  // The resolver reads every IPv4 form of inet_aton as an address without asking DNS, and each
  // ends with a numeric label: decimal (octal with a leading 0), or 0x and hex digits (none too).
  c('IPv4 as one decimal number', '2130706433', false),
  c('IPv4 short form', '127.1', false),
  c('IPv4 in octal', '0177.0.0.1', false),
  c('IPv4 as one hex number', '0x7f000001', false),
  c('IPv4 in hex parts', '0x7f.0x1', false),
  c('IPv4 with a hex last part', '127.0.0.0x1', false),
  c('upper-case hex last label', '10.0X0A', false),
  c('hex last label after a name', 'app.0x1f', false),
  c('0x alone as last label', 'app.0x', false),
  c('0x alone', '0x', false),
  c('hex labels before a name', '0x7f.example.com', true),
  c('0x label before a name', '0x.example.com', true),
  c('0x inside a label', 'a0x1.example.com', true),
  c('single label with 0x inside', 'x0x1', true),
  c('last label 0x then a non-hex letter', 'app.0xg', true),
  c('IPv4 before a name', '127.0.0.1.nip.io', true),
  c('IPv6 address', '2001:db8::1', false),
  c('empty', '', false),
  c('leading hyphen', '-ci.example.com', false),
  c('trailing hyphen in label', 'ci-.example.com', false),
  c('underscore', 'ci_build.example.com', false),
  c('trailing dot', 'example.com.', false),
  c('leading dot', '.example.com', false),
  c('double dot', 'ci..example.com', false),
  c('space', 'ci example.com', false),
  c('with port', 'example.com:8080', false),
  c('with scheme', 'https://example.com', false),
  c('unicode letters', 'bücher.example', false),
  c('NUL', 'ci\u0000.example.com', false),
  c('newline', 'ci.example.com\n', false),
  c('bidi isolate', 'ci\u2066.example.com', false),
];

/** Labels (IP labels and token labels): 1–100 Unicode characters, no control or bidi characters. */
const LABELS: readonly RuleCase[] = [
  c('plain', 'office', true),
  c('with spaces', 'Berlin office VPN', true),
  c('accents and scripts', 'Büro München 東京', true),
  c('emoji', 'deploy 🔑', true),
  c('punctuation', 'a&b=c%d+e/f:g', true),
  c('zero-width joiner', 'team\u200Dlead', true),
  c('100 characters', 'x'.repeat(100), true),
  c('101 characters', 'x'.repeat(101), false),
  c('100 emoji (200 UTF-16 units)', '🔑'.repeat(100), true),
  c('101 emoji', '🔑'.repeat(101), false),
  c('NUL', 'office\u0000', false),
  c('LF', 'line\nbreak', false),
  c('CR', 'carriage\rreturn', false),
  c('CRLF', 'a\r\nb', false),
  c('TAB', 'tab\tbed', false),
  c('ESC', 'esc\u001B[31m', false),
  c('DEL', 'del\u007F', false),
  c('bidi embedding U+202A', 'a\u202Ab', false),
  c('bidi override U+202E', 'abc\u202Efed', false),
  c('bidi isolate U+2066', '\u2066a', false),
  c('bidi pop isolate U+2069', 'a\u2069', false),
];

/** IPv4: a strict dotted quad, four decimal numbers 0–255 without leading zeros or spaces. */
const IPV4: readonly RuleCase[] = [
  c('documentation address', '203.0.113.7', true),
  c('all zeros', '0.0.0.0', true),
  c('broadcast', '255.255.255.255', true),
  c('private', '10.0.0.1', true),
  c('loopback', '127.0.0.1', true),
  c('leading zero', '010.0.0.1', false),
  c('double zero', '00.0.0.0', false),
  c('CIDR range', '10.0.0.0/8', false),
  c('single-host CIDR', '203.0.113.7/32', false),
  c('IPv6', '2001:db8::1', false),
  c('IPv6 loopback', '::1', false),
  c('IPv4-mapped IPv6', '::ffff:203.0.113.7', false),
  c('octet 256', '256.1.1.1', false),
  c('octet 999', '1.2.3.999', false),
  c('three parts', '10.0.1', false),
  c('five parts', '1.2.3.4.5', false),
  c('trailing dot', '1.2.3.4.', false),
  c('empty part', '1..3.4', false),
  c('leading space', ' 203.0.113.7', false),
  c('trailing space', '203.0.113.7 ', false),
  c('trailing newline', '203.0.113.7\n', false),
  c('hex', '0x7f.0.0.1', false),
  c('single number', '3405803783', false),
  c('negative', '-1.0.0.0', false),
  c('plus sign', '+1.0.0.0', false),
  c('Arabic-Indic digits', '١٢٣.٠.٠.١', false),
  c('fullwidth digits', '１.２.３.４', false),
  c('with port', '203.0.113.7:80', false),
  c('empty', '', false),
];

/** The whole table, by rule. */
export const RULES: Readonly<Record<RuleName, readonly RuleCase[]>> = {
  username: USERNAMES,
  hostname: HOSTNAMES,
  ipLabel: LABELS,
  tokenLabel: LABELS,
  ipv4: IPV4,
};
