// SubAccount: one sub-account with its limits, activity and access (IPs, hostnames, tokens).
import { TerraformProvider } from 'cdktf';
import { Construct } from 'constructs';
import { AccessListOwner, TokenSpec } from './access-owner';
import { AccessList, AccessListMode, IpEntry } from './access-list';
import { subAccount } from './gen';
import { SAME_TOKEN_LABEL, checkAccessEntries, checkAccessListMode, checkProps, checkTokenSpec, listOf, tokenLabels } from './access-checks';
import { checkedAtSynth } from './expression-text';
import { declare, declaredBy, providerPhrase } from './stack-registry';
import { literal } from './terraform-literal';
import { hidesNumberReference } from './token-markers';
import {
  Violations, checkBoolean, checkEmail, checkLimit, checkPassword, checkText, checkUnique, checkUsername, checkWholeNumber,
  isObject, isUnresolved, show,
} from './validation';

/** Properties of a SubAccount. */
export interface SubAccountProps {
  /**
   * Username of the sub-account: 1 to 30 letters, digits, `.`, `@`, `+` or `-`; globally unique.
   * A stack declares each sub-account once per provider configuration (a roster member counts).
   */
  readonly username: string;
  /**
   * Password of the sub-account (at most 128 characters, counted as given). Give it as a reference
   * to a sensitive `TerraformVariable` (its `stringValue`): a plain string, `process.env.X` included,
   * is written into `cdk.tf.json` in clear. It is kept in the state; `passwordVersion` with the
   * write-only password keeps it out. It is sent exactly as given, never read as a Terraform template: `${` and `%{` are plain characters here (the
   * construct writes Terraform's escapes for them), and `$${` reaches the account as those three
   * characters. A reference (a token, such as a sensitive `TerraformVariable`'s `stringValue`)
   * stays a reference, and the text around it stays literal: `'Pre$' + secret` reaches the account
   * as `Pre$` followed by the secret. An expression (a token such as an `Fn.*` call) has text of its
   * own, which cdktf writes into Terraform's quoted strings escaping only `${` and line breaks: the
   * synth refuses a password whose expression holds text with a backslash, a `"`, a line break,
   * `%{`, a `$` just before a reference, or a number reference within it, since Terraform would read other
   * characters there or fail the plan printing the text. (The quotes cdktf puts around a plain string
   * itself, as in `Fn.coalesce([secret, 'Default-pw'])` or `Fn.lookup(map, 'key', 'fallback')`, are
   * not the password's.) It also refuses a token that is no expression (a `Lazy` value, `Token.asAny`)
   * inside an expression, which cdktf writes there as Terraform source (`0123` as the number 123), and
   * a `Lazy` value whose text makes `${`, `%{` or `$${` with the text next to it. The error names the
   * construct, never the password; write such text outside the expression, joined with `+`
   * (`'Pa%{' + Fn.lower(secret)`). It refuses `undefined` or `null` (an optional setting left out) as
   * an item of a list inside an expression, a hole of a sparse list, or an argument of an `Fn.*`
   * call, and `undefined` as a branch of `Fn.conditional`: cdktf writes the items after a missing one
   * a place early and drops the last (a map's `undefined` value, left out with its key, is kept). With
   * cdktf 0.21 it refuses an operator (`Op.*`) whose right operand is `''`, `0`, `false` or `null`,
   * which cdktf writes as `undefined`: make that value the left operand (`Op.neq('', secret)`); CDK
   * Terrain writes such operands as given and keeps them. A number reference just after a digit,
   * `.`, `+`, `-` or another number reference, or just before a digit, is refused too: cdktf does not
   * find it there. The check covers the expressions written into the password only: a reference to
   * a `TerraformLocal` (or to another construct's attribute) stays a reference, and Terraform reads
   * the local's own expression as cdktf wrote it, unescaped, as a template (`Pa%%{` there is
   * `Pa%{`); put an `Fn.*` call in the password itself, not in a local, to have it checked.
   * @default - no password: the sub-account authenticates with its tokens
   */
  readonly password?: string;
  /**
   * When set, the password is sent write-only (`password_wo`) and never stored in Terraform state;
   * it is sent again whenever this number changes. Write-only attributes need Terraform 1.11: on
   * CDK Terrain the app must declare it (`targetVersions`), or `app.synth()` fails.
   * @default - the password is stored in state (sensitive) and sent whenever it changes
   */
  readonly passwordVersion?: number;
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
   * E-mail address of the holder (at most 255 characters).
   * @default - none
   */
  readonly email?: string;
  /**
   * Monthly traffic limit in GB, a whole number; 0 means unlimited.
   * @default 0
   */
  readonly monthlyLimitGb?: number;
  /**
   * Total (lifetime) traffic limit in GB, a whole number; 0 means unlimited.
   * @default 0
   */
  readonly totalLimitGb?: number;
  /**
   * Whether the sub-account is active; an inactive one gets 402 on every proxy request.
   * @default true
   */
  readonly active?: boolean;
  /**
   * IPv4 addresses allowed to use the proxies with this sub-account (at most 100). In
   * AUTHORITATIVE mode it may be a list token (a list known only at apply).
   * @default - none; add more with `allowIp`
   */
  readonly ips?: IpEntry[];
  /**
   * Hostnames allowed to use the proxies with this sub-account. In AUTHORITATIVE mode it may be a
   * list token (a list known only at apply).
   * @default - none; add more with `allowHostname`
   */
  readonly hostnames?: string[];
  /**
   * Bearer tokens of this sub-account.
   * @default - none; add more with `addToken`
   */
  readonly tokens?: TokenSpec[];
  /**
   * Whether this construct owns the whole IP and hostname lists of the sub-account
   * (AUTHORITATIVE) or only its own entries (ADDITIVE).
   * @default AccessListMode.ADDITIVE
   */
  readonly accessList?: AccessListMode;
  /**
   * The sub-account and its declared IPs and hostnames already exist: the next apply imports
   * (adopts) them instead of creating them. Tokens are adopted by their own `importId`.
   * `proxyaccount export --format roster` sets it; it may stay after the adopting apply (an import
   * of an object already in state does nothing), but remove it before adding entries that do not
   * exist yet, or their import fails.
   * @default false
   */
  readonly importExisting?: boolean;
  /**
   * The provider (or provider alias) for every resource of this construct.
   * @default - the stack's default proxyaccount provider
   */
  readonly provider?: TerraformProvider;
}

