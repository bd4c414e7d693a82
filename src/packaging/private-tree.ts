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

/** What a checked tree is for, as its refusals say it. */
export interface PrivateTreeUse {
  /** What is being written, e.g. `the provider mirror`. */
  readonly what: string;
  /** Why its directories must be private: a whole sentence, without the final stop. */
  readonly why: string;
}

/** The provider mirrors' use: plain `provider install`, `install --from` and `provider mirror`. */
export const MIRROR_USE: PrivateTreeUse = {
  what: 'the provider mirror',
  why: 'Terraform runs what a mirror holds, so each of its directories must be a real directory of your own that nobody else can write',
};

/** `file` quoted for a POSIX shell, for the `chmod go-w` a refusal prints. */
function shellQuote(file: string): string {
  return `'${file.replace(/'/g, "'\\''")}'`;
}

function modeOf(file: string): string {
  return ((lstatOrUndefined(file)?.mode ?? 0) & 0o777).toString(8).padStart(4, '0');
}

/** The refusal naming every directory of the user's that group or others can write, with the command that mends them. */
function refuseWritable(dirs: readonly string[], use: PrivateTreeUse): Error {
  const listed = dirs.map((dir) => `${dir} (mode ${modeOf(dir)})`);
  return new Error(
    `refusing to write ${use.what}: ${dirs.length === 1 ? 'this directory is' : 'these directories are'} writable by group or others: ${listed.join(', ')}. ` +
      `${use.why}: run chmod go-w ${dirs.map(shellQuote).join(' ')}`,
  );
}

function lstatOrUndefined(file: string): fs.Stats | undefined {
  return fs.lstatSync(file, { throwIfNoEntry: false });
}

function realpathOrUndefined(file: string): string | undefined {
  try {
    return fs.realpathSync(file);
  } catch {
    return undefined;
  }
}

function refuse(dir: string, problem: string, use: PrivateTreeUse): Error {
  return new Error(`refusing to write ${use.what} into ${dir}: ${problem}. ${use.why}`);
}

/**
 * Walks `root`, then `root/parts[0]`, `root/parts[0]/parts[1]`, …, checking each with lstat.
 * With `create`, a missing directory is made (mode 0755; `root` with its parents); without,
 * the walk stops there. Throws, naming the directory, on one that is a symbolic link, not a
 * directory, another user's, or writable by group or others (those listed together, with the
 * `chmod go-w` that mends them); `use` says in the refusal what the tree is for. Returns whether
 * every directory exists.
 */
