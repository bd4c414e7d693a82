#!/usr/bin/env node
// `npm run package`: jsii-pacmak for every target that can be produced offline on this machine,
// into dist/. Run `npm run build` first (it writes the .jsii assembly pacmak reads).
//
//   js      full package (dist/js/*.jsii.tgz)                       always
//   python  sources (dist/python), then a wheel + sdist in          best effort: pacmak's own build
//           dist/python-dist when a local Python can build one      pins setuptools from PyPI
//           without the network
//   java, dotnet, go  generated sources only (--code-only)          their builds need Maven Central,
//                                                                   the dotnet SDK, the Go proxy
//   cdktn   the CDK Terrain package's npm tarball (dist/cdktn/js)   after `npm run build:cdktn`
'use strict';

const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const DIST = path.join(ROOT, 'dist');
const PACMAK = path.join(ROOT, 'node_modules', '.bin', 'jsii-pacmak');
// jsii prints a banner on Node releases it no longer supports; the build itself is unaffected.
const ENV = { ...process.env, JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION: '20,' + (process.env.JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION ?? '') };

function run(command, args, options = {}) {
  const result = spawnSync(command, args, { cwd: ROOT, env: ENV, encoding: 'utf8', ...options });
  return { ok: result.status === 0, output: `${result.stdout ?? ''}${result.stderr ?? ''}`, error: result.error };
}

function step(label, fn) {
  process.stdout.write(`- ${label} ... `);
  const outcome = fn();
  process.stdout.write(`${outcome}\n`);
  return outcome;
}

function buildPythonWheel(sourceDir, outDir) {
  const python = process.platform === 'win32' ? 'python' : 'python3';
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'proxyaccount-wheel-'));
  try {
    if (!run(python, ['-m', 'venv', path.join(work, 'venv')]).ok) return 'skipped (no python3 venv)';
    const venvPython = path.join(work, 'venv', 'bin', 'python');
    // No retries: an unreachable index fails at once; a local index or wheel cache (pip config)
    // may still provide the build tools.
    const install = run(venvPython, ['-m', 'pip', 'install', '--quiet', '--retries', '0', '--timeout', '5', 'setuptools>=75', 'build', 'wheel']);
    if (!install.ok) return 'skipped (setuptools/build not installable offline)';
    const copy = path.join(work, 'src');
    fs.cpSync(sourceDir, copy, { recursive: true });
    // pacmak's pyproject pins a setuptools release from PyPI; build with the local one instead.
    const built = run(venvPython, ['-m', 'build', '--no-isolation', '--skip-dependency-check', '--wheel', '--sdist', '--outdir', outDir], { cwd: copy });
    if (!built.ok) return `failed:\n${built.output.split('\n').slice(-8).join('\n')}`;
    return `ok (dist/python-dist: ${fs.readdirSync(outDir).join(', ')})`;
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

function main() {
  if (!fs.existsSync(path.join(ROOT, '.jsii'))) {
    process.stderr.write('package: no .jsii assembly; run `npm run build` first\n');
    process.exit(1);
  }
  fs.rmSync(DIST, { recursive: true, force: true });
  const results = {};
  results.js = step('js (npm tarball)', () => {
    const r = run(PACMAK, ['--targets', 'js', '--outdir', DIST]);
    return r.ok ? `ok (${fs.readdirSync(path.join(DIST, 'js')).join(', ')})` : `failed:\n${r.output}`;
  });
  results.sources = step('python, java, dotnet, go sources (--code-only)', () => {
    const r = run(PACMAK, ['--code-only', '--targets', 'python,java,dotnet,go', '--outdir', DIST]);
    return r.ok ? 'ok (dist/python, dist/java, dist/dotnet, dist/go)' : `failed:\n${r.output}`;
  });
  if (results.sources.startsWith('ok')) {
    results.python = step('python wheel + sdist', () => buildPythonWheel(path.join(DIST, 'python'), path.join(DIST, 'python-dist')));
  }
  // The CDK Terrain build (cdktn-provider-proxyaccount), from the assembly `npm run build:cdktn` made.
  results.cdktn = step('cdktn js (npm tarball)', () => {
    if (!fs.existsSync(path.join(ROOT, 'cdktn', '.jsii'))) return 'skipped (no cdktn/.jsii: run `npm run build:cdktn` first)';
    const r = run(PACMAK, ['cdktn', '--targets', 'js', '--outdir', path.join(DIST, 'cdktn')]);
    return r.ok ? `ok (dist/cdktn/js: ${fs.readdirSync(path.join(DIST, 'cdktn', 'js')).join(', ')})` : `failed:\n${r.output}`;
  });
  const failed = Object.values(results).some((r) => r.startsWith('failed'));
  process.exit(failed ? 1 : 0);
}

main();
