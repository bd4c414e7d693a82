// Per-user files that another user must not be able to plant or redirect (OpenSSH's habit): a
// file is used only inside a directory that is the current user's own and that nobody else can
// write to, never through a symbolic link, and is written through a temporary file opened with
// O_EXCL | O_NOFOLLOW and renamed into place.
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { lstat, mkdir, open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

// Windows has neither O_NOFOLLOW nor POSIX owners; there the per-user profile directory is the guard.
const NOFOLLOW = constants.O_NOFOLLOW ?? 0;

/** Why a directory or file cannot be trusted, or undefined when it can. */
function untrustedReason(what: string, st: { uid: number; mode: number }): string | undefined {
  const uid = process.getuid?.();
  if (uid !== undefined && st.uid !== uid) return `${what} is owned by uid ${st.uid}, not by the current user (uid ${uid})`;
  // Without POSIX owners (Windows) the mode's write bits say nothing of other users.
  if (uid !== undefined && (st.mode & 0o022) !== 0) return `${what} is writable by group or others (mode ${(st.mode & 0o777).toString(8).padStart(4, '0')})`;
  return undefined;
}

/**
 * Creates `dir` (0700) when absent, then checks it with lstat: a real directory, owned by the
 * current user, not writable by group or others. Returns why not, or undefined when it is private.
 */
export async function privateDirProblem(dir: string): Promise<string | undefined> {
  try {
    await mkdir(dir, { recursive: true, mode: 0o700 });
  } catch {
    // An existing path of another kind is reported by the check below.
  }
  let st: Awaited<ReturnType<typeof lstat>>;
  try {
    st = await lstat(dir);
  } catch (err) {
    return `${dir} cannot be read (${(err as NodeJS.ErrnoException).code ?? String(err)})`;
  }
  if (st.isSymbolicLink()) return `${dir} is a symbolic link`;
  if (!st.isDirectory()) return `${dir} is not a directory`;
  return untrustedReason(dir, st);
}

/**
 * Reads a file of at most `maxBytes` without following a symbolic link; undefined when it is
 * absent, too big, not a regular file, or not the user's own.
 */
export async function readPrivateFile(file: string, maxBytes: number): Promise<string | undefined> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(file, constants.O_RDONLY | NOFOLLOW);
  } catch {
    return undefined;
  }
  try {
    const st = await handle.stat();
    if (!st.isFile() || st.size > maxBytes || untrustedReason(file, st) !== undefined) return undefined;
    return await handle.readFile('utf8');
  } finally {
    await handle.close();
  }
}

/**
 * Creates `file` with `body` (mode 0600) only when nothing is there, never through a link: true
 * when created, false when a file (or link) of that name already exists.
 */
export async function createPrivateFile(file: string, body: string): Promise<boolean> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(file, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NOFOLLOW, 0o600);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
  try {
    await handle.writeFile(body);
  } catch (err) {
    // A file left empty (a full disk, a quota) would stand for a lock nobody holds.
    await handle.close();
    await rm(file, { force: true }).catch(() => undefined);
    throw err;
  }
  await handle.close();
  return true;
}

/** Replaces `file` atomically with `body` (mode 0600), through a fresh temporary file beside it. */
export async function writePrivateFile(file: string, body: string): Promise<void> {
  const tmp = join(dirname(file), `.${basename(file)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  const handle = await open(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NOFOLLOW, 0o600);
  try {
    try {
      await handle.writeFile(body);
    } finally {
      await handle.close();
    }
    // rename replaces a symbolic link at `file` itself; it never writes through it.
    await rename(tmp, file);
  } catch (e) {
    await rm(tmp, { force: true });
    throw e;
  }
}
