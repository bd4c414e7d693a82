// Parent accounts, sub-accounts and their bandwidth usage.
import type { PlanName } from '../plans';
import { hashPassword, verifyPassword } from '../secrets';
import type { Db } from './db';

/** An account as the emulator sees it (a parent when `parentId` is null). */
export interface Account {
  readonly id: number;
  readonly username: string;
  readonly parentId: number | null;
  /** The plan of a parent; null for sub-accounts (they use their parent's). */
  readonly plan: PlanName | null;
  /** A parent's sub-account limit from the accounts file; null = the plan's default. */
  readonly subAccountLimit: number | null;
  readonly active: boolean;
  readonly firstName: string | null;
  readonly lastName: string | null;
  readonly email: string | null;
  /** GB; 0 = no limit. */
  readonly monthlyLimit: number;
  /** GB; 0 = no limit. */
  readonly totalLimit: number;
  /** Start of the first billing period (ms); periods are 30 days long from here. */
  readonly periodAnchor: number;
  readonly createdAt: number;
}

/** Profile fields of a sub-account; undefined = unchanged, null = cleared. */
export interface ProfileChanges {
  readonly password?: string;
  readonly firstName?: string | null;
  readonly lastName?: string | null;
  readonly email?: string | null;
  readonly monthlyLimit?: number;
  readonly totalLimit?: number;
}

interface AccountRow {
  id: number;
  username: string;
  parent_id: number | null;
  password_salt: string | null;
  password_hash: string | null;
  plan: string | null;
  sub_account_limit: number | null;
  active: number;
  first_name: string | null;
  last_name: string | null;
  email: string | null;
  monthly_limit: number;
  total_limit: number;
  period_anchor: number;
  created_at: number;
}

function toAccount(row: AccountRow): Account {
  return {
    id: row.id,
    username: row.username,
    parentId: row.parent_id,
    plan: row.plan as PlanName | null,
    subAccountLimit: row.sub_account_limit,
    active: row.active === 1,
    firstName: row.first_name,
    lastName: row.last_name,
    email: row.email,
    monthlyLimit: row.monthly_limit,
    totalLimit: row.total_limit,
    periodAnchor: row.period_anchor,
    createdAt: row.created_at,
  };
}

/** Length of a billing period on the emulator clock. */
export const BILLING_PERIOD_MS = 30 * 24 * 3600 * 1000;

/** Reads and writes accounts and usage. */
export class AccountRepo {
  constructor(private readonly db: Db) {}

  /** The account with this username (parent or sub-account). */
  byUsername(username: string): Account | undefined {
    const row = this.db.prepare('SELECT * FROM accounts WHERE username = ?').get(username) as AccountRow | undefined;
    return row && toAccount(row);
  }

  /** The account with this id. */
  byId(id: number): Account | undefined {
    const row = this.db.prepare('SELECT * FROM accounts WHERE id = ?').get(id) as AccountRow | undefined;
    return row && toAccount(row);
  }

  /** Every parent account, oldest first. */
  parents(): Account[] {
    const rows = this.db.prepare('SELECT * FROM accounts WHERE parent_id IS NULL ORDER BY id').all() as AccountRow[];
    return rows.map(toAccount);
  }

  /** The sub-accounts of a parent, oldest first. */
  subAccounts(parentId: number): Account[] {
    const rows = this.db.prepare('SELECT * FROM accounts WHERE parent_id = ? ORDER BY id').all(parentId) as AccountRow[];
    return rows.map(toAccount);
  }

  /** How many sub-accounts a parent has. */
  countSubAccounts(parentId: number): number {
    const row = this.db.prepare('SELECT COUNT(*) AS n FROM accounts WHERE parent_id = ?').get(parentId) as { n: number };
    return row.n;
  }

