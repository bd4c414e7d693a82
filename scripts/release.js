#!/usr/bin/env node
'use strict';
// `npm run release`: the provider's release artifacts, shaped like a registry provider's, in
// dist/release/ (or --out DIR):
//
//   terraform-provider-proxyaccount_<version>_<os>_<arch>.zip   one per platform, the single executable
//                                                              inside as terraform-provider-proxyaccount_v<version>(.exe), mode 0755
//   terraform-provider-proxyaccount_<version>_manifest.json     {"version":1,"metadata":{"protocol_versions":["6.0"]}}
//   proxyaccount-<version>.tgz                                  the CLI's npm package (scripts/pack.js), what the CI templates install
//   terraform-provider-proxyaccount_<version>_SHA256SUMS        sha256sum lines for the zips, the manifest and the tarball
//   terraform-provider-proxyaccount_<version>_SHA256SUMS.sig    detached GPG signature, when PROXYACCOUNT_GPG_KEY_ID is set
//
// The files get mode 0644 and a directory the release makes 0755, whatever the umask: under
// umask 002 they would be group-writable, and `provider install --from` (rightly) refuses such a
// release. The output directory must be a real directory of the user's that nobody else can
// write (src/packaging/private-tree.ts, as for the mirrors): whoever else could write there could
// replace a zip and its SHA256SUMS line before they are signed, or plant a link for the release
// to write through. So must every directory above it be (the user's or root's, writable by nobody
// else unless sticky): whoever could rename its entries could put a directory of their own in
// place of --out while the release writes. gpg signs the SHA256SUMS bytes the release computed
// (on its stdin, never the file by name), and the release ends by checking that --out is still
// the directory it checked and holds exactly the bytes it wrote.
//
// --platform linux_amd64,linux_arm64,... picks platforms (default: every platform scripts/sea.js
// supports by default). Needs `npm run build` first (the npm script does it).
const { execFileSync, spawn } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const yazl = require('yazl');
const { FILE_MODE, confirmOutDir, createStaged, prepareOutDir, writeStaged } = require('./release-out');
const sea = require('./sea');

const ROOT = path.resolve(__dirname, '..');
const TYPE = 'proxyaccount';

function packaging() {
  const file = path.join(ROOT, 'dist', 'packaging', 'index.js');
  if (!fs.existsSync(file)) throw new Error('dist/packaging is missing: run `npm run build` first');
  return require(file);
}

/**
 * The zips' timestamp: SOURCE_DATE_EPOCH when set (reproducible builds), else a fixed date, so
 * the same executable always gives the same zip and the same SHA256SUMS line. The
 * reproducible-builds specification makes the value a non-negative integer, 0 included, and a
 * malformed one an error: a silent fallback would give zips that differ from the build asked for.
 */
function zipDate(env = process.env) {
  const raw = env.SOURCE_DATE_EPOCH;
  if (raw === undefined || raw === '') return new Date(Date.UTC(2020, 0, 1));
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(Number(raw))) {
    throw new Error(
      `SOURCE_DATE_EPOCH=${JSON.stringify(raw)} is not a non-negative integer (seconds since 1970-01-01 UTC); set one, or unset it for the fixed date 2020-01-01`,
    );
  }
  return new Date(Number(raw) * 1000);
}

/**
 * A Date whose local-time fields are `date`'s UTC fields. yazl writes the zip's DOS date and time
 * (which has no time zone) from the local fields, so a build in New York and one in Tokyo made
 * different zips of the same executable. Building the Date from the UTC fields instead
 * (`new Date(y, m, d, h, …)`) would still depend on the zone: a time that a daylight-saving jump
 * skips there moves by an hour.
 */
function utcFieldsDate(date) {
  const d = new Date(date.getTime());
  d.getFullYear = d.getUTCFullYear;
  d.getMonth = d.getUTCMonth;
  d.getDate = d.getUTCDate;
  d.getHours = d.getUTCHours;
  d.getMinutes = d.getUTCMinutes;
  d.getSeconds = d.getUTCSeconds;
  return d;
}

/**
 * DOS dates run from 1980 to 2107. yazl clamps to those years at local midnight, which again
 * depends on the zone: keep a day (more than any zone's offset) inside them.
 */
const DOS_FIRST = Date.UTC(1980, 0, 2);
const DOS_LAST = Date.UTC(2107, 11, 30);

