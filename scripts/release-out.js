// The release directory (`--out`) of scripts/release.js: checked to be the user's alone before
// anything is built, written only through fresh temporary files renamed into place, and checked
// again at the end. Whoever else could change it could replace a zip and its SHA256SUMS line
// before they are signed, or plant a link that turns the release's writes onto other files.
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');

/** The release's modes, set explicitly (fchmod), so the umask does not decide them. */
const FILE_MODE = 0o644;
const DIR_MODE = 0o755;
// Windows has no O_NOFOLLOW (nor POSIX owners).
const NOFOLLOW = fs.constants.O_NOFOLLOW ?? 0;

/** How a refusal of `--out` says what the directory is for (src/packaging/private-tree.ts). */
const RELEASE_USE = {
  what: 'the release',
  why:
    'the release signs what its directory holds, and whoever else can write there can replace a zip and its SHA256SUMS line before ' +
    "they are signed, or plant a link that turns the release's writes onto your files, so --out must be a real directory of your own " +
    'that nobody else can write',
};

/**
 * Makes the output directory (with its parents) before anything is built, which takes a minute
 * and may download Node binaries: a `--out` that cannot be written fails at once, and so does one
 * that is a symbolic link, another user's, or writable by group or others (walkPrivateTree, as
 * for the mirrors), or one below a directory someone else could rename entries of
 * (checkAncestors: checked before anything is made, and again with the parents made here). A
 * directory made here gets mode 0755 whatever the umask; an existing one of the user's keeps its
 * mode. Returns the directory's identity (device and inode), which confirmOutDir compares at the end.
 */
function prepareOutDir(outDir, { walkPrivateTree, checkAncestors }) {
  const st = lstatOrError(outDir);
  if (st !== undefined && !st.isDirectory() && !st.isSymbolicLink()) throw new Error(`--out ${outDir} is not a directory`);
  checkAncestors(outDir, RELEASE_USE);
  try {
    walkPrivateTree(outDir, [], true, RELEASE_USE);
  } catch (err) {
    if (err.code !== undefined) throw new Error(`--out ${outDir} cannot be used as the release directory (${err.code})`);
    throw err;
  }
  if (st === undefined) chmodOwnDir(outDir, DIR_MODE);
  checkAncestors(outDir, RELEASE_USE);
  const checked = fs.lstatSync(outDir);
  if (!checked.isDirectory()) throw new Error(`--out ${outDir} changed while it was being checked; run the release again`);
  return { dev: checked.dev, ino: checked.ino };
}

/** Whether `outDir` is still the very directory prepareOutDir checked (same device and inode, not a link). */
function sameDir(outDir, checked) {
  const st = fs.lstatSync(outDir, { throwIfNoEntry: false });
  return st?.isDirectory() === true && st.dev === checked.dev && st.ino === checked.ino;
}

/**
 * The release's last step: `outDir` must still be the directory prepareOutDir checked, and each
 * file the release wrote (`written`: name → SHA-256 of the bytes written) must be there, a
 * regular file of the user's (opened without following a link, checked with fstat) holding those
 * very bytes. The checks of --out and of the directories above it leave nobody else a way to
 * change them; this says so loudly should that ever not hold, rather than leave a release whose
 * files are not the ones signed.
 */
