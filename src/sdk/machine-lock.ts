// A lock shared by one user's processes on one machine: a file created with O_EXCL in a private
// directory (private-file.ts), holding its holder's pid. Node has no flock(2), and a lock file
// needs a rule for a holder that died: its pid is gone, or it stopped refreshing the file's time,
// which a live holder does every few seconds (so a long hold is never taken for a dead one, and a
// pid reused by an unrelated process does not keep the lock forever). A waiter judges "stopped"
// by watching the file stay unchanged on its own monotonic clock, never by comparing the file's
// time with the wall clock, which a clock step moves. Each lock's text is its own
// (pid, time, nonce), and a lock is removed only while it still holds the text its remover read:
// two waiters that both judged a lock dead cannot both end up holding it. An entry at the lock's
// path that is no lock and cannot be removed (a directory) would hold every waiter forever: it is
// reported, with what to do, once it has resisted removal for a moment.
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { lstat, open, rm, utimes } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { createPrivateFile, readPrivateFile } from './private-file';

/** How often a holder refreshes its lock's time. */
const HEARTBEAT_MS = 5_000;
/** A lock a waiter has seen unrefreshed for this long was left by a holder that cannot release it. */
const STALE_MS = 60_000;
/** A lock's text is shorter: a bigger file is not a lock of ours. */
const MAX_LOCK_BYTES = 64;
/** A takeover lock is held for a moment; one older than this was left by a process killed holding it. */
const TAKEOVER_STALE_MS = 5_000;
/** How often a waiter looks again. */
const POLL_MS = 20;
/**
 * How long an entry in the lock's way that is no lock is tried again before the waiter gives up:
 * a removal may fail for a moment (on Windows, while another program has the file open).
 */
const BLOCKED_MS = 1_000;

// Windows has no O_NOFOLLOW; there the per-user profile directory is the guard (private-file.ts).
const NOFOLLOW = constants.O_NOFOLLOW ?? 0;

/** Timing of {@link takeMachineLock}; the defaults suit every caller but tests. */
export interface MachineLockTiming {
  readonly heartbeatMs?: number;
  readonly staleMs?: number;
  readonly pollMs?: number;
  readonly blockedMs?: number;
}

/**
 * An entry at a lock's path (or its takeover lock's) that is no lock of ours and could not be
 * removed: no waiter can ever take the lock until someone removes it.
 */
export class LockPathBlockedError extends Error {
  readonly code = 'ERR_LOCK_PATH_BLOCKED';
  /** The entry in the way. */
  readonly path: string;

  constructor(path: string, what: string, cause: unknown) {
    const why = (cause as NodeJS.ErrnoException | undefined)?.code ?? String(cause);
    super(`${path} is where a lock file of proxyaccount's goes, but ${what} is there and cannot be removed (${why}): remove it`, { cause });
    this.name = 'LockPathBlockedError';
    this.path = path;
  }
}

/** Releases a lock: removes the file (once; later calls do nothing). Never rejects. */
export type ReleaseLock = () => Promise<void>;

/**
 * Waits until `file` can be created, then holds it until the release is called. Rejects with
 * `signal`'s reason (a stop while waiting), or with {@link LockPathBlockedError} when an entry
 * that is no lock stays in the way; resolves with undefined when the file cannot be made at all
 * (an unwritable directory): the caller then goes on without the machine's lock. The directory
 * must be private (checked by the caller).
 */