/**
 * Zips one executable as `name` with Unix mode 0755 in the external attributes. The timestamp is
 * the DOS date and time only (`forceDosTimestamp`: no extra field holding Unix time), in UTC.
 * The zip is written to a staged file (mode 0644) and renamed to `zipFile`; resolves with the
 * SHA-256 and size of the bytes written, hashed as they were written, not read back by name.
 */
function zipExecutable(executable, name, zipFile, date = zipDate()) {
  return new Promise((resolve, reject) => {
    const staged = createStaged(zipFile, FILE_MODE);
    const hash = crypto.createHash('sha256');
    let size = 0;
    let failed = false;
    const out = fs.createWriteStream(null, { fd: staged.fd });
    const fail = (err) => {
      if (failed) return;
      failed = true;
      out.destroy();
      staged.discard();
      reject(err);
    };
    out.on('error', fail);
    out.on('close', () => {
      if (failed) return;
      try {
        staged.commit();
      } catch (err) {
        fail(err);
        return;
      }
      resolve({ sha256: hash.digest('hex'), size });
    });
    const zip = new yazl.ZipFile();
    zip.outputStream.on('error', fail);
    zip.outputStream.on('data', (chunk) => {
      hash.update(chunk);
      size += chunk.length;
    });
    zip.outputStream.pipe(out);
    const mtime = utcFieldsDate(new Date(Math.min(Math.max(date.getTime(), DOS_FIRST), DOS_LAST)));
    zip.addFile(executable, name, { mode: 0o100755, mtime, forceDosTimestamp: true, compress: true });
    zip.end();
  });
}

/**
 * gpg's environment: ours without the passphrase and the key id. gpg starts gpg-agent, a daemon
 * that outlives the release, with the environment it was given, and any process of the same user
 * can read a process's environment (/proc/PID/environ): the passphrase goes on the pipe alone.
 */
function gpgEnv(env) {
  const { PROXYACCOUNT_GPG_PASSPHRASE: _passphrase, PROXYACCOUNT_GPG_KEY_ID: _keyId, ...rest } = env;
  return rest;
}

