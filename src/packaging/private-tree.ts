// A mirror tree that only its user can change. Terraform runs the executables a mirror holds, and
// a directory another user can write, or a symbolic link someone planted in the tree, would let
// them swap the provider or turn our writes and deletions onto the user's other files. So every
// directory we reach is checked with lstat (a real directory, the user's own, writable by nobody
// else), and files are written through a fresh O_EXCL | O_NOFOLLOW temporary file renamed into
// place, the habit of the provider's code cache. (src/packaging imports nothing else of ours, so
// the check is written here rather than taken from src/util or src/sdk.)
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';

// Windows has neither O_NOFOLLOW nor POSIX owners; there the per-user profile directory is the guard.
const NOFOLLOW = fs.constants.O_NOFOLLOW ?? 0;

/**
 * Why `dir` (which exists) may not be part of a mirror tree, or undefined when it may. 'writable'
 * is a directory of the user's that group or others can write: one `chmod go-w` mends it, so the
 * walk goes on and names every such directory at once (a tree made under umask 002 has several).
 */
function dirProblem(st: fs.Stats): string | 'writable' | undefined {
  if (st.isSymbolicLink()) return 'it is a symbolic link (give the directory it points to instead)';
  if (!st.isDirectory()) return 'it is not a directory';
  const uid = process.getuid?.();
  if (uid === undefined) return undefined; // no POSIX owners: the mode's write bits say nothing of other users
  if (st.uid !== uid) return `it is owned by uid ${st.uid}, not by the current user (uid ${uid})`;
  if ((st.mode & 0o022) !== 0) return 'writable';
  return undefined;
}

/** The refusal naming every directory of the user's that group or others can write, with the command that mends them. */
function refuseWritable(dirs: readonly string[]): Error {
  const listed = dirs.map((dir) => `${dir} (mode ${((lstatOrUndefined(dir)?.mode ?? 0) & 0o777).toString(8).padStart(4, '0')})`);
  const quoted = dirs.map((dir) => `'${dir.replace(/'/g, "'\\''")}'`).join(' ');
  return new Error(
    `refusing to write the provider mirror: ${dirs.length === 1 ? 'this directory is' : 'these directories are'} writable by group or others: ${listed.join(', ')}. ` +
      `Terraform runs what a mirror holds, so each of its directories must be a real directory of your own that nobody else can write: run chmod go-w ${quoted}`,
  );
}

function lstatOrUndefined(file: string): fs.Stats | undefined {
  return fs.lstatSync(file, { throwIfNoEntry: false });
}

function refuse(dir: string, problem: string): Error {
  return new Error(
    `refusing to write the provider mirror into ${dir}: ${problem}. Terraform runs what a mirror holds, so each of its directories must be a real directory of your own that nobody else can write`,
  );
}

/**
 * Walks `root`, then `root/parts[0]`, `root/parts[0]/parts[1]`, …, checking each with lstat.
 * With `create`, a missing directory is made (mode 0755; `root` with its parents); without,
 * the walk stops there. Throws, naming the directory, on one that is a symbolic link, not a
 * directory, another user's, or writable by group or others. Returns whether every directory exists.
 */