export function walkPrivateTree(root: string, parts: readonly string[], create: boolean, use: PrivateTreeUse = MIRROR_USE): boolean {
  let dir = path.resolve(root);
  const writable: string[] = [];
  for (let i = 0; i <= parts.length; i++) {
    if (i > 0) dir = path.join(dir, parts[i - 1]!);
    let st = lstatOrUndefined(dir);
    if (st === undefined) {
      // Nothing is made under a directory that is to be refused.
      if (writable.length > 0) throw refuseWritable(writable, use);
      if (!create) return false;
      try {
        fs.mkdirSync(dir, { mode: 0o755, recursive: i === 0 });
      } catch (err) {
        // Someone made it first: the check below judges what is there now.
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
      st = lstatOrUndefined(dir);
      if (st === undefined) throw refuse(dir, 'it vanished right after it was created', use);
    }
    const problem = dirProblem(st);
    if (problem === 'writable') writable.push(dir);
    else if (problem !== undefined) throw refuse(dir, problem, use);
  }
  if (writable.length > 0) throw refuseWritable(writable, use);
  return true;
}

/**
 * Why `st`, a directory above a private tree (or a symbolic link on the way to it), lets someone
 * else put a directory of their own in the tree's place, or undefined when it does not: its owner
 * can rename its entries, and so can whoever may write it, unless it is sticky (then only the
 * entry's owner, the directory's owner and root may). A link is judged by its owner alone (only
 * its parent, checked too, decides who may replace it); where it points is checked on its own.
 */
function ancestorProblem(st: fs.Stats, uid: number): string | undefined {
  if (st.uid !== uid && st.uid !== 0) return `is owned by uid ${st.uid}, neither you (uid ${uid}) nor root`;
  if (st.isSymbolicLink()) return undefined;
  if (!st.isDirectory()) return 'is not a directory';
  if ((st.mode & 0o022) !== 0 && (st.mode & 0o1000) === 0)
    return `is writable by group or others (mode ${(st.mode & 0o7777).toString(8).padStart(4, '0')}) and not sticky`;
  return undefined;
}

/**
 * Checks every directory above `dir` (from the nearest one that exists, when `dir` or its parents
 * are yet to be made, up to the root; through a symbolic link, also the directories above where it
 * points): each must be the user's or root's, and writable by nobody else unless sticky, as
 * OpenSSH's StrictModes asks of the directories above ~/.ssh. Whoever could rename an entry of one
 * could move the checked tree away while it is being written and put a directory of their own in
 * its place, whose contents are theirs to change. Throws naming the first one that fails; nothing
 * to check without POSIX owners (Windows).
 */
export function checkAncestors(dir: string, use: PrivateTreeUse): void {
  const uid = process.getuid?.();
  if (uid === undefined) return;
  const target = path.resolve(dir);
  const checked = new Set<string>();
  const walk = (start: string): void => {
    // A directory already checked had every directory above it checked too.
    for (let p = start; !checked.has(p); p = path.dirname(p)) {
      checked.add(p);
      const st = lstatOrUndefined(p);
      const problem = st === undefined ? undefined : ancestorProblem(st, uid);
      if (problem !== undefined)
        throw new Error(
          `refusing to write ${use.what} into ${target}: ${p}, a directory above it, ${problem}, so someone else could move ${target} away while it is ` +
            "being written and put a directory of their own in its place. Every directory above it must be yours or root's and writable by nobody " +
            'else, unless sticky (as /tmp is): give a directory elsewhere',
        );
      if (st?.isSymbolicLink()) {
        // A link to nothing leads nowhere to write: making the tree fails there, saying so.
        const real = realpathOrUndefined(p);
        if (real !== undefined) walk(real);
      }
      if (path.dirname(p) === p) return;
    }
  };
  walk(path.dirname(target));
}

/**
 * Whether this platform has POSIX owners (`process.getuid`), so that the owner and write-bit
 * checks here happen at all. Node has none on Windows: there only symbolic links are refused, and
 * what the commands print must say so.
 */
export function ownersChecked(): boolean {
  return typeof process.getuid === 'function';
}

/**
 * Why a directory or file of a release we read (`--from`) may not be trusted, or undefined when
 * it may: Terraform runs what is installed from it, and whoever can change the release can change
 * a zip and its SHA256SUMS line together, so it must be a real directory or regular file (no
 * symbolic link), owned by the current user or root, and writable by nobody else. 'writable' is
 * one of those that group or others can write: one `chmod go-w` mends it (a release made or
 * downloaded under umask 002 has several), so every such file is named at once.
 */
function releaseProblem(st: fs.Stats, kind: 'directory' | 'file'): string | 'writable' | undefined {
  if (st.isSymbolicLink()) return `it is a symbolic link (give the ${kind} it points to instead)`;
  if (kind === 'directory' ? !st.isDirectory() : !st.isFile()) return `it is not a ${kind === 'directory' ? 'directory' : 'regular file'}`;
  const uid = process.getuid?.();
  if (uid === undefined) return undefined; // no POSIX owners (Windows): only links are refused
  if (st.uid !== uid && st.uid !== 0) return `it is owned by uid ${st.uid}, neither you (uid ${uid}) nor root`;
  if ((st.mode & 0o022) !== 0) return 'writable';
  return undefined;
}

const RELEASE_WHY =
  'Terraform runs what is installed from a release, and whoever can change its directory, its SHA256SUMS or a zip can replace a zip and its SHA256SUMS line together';

/** The refusal of a release directory or file that someone else may have written (another owner, a link). */
function refuseRelease(file: string, problem: string): Error {
  return new Error(
    `refusing to use the release in ${file}: ${problem}. ${RELEASE_WHY}: use a release directory that you (or root) own and that ` +
      'nobody else can write, made there by `npm run release` or downloaded there yourself',
  );
}

/**
 * The refusal naming every file of a release (the directory, SHA256SUMS, zips) that is the
 * user's or root's but that group or others can write, with the one `chmod go-w` that mends them:
 * under a umask such as 002 a download gets these modes, and telling the user to make or download
 * the release themselves would tell them what they did.
 */
function refuseWritableRelease(dir: string, files: readonly string[]): Error {
  const listed = files.map((file) => `${file} (mode ${modeOf(file)})`);
  return new Error(
    `refusing to use the release in ${dir}: group or others can write ${listed.join(', ')}. ${RELEASE_WHY}. ` +
      `If nobody else has changed ${files.length === 1 ? 'it' : 'them'}, run chmod go-w ${files.map(shellQuote).join(' ')}`,
  );
}

/**
 * Checks the release directory `dir` with lstat, throwing a clear error (naming it as `label`,
 * e.g. `--from`) when it is missing, not a directory, a symbolic link, or not trusted (see
 * {@link releaseProblem}); then, with lstat too, each file of it that `isReleaseFile` names (the
 * ones the reader will open), so that every one group or others can write is named in one
 * refusal. The files are checked again when opened ({@link openReleaseFile}).
 */
export function checkReleaseDir(dir: string, label: string, isReleaseFile: (name: string) => boolean = () => false): void {
  const st = lstatOrUndefined(dir);
  if (st === undefined) throw new Error(`${label} ${dir} does not exist: give the directory \`npm run release\` wrote (dist/release by default)`);
  if (!st.isDirectory() && !st.isSymbolicLink())
    throw new Error(`${label} ${dir} is not a directory: give the directory \`npm run release\` wrote, not a file in it`);
  const writable: string[] = [];
  const check = (file: string, fileSt: fs.Stats, kind: 'directory' | 'file'): void => {
    const problem = releaseProblem(fileSt, kind);
    if (problem === 'writable') writable.push(file);
    else if (problem !== undefined) throw refuseRelease(file, problem);
  };
  check(dir, st, 'directory');
  for (const name of fs.readdirSync(dir).filter(isReleaseFile).sort()) {
    const file = path.join(dir, name);
    const fileSt = lstatOrUndefined(file);
    if (fileSt !== undefined) check(file, fileSt, 'file');
  }
  if (writable.length > 0) throw refuseWritableRelease(dir, writable);
}

/**
 * Opens a file of a release directory for reading, never through a symbolic link (O_NOFOLLOW) and
 * without blocking on a FIFO, and checks what was opened (fstat): a regular file, the user's or
 * root's, writable by nobody else. Read, hash and copy it through the descriptor returned, so the
 * file checked is the file used even if its name is replaced meanwhile. Undefined when there is
 * no such file; the caller closes the descriptor.
 */
export function openReleaseFile(file: string): { fd: number; size: number } | undefined {
  let fd: number;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | NOFOLLOW | (fs.constants.O_NONBLOCK ?? 0));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    if (code === 'ELOOP') throw refuseRelease(file, 'it is a symbolic link (give the file it points to instead)');
    throw new Error(`${file} cannot be opened (${code ?? String(err)})`);
  }
  try {
    const st = fs.fstatSync(fd);
    const problem = releaseProblem(st, 'file');
    if (problem === 'writable') throw refuseWritableRelease(path.dirname(file), [file]);
    if (problem !== undefined) throw refuseRelease(file, problem);
    return { fd, size: st.size };
  } catch (err) {
    fs.closeSync(fd);
    throw err;
  }
}