  /** Creates a parent account. */
  createParent(username: string, password: string, plan: PlanName, subAccountLimit: number | null, now: number): Account {
    const pw = hashPassword(password);
    const info = this.db
      .prepare(
        `INSERT INTO accounts (username, password_salt, password_hash, plan, sub_account_limit, period_anchor, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(username, pw.salt, pw.hash, plan, subAccountLimit, now, now);
    return this.byId(Number(info.lastInsertRowid))!;
  }

  /** Creates an active sub-account under `parent`. */
  createSubAccount(parent: Account, username: string, profile: ProfileChanges, now: number): Account {
    const info = this.db
      .prepare(`INSERT INTO accounts (username, parent_id, period_anchor, created_at) VALUES (?, ?, ?, ?)`)
      .run(username, parent.id, parent.periodAnchor, now);
    const id = Number(info.lastInsertRowid);
    this.update(id, profile);
    return this.byId(id)!;
  }

  /** Applies profile changes to an account. */
  update(id: number, changes: ProfileChanges): void {
    const sets: string[] = [];
    const values: Array<string | number | null> = [];
    const set = (column: string, value: string | number | null): void => {
      sets.push(`${column} = ?`);
      values.push(value);
    };
    if (changes.password !== undefined) {
      const pw = hashPassword(changes.password);
      set('password_salt', pw.salt);
      set('password_hash', pw.hash);
    }
    if (changes.firstName !== undefined) set('first_name', changes.firstName);
    if (changes.lastName !== undefined) set('last_name', changes.lastName);
    if (changes.email !== undefined) set('email', changes.email);
    if (changes.monthlyLimit !== undefined) set('monthly_limit', changes.monthlyLimit);
    if (changes.totalLimit !== undefined) set('total_limit', changes.totalLimit);
    if (sets.length === 0) return;
    this.db.prepare(`UPDATE accounts SET ${sets.join(', ')} WHERE id = ?`).run(...values, id);
  }

  /** Activates or deactivates an account. */
  setActive(id: number, active: boolean): void {
    this.db.prepare('UPDATE accounts SET active = ? WHERE id = ?').run(active ? 1 : 0, id);
  }

  /** Changes a parent's plan. */
  setPlan(id: number, plan: PlanName): void {
    this.db.prepare('UPDATE accounts SET plan = ? WHERE id = ?').run(plan, id);
  }

  /** Deletes an account; its IPs, hostnames, proxies, tokens and usage go with it (cascade). */
  delete(id: number): void {
    this.db.prepare('DELETE FROM accounts WHERE id = ?').run(id);
  }

  /** True when `password` is the account's password (false when it has none). */
  checkPassword(id: number, password: string): boolean {
    const row = this.db.prepare('SELECT password_salt, password_hash FROM accounts WHERE id = ?').get(id) as
      | Pick<AccountRow, 'password_salt' | 'password_hash'>
      | undefined;
    if (!row || row.password_salt === null || row.password_hash === null) return false;
    return verifyPassword(password, { salt: row.password_salt, hash: row.password_hash });
  }

  /** Records usage on an account. */
  recordUsage(id: number, bytes: number, at: number): void {
    this.db.prepare('INSERT INTO usage (account_id, at, bytes) VALUES (?, ?, ?)').run(id, at, bytes);
  }

  /** Bytes used by an account since `since` (ms) and in total. */
  usage(id: number, since: number): { periodBytes: number; totalBytes: number } {
    const row = this.db
      .prepare(
        `SELECT COALESCE(SUM(CASE WHEN at >= ? THEN bytes ELSE 0 END), 0) AS period,
                COALESCE(SUM(bytes), 0) AS total
         FROM usage WHERE account_id = ?`,
      )
      .get(since, id) as { period: number; total: number };
    return { periodBytes: row.period, totalBytes: row.total };
  }
}

/** Start of the billing period that contains `now`, for periods anchored at `anchor`. */
export function currentPeriodStart(anchor: number, now: number): number {
  if (now <= anchor) return anchor;
  return anchor + Math.floor((now - anchor) / BILLING_PERIOD_MS) * BILLING_PERIOD_MS;
}
