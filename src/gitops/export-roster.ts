// `proxyaccount export --format roster`: the live account as a roster file for the AccountRoster
// construct. The import blocks it needs are in the file itself: `importExisting` on the parent and
// on each member (the construct imports the account and every listed entry, whose import IDs it
// derives), and `importId` on each token (token IDs cannot be derived). So a CDKTF app that reads
// the file plans only imports. Passwords and raw token values cannot be read back: comments say
// how to set them. What the roster reader would refuse is left out and named, except an entry of
// an authoritative list, which the apply would delete: that stops the export.
import { accountPhrase, isEphemeralTokenLabel, LEFTOVER_NOT_ADOPTED } from '../resource-types';
import type { BearerToken, LabeledIp } from '../sdk';
import { Document, isMap, isSeq } from 'yaml';
import { type AccountExport, type ListStyle, type LiveAccount, unreadLines } from './export';
import {
  emailProblem,
  hostnameProblem,
  IGNORING_CASE,
  importIdProblem,
  ipProblem,
  limitProblem,
  MAX_LABEL,
  MAX_NAME,
  MAX_ROSTER_IPS,
  proxyProblem,
  SAME_PROXY,
  SAME_TOKEN_LABEL,
  type Sameness,
  textProblem,
  usernameProblem,
} from './roster-rules';

/** The roster file, and the objects it leaves out (told to the user, never dropped silently). */
export interface RosterExport {
  readonly 'roster.yaml': string;
  /** One line per live object left out of the roster, saying why. */
  readonly skipped: readonly string[];
  /** How many sub-accounts it holds. */
  readonly members: number;
}

interface RosterToken {
  label: string;
  expiresAt?: string;
  active?: boolean;
  importId: number;
}

