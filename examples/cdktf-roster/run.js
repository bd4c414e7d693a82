#!/usr/bin/env node
// The app command of the root cdktf.json. Bundles main.ts with esbuild and runs it.
//
//   node examples/cdktf-roster/run.js           cdktf: the constructs package's TypeScript sources
//                                               come in through the `paths` of tsconfig.json; cdktf,
//                                               constructs and yaml load from the repository's
//                                               node_modules (one copy of each)
//   node examples/cdktf-roster/run.js --cdktn   CDK Terrain: the same app, its `cdktf` imports
//                                               mapped to `cdktn` and `cdktf-provider-proxyaccount`
//                                               to the cdktn build (constructs/cdktn/lib), all three
//                                               loaded from constructs/cdktn/node_modules
'use strict';

const fs = require('node:fs');
const path = require('node:path');
const esbuild = require('esbuild');

const REPO = path.resolve(__dirname, '..', '..');
const CDKTN_PACKAGE = path.join(REPO, 'constructs', 'cdktn');

/** esbuild plugin: the imports that make the app a cdktn app, as absolute external paths. */
function cdktnImports() {
  const lib = path.join(CDKTN_PACKAGE, 'lib', 'index.js');
  if (!fs.existsSync(lib)) {
    throw new Error(
      'run.js --cdktn needs the cdktn build of the constructs (constructs/cdktn/lib): run ' +
        '`npm ci --prefix constructs/cdktn && npm run build:cdktn --prefix constructs` first',
    );
  }
  const fromCdktn = (id) => require.resolve(id, { paths: [CDKTN_PACKAGE] });
  const targets = { cdktf: fromCdktn('cdktn'), constructs: fromCdktn('constructs'), 'cdktf-provider-proxyaccount': lib };
  return {
    name: 'cdktn-imports',
    setup(build) {
      build.onResolve({ filter: /^(cdktf|constructs|cdktf-provider-proxyaccount)$/ }, (args) => ({ path: targets[args.path], external: true }));
    },
  };
}

async function main() {
  const cdktn = process.argv.slice(2).includes('--cdktn');
  // One bundle per process: synths running side by side (tests, CI) must not read each other's
  // half-written file.
  const outfile = path.join(__dirname, 'dist', `app.${process.pid}.js`);
  await esbuild.build({
    entryPoints: [path.join(__dirname, 'main.ts')],
    tsconfig: path.join(__dirname, 'tsconfig.json'),
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    external: cdktn ? ['yaml'] : ['cdktf', 'constructs', 'yaml'],
    plugins: cdktn ? [cdktnImports()] : [],
    outfile,
    sourcemap: 'inline',
    logLevel: 'warning',
  });
  try {
    require(outfile).main(__dirname);
  } finally {
    fs.rmSync(outfile, { force: true });
  }
}

main().catch((err) => {
  // A bad roster is a user error: print its message (every problem, listed) without a stack trace.
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
});