/** Runs a GnuPG helper (gpgconf, gpg-connect-agent) quietly; its stdout, or undefined when it fails or is missing. */
function gnupgTool(command, args, env) {
  try {
    return execFileSync(command, args, { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  } catch {
    return undefined;
  }
}

/** Whether a gpg-agent already serves this GNUPGHOME (one we must not stop: it is the user's). */
function agentRunning(env) {
  return /^D \d+/m.test(gnupgTool('gpg-connect-agent', ['--no-autostart', 'GETINFO pid', '/bye'], env) ?? '');
}

/**
 * Leaves no gpg-agent of ours holding anything: one the signing started is stopped (with the
 * passphrase it cached); in one that was already running, the passphrase we gave is cleared from
 * its cache (it would otherwise sign for anyone of the user's until the cache expires).
 */
function releaseAgent(keyId, startedByUs, gavePassphraseTo, env) {
  if (startedByUs) {
    gnupgTool('gpgconf', ['--kill', 'gpg-agent'], env);
    return;
  }
  if (!gavePassphraseTo) return;
  const colons = gnupgTool('gpg', ['--batch', '--with-colons', '--with-keygrip', '--list-secret-keys', keyId], env) ?? '';
  for (const [, grip] of colons.matchAll(/^grp:+([0-9A-F]{40}):/gm)) {
    gnupgTool('gpg-connect-agent', ['--no-autostart', `CLEAR_PASSPHRASE --mode=normal ${grip}`, '/bye'], env);
  }
}

/**
 * Runs gpg with `input` on its stdin and, when given, `passphrase` on descriptor 3 (a pipe: never
 * argv, never the environment); resolves with its stdout, rejects with an error carrying its
 * stderr (or the spawn error's code, ENOENT when gpg is missing).
 */
function runGpg(args, input, passphrase, env) {
  return new Promise((resolve, reject) => {
    const child = spawn('gpg', args, { env, stdio: ['pipe', 'pipe', 'pipe', passphrase === undefined ? 'ignore' : 'pipe'] });
    const out = [];
    const err = [];
    child.stdout.on('data', (c) => out.push(c));
    child.stderr.on('data', (c) => err.push(c));
    // gpg may exit before reading all it was given (a wrong key): its exit status says why.
    child.stdin.on('error', () => {});
    child.stdin.end(input);
    if (passphrase !== undefined) {
      child.stdio[3].on('error', () => {});
      child.stdio[3].end(passphrase);
    }
    child.once('error', reject);
    child.once('close', (code, signal) => {
      if (code === 0) return resolve(Buffer.concat(out));
      const stderr = Buffer.concat(err).toString().trim();
      reject(Object.assign(new Error(stderr || `gpg exited with ${code ?? signal}`), { stderr }));
    });
  });
}

/**
 * Signs SHA256SUMS with the gpg CLI (a binary detached signature, as the registry expects).
 * gpg signs `sums`, the bytes the release computed, given on its stdin: never the file by name,
 * which whoever could change the directory (or a directory above it) could swap before gpg read
 * it. The passphrase, if any, goes to gpg on another pipe (descriptor 3) and is never printed,
 * put in argv or in gpg's environment; no agent is left holding it (releaseAgent). gpg writes the
 * signature to its stdout, and it is staged as `SUMS.sig` (mode 0644), so it too is never
 * written through a link. Resolves with the signature's path and the SHA-256 of its bytes.
 */
async function signSums(sumsFile, sums, keyId, env = process.env) {
  if (!Buffer.isBuffer(sums)) throw new TypeError('signSums needs the bytes of SHA256SUMS to sign (a Buffer)');
  const args = ['--batch', '--local-user', keyId, '--detach-sign', '--output', '-'];
  const passphrase = env.PROXYACCOUNT_GPG_PASSPHRASE;
  if (passphrase !== undefined) args.push('--pinentry-mode', 'loopback', '--passphrase-fd', '3');
  args.push('-');
  const childEnv = gpgEnv(env);
  const startedByUs = !agentRunning(childEnv);
  let signature;
  try {
    signature = await runGpg(args, sums, passphrase, childEnv);
  } catch (err) {
    const detail = err.code === 'ENOENT' ? 'the gpg command is not on PATH' : String(err.stderr || err.message).trim();
    throw new Error(`signing ${path.basename(sumsFile)} with key ${keyId} failed: ${detail}`);
  } finally {
    releaseAgent(keyId, startedByUs, passphrase !== undefined, childEnv);
  }
  if (signature.length === 0) throw new Error(`signing ${path.basename(sumsFile)} with key ${keyId} failed: gpg wrote no signature`);
  const sha256 = writeStaged(`${sumsFile}.sig`, signature);
  return { file: `${sumsFile}.sig`, sha256 };
}

/**
 * Packs the `proxyaccount` npm package (scripts/pack.js) into `outDir` as `proxyaccount-VERSION.tgz`,
 * so that SHA256SUMS, and the signature over it, cover the tarball the CI templates download and
 * check (PROXYACCOUNT_TARBALL_SHA256). Packed in a private temporary directory, then staged into
 * `outDir` (mode 0644). Returns its path, size and the SHA-256 of the bytes written.
 */
function packCli(outDir, version) {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'proxyaccount-release-pack-'));
  try {
    let report;
    try {
      const out = execFileSync(process.execPath, [path.join(__dirname, 'pack.js'), '--out', work, '--json', '--only', 'proxyaccount'], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      [report] = JSON.parse(out);
    } catch (err) {
      throw new Error(`scripts/pack.js failed: ${String(err.stderr || err.message).trim()}`);
    }
    const target = path.join(outDir, `proxyaccount-${version}.tgz`);
    const bytes = fs.readFileSync(report.tarball);
    return { file: target, size: bytes.length, sha256: writeStaged(target, bytes) };
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

/** Builds the release for `platforms` into `outDir`. Returns what was written. */
async function release(opts = {}) {
  const log = opts.log ?? ((s) => process.stderr.write(s));
  const env = opts.env ?? process.env;
  const platforms = opts.platforms ?? sea.DEFAULT_PLATFORMS;
  const outDir = path.resolve(opts.outDir ?? path.join(ROOT, 'dist', 'release'));
  const pkg = packaging();
  const { formatSha256Sums, releaseFileNames, releaseManifest } = pkg;
  const version = require(path.join(ROOT, 'package.json')).version;
  const names = releaseFileNames(TYPE, version);

  const date = zipDate(env);
  const checked = prepareOutDir(outDir, pkg);
  const built = sea.build({ platforms, log });
  // A release directory holds one release: earlier files of this provider would mix in.
  const isReleaseFile = (f) => f.startsWith(`terraform-provider-${TYPE}_`) || /^proxyaccount-.+\.tgz$/.test(f);
  for (const f of fs.readdirSync(outDir)) {
    if (isReleaseFile(f)) fs.rmSync(path.join(outDir, f));
  }
  // And the temporary files a killed release left (ours, of a process that has ended).
  const staleOf = fs
    .readdirSync(outDir)
    .map((f) => /^\.(.+)\.tmp-\d+-[0-9a-f]{12}$/.exec(f)?.[1])
    .filter((f) => f !== undefined && isReleaseFile(f));
  pkg.removeStaleTemps(outDir, staleOf);

  const sums = new Map();
  const archives = [];
  for (const { platform, file, size } of built) {
    const zipName = names.zip(platform);
    const zipFile = path.join(outDir, zipName);
    const { sha256, size: zipSize } = await zipExecutable(file, names.executable(platform), zipFile, date);
    sums.set(zipName, sha256);
    archives.push({ platform, zip: zipFile, executableSize: size, zipSize });
    log(`release: ${zipName} (executable ${(size / 1e6).toFixed(1)} MB, zip ${(zipSize / 1e6).toFixed(1)} MB)\n`);
  }
  const manifestFile = path.join(outDir, names.manifest);
  sums.set(names.manifest, writeStaged(manifestFile, Buffer.from(releaseManifest())));
  const packed = packCli(outDir, version);
  const tarball = packed.file;
  sums.set(path.basename(tarball), packed.sha256);
  log(`release: ${path.basename(tarball)} (the CLI's npm package, ${(packed.size / 1e6).toFixed(1)} MB)\n`);
  const sumsFile = path.join(outDir, names.sums);
  const sumsBytes = Buffer.from(formatSha256Sums(sums));
  const written = new Map([...sums, [names.sums, writeStaged(sumsFile, sumsBytes)]]);

  let signature;
  const keyId = env.PROXYACCOUNT_GPG_KEY_ID;
  if (keyId) {
    const signed = await signSums(sumsFile, sumsBytes, keyId, env);
    signature = signed.file;
    written.set(path.basename(signature), signed.sha256);
    log(`release: signed ${names.sums} with key ${keyId} → ${path.basename(signature)}\n`);
  } else {
    log(`release: skipped signing: PROXYACCOUNT_GPG_KEY_ID is not set, so no ${names.signature} was written (a registry needs one)\n`);
  }
  const darwin = built.filter((b) => b.platform.startsWith('darwin_')).map((b) => names.zip(b.platform));
  if (darwin.length > 0) {
    log(
      `release: ${darwin.join(', ')}: the macOS executables' signatures are invalid after injection; on a Mac, unzip, ` +
        '`codesign --force --sign -` the executable, zip it again with mode 0755 and remake SHA256SUMS before publishing (docs/release.md)\n',
    );
  }
  confirmOutDir(outDir, checked, written);
  log(`release: wrote ${path.relative(process.cwd(), outDir) || '.'}/ (${archives.length} platform${archives.length === 1 ? '' : 's'}, version ${version})\n`);
  return { outDir, version, archives, sums: sumsFile, manifest: manifestFile, tarball, signature };
}

/** Reads `--platform a,b` (repeatable) and `--out DIR`. */
function parseArgs(argv) {
  const platforms = [];
  let outDir;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = () => {
      if (argv[i + 1] === undefined) throw new Error(`${arg} needs a value`);
      return argv[++i];
    };
    if (arg === '--platform') platforms.push(value());
    else if (arg.startsWith('--platform=')) platforms.push(arg.slice('--platform='.length));
    else if (arg === '--out') outDir = value();
    else if (arg.startsWith('--out=')) outDir = arg.slice('--out='.length);
    else throw new Error(`unknown argument ${arg}; usage: release.js [--platform linux_amd64,linux_arm64,...] [--out DIR]`);
  }
  return { platforms: platforms.length > 0 ? sea.parsePlatforms(platforms) : undefined, outDir };
}

module.exports = { release, signSums, zipExecutable, zipDate, parseArgs, prepareOutDir, confirmOutDir };
if (require.main === module) {
  (async () => {
    await release(parseArgs(process.argv.slice(2)));
  })().catch((err) => {
    console.error(`release: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  });
}