function confirmOutDir(outDir, checked, written) {
  const replaced = () =>
    new Error(
      `--out ${outDir} is no longer the directory the release checked and wrote into: someone replaced it while the release ran. ` +
        'Do not publish what it holds; find out who could rename entries of the directories above it, and run the release again elsewhere',
    );
  if (!sameDir(outDir, checked)) throw replaced();
  const uid = process.getuid?.();
  for (const [name, sha256] of written) {
    const file = path.join(outDir, name);
    const wrong = (what) =>
      new Error(`${file} ${what}, not the file the release wrote: do not publish this release; run it again in a directory only you can change`);
    let fd;
    try {
      fd = fs.openSync(file, fs.constants.O_RDONLY | NOFOLLOW | (fs.constants.O_NONBLOCK ?? 0));
    } catch (err) {
      throw wrong(`cannot be opened (${err.code ?? err.message})`);
    }
    try {
      const st = fs.fstatSync(fd);
      if (!st.isFile() || (uid !== undefined && st.uid !== uid)) throw wrong(`is ${st.isFile() ? `owned by uid ${st.uid}` : 'not a regular file'}`);
      const hash = crypto.createHash('sha256');
      const buf = Buffer.allocUnsafe(1 << 20);
      for (let pos = 0, n = fs.readSync(fd, buf, 0, buf.length, 0); n > 0; pos += n, n = fs.readSync(fd, buf, 0, buf.length, pos)) {
        hash.update(buf.subarray(0, n));
      }
      if (hash.digest('hex') !== sha256) throw wrong('holds other bytes');
    } finally {
      fs.closeSync(fd);
    }
  }
  if (!sameDir(outDir, checked)) throw replaced();
}

/** lstat, or undefined when nothing is there; other errors (ENOTDIR, EACCES) become the --out error. */
function lstatOrError(outDir) {
  try {
    return fs.lstatSync(outDir, { throwIfNoEntry: false });
  } catch (err) {
    throw new Error(`--out ${outDir} cannot be used as the release directory (${err.code ?? err.message})`);
  }
}

/**
 * Sets the mode of the directory just made and checked, through a descriptor opened without
 * following a link and checked again (fstat), so the chmod lands on that directory and no other.
 * Nothing to do without POSIX owners (Windows), where the mode says nothing of other users.
 */
function chmodOwnDir(dir, mode) {
  if (typeof process.getuid !== 'function') return;
  const fd = fs.openSync(dir, fs.constants.O_RDONLY | (fs.constants.O_DIRECTORY ?? 0) | NOFOLLOW);
  try {
    const st = fs.fstatSync(fd);
    if (!st.isDirectory() || st.uid !== process.getuid()) throw new Error(`--out ${dir} changed while it was being made; run the release again`);
    fs.fchmodSync(fd, mode);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * A new temporary file beside `target`, named as src/packaging's stageFile names its own
 * (`.NAME.tmp-PID-RANDOM`, which removeStaleTemps recognises), opened O_CREAT | O_EXCL |
 * O_NOFOLLOW so that nothing is written through a link planted under any name, and given exactly
 * `mode` (fchmod: the umask does not apply). `commit` renames it over `target`, replacing a file
 * or link there rather than writing through it. (Not stageFile itself: zipExecutable and
 * signSums run without a build, and a zip is streamed.)
 */
function createStaged(target, mode) {
  const tmp = path.join(path.dirname(target), `.${path.basename(target)}.tmp-${process.pid}-${crypto.randomBytes(6).toString('hex')}`);
  const fd = fs.openSync(tmp, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | NOFOLLOW, 0o600);
  const discard = () => fs.rmSync(tmp, { force: true });
  try {
    fs.fchmodSync(fd, mode);
  } catch (err) {
    fs.closeSync(fd);
    discard();
    throw err;
  }
  return { fd, tmp, commit: () => fs.renameSync(tmp, target), discard };
}

/** Writes `data` (a Buffer) to `target` through a staged file (mode 0644); returns the SHA-256 of the bytes written. */
function writeStaged(target, data) {
  const staged = createStaged(target, FILE_MODE);
  try {
    try {
      for (let off = 0; off < data.length; ) off += fs.writeSync(staged.fd, data, off, data.length - off);
    } finally {
      fs.closeSync(staged.fd);
    }
    staged.commit();
  } catch (err) {
    staged.discard();
    throw err;
  }
  return crypto.createHash('sha256').update(data).digest('hex');
}

module.exports = { FILE_MODE, prepareOutDir, confirmOutDir, createStaged, writeStaged };
