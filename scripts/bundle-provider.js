#!/usr/bin/env node
// Bundles the provider entry (dist/main-provider.js, compiled by tsc) into one self-contained,
// executable JavaScript file: dist/provider/terraform-provider-proxyaccount.
// One file loads faster than a tree of modules (Terraform starts the provider 3-4 times per
// command) and is what `proxyaccount provider install` copies into a filesystem mirror.
//
// The executable is a shell line, then scripts/provider-launcher.js, then the bundle wrapped in the
// function Node makes of a CommonJS module (an expression nobody calls; the launcher's last
// statement ends with a semicolon, so Node, running the file as a script, does not call it): the
// launcher compiles that slice of the file with a per-user V8 code cache (Node 20 has no module
// compile cache). dist/provider/bundle.js is the plain bundle, the main script of the single
// executable (scripts/sea.js), which carries its own code cache.
'use strict';
const path = require('node:path');
const fs = require('node:fs');
const esbuild = require('esbuild');
const { UNDICI_IN_BUNDLE, leavesOutHttp2 } = require('./provider-resolution');

const root = path.resolve(__dirname, '..');
const crypto = require('node:crypto');
const entry = path.join(root, 'dist', 'main-provider.js');
const outDir = path.join(root, 'dist', 'provider');
const outFile = path.join(outDir, 'terraform-provider-proxyaccount');
const bundleFile = path.join(outDir, 'bundle.js');
const MARKER = 'PROXYACCOUNT-PROVIDER-BUNDLE';
/** What the shell line prints, as the plugin's first line of stdout, when no `node` is on PATH. */
const NO_NODE =
  'terraform-provider-proxyaccount needs Node.js 20 on PATH (this is the script form of the provider); on runners without Node use the single executable (docs/release.md)';

/**
 * `require('undici')` in the SDK's transport becomes scripts/provider-undici.js (why: that file).
 * The SDK's proxy dispatcher is in the bundle only because the SDK's index exports it; the
 * provider never calls it, and the lean file's ProxyAgent says so if anything ever does.
 */
function leanUndici() {
  const importers = new Set(['transport.js', 'proxy-dispatcher.js'].map((f) => path.join(root, 'dist', 'sdk', f)));
  return {
    name: 'lean-undici',
    setup(build) {
      build.onResolve({ filter: /^undici$/ }, (args) => {
        if (!importers.has(args.importer))
          throw new Error(
            `bundle-provider: ${args.importer} requires undici; only dist/sdk/transport.js and proxy-dispatcher.js may (see scripts/provider-undici.js)`,
          );
        return { path: UNDICI_IN_BUNDLE };
      });
      build.onResolve({ filter: /^node:http2$/ }, (args) => (leavesOutHttp2(args.importer) ? { path: 'node:http2', namespace: 'no-http2' } : undefined));
      build.onLoad({ filter: /.*/, namespace: 'no-http2' }, () => ({
        contents: "throw new Error('node:http2 is left out of the provider bundle: the SDK speaks HTTP/1.1 to the API');",
        loader: 'js',
      }));
    },
  };
}

/**
 * The executable's first two lines, read by /bin/sh and then by Node. For sh, `":" //;` is the
 * null command: it runs the rest of the line and execs Node on this same file. For Node, the first
 * line is a hashbang and the second a string followed by a comment. sh runs before Node to keep
 * Node's certificates from it (src/provider/deferred-ca.ts; bench/RESULTS.md): NODE_EXTRA_CA_CERTS
 * makes Node 20 parse its bundled root certificates and that file at every start, before any
 * JavaScript (about 50 ms a start, three starts a plan), and the first secure context given a CA
 * (ca_cert_file's too) makes it parse its bundled roots (about 45 ms) only to tell that context's
 * store from its default one. The provider needs certificates only to reach the API, in one
 * process out of three. So:
 * - NODE_EXTRA_CA_CERTS is handed over under another name; not when NODE_OPTIONS asks for
 *   OpenSSL's store (--use-openssl-ca), whose certificates the provider cannot list: then Node
 *   loads them itself, as before;
 * - Node's default store is OpenSSL's (--use-openssl-ca) made empty (SSL_CERT_FILE and
 *   SSL_CERT_DIR name nothing), and the provider gives the API client Node's bundled roots itself;
 *   not when NODE_OPTIONS chooses a store (--use-openssl-ca, --use-bundled-ca, --use-system-ca).
 * It also keeps the serving process's peak memory down, which runs JavaScript on one thread: glibc's
 * malloc gets 2 arenas (MALLOC_ARENA_MAX, unless it is set) where it makes up to 8 per core for
 * Node's helper threads, and V8 one helper thread (--v8-pool-size=1, unless NODE_OPTIONS sets it)
 * where Node starts 4; 2 MiB and 1 MiB less at the peak, no slower in a plan (bench/RESULTS.md).
 * Other C libraries ignore the variable; the option is Node's own, so V8 still takes the code caches.
 */
