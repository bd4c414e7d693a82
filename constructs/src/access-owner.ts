// The shared base of ParentAccess and SubAccount: an account's IP and hostname allow-lists, its
// bearer tokens, and the intent-level helpers on them (allowIp, allowHostname, addToken), written
// once.
import { TerraformProvider, TerraformResource } from 'cdktf';
import { Construct } from 'constructs';
import { AccessList, IpEntry } from './access-list';
import { checkNamesResource, checkNewHostname, checkNewIp, checkTokenSpec, listTokenTakesNoEntry } from './access-checks';
import { bearerToken } from './gen';
import { Violations, isObject, show } from './validation';

/** Options of a bearer token. */
export interface TokenOptions {
  /**
   * Expiry date of the token, written YYYY-MM-DD; the API refuses dates that are not in the future
   * when the token is created.
   * @default - the token never expires
   */
  readonly expiresAt?: string;
  /**
   * Whether the token is active.
   * @default true
   */
  readonly active?: boolean;
  /**
   * The numeric ID of a token that already exists: the next apply imports (adopts) it instead of
   * creating a new one. `proxyaccount export --format roster` writes it; it may stay after the
   * adopting apply (an import of an object already in state does nothing).
   * @default - a new token is created
   */
  readonly importId?: number;
}

/** A bearer token declared by its label. */
export interface TokenSpec extends TokenOptions {
  /** Label of the token (1 to 100 characters), unique within its account. */
  readonly label: string;
}

/** Where an owner's tokens go: its account, and how their import IDs are written (internal). */
export interface TokenTarget {
  /** The sub-account's username (usually a reference to its resource); undefined for the parent. */
  readonly username?: string;
  /** Prefix of token import IDs: `alice/` for a sub-account, empty for the parent. */
  readonly importPrefix: string;
  readonly provider?: TerraformProvider;
}

/** A construct that owns one account's IP and hostname allow-lists and its bearer tokens. */
export abstract class AccessListOwner extends Construct {
  /** @internal */
  protected _access?: AccessList;
  /** @internal */
  protected _tokenTarget?: TokenTarget;

  private readonly tokenResources = new Map<string, bearerToken.BearerToken>();

  protected constructor(scope: Construct, id: string) {
    super(scope, id);
  }

  /** The IP entries declared so far. */
  public get ips(): IpEntry[] {
    return this.accessList().ips;
  }

  /** The hostnames declared so far. */
  public get hostnames(): string[] {
    return this.accessList().hostnames;
  }

  /** The labels of the tokens declared so far, in order. */
  public get tokenLabels(): string[] {
    return [...this.tokenResources.keys()];
  }

  /**
   * Allows an IPv4 address to use the proxies with this account.
   * @returns the resource that carries the entry (its own, or the account's list)
   */
  public allowIp(ip: string, label?: string): TerraformResource {
    const list = this.accessList();
    const v = new Violations();
    if (list.listToken('ips')) v.add('ip', listTokenTakesNoEntry('IP'));
    else checkNewIp(v, 'ip', { ip, label }, list.ips);
    checkNamesResource(v, 'ip', ip, list.mode);
    v.throwIfAny(`${this.node.path}.allowIp(${show(ip)})`);
    return list.addIp({ ip, label });
  }

  /**
   * Allows a hostname to use the proxies with this account.
   * @returns the resource that carries the entry (its own, or the account's list)
   */
  public allowHostname(domain: string): TerraformResource {
    const list = this.accessList();
    const v = new Violations();
    if (list.listToken('hostnames')) v.add('domain', listTokenTakesNoEntry('hostname'));
    else checkNewHostname(v, 'domain', domain, list.hostnames);
    checkNamesResource(v, 'domain', domain, list.mode);
    v.throwIfAny(`${this.node.path}.allowHostname(${show(domain)})`);
    return list.addHostname(domain);
  }

  /**
   * Creates a bearer token for this account. Its value is the `token` attribute of the returned
   * resource (sensitive; known only after apply, and null for an imported token).
   */
  public addToken(label: string, options: TokenOptions = {}): bearerToken.BearerToken {
    const v = new Violations();
    // Plain JavaScript may pass null, which the default does not replace.
    if (!isObject(options)) v.add('options', `must be token options ({ expiresAt, active, importId }), an object (got ${show(options)})`);
    checkTokenSpec(v, 'token', { ...options, label }, this.tokenLabels);
    v.throwIfAny(`${this.node.path}.addToken(${show(label)})`);
    return this._createToken(label, options);
  }

  /** The token resource created with `label`, if any. */
  public token(label: string): bearerToken.BearerToken | undefined {
    return this.tokenResources.get(label);
  }

  /** Creates a token already checked. @internal */
  protected _createToken(label: string, options: TokenOptions): bearerToken.BearerToken {
    const target = this._tokenTarget;
    if (target === undefined) throw new Error(`${this.node.path}: the tokens are not set up yet`);
    const resource = new bearerToken.BearerToken(this, `Token-${label}`, {
      label,
      expiresAt: options.expiresAt,
      active: options.active,
      username: target.username,
      provider: target.provider,
    });
    if (options.importId !== undefined) resource.importFrom(`${target.importPrefix}${options.importId}`, target.provider);
    this.tokenResources.set(label, resource);
    return resource;
  }

  private accessList(): AccessList {
    if (this._access === undefined) throw new Error(`${this.node.path}: the access lists are not set up yet`);
    return this._access;
  }
}
