#!/usr/bin/env node
// The app command of the root cdktf.json. Bundles main.ts with esbuild (the constructs package's
// TypeScript sources come in through the `paths` of tsconfig.json) and runs it. cdktf, constructs
// and yaml stay external and load from the repository's node_modules: one copy of each, shared
// by the app and the constructs.
'use strict';

const path = require('node:path');
const esbuild = require('esbuild');

const fs = require('node:fs');

// One bundle per process: synths running side by side (tests, CI) must not read each other's
// half-written file.
const outfile = path.join(__dirname, 'dist', `app.${process.pid}.js`);
esbuild.buildSync({
  entryPoints: [path.join(__dirname, 'main.ts')],
  tsconfig: path.join(__dirname, 'tsconfig.json'),
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  external: ['cdktf', 'constructs', 'yaml'],
  outfile,
  sourcemap: 'inline',
  logLevel: 'warning',
});

try {
  require(outfile).main(__dirname);
} catch (err) {
  // A bad roster is a user error: print its message (every problem, listed) without a stack trace.
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
} finally {
  fs.rmSync(outfile, { force: true });
}