/**
 * Writes `text` to `file` (a file the user names, such as `--cli-config`) as the mirror writes its
 * files: refused when `file` is a symbolic link, not a regular file, or another user's, or when
 * its directory is not a real directory of the user's that nobody else can write (what the CLI
 * configuration says decides which provider Terraform runs); written to a new O_EXCL | O_NOFOLLOW
 * temporary file beside it and renamed into place. Keeps an existing file's permissions (at most
 * 0644's plus the owner's execute bit), else 0644. `what` names the file in errors.
 */
export function writeOwnFile(file: string, text: string, what: string): void {
  const target = path.resolve(file);
  const dir = path.dirname(target);
  const refuseFile = (where: string, problem: string): Error =>
    new Error(
      `refusing to write ${what} ${file}: ${where}${problem}. Terraform takes providers from where this file says, so it must be a file of your own, not a link, in a directory of your own that nobody else can write`,
    );
  const dirSt = lstatOrUndefined(dir);
  if (dirSt === undefined) throw new Error(`cannot write ${what} ${file}: its directory ${dir} does not exist`);
  const problem = dirProblem(dirSt);
  if (problem === 'writable')
    throw refuseFile(`its directory ${dir} `, `is writable by group or others (run chmod go-w ${shellQuote(dir)}, or write it elsewhere)`);
  if (problem !== undefined) throw refuseFile(`its directory ${dir}: `, problem);
  const st = lstatOrUndefined(target);
  const uid = process.getuid?.();
  if (st?.isSymbolicLink()) throw refuseFile('', 'it is a symbolic link (give the file it points to instead)');
  if (st !== undefined && !st.isFile()) throw refuseFile('', 'it is not a regular file');
  if (st !== undefined && uid !== undefined && st.uid !== uid) throw refuseFile('', `it is owned by uid ${st.uid}, not by the current user (uid ${uid})`);
  stageFile(target, { text }, st === undefined ? 0o644 : st.mode & 0o744).commit();
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
export function stageFile(
  target: string,
  content: { text: string } | { from: string } | { fd: number },
  mode: number,
  tmpDir = path.dirname(target),
): StagedFile {
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
      else if ('fd' in content) copyFd(content.fd, fd);
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
    copyFd(src, fd);
  } finally {
    fs.closeSync(src);
  }
}

/** Copies the whole file open as `src` (from its start, with positional reads) into `fd`. */
function copyFd(src: number, fd: number): void {
  const buf = Buffer.allocUnsafe(1 << 20);
  for (let pos = 0, n = fs.readSync(src, buf, 0, buf.length, pos); n > 0; pos += n, n = fs.readSync(src, buf, 0, buf.length, pos)) {
    for (let off = 0; off < n; ) off += fs.writeSync(fd, buf, off, n - off);
  }
}

/** Discards every staged file not yet committed (after an error). */
export function discardAll(staged: readonly StagedFile[]): void {
  for (const s of staged) s.discard();
}