function shellHeader(marker) {
  // Node runs this with -e: it reads the file once and runs the launcher (the lines after the shell
  // line, up to the bundle) with the text, where `node FILE` would read the whole file as the main
  // module first (scripts/provider-launcher.js). Single-quoted for sh, so it holds no single quote.
  const evalCode = [
    'const f=process.argv[1],t=require("fs").readFileSync(f,"latin1"),a=t.indexOf("\\n",t.indexOf("\\n")+1)+1;',
    `require("vm").runInThisContext("(function(require,__filename,launcherText){"+t.slice(a,t.indexOf(${JSON.stringify(`\n/*${marker}*/`)}))+"\\n})",{filename:f,lineOffset:2})(require,f,t)`,
  ].join('');
  if (evalCode.includes("'")) throw new Error('bundle-provider: the -e code of the shell line must hold no single quote');
  if (/["$`\\]/.test(NO_NODE)) throw new Error('bundle-provider: the no-node message goes between double quotes for sh: no ", $, ` or \\ in it');
  return [
    '#!/bin/sh',
    [
      '":" //;',
      // Terraform shows a plugin's first line of stdout when the handshake fails, and nothing of
      // stderr: without this, a PATH without node gives only "Unrecognized remote plugin message".
      `command -v node >/dev/null 2>&1 || { echo "${NO_NODE}"; exit 1; };`,
      `: "\${MALLOC_ARENA_MAX:=2}"; export MALLOC_ARENA_MAX;`,
      `case "\${NODE_EXTRA_CA_CERTS:+set} \${NODE_OPTIONS-}" in "set "*openssl-ca*) ;; "set "*) PROXYACCOUNT_DEFERRED_NODE_EXTRA_CA_CERTS=$NODE_EXTRA_CA_CERTS; export PROXYACCOUNT_DEFERRED_NODE_EXTRA_CA_CERTS; unset NODE_EXTRA_CA_CERTS;; esac;`,
      `set -- -e '${evalCode}' "$0" "$@";`,
      `case "\${NODE_OPTIONS-}" in *--v8-pool-size*) ;; *) set -- --v8-pool-size=1 "$@";; esac;`,
      `case "\${NODE_OPTIONS-}" in *--use-*-ca*) exec node "$@";; esac;`,
      'PROXYACCOUNT_DEFERRED_NODE_ROOT_CERTS=1; SSL_CERT_FILE=/dev/null; SSL_CERT_DIR=/dev/null; export PROXYACCOUNT_DEFERRED_NODE_ROOT_CERTS SSL_CERT_FILE SSL_CERT_DIR;',
      'exec node --use-openssl-ca "$@"',
    ].join(' '),
  ].join('\n');
}

if (!fs.existsSync(entry)) {
  console.error(`bundle-provider: ${path.relative(root, entry)} is missing; run tsc first (npm run build)`);
  process.exit(1);
}
async function main() {
  fs.mkdirSync(outDir, { recursive: true });
  const result = await esbuild.build({
    entryPoints: [entry],
    outfile: bundleFile,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    legalComments: 'linked',
    metafile: true,
    logLevel: 'warning',
    plugins: [leanUndici()],
  });
  const bundle = fs.readFileSync(bundleFile, 'utf8');
  // The launcher finds the bundle by this line and reads it up to the file's last `\n})`.
  if (bundle.includes(`\n/*${MARKER}*/`)) throw new Error(`bundle-provider: the bundle holds the line that marks its start (${MARKER}); change the marker`);
  const hash = crypto.createHash('sha256').update(bundle).digest('hex').slice(0, 16);
  const launcher = fs
    .readFileSync(path.join(__dirname, 'provider-launcher.js'), 'utf8')
    .replace("'__HASH__'", JSON.stringify(hash))
    .replace("'__MARKER__'", JSON.stringify(MARKER));
  const tmp = `${outFile}.tmp-${process.pid}`;
  const wrapped = `(function (exports, require, module, __filename, __dirname) { ${bundle}\n})`;
  fs.writeFileSync(tmp, `${shellHeader(MARKER)}\n${launcher}\n/*${MARKER}*/${wrapped}\n`, { mode: 0o755 });
  fs.renameSync(tmp, outFile);
  const bytes = fs.statSync(outFile).size;
  const inputs = Object.keys(result.metafile.inputs).length;
  console.error(`bundle-provider: ${path.relative(root, outFile)} (${(bytes / 1024).toFixed(0)} KiB from ${inputs} modules)`);
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
