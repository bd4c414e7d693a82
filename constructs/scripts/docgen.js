#!/usr/bin/env node
// Writes API.md, the API reference of the package (L2 constructs and the l1 bindings, TypeScript
// signatures), with jsii-docgen from the .jsii assembly that `npm run build` makes.
//
//   npm run docgen              rewrite API.md
//   npm run docgen -- --check   exit 1 when API.md differs from what jsii-docgen makes now
'use strict';

const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const TARGET = path.join(ROOT, 'API.md');
const DOCGEN = path.join(ROOT, 'node_modules', '.bin', 'jsii-docgen');

/** API.md as jsii-docgen makes it now. */
function render() {
  if (!fs.existsSync(path.join(ROOT, '.jsii'))) throw new Error('no .jsii assembly: run `npm run build` first');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'proxyaccount-docgen-'));
  try {
    const out = path.join(dir, 'API.md');
    execFileSync(DOCGEN, ['--output', out], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
    return fs.readFileSync(out, 'utf8');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function main() {
  const check = process.argv.slice(2).includes('--check');
  const text = render();
  const current = fs.existsSync(TARGET) ? fs.readFileSync(TARGET, 'utf8') : '';
  if (current === text) {
    process.stdout.write('docgen: API.md is up to date\n');
  } else if (check) {
    process.stderr.write('docgen: API.md is stale: run `npm run build && npm run docgen` in constructs/ and commit it\n');
    process.exit(1);
  } else {
    fs.writeFileSync(TARGET, text);
    process.stdout.write(`docgen: wrote API.md (${text.length} characters)\n`);
  }
}

try {
  main();
} catch (err) {
  process.stderr.write(`docgen: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
}
