// Opens the SQLite database (in memory, or a file with --state) and owns its schema.
import { chmodSync, closeSync, openSync, statSync } from 'node:fs';
import Database from 'better-sqlite3';

/** The better-sqlite3 connection type. */
export type Db = Database.Database;

/** Bumped when the tables change; a state file of another version is refused with a clear error. */
export const SCHEMA_VERSION = 1;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS accounts (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  username TEXT NOT NULL UNIQUE,
  parent_id INTEGER REFERENCES accounts(id) ON DELETE CASCADE,
  password_salt TEXT,
  password_hash TEXT,
  plan TEXT,
  sub_account_limit INTEGER,
  active INTEGER NOT NULL DEFAULT 1,
  first_name TEXT,
  last_name TEXT,
  email TEXT,
  monthly_limit INTEGER NOT NULL DEFAULT 0,
  total_limit INTEGER NOT NULL DEFAULT 0,
  period_anchor INTEGER NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS ips (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  ip TEXT NOT NULL,
  label TEXT NOT NULL DEFAULT '',
  UNIQUE (account_id, ip)
);
CREATE TABLE IF NOT EXISTS hostnames (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  domain TEXT NOT NULL,
  UNIQUE (account_id, domain)
);
CREATE TABLE IF NOT EXISTS proxies (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  host TEXT NOT NULL,
  UNIQUE (account_id, host)
);
CREATE TABLE IF NOT EXISTS tokens (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  label TEXT NOT NULL,
  hash TEXT NOT NULL UNIQUE,
  active INTEGER NOT NULL,
  expires_at INTEGER,
  created_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS usage (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  at INTEGER NOT NULL,
  bytes INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS usage_account ON usage (account_id, at);
`;

const TABLES = ['usage', 'tokens', 'proxies', 'hostnames', 'ips', 'accounts'] as const;

/**
 * Opens (creating if needed) the database at `path`, or an in-memory one when `path` is undefined.
 * Throws a readable error when the file is not an emulator state file of this version, and then
 * leaves it as it was: nothing is written to a file (its mode included) before it is known to be
 * the emulator's own, or new.
 */
export function openDb(path: string | undefined): Db {
  const existing = path !== undefined && (statSync(path, { throwIfNoEntry: false })?.size ?? 0) > 0;
  // Read-only first: closing a read-write connection to another program's WAL database would
  // checkpoint it and delete its -wal and -shm files.
  if (existing) checkOwnFile(path);
  if (path !== undefined) restrictStateFile(path);
  let db: Db;
  try {
    db = new Database(path ?? ':memory:');
  } catch (err) {
    throw new Error(`cannot open state file ${path}: ${(err as Error).message}`);
  }
  try {
    db.pragma('foreign_keys = ON');
    if (path !== undefined) db.pragma('journal_mode = WAL');
    db.exec(SCHEMA);
    addMissingColumns(db);
    const row = db.prepare('SELECT value FROM meta WHERE key = ?').get('schema_version') as { value: string } | undefined;
    if (row === undefined) {
      db.prepare('INSERT INTO meta (key, value) VALUES (?, ?)').run('schema_version', String(SCHEMA_VERSION));
    } else if (row.value !== String(SCHEMA_VERSION)) {
      throw new Error(`state file ${path} has schema version ${row.value}, this emulator needs ${SCHEMA_VERSION}`);
    }
    return db;
  } catch (err) {
    db.close();
    if (err instanceof Error && /file is not a database|malformed/i.test(err.message)) {
      throw new Error(`state file ${path} is not an emulator state file (${err.message})`);
    }
    throw err;
  }
}

/**
 * A database file that holds tables is the emulator's only when its `meta` table names a schema
 * version: another program's database (a typo in `--state`, an application's file beside it) is
 * refused before anything is written to it. One without tables is taken as new.
 */
function checkOwnFile(path: string): void {
  let db: Db;
  try {
    db = new Database(path, { readonly: true, fileMustExist: true });
  } catch (err) {
    throw new Error(`cannot open state file ${path}: ${(err as Error).message}`);
  }
  try {
    let tables: string[];
    try {
      tables = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as Array<{ name: string }>).map((t) => t.name);
    } catch (err) {
      // A WAL database that read-only access cannot open (its -shm gone after a crash): the
      // read-write open that follows recovers it, and checks its schema version as before.
      if ((err as { code?: unknown }).code === 'SQLITE_CANTOPEN') return;
      throw err;
    }
    if (tables.length === 0) return;
    const version = tables.includes('meta')
      ? (db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").get() as { value: unknown } | undefined)
      : undefined;
    if (version === undefined) {
      const shown = tables.slice(0, 5).join(', ') + (tables.length > 5 ? `, … (${tables.length} tables)` : '');
      throw new Error(
        `state file ${path} is not an emulator state file (it is a database of tables ${shown}); it was left as it was: give --state a new file, or one an emulator wrote`,
      );
    }
  } catch (err) {
    if (err instanceof Error && /file is not a database|malformed/i.test(err.message)) {
      throw new Error(`state file ${path} is not an emulator state file (${err.message}); it was left as it was`);
    }
    throw err;
  } finally {
    db.close();
  }
}

/**
 * Columns added after schema version 1 was released: additive, so a state file written by an
 * older emulator is upgraded in place instead of refused.
 */
function addMissingColumns(db: Db): void {
  const columns = db.prepare('PRAGMA table_info(tokens)').all() as Array<{ name: string }>;
  // When a token was deactivated: proxy servers keep accepting it for a grace period from here.
  if (!columns.some((c) => c.name === 'deactivated_at')) db.exec('ALTER TABLE tokens ADD COLUMN deactivated_at INTEGER');
}

/**
 * The state holds password hashes: create the file owner-only (0600), and tighten an existing one
 * (and its WAL files; SQLite gives new WAL files the database file's mode). Not possible on
 * Windows, where modes are not POSIX; there the file keeps the directory's ACL.
 */
function restrictStateFile(path: string): void {
  try {
    closeSync(openSync(path, 'a', 0o600));
    for (const file of [path, `${path}-wal`, `${path}-shm`]) {
      let mode: number;
      try {
        mode = statSync(file).mode;
      } catch {
        continue;
      }
      if ((mode & 0o077) !== 0) chmodSync(file, mode & 0o700);
    }
  } catch (err) {
    throw new Error(`cannot open state file ${path}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
}

/** Deletes every row of every data table and restarts the id sequences. */
export function wipe(db: Db): void {
  db.transaction(() => {
    for (const table of TABLES) db.exec(`DELETE FROM ${table}`);
    db.exec(`DELETE FROM sqlite_sequence`);
    db.prepare(`DELETE FROM meta WHERE key <> 'schema_version'`).run();
  })();
}

/** Reads a value of the meta table. */
export function getMeta(db: Db, key: string): string | undefined {
  const row = db.prepare('SELECT value FROM meta WHERE key = ?').get(key) as { value: string } | undefined;
  return row?.value;
}

/** Writes a value of the meta table. */
export function setMeta(db: Db, key: string, value: string): void {
  db.prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value').run(key, value);
}
