// The roster file format (what a team keeps in a reviewed JSON or YAML file) and its reader.
import { AccessListMode, IpEntry } from './access-list';
import { checkAccessListMode, checkHostnames, checkIpEntries, checkTokenSpec } from './access-checks';
import { TokenSpec } from './access-owner';
import { literal } from './terraform-literal';
import { checkNoTokenMarkers } from './token-markers';
import {
  SAME_PROXY, Violations, checkBoolean, checkEmail, checkLimit, checkProxy, checkText, checkUnique, checkUsername, isUnresolved,
  show,
} from './validation';

/** Settings every member of a team gets unless the member sets its own. */
export interface RosterDefaults {
  /**
   * Monthly traffic limit in GB for each member; 0 means unlimited.
   * @default 0
   */
  readonly monthlyLimitGb?: number;
  /**
   * Total traffic limit in GB for each member; 0 means unlimited.
   * @default 0
   */
  readonly totalLimitGb?: number;
  /**
   * Whether members are active.
   * @default true
   */
  readonly active?: boolean;
  /**
   * How members' IP and hostname lists are managed.
   * @default - the roster's `accessList`
   */
  readonly accessList?: AccessListMode;
  /**
   * IP addresses every member is allowed from (an office, a CI runner), before the member's own.
   * @default - none
   */
  readonly ips?: IpEntry[];
  /**
   * Hostnames every member is allowed from, before the member's own.
   * @default - none
   */
  readonly hostnames?: string[];
}

/** One person or service of a team: a sub-account. Unset fields fall back to the team defaults. */
export interface RosterMember {
  /** Username of the sub-account, unique in the roster. */
  readonly username: string;
  /**
   * First name of the holder (at most 20 characters).
   * @default - none
   */
  readonly firstName?: string;
  /**
   * Last name of the holder (at most 20 characters).
   * @default - none
   */
  readonly lastName?: string;
  /**
   * E-mail address of the holder.
   * @default - none
   */
  readonly email?: string;
  /**
   * Monthly traffic limit in GB; 0 means unlimited.
   * @default - the team's default, else 0
   */
  readonly monthlyLimitGb?: number;
  /**
   * Total traffic limit in GB; 0 means unlimited.
   * @default - the team's default, else 0
   */
  readonly totalLimitGb?: number;
  /**
   * Whether the sub-account is active.
   * @default - the team's default, else true
   */
  readonly active?: boolean;
  /**
   * How this member's IP and hostname lists are managed.
   * @default - the team's default, else the roster's
   */
  readonly accessList?: AccessListMode;
  /**
   * IP addresses of this member, added to the team's (an entry for the same address wins).
   * @default - only the team's
   */
  readonly ips?: IpEntry[];
  /**
   * Hostnames of this member, added to the team's.
   * @default - only the team's
   */
  readonly hostnames?: string[];
  /**
   * Bearer tokens of this member.
   * @default - none
   */
  readonly tokens?: TokenSpec[];
  /**
   * The sub-account and its IPs and hostnames already exist: the next apply imports them (tokens
   * by their `importId`). Written by `proxyaccount export --format roster`.
   * @default false
   */
  readonly importExisting?: boolean;
}

/** The parent (authenticated) account's own access lists and tokens. */
export interface RosterParent {
  /**
   * How the parent's IP, hostname and proxy lists are managed.
   * @default - the roster's `accessList`
   */
  readonly accessList?: AccessListMode;
  /**
   * IP addresses allowed to use the proxies with the parent account.
   * @default - none
   */
  readonly ips?: IpEntry[];
  /**
   * Hostnames allowed to use the proxies with the parent account.
   * @default - none
   */
  readonly hostnames?: string[];
  /**
   * Proxies the parent account may use. With an authoritative `accessList`, writing the key (even
   * `proxies: []`) makes the roster own the parent's whole proxy list: proxies authorized elsewhere
   * show as drift and are removed on apply.
   * @default - none; the parent's proxy list is not managed
   */
  readonly proxies?: string[];
  /**
   * Bearer tokens of the parent account.
   * @default - none
   */
  readonly tokens?: TokenSpec[];
  /**
   * The parent's IPs, hostnames and proxies already exist: the next apply imports them (tokens by
   * their `importId`). Written by `proxyaccount export --format roster`.
   * @default false
   */
  readonly importExisting?: boolean;
}

/** A team: a name, defaults for its members, and the members. */
export interface RosterTeam {
  /** Name of the team, unique in the roster (documentation only: it names no resource). */
  readonly name: string;
  /**
   * Defaults for every member of the team.
   * @default - none
   */
  readonly defaults?: RosterDefaults;
  /** The members of the team. */
  readonly members: RosterMember[];
}

