#!/usr/bin/env node
// `npm test`: the build, then the checks (lint, layer rules and the type check, one after the
// other) beside the construct tests, then every jest suite of test/ with two workers. The checks
// and the construct tests spend most of their time on one core each (biome, tsc, jsii, a jest
// worker), so running them side by side takes the time of the longer instead of the sum; each
// one's output is printed whole when it ends, never interleaved. Any failure stops the run before
// the jest suites. Arguments go to that last jest run (`npm test -- test/sdk`).
'use strict';
const { spawn } = require('node:child_process');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const npm = process.env.npm_execpath;

/** `npm run SCRIPT --silent` with this npm when npm started us, else the one on PATH. */
function npmRun(script) {
  const args = ['run', script, '--silent'];
  return npm ? [process.execPath, [npm, ...args]] : ['npm', args];
}

/** Runs a command; resolves with its exit code, and its output when `capture` (stdout and stderr in order). */
function run([command, args], capture) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: root, stdio: capture ? ['ignore', 'pipe', 'pipe'] : 'inherit' });
    const chunks = [];
    if (capture) {
      child.stdout.on('data', (c) => chunks.push(c));
      child.stderr.on('data', (c) => chunks.push(c));
    }
    child.on('error', (err) => resolve({ code: 1, output: Buffer.from(`${command}: ${err.message}\n`) }));
    child.on('close', (code, signal) => resolve({ code: code ?? (signal ? 1 : 0), output: Buffer.concat(chunks) }));
  });
}

/** Runs scripts one after the other, stopping at the first failure; the output of all of them. */
async function sequence(scripts) {
  const outputs = [];
  for (const script of scripts) {
    const { code, output } = await run(npmRun(script), true);
    outputs.push(output);
    if (code !== 0) return { code, failed: script, output: Buffer.concat(outputs) };
  }
  return { code: 0, output: Buffer.concat(outputs) };
}

async function main() {
  const build = await run(npmRun('build'), false);
  if (build.code !== 0) return build.code;

  process.stderr.write('npm test: lint, layer rules and type check, beside the construct tests (cdktf and cdktn); output follows as each ends\n');
  const report = (title) => (result) => {
    process.stdout.write(result.output);
    if (result.code !== 0) process.stderr.write(`npm test: ${title} failed${result.failed ? ` (npm run ${result.failed})` : ''}\n`);
    return result.code;
  };
  const codes = await Promise.all([
    sequence(['lint', 'typecheck']).then(report('the checks')),
    sequence(['test:constructs']).then(report('the construct tests')),
  ]);
  if (codes.some((c) => c !== 0)) return 1;

  const jest = path.join(root, 'node_modules', 'jest', 'bin', 'jest.js');
  return (await run([process.execPath, [jest, '--maxWorkers=2', ...process.argv.slice(2)]], false)).code;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(`npm test: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
