#!/usr/bin/env node
// Installs a packed tarball into an empty folder without the network, from the npm cache that
// `npm ci` filled: `npm install --offline --no-audit --no-fund <tarball>`.
//
//   node scripts/offline-install.js <tarball> <dir> [--ignore-scripts --native-from-repo]
//
// Why the folder is seeded with a lockfile: `npm ci` caches the registry's abbreviated metadata
// (and the tarballs), but npm 11 resolves a dependency that no lockfile pins with the full
// metadata, which that cache does not hold, so a bare offline install fails with ENOTCACHED even
// for undici. The seed lockfile offers every runtime package the repository's package-lock.json
// pins (undici, better-sqlite3, gRPC, commander, ...); npm resolves the tarball's dependencies
// against it and prunes whatever the tarball does not need, so the installed tree is still the
// one the tarball's package.json asks for.
//
// --ignore-scripts --native-from-repo: skip install scripts (better-sqlite3 compiles SQLite for
// a minute or more without the network) and copy the repository's already built native addon
// (build/Release/*.node of the same package version) into the installed package instead.
//
// The install happens in a temporary sibling of <dir> (`.<dir>.tmp-XXXXXX`), renamed to <dir> once
// it succeeded: a failed install leaves nothing behind, so a retry is not refused as "not empty".
// <dir> ends with the mode a plain mkdir gives it (0777 less the umask), or, when it existed
// (empty), the mode it had: other users (a benchmark or test run under another uid) may read it.
'use strict';
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

const ROOT = path.resolve(__dirname, '..');

/** Thrown for a clear failure; main's caller prints it after the temporary folder is removed. */
function fail(message) {
  throw new Error(message);
}

/** A lockfile for an empty project whose packages are the repository's runtime ones. */
function seedLockfile(name) {
  const lock = JSON.parse(fs.readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8'));
  const packages = { '': { name, version: '1.0.0' } };
  for (const [location, entry] of Object.entries(lock.packages)) {
    if (location.startsWith('node_modules/') && !entry.dev && !entry.link) packages[location] = entry;
  }
  return { name, version: '1.0.0', lockfileVersion: 3, requires: true, packages };
}

/** Copies build/Release/*.node of the repository's copy of each installed package that has one. */
function copyNativeAddons(dir) {
  const copied = [];
  const lock = JSON.parse(fs.readFileSync(path.join(dir, 'package-lock.json'), 'utf8'));
  for (const [location, entry] of Object.entries(lock.packages)) {
    if (!entry.hasInstallScript || !location.startsWith('node_modules/')) continue;
    const built = path.join(ROOT, location, 'build', 'Release');
    if (!fs.existsSync(built)) continue; // an install script that builds nothing native
    const repoVersion = JSON.parse(fs.readFileSync(path.join(ROOT, location, 'package.json'), 'utf8')).version;
    if (repoVersion !== entry.version) fail(`${location} is ${entry.version} here but ${repoVersion} in the repository: cannot reuse its native build`);
    const target = path.join(dir, location, 'build', 'Release');
    fs.mkdirSync(target, { recursive: true });
    for (const file of fs.readdirSync(built).filter((f) => f.endsWith('.node'))) {
      fs.copyFileSync(path.join(built, file), path.join(target, file));
      copied.push(path.join(location, 'build', 'Release', file));
    }
  }
  return copied;
}

/** Checks the arguments: the tarball a regular file, <dir> missing or an empty directory (returned, as its lstat). */
function checkArgs(tarball, dir) {
  if (!tarball || !dir) fail('usage: offline-install.js <tarball> <dir> [--ignore-scripts --native-from-repo]');
  const st = fs.statSync(tarball, { throwIfNoEntry: false });
  if (st === undefined) fail(`${tarball} does not exist`);
  if (!st.isFile()) fail(`${tarball} is not a regular file: give the .tgz that scripts/pack.js wrote`);
  const existing = fs.lstatSync(dir, { throwIfNoEntry: false });
  if (existing !== undefined && !existing.isDirectory()) fail(`${dir} is not a directory`);
  if (existing !== undefined && fs.readdirSync(dir).length > 0) fail(`${dir} is not empty`);
  return existing;
}

/**
 * Makes the temporary sibling with a plain mkdir (its mode 0777 less the umask, what <dir> would
 * have got), not mkdtemp, whose 0700 the rename would hand on to <dir>. mkdir fails on a name that
 * exists, so the folder is new; a collision draws another name.
 */
function makeWorkDir(target) {
  for (;;) {
    const work = path.join(path.dirname(target), `.${path.basename(target)}.tmp-${crypto.randomBytes(6).toString('hex')}`);
    try {
      fs.mkdirSync(work);
      return work;
    } catch (err) {
      if (err.code !== 'EEXIST') throw err;
    }
  }
}

/** Installs the tarball into `work` (seed files, npm install --offline, native addons). */
function installInto(work, tarball, argv) {
  fs.writeFileSync(path.join(work, 'package.json'), `${JSON.stringify({ name: 'offline-install', version: '1.0.0', private: true }, null, 2)}\n`);
  fs.writeFileSync(path.join(work, 'package-lock.json'), `${JSON.stringify(seedLockfile('offline-install'), null, 2)}\n`);
  const args = ['install', '--offline', '--no-audit', '--no-fund', '--loglevel=error'];
  if (argv.includes('--ignore-scripts')) args.push('--ignore-scripts');
  args.push(path.resolve(tarball));
  const npm = spawnSync('npm', args, { cwd: work, encoding: 'utf8' });
  if (npm.status !== 0) {
    const notCached = /ENOTCACHED|only-if-cached/.test(npm.stderr);
    const missing = /request to https?:\/\/[^/\s]+\/(\S+?) failed/.exec(npm.stderr)?.[1];
    const what = missing ? `${decodeURIComponent(missing)}, a dependency of ${path.basename(tarball)},` : `a dependency of ${path.basename(tarball)}`;
    fail(
      notCached
        ? `${what} is not in the npm cache (run \`npm ci\` in the repository with the network first; this install never downloads):\n${npm.stderr}`
        : `npm ${args.join(' ')} failed (exit ${npm.status ?? npm.error?.message}):\n${npm.stderr}`,
    );
  }
  return argv.includes('--native-from-repo') ? copyNativeAddons(work) : [];
}

function main(argv) {
  const [tarball, dir] = argv.filter((a) => !a.startsWith('--'));
  const existing = checkArgs(tarball, dir);
  const target = path.resolve(dir);
  fs.mkdirSync(path.dirname(target), { recursive: true });
  // A sibling: the same file system, so the rename is atomic, and the tarball's relative
  // `file:` path that npm records is the same from <dir>.
  const work = makeWorkDir(target);
  try {
    const copied = installInto(work, tarball, argv);
    if (existing !== undefined) {
      // The folder we were given keeps its mode (its owner and ACL are not carried over).
      fs.chmodSync(work, existing.mode & 0o7777);
      fs.rmdirSync(target);
    }
    fs.renameSync(work, target);
    process.stdout.write(`${JSON.stringify({ dir: target, nativeAddonsCopied: copied })}\n`);
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

try {
  main(process.argv.slice(2));
} catch (err) {
  console.error(`offline-install: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
}