/** A whole roster, as parsed from its JSON or YAML file. */
export interface RosterDefinition {
  /**
   * How members' IP and hostname lists are managed, unless a team or member says otherwise.
   * @default AccessListMode.ADDITIVE
   */
  readonly accessList?: AccessListMode;
  /**
   * The parent account's own IPs, hostnames, proxies and tokens.
   * @default - the roster manages nothing of the parent account
   */
  readonly parent?: RosterParent;
  /** The teams. */
  readonly teams: RosterTeam[];
}

/** A member with the team defaults applied: what one SubAccount is built from. */
export interface ResolvedMember {
  readonly team: string;
  readonly username: string;
  readonly firstName?: string;
  readonly lastName?: string;
  readonly email?: string;
  readonly monthlyLimitGb?: number;
  readonly totalLimitGb?: number;
  readonly active?: boolean;
  readonly accessList: AccessListMode;
  readonly ips: IpEntry[];
  readonly hostnames: string[];
  readonly tokens: TokenSpec[];
  readonly importExisting: boolean;
}

/** The parent section with the roster's list mode applied. */
export interface ResolvedParent {
  readonly accessList: AccessListMode;
  readonly ips: IpEntry[];
  readonly hostnames: string[];
  /** Undefined when the section has no `proxies` key: the parent's proxy list is then not managed. */
  readonly proxies?: string[];
  readonly tokens: TokenSpec[];
  readonly importExisting: boolean;
}

const ROOT_KEYS = ['accessList', 'parent', 'teams'];
const PARENT_KEYS = ['accessList', 'ips', 'hostnames', 'proxies', 'tokens', 'importExisting'];
const TEAM_KEYS = ['name', 'defaults', 'members'];
const DEFAULT_KEYS = ['monthlyLimitGb', 'totalLimitGb', 'active', 'accessList', 'ips', 'hostnames'];
const MEMBER_KEYS = ['username', 'firstName', 'lastName', 'email', 'monthlyLimitGb', 'totalLimitGb', 'active',
  'accessList', 'ips', 'hostnames', 'tokens', 'importExisting'];
const IP_KEYS = ['ip', 'label'];
const TOKEN_KEYS = ['label', 'expiresAt', 'active', 'importId'];

type Data = Record<string, unknown>;

// A member's construct id is its username, and the constructs library keeps a scope's children in a
// plain object, where these names (`constructor`, `toString`, ...) are taken by Object.prototype.
const TAKEN_IDS: readonly string[] = Object.getOwnPropertyNames(Object.prototype);

/**
 * Checks untyped roster data (parsed JSON or YAML) and applies the team defaults. Every violation
 * is listed with its path in the data, e.g. `teams[1].members[0].username`. The values are checked
 * as the text written (lengths included) and handed on as Terraform literals (terraform-literal.ts).
 * @param allowReferences whether code may have put references (tokens) into the data; without it,
 *   any value holding a token marker is refused, since a file that spells one would otherwise
 *   refer to another resource
 */
