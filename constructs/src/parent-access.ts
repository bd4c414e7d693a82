// ParentAccess: the authenticated (parent) account's own IPs, hostnames, authorized proxies and tokens.
import { TerraformProvider, TerraformResource } from 'cdktf';
import { Construct } from 'constructs';
import { AccessListOwner, TokenSpec } from './access-owner';
import { AccessList, AccessListMode, IpEntry, entryImportId, listImportId } from './access-list';
import { authorizedProxies, authorizedProxy } from './gen';
import {
  checkAccessEntries, checkAccessListMode, checkNamesResource, checkProps, checkTokenSpec, isListToken, listOf, listTokenTakesNoEntry,
  tokenLabels,
} from './access-checks';
import { declare, declaredBy, providerPhrase } from './stack-registry';
import { SAME_PROXY, Violations, checkBoolean, checkProxy, checkUnique, isUnresolved, show } from './validation';

/** Properties of a ParentAccess. */
export interface ParentAccessProps {
  /**
   * IPv4 addresses allowed to use the proxies with the parent account (at most 100). In
   * AUTHORITATIVE mode it may be a list token (a list known only at apply).
   * @default - none; add more with `allowIp`
   */
  readonly ips?: IpEntry[];
  /**
   * Hostnames allowed to use the proxies with the parent account. In AUTHORITATIVE mode it may be
   * a list token (a list known only at apply).
   * @default - none; add more with `allowHostname`
   */
  readonly hostnames?: string[];
  /**
   * Proxies the parent account may use: a bare host (`us-ny`), a full domain, or `domain:port`;
   * each proxy once, in one spelling (`us-ny` and `us-ny.proxy.example.net` are one proxy).
   * In AUTHORITATIVE mode, giving it (even empty, `[]`) makes this construct own the parent's
   * whole proxy list: proxies authorized elsewhere show as drift and are removed on apply; it may
   * then be a list token (a list known only at apply). `null` is refused, not taken for `[]`:
   * leave the prop out to leave the parent's proxies alone.
   * @default - none; add more with `allowProxy`. In AUTHORITATIVE mode the proxy list is not
   *   managed (proxies authorized elsewhere are left alone) until `allowProxy` adds one
   */
  readonly proxies?: string[];
  /**
   * Whether this construct owns the parent account's whole IP, hostname and proxy lists
   * (AUTHORITATIVE) or only its own entries (ADDITIVE). AUTHORITATIVE always owns the IP and
   * hostname lists, even empty; it owns the proxy list when `proxies` is given (even `[]`) or
   * `allowProxy` is called, and otherwise leaves the parent's proxies alone.
   * @default AccessListMode.ADDITIVE
   */
  readonly accessList?: AccessListMode;
  /**
   * Bearer tokens of the parent account.
   * @default - none; add more with `addToken`
   */
  readonly tokens?: TokenSpec[];
  /**
   * The declared IPs, hostnames and proxies already exist: the next apply imports (adopts) them
   * instead of creating them. Tokens are adopted by their own `importId`.
   * `proxyaccount export --format roster` sets it; it may stay after the adopting apply, but remove
   * it before adding entries that do not exist yet, or their import fails.
   * @default false
   */
  readonly importExisting?: boolean;
  /**
   * The provider (or provider alias) for every resource of this construct.
   * A stack holds at most one ParentAccess per provider configuration.
   * @default - the stack's default proxyaccount provider
   */
  readonly provider?: TerraformProvider;
}

/**
 * The access lists of the authenticated (parent) account: authorized IPs, hostnames and proxies,
 * and its bearer tokens.
 * Declare at most one per account: two would fight over the same lists. A second one for the same
 * provider configuration in a stack (a roster's `parent` section counts) is refused, naming both.
 */
export class ParentAccess extends AccessListOwner {
  /** How the lists are managed. */
  public readonly accessListMode: AccessListMode;

  private proxyList?: authorizedProxies.AuthorizedProxies;
  private readonly proxyEntries: string[] = [];
  // `proxies` given as a list token (AUTHORITATIVE only): the list resource holds it as it is.
  private proxyToken?: string[];
  private readonly provider?: TerraformProvider;

