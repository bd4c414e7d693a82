'use strict';
// Install time and size of each package `npm run pack` makes: packs them, then installs each
// tarball into an empty folder from the npm cache (scripts/offline-install.js, install scripts
// run, so better-sqlite3 builds from source as it would on a machine without its prebuilt
// binary) and reports the wall time, the size of node_modules and how many packages it holds
// (the package itself included).
//
//   npm run build && node bench/install-size.js [--skip-full]

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const { ROOT, requireBuild } = require('./lib');

function duBytes(dir) {
  let total = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) total += duBytes(p);
    else if (entry.isFile()) total += fs.statSync(p).size;
  }
  return total;
}

/** Installed packages: every folder holding a package.json directly under a node_modules. */
function countPackages(nodeModules) {
  let n = 0;
  for (const entry of fs.readdirSync(nodeModules, { withFileTypes: true })) {
    if (!entry.isDirectory() || entry.name.startsWith('.')) continue;
    const dirs = entry.name.startsWith('@') ? fs.readdirSync(path.join(nodeModules, entry.name)).map((s) => path.join(entry.name, s)) : [entry.name];
    for (const d of dirs) {
      const p = path.join(nodeModules, d);
      if (fs.existsSync(path.join(p, 'package.json'))) n++;
      if (fs.existsSync(path.join(p, 'node_modules'))) n += countPackages(path.join(p, 'node_modules'));
    }
  }
  return n;
}

function main() {
  requireBuild('install-size', ['dist/index.js', 'dist/provider/terraform-provider-proxyaccount']);
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'proxyaccount-install-size-'));
  try {
    const packed = JSON.parse(
      execFileSync('node', [path.join(ROOT, 'scripts', 'pack.js'), '--out', path.join(work, 'packed'), '--json'], { encoding: 'utf8' }),
    );
    const rows = [];
    for (const p of packed) {
      if (process.argv.includes('--skip-full') && p.name === 'proxyaccount') continue;
      const dir = path.join(work, 'install', p.name.replace('/', '+'));
      const start = process.hrtime.bigint();
      execFileSync('node', [path.join(ROOT, 'scripts', 'offline-install.js'), p.tarball, dir], { stdio: ['ignore', 'ignore', 'inherit'] });
      const seconds = Number(process.hrtime.bigint() - start) / 1e9;
      const nodeModules = path.join(dir, 'node_modules');
      const diskMb = Number(execFileSync('du', ['-sk', nodeModules], { encoding: 'utf8' }).split('\t')[0]) / 1024;
      rows.push({ name: p.name, tarballKiB: p.size / 1024, seconds, mb: duBytes(nodeModules) / 1e6, diskMb, packages: countPackages(nodeModules) });
      console.error(`${p.name}: ${seconds.toFixed(1)} s`);
    }
    console.log('| Package | tarball | install time | node_modules (sum of file sizes) | node_modules on disk (`du -sk`) | packages installed |');
    console.log('|---|---:|---:|---:|---:|---:|');
    for (const r of rows) {
      console.log(
        `| \`${r.name}\` | ${r.tarballKiB.toFixed(0)} KiB | ${r.seconds.toFixed(1)} s | ${r.mb.toFixed(1)} MB | ${r.diskMb.toFixed(1)} MiB | ${r.packages} |`,
      );
    }
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

main();