/** A value quoted for a message and a file comment: JSON, with the characters YAML 1.1 takes for line breaks escaped too. */
function shown(value: string): string {
  return JSON.stringify(value).replace(/[\u0085\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** The first of `kept` that `rule` finds to be one with `value`. */
function twinOf<T>(kept: readonly T[], key: (t: T) => string, value: string, rule: Sameness): T | undefined {
  return kept.find((k) => rule.same(key(k), value));
}

/**
 * Roster tokens are named by their label, unique per account by the reader's rule (without case,
 * `/` as `--`): a token with no label, or a label an earlier token of the account has, cannot be
 * written; nor can a leftover of the ephemeral resource, which export never adopts. Each is reported.
 */
function rosterTokens(owner: string, tokens: readonly BearerToken[], skipped: string[]): RosterToken[] {
  const kept: BearerToken[] = [];
  for (const t of tokens) {
    const what = `token ${t.id} of ${owner}`;
    if (isEphemeralTokenLabel(t.label)) {
      skipped.push(`${what}: ${LEFTOVER_NOT_ADOPTED}`);
      continue;
    }
    if (t.label === '') {
      skipped.push(`${what}: it has no label, and a roster names tokens by label`);
      continue;
    }
    const refused = textProblem(t.label, MAX_LABEL) ?? importIdProblem(t.id);
    if (refused !== undefined) {
      skipped.push(`${what}: its label ${shown(t.label)} cannot be in a roster: ${refused}`);
      continue;
    }
    const twin = twinOf(kept, (k) => k.label, t.label, SAME_TOKEN_LABEL);
    if (twin !== undefined) {
      const same = twin.label === t.label ? 'also' : `the same label (${SAME_TOKEN_LABEL.why}) as`;
      skipped.push(`${what}: its label ${shown(t.label)} is ${same} token ${twin.id}'s ${shown(twin.label)}, and a roster names tokens by label`);
      continue;
    }
    kept.push(t);
  }
  return kept.map((t) => {
    const token: RosterToken = { label: t.label, importId: t.id };
    if (t.expiresAt !== null) token.expiresAt = t.expiresAt.toISOString().slice(0, 10);
    if (!t.isActive) token.active = false;
    return token;
  });
}

function rosterIps(owner: string, ips: readonly LabeledIp[], skipped: string[]): Array<{ ip: string; label?: string }> {
  const kept: LabeledIp[] = [];
  for (const e of ips) {
    const badIp = ipProblem(e.ip);
    const what = `IP ${badIp === undefined ? e.ip : shown(e.ip)} of ${owner}`;
    const badLabel = e.label === '' ? undefined : textProblem(e.label, MAX_LABEL);
    const twin = twinOf(kept, (k) => k.ip, e.ip, IGNORING_CASE);
    if (badIp !== undefined) skipped.push(`${what}: ${badIp}`);
    else if (badLabel !== undefined) skipped.push(`${what}: its label ${shown(e.label)} cannot be in a roster: ${badLabel}`);
    else if (twin !== undefined) skipped.push(`${what}: listed twice, and a roster lists it once`);
    else if (kept.length >= MAX_ROSTER_IPS) skipped.push(`${what}: a roster holds at most ${MAX_ROSTER_IPS} IPs per account`);
    else kept.push(e);
  }
  return kept.map((e) => (e.label === '' ? { ip: e.ip } : { ip: e.ip, label: e.label }));
}

/** Entries of a list of strings (hostnames, proxies): each one the reader accepts, and once by its rule; the first spelling is kept. */
function rosterList(
  noun: string,
  owner: string,
  values: readonly string[],
  problem: (v: string) => string | undefined,
  rule: Sameness,
  skipped: string[],
): string[] {
  const kept: string[] = [];
  for (const v of values) {
    const what = `${noun} ${shown(v)} of ${owner}`;
    const refused = problem(v);
    const twin = twinOf(kept, (k) => k, v, rule);
    if (refused !== undefined) skipped.push(`${what}: ${refused}`);
    else if (twin !== undefined) skipped.push(`${what}: the same ${noun} as ${shown(twin)}, already in the roster (${rule.why}); a roster lists it once`);
    else kept.push(v);
  }
  return kept;
}

/** Why the reader would refuse the member for this sub-account, or undefined. */
function memberProblem(a: AccountExport): string | undefined {
  const d = a.details!;
  const fields: Array<[string, string | undefined]> = [
    ['username', usernameProblem(d.username)],
    ['first name', d.firstName === undefined ? undefined : textProblem(d.firstName, MAX_NAME)],
    ['last name', d.lastName === undefined ? undefined : textProblem(d.lastName, MAX_NAME)],
    ['e-mail address', d.email === undefined ? undefined : emailProblem(d.email)],
    ['monthly limit', limitProblem(d.monthlyBandwidthLimit)],
    ['total limit', limitProblem(d.totalBandwidthLimit)],
  ];
  const bad = fields.find(([, why]) => why !== undefined);
  return bad === undefined ? undefined : `its ${bad[0]} cannot be in a roster: ${bad[1]}`;
}

/** What goes with a member left out: nothing of it is in the roster. */
function leftWith(a: AccountExport): string {
  const n = (count: number, one: string, many: string): string => `${count} ${count === 1 ? one : many}`;
  return `its ${n(a.ips.length, 'IP', 'IPs')}, ${n(a.hostnames.length, 'hostname', 'hostnames')} and ${n(a.tokens.length, 'token', 'tokens')} are left out with it`;
}

/**
 * The sub-accounts a roster can hold, in the order read: one whose username or details the reader
 * refuses, or whose username differs only in case from an earlier member's (the reader compares
 * them without case), is left out with everything it holds, and reported.
 */
function rosterMembers(accounts: readonly AccountExport[], skipped: string[]): AccountExport[] {
  const kept: AccountExport[] = [];
  for (const a of accounts) {
    const d = a.details!;
    const refused = memberProblem(a);
    // A username of other than printable ASCII is quoted: the line goes into a comment.
    const what = /^[\x21-\x7e]+$/.test(d.username) ? accountPhrase(d.username) : `sub-account ${shown(d.username)}`;
    const twin = kept.find((k) => k.details!.username.toLowerCase() === d.username.toLowerCase());
    if (refused !== undefined) skipped.push(`${what}: ${refused}; ${leftWith(a)}`);
    else if (twin !== undefined)
      skipped.push(
        `${what}: the same username as ${accountPhrase(twin.details!.username)}, already in the roster (a roster compares usernames without case); ${leftWith(a)}`,
      );
    else kept.push(a);
  }
  return kept;
}

/** Drops empty lists, so the file holds only what the account has. */
/** `o` without its undefined values and empty lists, except the lists named in `keepEmpty`. */
function compact<T extends Record<string, unknown>>(o: T, keepEmpty: readonly (keyof T)[] = []): T {
  return Object.fromEntries(Object.entries(o).filter(([k, v]) => v !== undefined && (!(Array.isArray(v) && v.length === 0) || keepEmpty.includes(k)))) as T;
}

const HEADER = [
  ' Written by `proxyaccount export --format roster` from the live account, for the AccountRoster',
  ' construct (constructs/README.md, "Roster file").',
  '',
  ' Adoption: `importExisting: true` makes the next apply import the account and every IP, hostname',
  ' and proxy listed with it, and each token is imported by its `importId`, so the first plan shows',
  ' only imports. They may stay after that apply (an import of an object already in state does',
  ' nothing); remove `importExisting` before adding entries that do not exist yet.',
  '',
  ' Secrets are not in here and cannot be read back: a sub-account keeps its current password unless',
  " AccountRoster's `passwords` (from a sensitive variable) sets one, and an imported token's value",
  ' stays unknown to Terraform (its `token` attribute is null).',
].join('\n');

// YAML 1.1 readers (PyYAML) take these for line breaks even inside a double-quoted scalar, and the
// `yaml` package writes them raw; `\N`, `\L` and `\P` are escapes in YAML 1.1 and 1.2 alike.
const LINE_BREAKS_OF_YAML_1_1: Readonly<Record<string, string>> = { '\u0085': '\\N', '\u2028': '\\L', '\u2029': '\\P' };

/**
 * The document as text, every string double-quoted: a YAML 1.1 reader (js-yaml and others) would
 * take a plain `yes`, `on` or `2026-01-01` for a boolean or a date, and a YAML 1.2 one a plain
 * `0o17` for a number. The line breaks of YAML 1.1 are escaped, in the whole text: keys are plain
 * field names and comments hold values through `shown`, so they can only be in quoted strings.
 */
function yamlText(doc: Document): string {
  const text = doc.toString({ lineWidth: 0, defaultStringType: 'QUOTE_DOUBLE', defaultKeyType: 'PLAIN' });
  return text.replace(/[\u0085\u2028\u2029]/g, (c) => LINE_BREAKS_OF_YAML_1_1[c]!);
}

/** Why the roster cannot be written authoritatively: the entries of its lists it would have to leave out, which the apply would delete. */
function authoritativeRefusal(entries: readonly string[]): string {
  return [
    '--lists authoritative cannot write this roster: an authoritative list removes from the account every entry it does not hold, ' +
      'and these entries of its lists cannot be in a roster:',
    ...entries.map((e) => ` - ${e}`),
    'Export with --lists per-entry (the roster is then additive: an entry left out stays on the account as it is), ' +
      'or change the account so that each can be written (remove one of two spellings, change a label the roster refuses) and export again',
  ].join('\n');
}

/**
 * The live account as a roster file (YAML) whose first plan adopts everything it lists, and the
 * reader accepts whole. With authoritative lists, an entry of a list the roster declares cannot be
 * left out (the apply would delete it): it throws, naming each one, before anything is written.
 */
export function toRoster(live: LiveAccount, lists: ListStyle): RosterExport {
  const skipped = unreadLines(live);
  // Entries of the lists the roster declares, left out: authoritatively, each would be deleted.
  const refused: string[] = [];
  const listed = lists === 'authoritative' ? refused : skipped;
  const parent = live.accounts.find((a) => a.username === null);
  const owner = accountPhrase(null);
  const ips = rosterIps(owner, parent?.ips ?? [], listed);
  const hostnames = rosterList('hostname', owner, parent?.hostnames ?? [], hostnameProblem, IGNORING_CASE, listed);
  const proxySkips: string[] = [];
  const proxies = rosterList('proxy', owner, live.proxies, proxyProblem, SAME_PROXY, proxySkips);
  // The construct owns the parent's authoritative proxies list once the `proxies` key is written,
  // even empty. An account with no proxy gets `proxies: []`, so that a proxy authorized later
  // elsewhere shows in the plan; one whose proxies a roster cannot hold gets no key (writing `[]`
  // would delete them), and those left out are in no list.
  const ownsProxies = proxies.length > 0 || (lists === 'authoritative' && proxySkips.length === 0);
  (ownsProxies ? listed : skipped).push(...proxySkips);
  const parentSection = compact(
    { importExisting: true, ips, hostnames, proxies, tokens: rosterTokens(owner, parent?.tokens ?? [], skipped) },
    ownsProxies ? ['proxies'] : [],
  );
  // A member left out declares no list: what it holds is named with it, in either style.
  const members = rosterMembers(
    live.accounts.filter((a) => a.username !== null && a.details !== undefined),
    skipped,
  ).map((a) => {
    const d = a.details!;
    const who = accountPhrase(d.username);
    return compact({
      username: d.username,
      firstName: d.firstName,
      lastName: d.lastName,
      email: d.email,
      monthlyLimitGb: d.monthlyBandwidthLimit,
      totalLimitGb: d.totalBandwidthLimit,
      active: d.active ? undefined : false,
      importExisting: true,
      ips: rosterIps(who, a.ips, listed),
      hostnames: rosterList('hostname', who, a.hostnames, hostnameProblem, IGNORING_CASE, listed),
      tokens: rosterTokens(who, a.tokens, skipped),
    });
  });
  if (refused.length > 0) throw new Error(authoritativeRefusal(refused));
  const data = {
    accessList: lists === 'authoritative' ? 'authoritative' : 'additive',
    parent: parentSection,
    teams: [{ name: 'exported', members }],
  };
  const doc = new Document(data);
  doc.commentBefore =
    skipped.length === 0
      ? HEADER
      : `${HEADER}\n\n Left out, each with why; nothing in this file manages or removes them, so they stay on the account as they are:\n${skipped.map((s) => ` - ${s}`).join('\n')}`;
  const teams = doc.get('teams');
  const team = isSeq(teams) ? teams.items[0] : undefined;
  const memberNodes = isMap(team) ? team.get('members') : undefined;
  if (isSeq(memberNodes)) {
    for (const node of memberNodes.items) {
      if (isMap(node))
        node.commentBefore = " password: not readable from the API; set it with AccountRoster's `passwords` (never in this file), else the current one is kept";
    }
  }
  return { 'roster.yaml': yamlText(doc), skipped, members: members.length };
}