export function readRoster(data: unknown, allowReferences = false): {
  violations: readonly string[]; members: ResolvedMember[]; parent?: ResolvedParent;
} {
  const v = new Violations(true);
  const members: ResolvedMember[] = [];
  if (!allowReferences) checkNoTokenMarkers(v, '', data);
  const root = expectObject(v, '', data, ROOT_KEYS, 'the roster');
  if (!root) return { violations: v.list, members };
  checkAccessListMode(v, 'accessList', root.accessList as AccessListMode);
  const rosterMode = (root.accessList as AccessListMode | undefined) ?? AccessListMode.ADDITIVE;
  const parent = root.parent === undefined ? undefined : readParent(v, root.parent, rosterMode);
  const teams = expectArray(v, 'teams', root.teams, true);
  const teamNames = new Map<string, string>();
  const usernames = new Map<string, string>();

  teams.forEach((teamData, t) => {
    const path = `teams[${t}]`;
    const team = expectObject(v, path, teamData, TEAM_KEYS, 'a team');
    if (!team) return;
    const name = team.name;
    if (typeof name !== 'string' || name.trim() === '') {
      v.add(`${path}.name`, `is required: a non-empty string (got ${show(name)})`);
    } else if (teamNames.has(name.toLowerCase())) {
      v.add(`${path}.name`, `team ${show(name)} is already defined at ${teamNames.get(name.toLowerCase())}`);
    } else {
      teamNames.set(name.toLowerCase(), path);
    }
    const defaults = team.defaults === undefined ? {} : expectObject(v, `${path}.defaults`, team.defaults, DEFAULT_KEYS, 'team defaults') ?? {};
    checkSettings(v, `${path}.defaults`, defaults);
    const teamIps = readIps(v, `${path}.defaults.ips`, defaults.ips);
    const teamHostnames = readHostnames(v, `${path}.defaults.hostnames`, defaults.hostnames);

    expectArray(v, `${path}.members`, team.members, true).forEach((memberData, m) => {
      const at = `${path}.members[${m}]`;
      const member = expectObject(v, at, memberData, MEMBER_KEYS, 'a member');
      if (!member) return;
      const username = member.username;
      checkUsername(v, `${at}.username`, username as string);
      if (typeof username === 'string' && TAKEN_IDS.includes(username)) {
        v.add(`${at}.username`, `${show(username)} cannot be a roster member: the username is the member's construct id, ` +
          'and the constructs library has that name taken (Object.prototype); declare this sub-account with a SubAccount of another id');
      }
      if (typeof username === 'string') {
        const previous = usernames.get(username.toLowerCase());
        if (previous) v.add(`${at}.username`, `${show(username)} is already a member at ${previous}`);
        else usernames.set(username.toLowerCase(), at);
      }
      checkText(v, `${at}.firstName`, member.firstName as string | undefined, 20);
      checkText(v, `${at}.lastName`, member.lastName as string | undefined, 20);
      checkEmail(v, `${at}.email`, member.email as string | undefined);
      checkSettings(v, at, member);
      const ips = mergeIps(teamIps, readIps(v, `${at}.ips`, member.ips));
      if (ips.length > 100) v.add(`${at}.ips`, `at most 100 IP addresses per account, team defaults included (got ${ips.length})`);
      const hostnames = mergeHostnames(teamHostnames, readHostnames(v, `${at}.hostnames`, member.hostnames));
      const tokens = readTokens(v, `${at}.tokens`, member.tokens);
      checkBoolean(v, `${at}.importExisting`, member.importExisting as boolean | undefined);
      members.push({
        team: typeof name === 'string' ? name : '',
        username: username as string,
        firstName: member.firstName as string | undefined,
        lastName: member.lastName as string | undefined,
        email: member.email as string | undefined,
        monthlyLimitGb: (member.monthlyLimitGb ?? defaults.monthlyLimitGb) as number | undefined,
        totalLimitGb: (member.totalLimitGb ?? defaults.totalLimitGb) as number | undefined,
        active: (member.active ?? defaults.active) as boolean | undefined,
        accessList: (member.accessList ?? defaults.accessList ?? rosterMode) as AccessListMode,
        ips,
        hostnames,
        tokens,
        importExisting: member.importExisting === true,
      });
    });
  });
  return { violations: v.list, members: members.map(literalMember), parent: parent && literalParent(parent) };
}

function readParent(v: Violations, data: unknown, rosterMode: AccessListMode): ResolvedParent | undefined {
  const parent = expectObject(v, 'parent', data, PARENT_KEYS, 'the parent section');
  if (!parent) return undefined;
  checkAccessListMode(v, 'parent.accessList', parent.accessList as AccessListMode | undefined);
  checkBoolean(v, 'parent.importExisting', parent.importExisting as boolean | undefined);
  const proxies = expectList(v, 'parent.proxies', parent.proxies) as string[];
  proxies.forEach((p, i) => checkProxy(v, `parent.proxies[${i}]`, p));
  checkUnique(v, 'parent.proxies', proxies, 'proxy', SAME_PROXY);
  return {
    accessList: (parent.accessList as AccessListMode | undefined) ?? rosterMode,
    ips: readIps(v, 'parent.ips', parent.ips),
    hostnames: readHostnames(v, 'parent.hostnames', parent.hostnames),
    // Written, even empty, the key says what the whole list is (an authoritative parent owns it).
    proxies: parent.proxies === undefined ? undefined : proxies,
    tokens: readTokens(v, 'parent.tokens', parent.tokens),
    importExisting: parent.importExisting === true,
  };
}

/** The settings a team default and a member share. */
function checkSettings(v: Violations, path: string, data: Data): void {
  checkLimit(v, `${path}.monthlyLimitGb`, data.monthlyLimitGb as number | undefined);
  checkLimit(v, `${path}.totalLimitGb`, data.totalLimitGb as number | undefined);
  checkBoolean(v, `${path}.active`, data.active as boolean | undefined);
  checkAccessListMode(v, `${path}.accessList`, data.accessList as AccessListMode | undefined);
}

function readIps(v: Violations, path: string, value: unknown): IpEntry[] {
  const entries: IpEntry[] = [];
  expectList(v, path, value).forEach((item, i) => {
    const entry = expectObject(v, `${path}[${i}]`, item, IP_KEYS, 'an IP entry ({ ip, label })');
    if (entry) entries.push({ ip: entry.ip as string, label: entry.label as string | undefined });
  });
  checkIpEntries(v, path, entries);
  return entries;
}

function readHostnames(v: Violations, path: string, value: unknown): string[] {
  const hostnames = expectList(v, path, value) as string[];
  checkHostnames(v, path, hostnames);
  return hostnames;
}

