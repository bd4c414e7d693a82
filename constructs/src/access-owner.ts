// The shared base of ParentAccess and SubAccount: an account's IP and hostname allow-lists and the
// intent-level helpers on them (allowIp, allowHostname), written once.
import { TerraformResource } from 'cdktf';
import { Construct } from 'constructs';
import { AccessList, IpEntry } from './access-list';
import { checkNewHostname, checkNewIp } from './access-checks';
import { Violations, show } from './validation';

/** A construct that owns one account's IP and hostname allow-lists. */
export abstract class AccessListOwner extends Construct {
  /** @internal */
  protected _access?: AccessList;

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

  /**
   * Allows an IPv4 address to use the proxies with this account.
   * @returns the resource that carries the entry (its own, or the account's list)
   */
  public allowIp(ip: string, label?: string): TerraformResource {
    const list = this.accessList();
    const v = new Violations();
    checkNewIp(v, 'ip', { ip, label }, list.ips);
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
    checkNewHostname(v, 'domain', domain, list.hostnames);
    v.throwIfAny(`${this.node.path}.allowHostname(${show(domain)})`);
    return list.addHostname(domain);
  }

  private accessList(): AccessList {
    if (this._access === undefined) throw new Error(`${this.node.path}: the access lists are not set up yet`);
    return this._access;
  }
}
