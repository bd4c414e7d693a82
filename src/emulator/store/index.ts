// The emulator's state: one SQLite database (in memory or a --state file) and the clock offset
// saved in it, so that a restarted emulator resumes at the same emulator time.
import type Database from 'better-sqlite3';
import { isClockOffsetMs, type Clock } from '../clock';
import type { AccountSeed } from '../config';
import { AccessRepo } from './access';
import { AccountRepo } from './accounts';
import { getMeta, openDb, setMeta, wipe, type Db } from './db';
import { TokenRepo } from './tokens';

export type { Account, ProfileChanges } from './accounts';
export { BILLING_PERIOD_MS, currentPeriodStart } from './accounts';
export type { IpEntry } from './access';
export type { Token } from './tokens';
export { isExpired } from './tokens';

const CLOCK_KEY = 'clock_offset_ms';

/** All persistent state, grouped by area. */
export class Store {
  /** Accounts and usage. */
  readonly accounts: AccountRepo;
  /** IPs, hostnames and proxies. */
  readonly access: AccessRepo;
  /** Bearer tokens. */
  readonly tokens: TokenRepo;
  private readonly totalChanges: Database.Statement;

  private constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {
    this.accounts = new AccountRepo(db);
    this.access = new AccessRepo(db);
    this.tokens = new TokenRepo(db);
    this.totalChanges = db.prepare('SELECT total_changes()').pluck();
  }

  /**
   * Opens the state (a file path, or undefined for memory), restores the clock offset saved in it
   * and creates the seed accounts that do not exist yet. Existing accounts are left as they are;
   * one whose password is not the seed's is refused (see {@link Store.seed}).
   */
  static open(path: string | undefined, clock: Clock, seeds: readonly AccountSeed[]): Store {
    const db = openDb(path);
    const store = new Store(db, clock);
    try {
      const saved = getMeta(db, CLOCK_KEY);
      // An offset no clock may hold (saved by an emulator without today's limit) would break
      // every date: start on real time instead, and save that.
      if (saved !== undefined && isClockOffsetMs(Number(saved))) clock.setOffsetMs(Number(saved));
      else if (saved !== undefined) store.saveClock();
      store.seed(seeds, path);
      return store;
    } catch (err) {
      db.close();
      throw err;
    }
  }

  /** Runs `fn` in one transaction. */
  transaction<T>(fn: () => T): T {
    return this.db.transaction(fn)();
  }

  /**
   * A number that differs whenever a row was written since it was last read (open proxy tunnels
   * re-check their admission when it moves). SQLite's own count of the rows every INSERT, UPDATE
   * and DELETE on this connection touched: every write path of the store is counted, present or
   * future, with no bookkeeping of ours to forget; a rolled-back write moves it too (a needless
   * re-check, never a missed one).
   */
  changeCount(): number {
    return this.totalChanges.get() as number;
  }

  /** Saves the clock offset (call after moving the clock). */
  saveClock(): void {
    setMeta(this.db, CLOCK_KEY, String(this.clock.offsetMs()));
  }

  /** Empties every table, puts the clock back to real time and creates the seed accounts. */
  reset(seeds: readonly AccountSeed[]): void {
    this.transaction(() => {
      wipe(this.db);
      this.clock.setOffsetMs(0);
      this.saveClock();
      this.seed(seeds);
    });
  }

  /** Closes the database. */
  close(): void {
    if (this.db.open) this.db.close();
  }

  /**
   * Creates the seed accounts the state does not hold. One it holds keeps its plan and limits (the
   * state wins), but not a password other than the seed's: every client given the accounts file's
   * password (`--print-env` exports it) would be refused, and banned after four tries, so start-up
   * fails instead, naming the account and the way out.
   * @param statePath the state file, named in messages
   */
  private seed(seeds: readonly AccountSeed[], statePath?: string): void {
    const stateFile = statePath === undefined ? 'the state' : `state file ${statePath}`;
    this.transaction(() => {
      const now = this.clock.now();
      for (const seed of seeds) {
        const existing = this.accounts.byUsername(seed.username);
        if (existing === undefined) {
          const parent = this.accounts.createParent(seed.username, seed.password, seed.plan, seed.subAccountLimit, now);
          this.accounts.update(parent.id, { monthlyLimit: seed.monthlyLimit ?? 0, totalLimit: seed.totalLimit ?? 0 });
        } else if (existing.parentId !== null) {
          throw new Error(`accounts file names "${seed.username}", which is a sub-account in the state file`);
        } else if (!this.accounts.checkPassword(existing.id, seed.password)) {
          throw new Error(
            `${stateFile} holds account "${seed.username}" with a password other than the one the accounts file gives it; an ` +
              "account already in the state keeps its own, so clients given the file's password would be refused. Put back the " +
              `password the account was created with, or remove ${statePath ?? 'the state'} to create the accounts afresh from the file`,
          );
        }
      }
    });
  }
}
