// Access lists of an account: authorized IPs (with labels), hostnames and proxies. Each list keeps
// insertion order, which is the order listings return.
import type { Db } from './db';

/** An authorized IP and its label ('' when none). */
export interface IpEntry {
  readonly ip: string;
  readonly label: string;
}

/** Reads and writes the access lists. */
export class AccessRepo {
  constructor(private readonly db: Db) {}

  /** The authorized IPs of an account. */
  ips(accountId: number): IpEntry[] {
    return this.db.prepare('SELECT ip, label FROM ips WHERE account_id = ? ORDER BY seq').all(accountId) as IpEntry[];
  }

  /** True when the IP is authorized for the account. */
  hasIp(accountId: number, ip: string): boolean {
    return this.db.prepare('SELECT 1 FROM ips WHERE account_id = ? AND ip = ?').get(accountId, ip) !== undefined;
  }

  /** How many IPs the account has. */
  countIps(accountId: number): number {
    return (this.db.prepare('SELECT COUNT(*) AS n FROM ips WHERE account_id = ?').get(accountId) as { n: number }).n;
  }

  /** Authorizes an IP. */
  addIp(accountId: number, ip: string, label: string): void {
    this.db.prepare('INSERT INTO ips (account_id, ip, label) VALUES (?, ?, ?)').run(accountId, ip, label);
  }

  /** Removes an IP; false when it was not authorized. */
  deleteIp(accountId: number, ip: string): boolean {
    return this.db.prepare('DELETE FROM ips WHERE account_id = ? AND ip = ?').run(accountId, ip).changes > 0;
  }

  /** The authorized hostnames of an account. */
  hostnames(accountId: number): string[] {
    const rows = this.db.prepare('SELECT domain FROM hostnames WHERE account_id = ? ORDER BY seq').all(accountId) as Array<{
      domain: string;
    }>;
    return rows.map((r) => r.domain);
  }

  /** Authorizes a hostname; false when it already was. */
  addHostname(accountId: number, domain: string): boolean {
    return this.db.prepare('INSERT OR IGNORE INTO hostnames (account_id, domain) VALUES (?, ?)').run(accountId, domain).changes > 0;
  }

  /** Removes a hostname; false when it was not authorized. */
  deleteHostname(accountId: number, domain: string): boolean {
    return this.db.prepare('DELETE FROM hostnames WHERE account_id = ? AND domain = ?').run(accountId, domain).changes > 0;
  }

  /** The authorized proxy hosts (bare names) of an account. */
  proxies(accountId: number): string[] {
    const rows = this.db.prepare('SELECT host FROM proxies WHERE account_id = ? ORDER BY seq').all(accountId) as Array<{
      host: string;
    }>;
    return rows.map((r) => r.host);
  }

  /** True when the proxy host is authorized for the account. */
  hasProxy(accountId: number, host: string): boolean {
    return this.db.prepare('SELECT 1 FROM proxies WHERE account_id = ? AND host = ?').get(accountId, host) !== undefined;
  }

  /** Authorizes a proxy host (no change when it already is). */
  addProxy(accountId: number, host: string): void {
    this.db.prepare('INSERT OR IGNORE INTO proxies (account_id, host) VALUES (?, ?)').run(accountId, host);
  }

  /** Removes a proxy host (no change when it was not authorized). */
  deleteProxy(accountId: number, host: string): void {
    this.db.prepare('DELETE FROM proxies WHERE account_id = ? AND host = ?').run(accountId, host);
  }

  /** The accounts that authorized this IP, earliest authorization first (proxy servers use the first). */
  accountsWithIp(ip: string): number[] {
    const rows = this.db.prepare('SELECT account_id FROM ips WHERE ip = ? ORDER BY seq').all(ip) as Array<{ account_id: number }>;
    return rows.map((r) => r.account_id);
  }

  /** Every authorized hostname of every account, earliest authorization first. */
  allHostnames(): Array<{ accountId: number; domain: string }> {
    const rows = this.db.prepare('SELECT account_id, domain FROM hostnames ORDER BY seq').all() as Array<{ account_id: number; domain: string }>;
    return rows.map((r) => ({ accountId: r.account_id, domain: r.domain }));
  }
}
