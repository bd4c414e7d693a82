#!/usr/bin/env node
'use strict';
// The example app's cdktf loop (`npm run cdktf:diff`, `cdktf:deploy`, `cdktf:destroy`): runs the
// cdktf CLI with the given command and arguments, offline-ready (`--skip-provider-lock`: without it
// cdktf asks the registry for the provider to lock it), then removes the plans cdktf saved under
// the output directory (`<out>/stacks/<stack>/plan`). A saved plan holds the state it was made
// from, every token value and stored password included, in clear, and cdktf never removes it;
// later commands plan again and do not read it. Exits as cdktf did.
//
//   node scripts/cdktf-loop.js diff|deploy|destroy [cdktf arguments...]
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const COMMANDS = new Set(['diff', 'deploy', 'destroy']);

/** The output directory cdktf uses: `--output DIR` (or `-o`), else cdktf.json's `output`, else cdktf.out. */
function outputDir(args, cwd) {
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if ((a === '--output' || a === '-o') && i + 1 < args.length) return path.resolve(cwd, args[i + 1]);
    if (a.startsWith('--output=')) return path.resolve(cwd, a.slice('--output='.length));
  }
  try {
    const config = JSON.parse(fs.readFileSync(path.join(cwd, 'cdktf.json'), 'utf8'));
    if (typeof config.output === 'string' && config.output !== '') return path.resolve(cwd, config.output);
  } catch {
    // No readable cdktf.json: cdktf's own default.
  }
  return path.resolve(cwd, 'cdktf.out');
}

/** Removes the `plan` file of each stack directory under `<out>/stacks` (a regular file only); returns the paths removed. */
function removeSavedPlans(out) {
  const removed = [];
  let stacks;
  try {
    stacks = fs.readdirSync(path.join(out, 'stacks'), { withFileTypes: true });
  } catch {
    return removed;
  }
  for (const stack of stacks) {
    if (!stack.isDirectory()) continue;
    const plan = path.join(out, 'stacks', stack.name, 'plan');
    try {
      if (!fs.lstatSync(plan).isFile()) continue;
      fs.rmSync(plan);
      removed.push(plan);
    } catch {
      // None saved for this stack.
    }
  }
  return removed;
}

function main() {
  const [command, ...rest] = process.argv.slice(2);
  if (!COMMANDS.has(command)) {
    console.error(`cdktf-loop: expected one of ${[...COMMANDS].join(', ')}, got ${command === undefined ? 'nothing' : JSON.stringify(command)}`);
    process.exit(2);
  }
  const out = outputDir(rest, process.cwd());
  // npm run puts node_modules/.bin on PATH; Windows runs cdktf through its .cmd shim.
  const child = spawn('cdktf', [command, '--skip-provider-lock', ...rest], { stdio: 'inherit', shell: process.platform === 'win32' });
  // Ctrl-C reaches cdktf through the terminal's process group; this process waits for it to end.
  const ignore = () => undefined;
  process.on('SIGINT', ignore);
  process.on('SIGTERM', () => child.kill('SIGTERM'));
  child.on('error', (err) => {
    console.error(`cdktf-loop: cannot run cdktf: ${err.message}`);
    process.exit(1);
  });
  child.on('exit', (code, signal) => {
    for (const plan of removeSavedPlans(out))
      console.error(`cdktf-loop: removed the saved plan ${path.relative(process.cwd(), plan)} (it holds secrets in clear)`);
    process.exit(code ?? (signal === null ? 1 : 128 + (os.constants.signals[signal] ?? 0)));
  });
}

if (require.main === module) main();

module.exports = { outputDir, removeSavedPlans };