export function walkPrivateTree(root: string, parts: readonly string[], create: boolean): boolean {
  let dir = path.resolve(root);
  const writable: string[] = [];
  for (let i = 0; i <= parts.length; i++) {
    if (i > 0) dir = path.join(dir, parts[i - 1]!);
    let st = lstatOrUndefined(dir);
    if (st === undefined) {
      // Nothing is made under a directory that is to be refused.
      if (writable.length > 0) throw refuseWritable(writable);
      if (!create) return false;
      try {
        fs.mkdirSync(dir, { mode: 0o755, recursive: i === 0 });
      } catch (err) {
        // Someone made it first: the check below judges what is there now.
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
      st = lstatOrUndefined(dir);
      if (st === undefined) throw refuse(dir, 'it vanished right after it was created');
    }
    const problem = dirProblem(st);
    if (problem === 'writable') writable.push(dir);
    else if (problem !== undefined) throw refuse(dir, problem);
  }
  if (writable.length > 0) throw refuseWritable(writable);
  return true;
}

/** A file written under a temporary name, waiting to be renamed into place or thrown away. */
export interface StagedFile {
  /** The temporary file (hash or read it: nobody else can change it before `commit`). */
  readonly tmp: string;
  /** Where `commit` puts it. */
  readonly target: string;
  /** Renames the temporary file to `target` (replacing a file there, never writing through a link). */
  commit(): void;
  /** Removes the temporary file; harmless after `commit` or a second call. */
  discard(): void;
}

/**
 * The temporary name of `target` in `tmpDir`: a leading dot and no `.zip` ending, so that
 * Terraform, which reads only `terraform-provider-…` names, directories in the unpacked layout and
 * `.zip` files in the packed one, never takes it for a package.
 */
function tmpName(tmpDir: string, target: string): string {
  return path.join(tmpDir, `.${path.basename(target)}.tmp-${process.pid}-${randomBytes(6).toString('hex')}`);
}

/** The temporary names a killed run of ours may have left for `name`, and the pid that made each. */
function tmpPid(entry: string, name: string): number | undefined {
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  // Ours, and the `NAME.tmp-PID` of earlier versions, which wrote beside the target itself.
  const m = new RegExp(`^(?:\\.${escaped}\\.tmp-(\\d+)-[0-9a-f]{12}|${escaped}\\.tmp-(\\d+))$`).exec(entry);
  return m ? Number(m[1] ?? m[2]) : undefined;
}

function processAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Removes the temporary files of `names` in `dir` that a killed run left: only our exact
 * temporary names, regular files of the current user, made by a process that is gone (a
 * concurrent run's file is left alone). A leftover in an unpacked package's directory is part of
 * the package Terraform hashes, and no later run would reuse its name. Returns the files removed.
 */
export function removeStaleTemps(dir: string, names: readonly string[]): string[] {
  const removed: string[] = [];
  const uid = process.getuid?.();
  for (const entry of fs.readdirSync(dir)) {
    const pid = names.map((name) => tmpPid(entry, name)).find((p) => p !== undefined);
    if (pid === undefined || processAlive(pid)) continue;
    const file = path.join(dir, entry);
    const st = lstatOrUndefined(file);
    if (!st?.isFile() || (uid !== undefined && st.uid !== uid)) continue;
    fs.rmSync(file, { force: true });
    removed.push(file);
  }
  return removed;
}

/**
 * Writes `content` (a string, or the bytes of the file `from`) to a new temporary file in
 * `tmpDir` (default: beside `target`), opened with O_CREAT | O_EXCL | O_NOFOLLOW, with exactly
 * `mode`. The temporary file is removed on any error. `tmpDir` must be a directory of the same
 * file system, checked with {@link walkPrivateTree}.
 */
export function stageFile(target: string, content: { text: string } | { from: string }, mode: number, tmpDir = path.dirname(target)): StagedFile {
  const tmp = tmpName(tmpDir, target);
  const fd = fs.openSync(tmp, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | NOFOLLOW, 0o600);
  let done = false;
  const discard = (): void => {
    if (!done) fs.rmSync(tmp, { force: true });
    done = true;
  };
  try {
    try {
      if ('text' in content) fs.writeSync(fd, content.text);
      else copyInto(content.from, fd);
      fs.fchmodSync(fd, mode);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  } catch (err) {
    discard();
    throw err;
  }
  return {
    tmp,
    target,
    commit: () => {
      if (done) throw new Error(`${tmp} was already renamed or removed`);
      try {
        fs.renameSync(tmp, target);
      } catch (err) {
        discard();
        throw err;
      }
      done = true;
    },
    discard,
  };
}

function copyInto(from: string, fd: number): void {
  const src = fs.openSync(from, 'r');
  try {
    const buf = Buffer.allocUnsafe(1 << 20);
    for (let n = fs.readSync(src, buf); n > 0; n = fs.readSync(src, buf)) {
      for (let off = 0; off < n; ) off += fs.writeSync(fd, buf, off, n - off);
    }
  } finally {
    fs.closeSync(src);
  }
}

/** Discards every staged file not yet committed (after an error). */
export function discardAll(staged: readonly StagedFile[]): void {
  for (const s of staged) s.discard();
}
