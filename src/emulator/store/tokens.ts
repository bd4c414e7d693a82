// Bearer tokens. Only the SHA-256 of a raw token is stored; the raw value exists only in the
// creation response.
import type { Db } from './db';

/** A stored bearer token (no raw value, ever). */
export interface Token {
  readonly id: number;
  readonly accountId: number;
  readonly label: string;
  /** The stored flag; a token whose expiry has passed is expired whatever this says. */
  readonly active: boolean;
  /** Expiry instant (ms), or null for none. */
  readonly expiresAt: number | null;
  readonly createdAt: number;
  /** When the token was last deactivated (ms), or null while it is active or was never deactivated. */
  readonly deactivatedAt: number | null;
}

interface TokenRow {
  id: number;
  account_id: number;
  label: string;
  active: number;
  expires_at: number | null;
  created_at: number;
  deactivated_at: number | null;
}

const COLUMNS = 'id, account_id, label, active, expires_at, created_at, deactivated_at';

function toToken(row: TokenRow): Token {
  return {
    id: row.id,
    accountId: row.account_id,
    label: row.label,
    active: row.active === 1,
    expiresAt: row.expires_at,
    createdAt: row.created_at,
    deactivatedAt: row.deactivated_at,
  };
}

/** Reads and writes bearer tokens. */
export class TokenRepo {
  constructor(private readonly db: Db) {}

  /** Stores a new active token under its hash. */
  create(accountId: number, label: string, hash: string, expiresAt: number | null, now: number): Token {
    const info = this.db
      .prepare('INSERT INTO tokens (account_id, label, hash, active, expires_at, created_at) VALUES (?, ?, ?, 1, ?, ?)')
      .run(accountId, label, hash, expiresAt, now);
    return this.byId(accountId, Number(info.lastInsertRowid))!;
  }

  /** The tokens of an account, oldest first. */
  list(accountId: number): Token[] {
    const rows = this.db.prepare(`SELECT ${COLUMNS} FROM tokens WHERE account_id = ? ORDER BY id`).all(accountId) as TokenRow[];
    return rows.map(toToken);
  }

  /** How many tokens an account holds (whatever their state). */
  count(accountId: number): number {
    return (this.db.prepare('SELECT COUNT(*) AS n FROM tokens WHERE account_id = ?').get(accountId) as { n: number }).n;
  }

  /** The token with this id if it belongs to the account. */
  byId(accountId: number, id: number): Token | undefined {
    const row = this.db.prepare(`SELECT ${COLUMNS} FROM tokens WHERE account_id = ? AND id = ?`).get(accountId, id) as TokenRow | undefined;
    return row && toToken(row);
  }

  /** The token stored under this hash. */
  byHash(hash: string): Token | undefined {
    const row = this.db.prepare(`SELECT ${COLUMNS} FROM tokens WHERE hash = ?`).get(hash) as TokenRow | undefined;
    return row && toToken(row);
  }

  /**
   * Sets a token's active flag. Deactivating an active token records `now`, from which proxy
   * servers count its grace period; deactivating an inactive one keeps the first instant.
   */
  setActive(id: number, active: boolean, now: number): void {
    if (active) this.db.prepare('UPDATE tokens SET active = 1, deactivated_at = NULL WHERE id = ?').run(id);
    else this.db.prepare('UPDATE tokens SET active = 0, deactivated_at = COALESCE(deactivated_at, ?) WHERE id = ?').run(now, id);
  }

  /** Deletes a token. */
  delete(id: number): void {
    this.db.prepare('DELETE FROM tokens WHERE id = ?').run(id);
  }

  /** Deactivates every token of a parent and of all its sub-accounts; returns how many changed. */
  deactivateFamily(parentId: number, now: number): number {
    return this.db
      .prepare(
        `UPDATE tokens SET active = 0, deactivated_at = ? WHERE active = 1 AND account_id IN
           (SELECT id FROM accounts WHERE id = ? OR parent_id = ?)`,
      )
      .run(now, parentId, parentId).changes;
  }
}

/** True when the token's expiry has passed at `now`. */
export function isExpired(token: Token, now: number): boolean {
  return token.expiresAt !== null && token.expiresAt <= now;
}
