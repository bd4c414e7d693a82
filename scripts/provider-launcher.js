// The start of the provider executable (scripts/bundle-provider.js puts the bundled provider after
// it, inside the closing comment, so Node only scans it here). It compiles the bundle with V8's
// code cache, kept per user: Terraform starts the provider 3 times per plan and 4 per apply, and
// compiling 2.5 MB of JavaScript was the largest part of each start (bench/RESULTS.md). Node 20
// has no module compile cache of its own (that came in Node 22). Without a usable cache (first
// run, another Node version, PROXYACCOUNT_CODE_CACHE=off, an unwritable directory) it compiles as
// usual and nothing else changes. The cache file is only ever read back by V8, which checks it
// against this very source and ignores it when it does not match.
'use strict';
(function launch(self, hash, marker) {
  const fs = require('node:fs');
  const os = require('node:os');
  const path = require('node:path');
  const vm = require('node:vm');

  const text = fs.readFileSync(self, 'utf8');
  const start = text.indexOf(`\n/*${marker}\n`);
  const end = text.lastIndexOf('*/');
  if (start < 0 || end < start) throw new Error(`${self}: the bundled provider is missing from this file (rebuild it with npm run build)`);
  // The bundle's own `*/` were written as `*\0/` so the comment holds it whole.
  const source = text
    .slice(start + marker.length + 4, end)
    .split('*\u0000/')
    .join('*/');
  const lineOffset = text.slice(0, start + marker.length + 4).split('\n').length - 1;

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
  let cachedData;
  if (cacheFile !== undefined) {
    try {
      cachedData = fs.readFileSync(cacheFile);
    } catch {
      // No cache yet: this run makes it.
    }
  }

  // The same wrapper Node puts around a CommonJS module.
  const script = new vm.Script(`(function (exports, require, module, __filename, __dirname) { ${source}\n})`, {
    filename: self,
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
    // Written at exit, so the functions this run compiled lazily are in it too.
    process.once('exit', () => {
      try {
        fs.mkdirSync(path.dirname(cacheFile), { recursive: true, mode: 0o700 });
        const tmp = `${cacheFile}.${process.pid}.tmp`;
        fs.writeFileSync(tmp, script.createCachedData(), { mode: 0o600 });
        fs.renameSync(tmp, cacheFile);
      } catch {
        // A cache that cannot be written only costs the next start its compile time.
      }
    });
  }
  const codeCache = cacheFile === undefined ? 'off' : cachedData === undefined ? 'miss' : script.cachedDataRejected ? 'rejected' : 'hit';
  mod.exports.main({ codeCache });
})(__filename, '__HASH__', '__MARKER__');
