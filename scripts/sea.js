#!/usr/bin/env node
'use strict';
// Builds the provider as a single executable (Node's single-executable applications) for this
// machine's platform: the bundled provider (dist/provider, made by `npm run build`) as the SEA
// blob, with V8's code cache so the script is not compiled at each start, injected with postject
// into a copy of the running Node binary. Runners then need Terraform only, not Node.
//
//   npm run build:sea      → dist/sea/<os>_<arch>/terraform-provider-proxyaccount
//
// Only the running platform is built: the blob and its code cache must come from the same Node
// version as the binary they are injected into (see docs/release.md for other platforms).
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
// The plain bundle (the executable script form is the same bundle behind a code-cache launcher).
const BUNDLE = path.join(ROOT, 'dist', 'provider', 'bundle.js');
const FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';

/** Terraform's name for this platform, e.g. linux_amd64. */
function platform() {
  const arch = { x64: 'amd64', arm64: 'arm64' }[process.arch];
  const osName = { linux: 'linux', darwin: 'darwin', win32: 'windows' }[process.platform];
  if (arch === undefined || osName === undefined) throw new Error(`no single executable for ${process.platform}/${process.arch}`);
  return `${osName}_${arch}`;
}

function build() {
  if (!fs.existsSync(BUNDLE)) throw new Error(`${path.relative(ROOT, BUNDLE)} is missing: run \`npm run build\` first`);
  const outDir = path.join(ROOT, 'dist', 'sea', platform());
  fs.mkdirSync(outDir, { recursive: true });
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'proxyaccount-sea-'));
  try {
    const blob = path.join(work, 'prep.blob');
    const config = path.join(work, 'sea-config.json');
    fs.writeFileSync(config, JSON.stringify({ main: BUNDLE, output: blob, disableExperimentalSEAWarning: true, useCodeCache: true }));
    execFileSync(process.execPath, ['--experimental-sea-config', config], { stdio: ['ignore', 'ignore', 'inherit'] });
    const exe = path.join(outDir, `terraform-provider-proxyaccount${process.platform === 'win32' ? '.exe' : ''}`);
    const tmp = `${exe}.tmp-${process.pid}`;
    fs.copyFileSync(process.execPath, tmp);
    fs.chmodSync(tmp, 0o755);
    const postject = require.resolve('postject/dist/cli.js');
    const args = [postject, tmp, 'NODE_SEA_BLOB', blob, '--sentinel-fuse', FUSE];
    if (process.platform === 'darwin') args.push('--macho-segment-name', 'NODE_SEA');
    execFileSync(process.execPath, args, { stdio: ['ignore', 'ignore', 'inherit'] });
    fs.renameSync(tmp, exe);
    process.stderr.write(`sea: wrote ${path.relative(ROOT, exe)} (${(fs.statSync(exe).size / 1e6).toFixed(1)} MB, Node ${process.version})\n`);
    return exe;
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

module.exports = { build, platform };
if (require.main === module) {
  try {
    build();
  } catch (err) {
    console.error(`sea: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  }
}