/**
 * A sub-account of the authenticated account, with its limits, activity, IP and hostname
 * allow-lists and bearer tokens.
 *
 * The sub-account itself is the child `Resource`; access entries are further children that refer
 * to its username, so Terraform creates them after it and destroys them before it.
 */
export class SubAccount extends AccessListOwner {
  /** The generated `proxyaccount_sub_account` resource. */
  public readonly resource: subAccount.SubAccount;
  /** The username as given (a plain string unless a token was passed). */
  public readonly username: string;
  /** How the IP and hostname lists are managed. */
  public readonly accessListMode: AccessListMode;

  public constructor(scope: Construct, id: string, props: SubAccountProps) {
    super(scope, id);
    const v = new Violations();
    if (!checkProps(v, props, 'SubAccount props ({ username, ... })')) v.throwIfAny(`SubAccount '${this.node.path}'`);
    validateSubAccountProps(v, props);
    // Two constructs for one sub-account would each manage it: both creates cannot succeed, and
    // AUTHORITATIVE lists would take away, on every apply, what the other one grants.
    const literalName = typeof props.username === 'string' && !isUnresolved(props.username);
    const account = literalName ? { provider: props.provider, username: props.username } : undefined;
    const first = account && declaredBy(this, account);
    if (first !== undefined) {
      v.add('username', `SubAccount '${first.node.path}' already declares the sub-account ${show(props.username)} for ` +
        `${providerPhrase(props.provider)}: declare each sub-account once, since two would each manage it (their creates ` +
        'collide, and in AUTHORITATIVE mode each apply would remove what the other grants); put these settings in that one');
    }
    v.throwIfAny(`SubAccount '${this.node.path}'`);
    if (account) declare(this, account);

    this.username = props.username;
    this.accessListMode = props.accessList ?? AccessListMode.ADDITIVE;
    const importAccount = props.importExisting ? props.username : undefined;
    const writeOnly = props.password !== undefined && props.passwordVersion !== undefined;
    // literal() writes the text around references exactly; the text inside an expression is
    // cdktf's to write, and is final only at synth, so it is checked then.
    const written = literal(props.password);
    const password = written === undefined ? undefined : checkedAtSynth(written, `SubAccount '${this.node.path}'`, 'password');
    this.resource = new subAccount.SubAccount(this, 'Resource', {
      username: props.username,
      password: writeOnly ? undefined : password,
      passwordWo: writeOnly ? password : undefined,
      passwordWoVersion: writeOnly ? props.passwordVersion : undefined,
      firstName: props.firstName,
      lastName: props.lastName,
      email: props.email,
      monthlyLimit: props.monthlyLimitGb,
      totalLimit: props.totalLimitGb,
      active: props.active,
      provider: props.provider,
    });
    if (importAccount !== undefined) this.resource.importFrom(importAccount, props.provider);
    this._access = new AccessList(this, {
      mode: this.accessListMode,
      username: this.resource.username,
      provider: props.provider,
      importAccount,
    });
    this._tokenTarget = { username: this.resource.username, importPrefix: `${props.username}/`, provider: props.provider };
    this._access.addIps(props.ips ?? []);
    this._access.addHostnames(props.hostnames ?? []);
    for (const token of props.tokens ?? []) this._createToken(token.label, token);
  }
}

