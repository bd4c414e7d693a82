// The start of the provider executable. scripts/bundle-provider.js puts the bundled provider after
// it, already wrapped in the function Node makes of a CommonJS module, as an expression that is
// never called: the shell line's code reads the text, and the wrapped bundle is a slice of it
// that V8 compiles as it is. This compiles it with V8's code cache, kept per user: Terraform starts
// the provider 3 times per plan and 4 per apply, and compiling the bundle was the largest part of
// each start (bench/RESULTS.md). Node 20 has no module compile cache of its own (that came in Node
// 22). Without a usable cache (first run, another Node version, PROXYACCOUNT_CODE_CACHE=off, an
// unwritable directory, or one another user could have written to) it compiles as usual and
// nothing else changes. V8 checks a cache file only against this source's length, so it is read
// only from a private directory. Writing a new cache removes the ones nobody has written for 30
// days (older builds and Node versions).
//
// The shell line above it (scripts/bundle-provider.js) runs this code with `node -e`, handing it the
// file's text, so the file is read once and Node never parses the bundle as a whole. Run as a
// script (`node terraform-provider-proxyaccount`), Node parses the file first (the bundle only
// pre-parsed, as a function that is not called), then this reads it itself.
'use strict';
(function launch(self, hash, marker, given) {
  const fs = require('node:fs');
  const os = require('node:os');
  const path = require('node:path');
  const vm = require('node:vm');

  // The file is ASCII (esbuild escapes the rest), which latin1 reads without decoding UTF-8.
  const text = given ?? fs.readFileSync(self, 'latin1');
  // `/*MARKER*/(function (exports, require, module, __filename, __dirname) { BUNDLE\n})` ends the
  // file: a slice of the text, not a new string (1.1 MB copied twice at every start, for the
  // escapes a comment needed and for the wrapper, cost about 4 ms of each start: bench/RESULTS.md).
  const start = text.indexOf(`\n/*${marker}*/(function `);
  const end = text.lastIndexOf('\n})') + 3;
  if (start < 0 || end < start) throw new Error(`${self}: the bundled provider is missing from this file (rebuild it with npm run build)`);
  const source = text.slice(start + marker.length + 5, end);
  let lineOffset = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i <= start; i = text.indexOf('\n', i + 1)) lineOffset++;

  const setting = process.env.PROXYACCOUNT_CODE_CACHE;
  let cacheFile;
  if (setting !== 'off') {
    const dir =
      setting !== undefined && setting !== '' && path.isAbsolute(setting)
        ? setting
        : process.platform === 'win32'
          ? path.join(process.env.LOCALAPPDATA || path.join(os.homedir(), 'AppData', 'Local'), 'proxyaccount', 'Cache', 'code-cache')
          : process.platform === 'darwin'
            ? path.join(os.homedir(), 'Library', 'Caches', 'proxyaccount', 'code-cache')
            : path.join(
                process.env.XDG_CACHE_HOME?.startsWith('/') ? process.env.XDG_CACHE_HOME : path.join(os.homedir(), '.cache'),
                'proxyaccount',
                'code-cache',
              );
    cacheFile = path.join(dir, `provider-${hash}-${process.version}-${process.arch}.bin`);
  }
  // V8 checks a cache only against the source's length, so a planted one would run as this user:
  // the cache is used only from a directory of the user's own that nobody else can write to.
  const cacheProblem = cacheFile === undefined ? undefined : privateDirProblem(path.dirname(cacheFile));
  if (cacheProblem !== undefined) cacheFile = undefined;
  let cachedData;
  if (cacheFile !== undefined) {
    try {
      cachedData = readPrivateFile(cacheFile);
    } catch {
      // No cache yet: this run makes it.
    }
  }

  // Its name is the same wherever the file is: V8's code cache keeps the name of the script it was
  // made from, so a cache written by another copy of this build (another working directory, a
  // moved file) would otherwise make stack traces and CPU profiles name that copy's path, one that
  // may no longer exist.
  const script = new vm.Script(source, {
    filename: 'terraform-provider-proxyaccount',
    lineOffset,
    cachedData,
    importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
  // The bundle requires only Node's own modules; it runs its main() itself only as the main module
  // (the single-executable build), so here it is called below.
  const mod = { exports: {}, id: self, filename: self, loaded: false };
  script.runInThisContext().call(mod.exports, mod.exports, require, mod, self, path.dirname(self));
  mod.loaded = true;

  if (cacheFile !== undefined && (cachedData === undefined || script.cachedDataRejected)) {
    // Written at exit, so the functions this run compiled lazily are in it too; only by a run that
    // ends well. One that ends in an error (run by hand, not by Terraform; a refused handshake)
    // compiled little beyond the start, and its cache, kept until the next build, made every later
    // plan about 2 % slower (bench/RESULTS.md).
    process.once('exit', (code) => {
      if (code !== 0) return;
      try {
        writePrivateFile(cacheFile, script.createCachedData());
      } catch {
        // A cache that cannot be written only costs the next start its compile time.
        return;
      }
      pruneStaleCaches(path.dirname(cacheFile), path.basename(cacheFile));
    });
  }
  const codeCache =
    cacheProblem !== undefined
      ? 'untrusted'
      : cacheFile === undefined
        ? 'off'
        : cachedData === undefined
          ? 'miss'
          : script.cachedDataRejected
            ? 'rejected'
            : 'hit';
  mod.exports.main(cacheProblem === undefined ? { codeCache } : { codeCache, codeCacheNote: `code cache not used: ${cacheProblem}` });

  // Private files (OpenSSH's habit): a directory of the user's own, not writable by group or
  // others, checked with lstat; files opened without following a symbolic link; writes through a
  // fresh temporary file (O_EXCL) renamed into place, which replaces a planted link, never its target.
  function privateDirProblem(dir) {
    try {
      fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    } catch {
      // An existing path of another kind is reported below.
    }
    let st;
    try {
      st = fs.lstatSync(dir);
    } catch (err) {
      return `${dir} cannot be read (${err.code})`;
    }
    if (st.isSymbolicLink()) return `${dir} is a symbolic link`;
    if (!st.isDirectory()) return `${dir} is not a directory`;
    return ownershipProblem(dir, st);
  }

  function ownershipProblem(name, st) {
    const uid = process.getuid?.();
    if (uid !== undefined && st.uid !== uid) return `${name} is owned by uid ${st.uid}, not by the current user (uid ${uid})`;
    // Without POSIX owners (Windows) the mode's write bits say nothing of other users.
    if (uid !== undefined && (st.mode & 0o022) !== 0) return `${name} is writable by group or others (mode ${(st.mode & 0o777).toString(8).padStart(4, '0')})`;
    return undefined;
  }

  function readPrivateFile(file) {
    const fd = fs.openSync(file, fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0));
    try {
      const st = fs.fstatSync(fd);
      return st.isFile() && ownershipProblem(file, st) === undefined ? fs.readFileSync(fd) : undefined;
    } finally {
      fs.closeSync(fd);
    }
  }

  // Each build of the provider and each Node version has a cache file of its own, and a new one is
  // written only when a start finds none it can use: then the caches nobody has written for STALE_DAYS (other
  // builds, older Node versions) are removed, so upgrades do not pile them up. A version still in
  // use elsewhere pays one compile to write its cache again.
  function pruneStaleCaches(dir, keep) {
    const STALE_DAYS = 30;
    const before = Date.now() - STALE_DAYS * 24 * 3600 * 1000;
    let names;
    try {
      names = fs.readdirSync(dir);
    } catch {
      return;
    }
    for (const name of names) {
      if (name === keep || !/^provider-[0-9a-f]{16}-v\d+\.\d+\.\d+-[a-z0-9]+\.bin$/.test(name)) continue;
      const file = path.join(dir, name);
      try {
        const st = fs.lstatSync(file);
        if (st.isFile() && st.mtimeMs < before) fs.unlinkSync(file);
      } catch {
        // Gone already, or not ours to remove: left as it is.
      }
    }
  }

  function writePrivateFile(file, data) {
    const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`);
    const { O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW } = fs.constants;
    const fd = fs.openSync(tmp, O_WRONLY | O_CREAT | O_EXCL | (O_NOFOLLOW ?? 0), 0o600);
    try {
      try {
        fs.writeFileSync(fd, data);
      } finally {
        fs.closeSync(fd);
      }
      fs.renameSync(tmp, file);
    } catch (err) {
      fs.rmSync(tmp, { force: true });
      throw err;
    }
  }
})(__filename, '__HASH__', '__MARKER__', typeof launcherText === 'string' ? launcherText : undefined);