export async function takeMachineLock(file: string, signal?: AbortSignal, timing: MachineLockTiming = {}): Promise<ReleaseLock | undefined> {
  const { heartbeatMs = HEARTBEAT_MS, staleMs = STALE_MS, pollMs = POLL_MS, blockedMs = BLOCKED_MS } = timing;
  const watch: Watch = { key: '', since: 0 };
  // Since when (monotonic clock) removals of an entry in the way have failed, one after another.
  let blockedSince: number | undefined;
  for (;;) {
    signal?.throwIfAborted();
    // The time after the pid, as locks of earlier versions were written (they read both); the
    // nonce makes each lock's text its own, which is how a takeover knows the lock it judged.
    const text = `${process.pid} ${Date.now()} ${randomBytes(6).toString('hex')}\n`;
    let made: boolean;
    try {
      made = await createPrivateFile(file, text);
    } catch {
      return undefined;
    }
    if (made) {
      await removeStaleGuard(file);
      return holding(file, text, heartbeatMs);
    }
    const dead = await deadLock(file, staleMs, watch);
    const taken = dead === undefined ? 'wait' : await takeOver(file, dead);
    if (!(taken instanceof LockPathBlockedError)) blockedSince = undefined;
    else {
      blockedSince ??= performance.now();
      if (performance.now() - blockedSince >= blockedMs) throw taken;
    }
    if (taken === 'again') continue;
    // After a takeover that failed too: looking again at once would spin on an entry that cannot
    // be removed.
    await pause(pollMs, signal);
  }
}

/** Waits `ms`; rejects with `signal`'s reason when it fires. */
async function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  try {
    await sleep(ms, undefined, signal === undefined ? {} : { signal });
  } catch (err) {
    // timers/promises rejects with an AbortError of its own: the stop's reason is what callers see.
    signal?.throwIfAborted();
    throw err;
  }
}

function holding(file: string, text: string, heartbeatMs: number): ReleaseLock {
  // Unref'd: a lock must not keep a finished process alive.
  const beat = setInterval(() => {
    const now = new Date();
    utimes(file, now, now).catch(() => undefined);
  }, heartbeatMs);
  beat.unref();
  let released: Promise<void> | undefined;
  return () => {
    clearInterval(beat);
    // Removed only while it is still ours: a holder that froze past the stale time may have been
    // taken over, and must not remove the new holder's lock.
    released ??= removeIf(file, text).then(() => undefined);
    return released;
  };
}

/** What identifies a lock judged dead: its text, or (never written, or not ours) its inode and time. */
interface DeadLock {
  readonly text: string | undefined;
  readonly ino: number;
  readonly mtimeMs: number;
}

/**
 * What a waiter saw of the lock, and since when by its own monotonic clock: a lock is stale once
 * the waiter has watched it stay exactly so (no heartbeat) for the stale time. Judged by the wall
 * clock, a clock step (NTP, a resumed laptop or VM) would make a live holder's lock look old.
 */
interface Watch {
  key: string;
  since: number;
}

/** The lock, when its holder is gone or stopped refreshing it; undefined while it is held (or gone). */
async function deadLock(file: string, staleMs: number, watch: Watch): Promise<DeadLock | undefined> {
  const seen = await readLock(file);
  if (seen === undefined) return undefined; // released meanwhile: try again
  const { st, text } = seen;
  const dead = { text, ino: st.ino, mtimeMs: st.mtimeMs };
  // Not a lock of ours (a link, too big, another owner's, writable by others): nothing would ever release it.
  if (notOurs(st)) return { ...dead, text: undefined };
  const key = `${st.ino}:${st.mtimeMs}:${text ?? ''}`;
  if (watch.key !== key) {
    watch.key = key;
    watch.since = performance.now();
  }
  const stale = performance.now() - watch.since >= staleMs;
  // Just made and not yet written: look again, unless it stays so (a holder killed in between).
  if (text === undefined || text === '') return stale ? { ...dead, text: undefined } : undefined;
  const pid = Number(text.trim().split(' ')[0]);
  if (!Number.isInteger(pid) || pid <= 0 || stale) return dead;
  try {
    process.kill(pid, 0);
    return undefined;
  } catch (err) {
    // EPERM: the process exists (another user's).
    return (err as NodeJS.ErrnoException).code === 'ESRCH' ? dead : undefined;
  }
}

/**
 * The lock's status and text from one open file (so both describe the same lock, however fast
 * it is replaced), never through a link; undefined when there is no lock. A link or a file too big
 * to be a lock comes back with its lstat and no text.
 */