  public constructor(scope: Construct, id: string, props: ParentAccessProps = {}) {
    super(scope, id);
    const v = new Violations();
    if (!checkProps(v, props, 'ParentAccess props ({ ips, hostnames, ... }), or left out for none')) v.throwIfAny(`ParentAccess '${this.node.path}'`);
    checkAccessListMode(v, 'accessList', props.accessList);
    checkAccessEntries(v, props.ips, props.hostnames, props.accessList);
    const proxyToken = isListToken(v, 'proxies', props.proxies, props.accessList);
    const proxies = proxyToken ? [] : listOf(v, 'proxies', props.proxies);
    proxies.forEach((p, i) => {
      checkProxy(v, `proxies[${i}]`, p);
      checkNamesResource(v, `proxies[${i}]`, p, props.accessList);
    });
    checkUnique(v, 'proxies', proxies, 'proxy', SAME_PROXY);
    checkBoolean(v, 'importExisting', props.importExisting);
    const tokens = listOf(v, 'tokens', props.tokens);
    tokens.forEach((t, i) => checkTokenSpec(v, `tokens[${i}]`, t, tokenLabels(tokens.slice(0, i))));
    // A second one would manage the same live lists beside the first, each checking only its own
    // entries: both would take one proxy (in two spellings) or one IP, and removing it from either
    // would delete the entry the other still declares.
    checkFirstOfProvider(v, declaredBy(this, { provider: props.provider }), props.provider);
    v.throwIfAny(`ParentAccess '${this.node.path}'`);
    declare(this, { provider: props.provider });

    this.accessListMode = props.accessList ?? AccessListMode.ADDITIVE;
    this.provider = props.provider;
    this._access = new AccessList(this, { mode: this.accessListMode, provider: props.provider, importAccount: props.importExisting ? '' : undefined });
    this._tokenTarget = { importPrefix: '', provider: props.provider };
    this._access.addIps(props.ips ?? []);
    this._access.addHostnames(props.hostnames ?? []);
    // Given, even empty, `proxies` says what the whole list is: an AUTHORITATIVE construct owns it.
    if (props.proxies !== undefined && this.accessListMode === AccessListMode.AUTHORITATIVE) {
      this.proxyToken = proxyToken ? props.proxies : undefined;
      this.ownProxyList(this.proxyToken ?? []);
    }
    for (const proxy of proxies) this.addProxy(proxy);
    for (const token of tokens) this._createToken(token.label, token);
  }

  /** The proxies declared so far, as given (or the list token they were given as). */
  public get proxies(): string[] {
    return this.proxyToken ?? [...this.proxyEntries];
  }

  /**
   * Authorizes a proxy for the parent account: a bare host, a full domain, or `domain:port`.
   * @returns the resource that carries the entry: its own `proxyaccount_authorized_proxy` in
   *   ADDITIVE mode, the account's `proxyaccount_authorized_proxies` list in AUTHORITATIVE mode
   */
  public allowProxy(proxy: string): TerraformResource {
    const v = new Violations();
    if (this.proxyToken !== undefined) v.add('proxy', listTokenTakesNoEntry('proxy'));
    checkProxy(v, 'proxy', proxy);
    checkNamesResource(v, 'proxy', proxy, this.accessListMode);
    const allowed = isUnresolved(proxy) ? undefined : this.proxyEntries.find((p) => !isUnresolved(p) && SAME_PROXY.same(p, proxy));
    if (allowed === proxy) v.add('proxy', `proxy ${show(proxy)} is already allowed`);
    else if (allowed !== undefined) v.add('proxy', `proxy ${show(allowed)} is already allowed, and ${show(proxy)} is the same proxy (${SAME_PROXY.why})`);
    v.throwIfAny(`${this.node.path}.allowProxy(${show(proxy)})`);
    return this.addProxy(proxy);
  }

  private addProxy(proxy: string): TerraformResource {
    this.proxyEntries.push(proxy);
    // Without `proxies`, the authoritative proxies list exists only once a proxy is declared: a
    // ParentAccess meant for IPs must not take over (and empty) the parent's proxies.
    if (this.accessListMode === AccessListMode.AUTHORITATIVE && this.proxyList === undefined) this.ownProxyList([]);
    if (this.proxyList) {
      this.proxyList.proxies = [...this.proxyEntries];
      return this.proxyList;
    }
    const resource = new authorizedProxy.AuthorizedProxy(this, `Proxy-${proxy}`, { proxy, provider: this.provider });
    this._access?.adopt(resource, entryImportId('', proxy));
    return resource;
  }

  /** Declares the parent's authoritative proxies list, holding `proxies`. */
  private ownProxyList(proxies: string[]): void {
    this.proxyList = new authorizedProxies.AuthorizedProxies(this, 'AuthorizedProxies', { proxies, provider: this.provider });
    this._access?.adopt(this.proxyList, listImportId(''));
  }
}

/** Refuses a second ParentAccess for one provider configuration of a stack, naming the first. */
function checkFirstOfProvider(v: Violations, first: Construct | undefined, provider: TerraformProvider | undefined): void {
  if (first === undefined) return;
  v.add('provider', `ParentAccess '${first.node.path}' already declares the parent account's access for ${providerPhrase(provider)}: ` +
    'declare at most one per account, since two would each take their own spelling of one proxy (or the same IP) ' +
    'and removing it from either would delete the live entry the other still declares; add these entries to that one');
}
