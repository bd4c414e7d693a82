#!/usr/bin/env node
// `npm start` and `npm test` on a fresh clone: installs the dependencies first when they are
// missing, or older than package-lock.json (after a pull that changed it), with `npm ci`. Uses
// nothing but Node itself, since it runs before anything is installed.
'use strict';
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const lock = path.join(root, 'package-lock.json');
// npm writes its own copy of the lockfile into node_modules on every install.
const installed = path.join(root, 'node_modules', '.package-lock.json');

function stale() {
  if (!fs.existsSync(installed)) return 'node_modules is missing';
  if (fs.statSync(installed).mtimeMs < fs.statSync(lock).mtimeMs) return 'package-lock.json changed since the last install';
  return undefined;
}

const why = stale();
if (why !== undefined) {
  process.stderr.write(`proxyaccount: ${why}: running npm ci (once; about two minutes)\n`);
  const npm = process.env.npm_execpath;
  const [command, args] = npm ? [process.execPath, [npm, 'ci', '--no-audit', '--no-fund']] : ['npm', ['ci', '--no-audit', '--no-fund']];
  try {
    execFileSync(command, args, { cwd: root, stdio: 'inherit' });
  } catch {
    process.stderr.write('proxyaccount: npm ci failed (see above); fix that, then run the command again\n');
    process.exit(1);
  }
}
