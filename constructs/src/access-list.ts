// How an account's IP and hostname allow-lists are managed, shared by SubAccount and ParentAccess.
import { TerraformProvider, TerraformResource } from 'cdktf';
import { Construct } from 'constructs';
import { authorizedHostname, authorizedHostnames, authorizedIp, authorizedIps } from './gen';
import { entryImportId, listImportId } from './import-ids';
import { isUnresolved } from './validation';

// Generated from the provider's resource-type catalogue (scripts/generate-import-ids.js).
export { entryImportId, listImportId } from './import-ids';

/** How a construct manages an account's allow-lists. */
export enum AccessListMode {
  /**
   * One resource per entry (`proxyaccount_authorized_ip`, `..._hostname`, `..._proxy`): entries
   * added elsewhere, by hand or by another stack, are left alone.
   */
  ADDITIVE = 'additive',
  /**
   * One list resource per account (`proxyaccount_authorized_ips`, `..._hostnames`, and for the
   * parent `..._proxies`) that owns the whole list: entries not declared are removed, and an
   * out-of-band addition shows up as drift. The IP and hostname lists are owned even when empty;
   * the parent's proxy list only when ParentAccess's `proxies` is given (even empty) or
   * `allowProxy` adds one.
   */
  AUTHORITATIVE = 'authoritative',
}

/** One authorized IPv4 address. */
export interface IpEntry {
  /** The IPv4 address, such as `203.0.113.7`. */
  readonly ip: string;
  /**
   * A label shown beside the address (1 to 100 characters).
   * @default - no label
   */
  readonly label?: string;
}

/** Where an AccessList puts its resources and which account they belong to. */
export interface AccessListOptions {
  readonly mode: AccessListMode;
  /** The sub-account's username (usually a reference to its resource); undefined for the parent. */
  readonly username?: string;
  readonly provider?: TerraformProvider;
  /**
   * Set when the account's entries already exist: every resource is imported on the next apply.
   * The account part of the import IDs: the plain username, or '' for the parent.
   */
  readonly importAccount?: string;
}

/**
 * Creates the resources of one account's IP and hostname allow-lists in `scope`. Internal: the
 * constructs expose intent-level helpers built on it.
 */
export class AccessList {
  private readonly ipEntries: IpEntry[] = [];
  private readonly domains: string[] = [];
  // A prop given as a list token (AUTHORITATIVE only): the list resource holds it as it is.
  private ipToken?: IpEntry[];
  private hostnameToken?: string[];
  private ipList?: authorizedIps.AuthorizedIps;
  private hostnameList?: authorizedHostnames.AuthorizedHostnames;

  public constructor(private readonly scope: Construct, private readonly options: AccessListOptions) {
    if (options.mode === AccessListMode.AUTHORITATIVE) {
      // Created up front even when empty: an authoritative list with no entries means "none
      // allowed", which is different from not managing the list at all.
      this.ipList = new authorizedIps.AuthorizedIps(scope, 'AuthorizedIps', {
        username: options.username,
        entries: [],
        provider: options.provider,
      });
      this.hostnameList = new authorizedHostnames.AuthorizedHostnames(scope, 'AuthorizedHostnames', {
        username: options.username,
        domains: [],
        provider: options.provider,
      });
      this.adopt(this.ipList, listImportId(options.importAccount));
      this.adopt(this.hostnameList, listImportId(options.importAccount));
    }
  }

  /** Imports `resource` on the next apply when the account's entries already exist. */
  public adopt(resource: TerraformResource, id: string): void {
    if (this.options.importAccount !== undefined) resource.importFrom(id, this.options.provider);
  }

  /** How the lists are managed. */
  public get mode(): AccessListMode {
    return this.options.mode;
  }

  /** The IP entries declared so far, in order, or the list token they were given as. */
  public get ips(): IpEntry[] {
    return this.ipToken ?? this.ipEntries.map((e) => ({ ...e }));
  }

  /** The hostnames declared so far, in order, or the list token they were given as. */
  public get hostnames(): string[] {
    return this.hostnameToken ?? [...this.domains];
  }

  /** Which list, if any, was given as a list token: one entry cannot be added to it. */
  public listToken(list: 'ips' | 'hostnames'): boolean {
    return (list === 'ips' ? this.ipToken : this.hostnameToken) !== undefined;
  }

  /**
   * Adds the entries of an `ips` prop: each one, or a list token (checked to be AUTHORITATIVE
   * already), which the account's list resource holds as it is.
   */
  public addIps(entries: IpEntry[]): void {
    if (this.ipList && isUnresolved(entries)) {
      this.ipToken = entries;
      this.ipList.putEntries(entries);
      return;
    }
    for (const entry of entries) this.addIp(entry);
  }

  /** Adds the entries of a `hostnames` prop, as `addIps` does. */
  public addHostnames(domains: string[]): void {
    if (this.hostnameList && isUnresolved(domains)) {
      this.hostnameToken = domains;
      this.hostnameList.domains = domains;
      return;
    }
    for (const domain of domains) this.addHostname(domain);
  }

  /** Adds an IP; returns the resource that carries it (its own, or the account's list). */
  public addIp(entry: IpEntry): TerraformResource {
    this.ipEntries.push({ ...entry });
    if (this.ipList) {
      this.ipList.putEntries(this.ipEntries.map((e) => ({ ip: e.ip, label: e.label })));
      return this.ipList;
    }
    const resource = new authorizedIp.AuthorizedIp(this.scope, `Ip-${entry.ip}`, {
      ip: entry.ip,
      label: entry.label,
      username: this.options.username,
      provider: this.options.provider,
    });
    this.adopt(resource, entryImportId(this.options.importAccount, entry.ip));
    return resource;
  }

  /** Adds a hostname; returns the resource that carries it (its own, or the account's list). */
  public addHostname(domain: string): TerraformResource {
    this.domains.push(domain);
    if (this.hostnameList) {
      this.hostnameList.domains = [...this.domains];
      return this.hostnameList;
    }
    const resource = new authorizedHostname.AuthorizedHostname(this.scope, `Hostname-${domain}`, {
      domain,
      username: this.options.username,
      provider: this.options.provider,
    });
    this.adopt(resource, entryImportId(this.options.importAccount, domain));
    return resource;
  }
}