/** Checks every SubAccount prop; paths are prop names (`ips[1].ip`). Shared with the roster. */
export function validateSubAccountProps(v: Violations, props: SubAccountProps): void {
  checkUsername(v, 'username', props.username);
  checkPassword(v, 'password', props.password);
  if (typeof props.password === 'string' && hidesNumberReference(props.password)) {
    v.add('password', 'holds a number reference (a number token) just after a digit, \'.\', \'+\', \'-\' or another number reference, or ' +
      'just before a digit, where the synth does not find it: the account would get its placeholder digits as text instead of ' +
      'the number; put other text between them');
  }
  if (props.passwordVersion !== undefined && props.password === undefined) {
    v.add('passwordVersion', 'is only meaningful together with password');
  }
  checkWholeNumber(v, 'passwordVersion', props.passwordVersion);
  checkText(v, 'firstName', props.firstName, 20);
  checkText(v, 'lastName', props.lastName, 20);
  checkEmail(v, 'email', props.email);
  checkLimit(v, 'monthlyLimitGb', props.monthlyLimitGb);
  checkLimit(v, 'totalLimitGb', props.totalLimitGb);
  checkBoolean(v, 'active', props.active);
  checkAccessListMode(v, 'accessList', props.accessList);
  checkBoolean(v, 'importExisting', props.importExisting);
  if (props.importExisting === true && isUnresolved(props.username)) {
    v.add('importExisting', 'needs a plain username: it is the import ID of the sub-account');
  }
  checkAccessEntries(v, props.ips, props.hostnames, props.accessList);
  const tokens = listOf(v, 'tokens', props.tokens);
  if (isUnresolved(props.username) && tokens.some((t) => isObject(t) && t.importId !== undefined)) {
    v.add('tokens', 'a token importId needs a plain username: it is part of the import ID');
  }
  tokens.forEach((t, i) => checkTokenSpec(v, `tokens[${i}]`, t, []));
  checkUnique(v, 'tokens', tokenLabels(tokens), 'token label', SAME_TOKEN_LABEL);
}