function readTokens(v: Violations, path: string, value: unknown): TokenSpec[] {
  const tokens: TokenSpec[] = [];
  expectList(v, path, value).forEach((item, i) => {
    const token = expectObject(v, `${path}[${i}]`, item, TOKEN_KEYS, 'a token ({ label, expiresAt, active })');
    if (!token) return;
    const spec: TokenSpec = {
      label: token.label as string,
      expiresAt: asDate(v, `${path}[${i}].expiresAt`, token.expiresAt),
      active: token.active as boolean | undefined,
      importId: token.importId as number | undefined,
    };
    checkTokenSpec(v, `${path}[${i}]`, spec, tokens.map((t) => t.label));
    tokens.push(spec);
  });
  return tokens;
}

/** Member entries replace team entries for the same address; the team's come first. */
function mergeIps(team: IpEntry[], own: IpEntry[]): IpEntry[] {
  const ownIps = new Set(own.map((e) => e.ip));
  return [...team.filter((e) => !ownIps.has(e.ip)), ...own];
}

function mergeHostnames(team: string[], own: string[]): string[] {
  const ownNames = new Set(own.map((d) => String(d).toLowerCase()));
  return [...team.filter((d) => !ownNames.has(String(d).toLowerCase())), ...own];
}

function literalIps(entries: IpEntry[]): IpEntry[] {
  return entries.map((e) => ({ ip: literal(e.ip), label: literal(e.label) }));
}

function literalTokens(tokens: TokenSpec[]): TokenSpec[] {
  return tokens.map((t) => ({ ...t, label: literal(t.label), expiresAt: literal(t.expiresAt) }));
}

function literalMember(m: ResolvedMember): ResolvedMember {
  return {
    ...m,
    username: literal(m.username),
    firstName: literal(m.firstName),
    lastName: literal(m.lastName),
    email: literal(m.email),
    ips: literalIps(m.ips),
    hostnames: m.hostnames.map(literal),
    tokens: literalTokens(m.tokens),
  };
}

function literalParent(p: ResolvedParent): ResolvedParent {
  return { ...p, ips: literalIps(p.ips), hostnames: p.hostnames.map(literal), proxies: p.proxies?.map(literal), tokens: literalTokens(p.tokens) };
}

/** What a YAML 1.1 parser's Date of a bare date ends with: midnight UTC. */
const MIDNIGHT_UTC = 'T00:00:00.000Z';

/**
 * YAML 1.1 parsers (js-yaml) turn `2027-06-30` into a Date at midnight UTC: accept it as the date it
 * was written as. They turn a timestamp (`2027-06-30T23:30:00-05:00`) into a Date too, whose UTC date
 * may be the day before or after the one written: refused, as any value not written YYYY-MM-DD is,
 * rather than sent as another expiry than the file's.
 */
function asDate(v: Violations, path: string, value: unknown): string | undefined {
  if (!(value instanceof Date) || Number.isNaN(value.getTime())) return value as string | undefined;
  const iso = value.toISOString();
  // Years past 9999 keep their sign and six digits (`+010000-01-01`), which checkDate then refuses.
  if (iso.endsWith(MIDNIGHT_UTC)) return iso.slice(0, -MIDNIGHT_UTC.length);
  v.add(path, `must be a calendar date written YYYY-MM-DD (got the timestamp ${iso}, as the YAML reader read it): ` +
    'a time of day may move the date by its time zone; write the date alone');
  return undefined;
}

function expectObject(v: Violations, path: string, value: unknown, keys: readonly string[], what: string): Data | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    v.add(path, `must be ${what}, an object (got ${Array.isArray(value) ? 'a list' : show(value)})`);
    return undefined;
  }
  for (const key of Object.keys(value)) {
    if (!keys.includes(key)) v.add(path, `unknown key ${show(key)} (allowed: ${keys.join(', ')})`);
  }
  return value as Data;
}

/**
 * An optional list of entries. A list token (a list known only at apply, which code could put in
 * with allowReferences) cannot be merged with a team's entries or checked: its values must be listed.
 */
function expectList(v: Violations, path: string, value: unknown): unknown[] {
  if (isUnresolved(value)) {
    v.add(path, 'is a list token (a list known only at apply), which a roster does not take: list the values (with ' +
      'allowReferences each may be a reference), or declare the account in code with a SubAccount or ParentAccess');
    return [];
  }
  return expectArray(v, path, value, false);
}

function expectArray(v: Violations, path: string, value: unknown, required: boolean): unknown[] {
  if (value === undefined && !required) return [];
  if (!Array.isArray(value)) {
    v.add(path, `must be a list (got ${value === undefined ? 'nothing' : show(value)})`);
    return [];
  }
  return value;
}