async function readLock(file: string): Promise<{ st: LockStat; text: string | undefined } | undefined> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(file, constants.O_RDONLY | NOFOLLOW);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    // A link (ELOOP) or a file we may not read.
    const st = await lstat(file).catch(() => undefined);
    return st === undefined ? undefined : { st, text: undefined };
  }
  try {
    const st = await handle.stat();
    if (notOurs(st) || !st.isFile() || st.size === 0) return { st, text: st.size === 0 ? '' : undefined };
    return { st, text: await handle.readFile('utf8') };
  } finally {
    await handle.close();
  }
}

/**
 * Removes a lock judged dead, and only that one: under a second lock, `.takeover`, held for a
 * moment (so two waiters that judged it dead take turns), and only while the file is still the one
 * judged (a waiter that judged late must not remove the lock the first one then made). A takeover
 * lock left by a process killed in that moment is removed once stale. Says whether to try for the
 * lock again at once (the lock was removed, or is another by now), after a pause (another waiter
 * is taking it over), or why it cannot be removed.
 */
async function takeOver(file: string, dead: DeadLock): Promise<'again' | 'wait' | LockPathBlockedError> {
  const guard = guardOf(file);
  let made: boolean;
  try {
    made = await createPrivateFile(guard, `${process.pid}\n`);
  } catch {
    return 'wait';
  }
  if (!made) return (await removeStaleGuard(file)) ?? 'wait';
  try {
    if (dead.text !== undefined) return (await removeIf(file, dead.text)) ?? 'again';
    // Still the same file, unchanged: a lock made since (even on the inode the dead one freed)
    // has a time of its own.
    const st = await lstat(file).catch(() => undefined);
    if (st?.ino !== dead.ino || st.mtimeMs !== dead.mtimeMs) return 'again';
    return (await remove(file)) ?? 'again';
  } finally {
    await rm(guard, { force: true }).catch(() => undefined);
  }
}

function guardOf(file: string): string {
  return `${file}.takeover`;
}

/**
 * Removes the takeover lock of `file` when it is older than a takeover lasts: a process was killed
 * while taking over. Returns why it cannot be removed, if it cannot.
 */
async function removeStaleGuard(file: string): Promise<LockPathBlockedError | undefined> {
  const guard = guardOf(file);
  const st = await lstat(guard).catch(() => undefined);
  if (st === undefined || Date.now() - st.mtimeMs <= TAKEOVER_STALE_MS) return undefined;
  return remove(guard);
}

/** Removes an entry, never through a link; returns why it cannot be removed, if it cannot. */
async function remove(path: string): Promise<LockPathBlockedError | undefined> {
  try {
    await rm(path, { force: true });
    return undefined;
  } catch (err) {
    const st = await lstat(path).catch(() => undefined);
    const what = st === undefined ? 'an entry' : st.isDirectory() ? 'a directory' : st.isFile() ? 'a file' : 'an entry that is no file';
    return new LockPathBlockedError(path, what, err);
  }
}

/** What a lock check reads of a file's status. */
type LockStat = { isSymbolicLink(): boolean; isFile(): boolean; size: number; uid: number; mode: number; ino: number; mtimeMs: number };

/** A file no lock of ours can be: a link, not a file, too big, another user's, or writable by others. */
function notOurs(st: LockStat): boolean {
  return (
    st.isSymbolicLink() ||
    !st.isFile() ||
    st.size > MAX_LOCK_BYTES ||
    // Without POSIX owners (Windows) neither the owner nor the mode's write bits say anything.
    (process.getuid !== undefined && ((st.mode & 0o022) !== 0 || st.uid !== process.getuid()))
  );
}

/** Removes `file` when it still holds `text`; returns why it cannot be removed, if it cannot. Never rejects. */
async function removeIf(file: string, text: string): Promise<LockPathBlockedError | undefined> {
  return (await readPrivateFile(file, MAX_LOCK_BYTES)) === text ? remove(file) : undefined;
}
