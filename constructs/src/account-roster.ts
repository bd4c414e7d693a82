// AccountRoster: many SubAccounts built from a plain roster (a reviewed JSON or YAML file).
import { TerraformProvider } from 'cdktf';
import { Construct } from 'constructs';
import { RosterDefinition, readRoster } from './roster-data';
import { ParentAccess } from './parent-access';
import { SubAccount } from './sub-account';
import { Violations, checkPassword, isObject, isUnresolved, show } from './validation';

/** How roster data is read, by an AccountRoster and by `AccountRoster.validate`. */
export interface RosterOptions {
  /**
   * Whether the roster data may hold references (tokens) that code put in, such as a
   * `TerraformVariable`'s `stringValue`. Without it, any value holding a token marker is refused:
   * data read from a file can hold no legitimate reference, and text spelling a marker
   * (`${TfToken[TOKEN.4]}`) would be replaced at synth by another resource's attribute, a bearer
   * token's value, say. Never set it for data read from a file.
   * @default false
   */
  readonly allowReferences?: boolean;
}

/** Properties of an AccountRoster. */
export interface AccountRosterProps extends RosterOptions {
  /**
   * The roster: teams with defaults and members, usually parsed from a reviewed JSON or YAML file.
   * It is checked as untyped data, so in TypeScript and JavaScript a parsed file may be passed as it
   * is; in the other jsii languages it is this struct, built with their own key names (see the
   * README). Its strings are taken literally, never as Terraform expressions, and hold no
   * references unless `allowReferences` is set.
   */
  readonly roster: RosterDefinition;
  /**
   * Passwords by username, kept out of the reviewed file; each key must be a member of the roster.
   * Give each as a reference to a sensitive `TerraformVariable`: a plain string, `process.env.X`
   * included, is written into `cdk.tf.json` in clear. A roster has no write-only password, so the
   * members' passwords are kept in the state (a `SubAccount` with `passwordVersion` keeps one out). Each is sent exactly as given, as SubAccount's `password`:
   * never read as a Terraform template (`${`, `%{`, `$${` are plain characters), at most 128
   * characters counted as given; a reference (a token) stays a reference, the text around it
   * literal (a `$` just before it included), and an expression whose own text Terraform would not
   * read as written is refused at synth, naming the member's SubAccount. Anything but an object (`null`
   * from JavaScript included) is refused, never taken for no passwords.
   * @default - no passwords: members authenticate with their tokens
   */
  readonly passwords?: { [username: string]: string };
  /**
   * Where the roster came from (a file name), named in error messages.
   * @default 'roster'
   */
  readonly source?: string;
  /**
   * The provider (or provider alias) for every resource of the roster.
   * @default - the stack's default proxyaccount provider
   */
  readonly provider?: TerraformProvider;
}

/**
 * Builds one SubAccount per roster member, each with its team's defaults applied, and a
 * ParentAccess for the roster's `parent` section.
 *
 * Each SubAccount's construct id is its username, so moving a member to another team, or
 * reordering the file, changes no resource address and replaces nothing.
 */
export class AccountRoster extends Construct {
  /**
   * Checks roster data without building anything (for a CI lint of the file, say).
   * @param data the parsed JSON or YAML
   * @param options how the data is read, as the AccountRoster's props would: for a file, leave
   *   `allowReferences` unset
   * @returns every violation, each as `path: message` (e.g. `teams[1].members[0].username: ...`);
   *   empty when the data is a valid roster
   */
  public static validate(data: unknown, options: RosterOptions = {}): string[] {
    return [...readRoster(data, options.allowReferences === true).violations];
  }

  /** The sub-accounts, in roster order. */
  public readonly subAccounts: SubAccount[];
  /** The parent account's access lists and tokens, when the roster has a `parent` section. */
  public readonly parent?: ParentAccess;

  private readonly teams = new Map<string, string>();

  public constructor(scope: Construct, id: string, props: AccountRosterProps) {
    super(scope, id);
    const { violations, members, parent } = readRoster(props.roster, props.allowReferences === true);
    const v = new Violations();
    v.addAll('', violations);
    const passwords = passwordsOf(v, props.passwords);
    const usernames = new Set(members.map((m) => m.username));
    for (const [username, password] of Object.entries(passwords)) {
      if (!usernames.has(username)) v.add(`passwords[${show(username)}]`, 'names no member of the roster');
      else if (password === undefined || password === null) v.add(`passwords[${show(username)}]`, 'must be a string of 1 to 128 characters');
      else checkPassword(v, `passwords[${show(username)}]`, password);
    }
    v.throwIfAny(`AccountRoster '${this.node.path}' (${props.source ?? 'roster'})`);

    this.subAccounts = members.map((member) => {
      this.teams.set(member.username, member.team);
      return new SubAccount(this, member.username, {
        username: member.username,
        password: passwords[member.username],
        firstName: member.firstName,
        lastName: member.lastName,
        email: member.email,
        monthlyLimitGb: member.monthlyLimitGb,
        totalLimitGb: member.totalLimitGb,
        active: member.active,
        accessList: member.accessList,
        ips: member.ips,
        hostnames: member.hostnames,
        tokens: member.tokens,
        importExisting: member.importExisting,
        provider: props.provider,
      });
    });
    // Usernames cannot hold `_`, so this id never meets a member's.
    if (parent !== undefined) {
      this.parent = new ParentAccess(this, '_Parent', { ...parent, provider: props.provider });
    }
  }

  /** The names of the teams, in roster order. */
  public get teamNames(): string[] {
    return [...new Set(this.teams.values())];
  }

  /** The sub-account of `username`, if it is in the roster. */
  public subAccount(username: string): SubAccount | undefined {
    return this.subAccounts.find((s) => s.username === username);
  }

  /** The sub-accounts of one team, in roster order. */
  public teamMembers(team: string): SubAccount[] {
    return this.subAccounts.filter((s) => this.teams.get(s.username) === team);
  }
}

/**
 * The `passwords` prop: none when it is absent. Anything but an object of passwords by username is
 * refused, `null` included (a loader that found no passwords, say): taken for none, it would plan
 * every member that has a password for replacement, deleted with its usage history, IPs and tokens.
 * The message says only what kind of value it was: a string there may be a password.
 */
function passwordsOf(v: Violations, passwords: unknown): { [username: string]: string } {
  if (passwords === undefined) return {};
  if (isObject(passwords) && !isUnresolved(passwords)) return passwords as { [username: string]: string };
  const kind = passwords === null ? 'null' : Array.isArray(passwords) ? 'a list' : isUnresolved(passwords) ? 'a token' : `a ${typeof passwords}`;
  v.add('passwords', `must be an object mapping usernames to passwords, or left out for none (got ${kind})`);
  return {};
}
