// Builds a release (linux_amd64 and linux_arm64) once per content of what goes into it, shared by
// every test file and every run until the bundle or the scripts change: a release takes about
// 20 s and two cores, so suites must not each make their own. The cross platform's Node binary
// comes from the npm registry the first time (cached by scripts/sea.js, see docs/release.md).
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export const ROOT = path.resolve(__dirname, '..', '..', '..');
export const VERSION = (JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
/** The platforms of the shared release: this machine's and one it cannot run. */
export const RELEASE_PLATFORMS = ['linux_amd64', 'linux_arm64'] as const;
/** The umask the shared release is made under (see runRelease). */
export const RELEASE_UMASK = 0o002;

/** A finished release directory and what `scripts/release.js` printed while making it. */
export interface BuiltRelease {
  readonly dir: string;
  readonly log: string;
}

const INPUTS = [
  'dist/provider/terraform-provider-proxyaccount',
  'dist/packaging/index.js',
  'scripts/sea.js',
  'scripts/release.js',
  'scripts/pack.js',
  'package.json',
];

function cacheKey(): string {
  const hash = createHash('sha256').update(process.version).update(RELEASE_PLATFORMS.join(',')).update(String(RELEASE_UMASK));
  for (const rel of INPUTS) {
    const file = path.join(ROOT, rel);
    if (!fs.existsSync(file)) throw new Error(`${rel} is missing: run \`npm run build\` before the release tests`);
    hash.update(rel).update(fs.readFileSync(file));
  }
  return hash.digest('hex').slice(0, 16);
}

/**
 * The release is made under umask 002, as Debian's, Ubuntu's and Fedora's users have it (user
 * private groups): its files must still get the modes the script sets (0644, a directory 0755),
 * which `provider install --from` requires.
 */
function runRelease(outDir: string): Promise<string> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.PROXYACCOUNT_GPG_KEY_ID;
  delete env.PROXYACCOUNT_GPG_PASSPHRASE;
  return new Promise((resolve, reject) => {
    execFile(
      'sh',
      [
        '-c',
        `umask ${RELEASE_UMASK.toString(8).padStart(3, '0')} && exec "$0" "$@"`,
        process.execPath,
        path.join(ROOT, 'scripts', 'release.js'),
        '--platform',
        RELEASE_PLATFORMS.join(','),
        '--out',
        outDir,
      ],
      { cwd: ROOT, env, maxBuffer: 16 * 1024 * 1024, timeout: 300_000 },
      (err, stdout, stderr) => (err ? reject(new Error(`scripts/release.js failed: ${err.message}\n${stderr}`)) : resolve(`${stdout}${stderr}`)),
    );
  });
}

/** Removes releases of earlier bundles (about 70 MB each) unless one is being built. */
function pruneOthers(base: string, keep: string): void {
  const names = fs.readdirSync(base);
  for (const name of names) {
    const key = name.replace(/\.(log|lock|tmp-\d+)$/, '');
    if (key === keep || names.includes(`${key}.lock`)) continue;
    fs.rmSync(path.join(base, name), { recursive: true, force: true });
  }
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * The shared release, built by the first caller (across jest workers: a lock directory) and then
 * reused. A lock older than 10 minutes is taken over: its builder died.
 */
export async function sharedRelease(): Promise<BuiltRelease> {
  const base = path.join(os.tmpdir(), 'proxyaccount-release-cache');
  const dir = path.join(base, cacheKey());
  const logFile = `${dir}.log`;
  const lock = `${dir}.lock`;
  fs.mkdirSync(base, { recursive: true });
  for (;;) {
    if (fs.existsSync(dir) && fs.existsSync(logFile)) return { dir, log: fs.readFileSync(logFile, 'utf8') };
    try {
      fs.mkdirSync(lock);
    } catch {
      const held = fs.statSync(lock, { throwIfNoEntry: false });
      if (held && Date.now() - held.mtimeMs > 600_000) fs.rmSync(lock, { recursive: true, force: true });
      await sleep(500);
      continue;
    }
    try {
      const tmp = `${dir}.tmp-${process.pid}`;
      fs.rmSync(tmp, { recursive: true, force: true });
      const log = await runRelease(tmp);
      fs.rmSync(dir, { recursive: true, force: true });
      fs.renameSync(tmp, dir);
      fs.writeFileSync(logFile, log);
      pruneOthers(base, path.basename(dir));
      return { dir, log };
    } finally {
      fs.rmSync(lock, { recursive: true, force: true });
    }
  }
}

/** Runs `node bin/proxyaccount.js ARGS` (the built CLI); never throws on the exit code. */
export function runCli(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [path.join(ROOT, 'bin', 'proxyaccount.js'), ...args], { cwd: ROOT, env, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (err && typeof (err as NodeJS.ErrnoException).code === 'string') return reject(err);
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout: String(stdout), stderr: String(stderr) });
    });
  });
}
