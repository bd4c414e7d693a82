// Remembers, across processes, which credentials the API rejected with 401, and how many 401s
// each API origin gave (whatever the credentials). The API bans a client address after 4 failures
// (for 3 hours, correct credentials included), and the in-process guard only protects one run: a
// job that runs `terraform plan` every hour with a wrong password would fail 4 times and get its
// runner banned; so would four different wrong passwords. With this memory the first run sends and
// fails, the next runs refuse to send the same credentials, and once an origin has rejected
// AUTH_FAILURE_BUDGET requests nothing more is sent to it until the memory expires, so even a new
// wrong password (or two runs racing) cannot bring the address to 4.
//
// A probe that got no answer (a timeout, a dropped connection, a gateway's 502 or 504) may have
// been a 401 the API counted: behind an API that answers after the client's timeout, every run
// would otherwise add failures nobody sees. Each is remembered too, as a possible failure of the
// origin (not a rejection of the credentials), counted like a 401 against AUTH_FAILURE_BUDGET: a
// failure the API counted is the same failure whether its answer was seen or not, and only a
// budget of 2 leaves room for a run racing another. The cost: after an outage in which 2 probes
// went unanswered, every credential is paused at that origin on this machine until the entries
// expire or the memory is cleared, because one more request could complete a ban. An answer that
// accepts the credentials forgets the unanswered probes they left.
//
// The file holds no secret (its format: failure-memory-file.ts): each credential is keyed by
// scrypt(origin + Authorization value) under a random salt created with the file, so equal
// passwords in two caches do not match and the key costs a brute-force attempt per guess. Hashing only happens when the file has live entries (a
// check) or after a 401 (remember), so the usual run pays one small file read. The file is used
// only inside a directory of the user's own that nobody else can write to (private-file.ts).
//
// Each change (remember, forget) reads the file, changes it and replaces it: two at once would
// both read the old file, and the second replacement would lose the first's 401, so the memory
// would count fewer failures than the API did. Changes take turns, within the process and, under a
// lock beside the file (machine-lock.ts), between this user's processes on the machine. That lock
// is held for milliseconds, so a longer wait means a holder that froze (Ctrl-Z, a paused
// container): a change waits for it only a moment, or until its caller stops, and then goes on
// without it; and every change replaces only the file it read (it is made again on a file that
// moved meanwhile), so a change made without the lock, or by a frozen holder that resumed after
// its lock was taken over, loses no other.
import { createHash } from 'node:crypto';
import { homedir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { emptyMemory, isEmpty, MAX_FILE_BYTES, type MemoryFile, parseMemory, scryptKey, serializeMemory } from './failure-memory-file';
import { LockPathBlockedError, type MachineLockTiming, type ReleaseLock, takeMachineLock } from './machine-lock';
import { privateDirProblem, readPrivateFile, writePrivateFile } from './private-file';

/** Default time a rejected credential is remembered: the API's 3-hour ban plus a margin. */
export const DEFAULT_AUTH_FAILURE_TTL_MS = (3 * 60 + 15) * 60 * 1000;
/** File name of the memory inside the cache directory. */
export const AUTH_FAILURE_FILE = 'auth-failures.json';

/** Failed authentications after which the API bans the client address. */
export const BAN_AFTER_FAILURES = 4;
/**
 * 401s and unanswered probes remembered at one origin, together, after which nothing more is sent
 * there: with 2, a new wrong password and a run racing it still leave the address one failure
 * short of the ban.
 */
export const AUTH_FAILURE_BUDGET = 2;

// How long a change waits for the memory's lock, held for milliseconds by a live holder, before
// going on without it: the caller (a 401 being reported, a success being returned) waits that
// long at most, holding the probe lock other processes wait for.
const CHANGE_LOCK_WAIT_MS = 2_000;
// Times a change is made again because the file moved under it, before it is written anyway: a
// file changed on every look (writers without the lock, one after another) must not hold it forever.
const MAX_EDITS = 5;

/**
 * The last change queued for each memory file (by absolute path) in this process: the next one
 * starts after it. Without it, a second change here would find the machine's lock taken by this
 * very process and poll for it; with it, the lock is only contended between processes.
 */
const CHANGES = new Map<string, Promise<void>>();

/** The per-user cache directory of proxyaccount, following each platform's convention. */
export function defaultCacheDir(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform, home: string = homedir()): string {
  if (platform === 'win32') {
    const base = env.LOCALAPPDATA !== undefined && env.LOCALAPPDATA !== '' ? env.LOCALAPPDATA : join(home, 'AppData', 'Local');
    return join(base, 'proxyaccount', 'Cache');
  }
  if (platform === 'darwin') return join(home, 'Library', 'Caches', 'proxyaccount');
  // XDG: a relative XDG_CACHE_HOME is invalid and must be ignored.
  const xdg = env.XDG_CACHE_HOME;
  const base = xdg?.startsWith('/') ? xdg : join(home, '.cache');
  return join(base, 'proxyaccount');
}

/** Default path of the memory file. */
export function defaultAuthFailureFile(env: NodeJS.ProcessEnv = process.env): string {
  return join(defaultCacheDir(env), AUTH_FAILURE_FILE);
}

/** A remembered rejection that still holds. */
export interface RememberedFailure {
  /** When the memory of it expires. */
  readonly until: Date;
}

/** The 401s and unanswered probes of one origin that are still remembered, whatever the credentials. */
export interface OriginFailures {
  /** How many 401s. */
  readonly count: number;
  /** How many probes got no answer (each may have been a 401 the API counted). */
  readonly unanswered: number;
  /**
   * When the 401s and unanswered probes together fall below {@link AUTH_FAILURE_BUDGET} again;
   * undefined when they are below.
   */
  readonly budgetBackAt: Date | undefined;
}

/** What the memory says before a client's first request. */
export interface MemoryCheck {
  /** These very credentials were rejected at this origin. */
  readonly credential: RememberedFailure | undefined;
  /** The origin's remembered 401s and unanswered probes. */
  readonly origin: OriginFailures;
  /** Why the memory's directory is not used (another owner, writable by others, a link). */
  readonly untrusted: string | undefined;
}

/** Timing of the memory's own lock; the defaults suit every caller but tests. */
export interface ChangeLockTiming extends MachineLockTiming {
  /** How long a change waits for the lock before it goes on without it. */
  readonly waitMs?: number;
}

/** What one change of the file computed: its result, and the memory to write (none: nothing changed). */
interface Edit<T> {
  readonly result: T;
  readonly write: MemoryFile | undefined;
}

/** The memory file of one client: read once, written after a 401 or a later success. */
export class AuthFailureMemory {
  /** Path of the JSON file. */
  readonly file: string;
  private readonly ttlMs: number;
  private readonly now: () => number;
  private readonly lockTiming: ChangeLockTiming;
  private dirProblem: Promise<string | undefined> | undefined;
  readonly #fingerprints = new Map<string, Promise<string>>();

  constructor(file: string, ttlMs: number, now: () => number = Date.now, lockTiming: ChangeLockTiming = {}) {
    this.file = file;
    this.ttlMs = ttlMs;
    this.now = now;
    this.lockTiming = lockTiming;
  }

  /** What is remembered about `origin` and `credential` (keyed with the origin). Never throws. */
  async check(origin: string, credential: string): Promise<MemoryCheck> {
    const untrusted = await this.untrusted();
    const mem = untrusted === undefined ? await this.read() : undefined;
    const none = { credential: undefined, origin: { count: 0, unanswered: 0, budgetBackAt: undefined }, untrusted };
    if (mem === undefined) return none;
    const now = this.now();
    const originFailures = this.originFailures(mem, origin, now);
    if (![...mem.failures.values()].some((until) => until > now)) return { ...none, origin: originFailures };
    const until = mem.failures.get(await this.fingerprint(mem.salt, credential));
    return { credential: until !== undefined && until > now ? { until: new Date(until) } : undefined, origin: originFailures, untrusted };
  }

  /**
   * Records a 401 of `origin` for `credential` for the configured time. Returns its expiry, how
   * many 401s the origin now has remembered (counting this one), and, when it could not be
   * written, why (`notRemembered`: the next run will send again). A stop (`signal`) ends the wait
   * for the memory's lock, not the change. Never throws.
   */
  async remember(origin: string, credential: string, signal?: AbortSignal): Promise<{ until: Date; originCount: number; notRemembered?: string }> {
    const now = this.now();
    const until = now + this.ttlMs;
    let originCount = 1;
    try {
      const untrusted = await this.untrusted();
      if (untrusted !== undefined) return { until: new Date(until), originCount, notRemembered: untrusted };
      originCount = await this.change(signal, async (read) => {
        const mem = read ?? emptyMemory();
        mem.failures.set(await this.fingerprint(mem.salt, credential), until);
        const times = [...(mem.origins.get(origin) ?? []).filter((t) => t > now), until];
        mem.origins.set(origin, times);
        return { result: times.length, write: mem };
      });
    } catch (err) {
      // A read-only home or a full disk must not turn a 401 into a crash; this run's guard still holds.
      return { until: new Date(until), originCount: 1, notRemembered: this.notWritten(err) };
    }
    return { until: new Date(until), originCount };
  }

  /**
   * Records a probe of `origin` with `credential` that got no answer, for the configured time: it
   * may have been a 401 the API counted. Returns how many the origin now has remembered, and, when
   * it could not be written, why. A stop (`signal`) ends the wait for the memory's lock, not the
   * change. Never throws.
   */
  async rememberUnanswered(origin: string, credential: string, signal?: AbortSignal): Promise<{ unanswered: number; notRemembered?: string }> {
    const now = this.now();
    try {
      const untrusted = await this.untrusted();
      if (untrusted !== undefined) return { unanswered: 1, notRemembered: untrusted };
      const unanswered = await this.change(signal, async (read) => {
        const mem = read ?? emptyMemory();
        const probes = [
          ...(mem.unanswered.get(origin) ?? []).filter((p) => p.until > now),
          { until: now + this.ttlMs, key: await this.fingerprint(mem.salt, credential) },
        ];
        mem.unanswered.set(origin, probes);
        return { result: probes.length, write: mem };
      });
      return { unanswered };
    } catch (err) {
      return { unanswered: 1, notRemembered: this.notWritten(err) };
    }
  }

  /** Why a change was not made, for `notRemembered`. */
  private notWritten(err: unknown): string {
    // Its message names the entry in the way and says what to do.
    if (err instanceof LockPathBlockedError) return err.message;
    return `${this.file} cannot be written (${(err as NodeJS.ErrnoException).code ?? String(err)})`;
  }

  /**
   * Takes this machine's probe lock for `origin` (a file beside the memory): processes that start
   * at once with credentials not yet proven (a provider per aliased configuration, parallel CI
   * jobs on one runner) send their first requests one at a time, each after the one before has
   * written its 401, if any, to the memory. Resolves with the release, or undefined when the
   * memory's directory is not used or the lock cannot be made, an entry that is no lock being in
   * its way (then this process's guard alone holds). Rejects only with `signal`'s reason.
   */
  async lockProbe(origin: string, signal?: AbortSignal): Promise<ReleaseLock | undefined> {
    try {
      return await this.lockBeside('probe', origin, signal);
    } catch (err) {
      // The memory is still read and written under its own lock; only the probes of this
      // machine's processes no longer take turns.
      if (err instanceof LockPathBlockedError) return undefined;
      throw err;
    }
  }

  /**
   * Takes a lock that this user's processes on this machine share, named by `kind` and a hash of
   * `key`, in the memory's directory (machine-lock.ts). Resolves with the release, or undefined
   * when that directory is not used (not private) or the lock cannot be made. Rejects with
   * `signal`'s reason, or with {@link LockPathBlockedError} when an entry that is no lock is in
   * the lock's way and cannot be removed.
   */
  async lockBeside(kind: 'probe' | 'scope', key: string, signal?: AbortSignal): Promise<ReleaseLock | undefined> {
    if ((await this.untrusted()) !== undefined) return undefined;
    return takeMachineLock(join(dirname(this.file), `.${kind}-${createHash('sha256').update(key).digest('hex').slice(0, 16)}.lock`), signal);
  }

  /**
   * Forgets `credential` after the API accepted it: its 401 and the unanswered probes it left.
   * Cheap when the memory is empty. Its caller is waiting for a success: the memory's lock holds
   * it up a moment at most, or until `signal` stops it, and the forgetting is done all the same (a
   * 401 left here would refuse these very credentials on the next run). Never throws.
   */
  async forget(credential: string, signal?: AbortSignal): Promise<void> {
    try {
      if ((await this.untrusted()) !== undefined) return;
      // Read once without the lock: the usual run, with nothing remembered, takes no lock.
      if (isEmpty(await this.read())) return;
      await this.change(signal, async (mem) => {
        if (mem === undefined || isEmpty(mem)) return { result: undefined, write: undefined };
        const key = await this.fingerprint(mem.salt, credential);
        let changed = mem.failures.delete(key);
        for (const [origin, probes] of mem.unanswered) {
          const kept = probes.filter((p) => p.key !== key);
          if (kept.length === probes.length) continue;
          mem.unanswered.set(origin, kept);
          changed = true;
        }
        return { result: undefined, write: changed ? mem : undefined };
      });
    } catch {
      // Forgetting is best effort: the entry expires anyway.
    }
  }

  /**
   * Makes one change of the file (editFile) after this process's earlier changes of the file and
   * under this machine's lock beside it, so that no change is lost to another made at once. The
   * directory must have been found private. Without the lock (it cannot be made, a holder kept it
   * longer than the wait, or `signal` stopped the wait) the change is still made, over the file it
   * read only. Rejects with {@link LockPathBlockedError}, or with the error of the write.
   */
  private change<T>(signal: AbortSignal | undefined, edit: (mem: MemoryFile | undefined) => Promise<Edit<T>>): Promise<T> {
    const path = resolve(this.file);
    const run = afterOrStopped(CHANGES.get(path), signal).then(async () => {
      const release = await this.lockForChange(path, signal);
      try {
        return await this.editFile(edit);
      } finally {
        await release?.();
      }
    });
    const done = run.then(
      () => undefined,
      () => undefined,
    );
    CHANGES.set(path, done);
    // Forgotten once nothing follows it, so the map keeps no entry per file ever changed.
    void done.then(() => {
      if (CHANGES.get(path) === done) CHANGES.delete(path);
    });
    return run;
  }

  /**
   * The file's own lock, not the probe's (a probe holds its lock while its 401 is remembered), or
   * undefined once the wait is over: a live holder keeps it for milliseconds, so a longer wait means
   * one that froze, and the caller must not wait for the 60 s after which a lock is judged dead.
   * Rejects only with {@link LockPathBlockedError}: that entry stays in the way until removed.
   */
  private async lockForChange(path: string, signal: AbortSignal | undefined): Promise<ReleaseLock | undefined> {
    const { waitMs = CHANGE_LOCK_WAIT_MS, ...timing } = this.lockTiming;
    const bound = AbortSignal.timeout(waitMs);
    try {
      return await takeMachineLock(join(dirname(path), `.${basename(path)}.lock`), signal === undefined ? bound : AbortSignal.any([signal, bound]), timing);
    } catch (err) {
      if (err instanceof LockPathBlockedError) throw err;
      return undefined;
    }
  }

  /**
   * Reads the file, applies `edit`, and writes what it gives only over the file it read: when the
   * file moved meanwhile (a holder frozen past the lock's stale time resumes after its lock was
   * taken over, or a change made without the lock), the edit is made again on what is there now,
   * so neither change is lost. What is left is the moment between the last look and the rename.
   */
  private async editFile<T>(edit: (mem: MemoryFile | undefined) => Promise<Edit<T>>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const text = await readPrivateFile(this.file, MAX_FILE_BYTES);
      const { result, write } = await edit(parseMemory(text));
      if (write === undefined) return result;
      if (attempt < MAX_EDITS && (await readPrivateFile(this.file, MAX_FILE_BYTES)) !== text) continue;
      await this.write(write);
      return result;
    }
  }

  private originFailures(mem: MemoryFile, origin: string, now: number): OriginFailures {
    const rejected = (mem.origins.get(origin) ?? []).filter((t) => t > now);
    const unanswered = (mem.unanswered.get(origin) ?? []).map((p) => p.until).filter((t) => t > now);
    // One budget for both: an unanswered probe may be a 401 the API counted.
    const back = backAt(
      [...rejected, ...unanswered].sort((a, b) => a - b),
      AUTH_FAILURE_BUDGET,
    );
    return { count: rejected.length, unanswered: unanswered.length, budgetBackAt: back === undefined ? undefined : new Date(back) };
  }

  /**
   * scrypt of the credential under the file's salt, as hex; computed once per salt and credential
   * (the check before the first request and the one under the probe lock need the same one).
   * Keyed by a SHA-256 of the credential, in a true private field: the secret is never kept here.
   */
  private fingerprint(salt: Buffer, credential: string): Promise<string> {
    const key = `${salt.toString('base64')}:${createHash('sha256').update(credential).digest('hex')}`;
    let fp = this.#fingerprints.get(key);
    if (fp === undefined) {
      fp = scryptKey(salt, credential);
      this.#fingerprints.set(key, fp);
      fp.catch(() => this.#fingerprints.delete(key));
    }
    return fp;
  }

  /** Why the file's directory must not be used; checked once per memory. */
  private untrusted(): Promise<string | undefined> {
    this.dirProblem ??= privateDirProblem(dirname(this.file));
    return this.dirProblem;
  }

  /** The file's content, or undefined when it is absent, unreadable or not ours. */
  private async read(): Promise<MemoryFile | undefined> {
    return parseMemory(await readPrivateFile(this.file, MAX_FILE_BYTES));
  }

  /** Writes the live entries atomically, readable by the user only. */
  private async write(mem: MemoryFile): Promise<void> {
    await writePrivateFile(this.file, serializeMemory(mem, this.now()));
  }
}

/**
 * Resolves when `previous` (a change, which never rejects) is done or `signal` stops the wait,
 * whichever comes first.
 */
function afterOrStopped(previous: Promise<void> | undefined, signal: AbortSignal | undefined): Promise<void> {
  if (previous === undefined || signal === undefined) return previous ?? Promise.resolve();
  if (signal.aborted) return Promise.resolve();
  return new Promise((done) => {
    const stop = (): void => done();
    signal.addEventListener('abort', stop, { once: true });
    void previous.then(() => {
      signal.removeEventListener('abort', stop);
      done();
    });
  });
}

/** When `sorted` (expiries, ascending) falls below `budget` entries; undefined when it is below. */
function backAt(sorted: readonly number[], budget: number): number | undefined {
  const over = sorted.length - budget;
  return over < 0 ? undefined : sorted[over];
}
