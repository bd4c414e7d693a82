// Runs the CI templates under examples/ci the way a fresh hosted runner would, without Docker:
// each job gets a new HOME, workspace and temp directory, its `run:` / `script:` lines run in
// order with bash, and it keeps between runs only what the template itself caches (actions/cache,
// GitLab `cache:`) or passes on as artifacts. Steps that only talk to GitHub or GitLab
// (actions/github-script) are skipped; GitLab's API is a local stand-in (fake-forge.ts).
//
// The install step runs as written (curl of the pinned tarball, sha256sum -c, tar, npm ci of the
// unpacked release) with the tarball pointed at this build as scripts/pack.js packs it; `npm` is a
// stand-in that refuses, as npm ci does, a package without a lockfile matching its package.json,
// links this checkout's node_modules instead of downloading (no registry, no native build) and
// records the environment it saw. test/gitops/pinned-install.test.ts runs the real npm ci.
import { execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

export const ROOT = path.resolve(__dirname, '..', '..');

/** What persists across runs, as on a hosted CI service: caches and artifacts, nothing else. */
export interface Service {
  /** Holds one directory per cache key (GitHub) or cache name (GitLab). */
  readonly caches: string;
  /** Holds one directory per artifact name (GitHub) or job (GitLab). */
  readonly artifacts: string;
  /** Variables every job gets (runner- or organisation-level settings, e.g. a CA file). */
  readonly runnerEnv: Readonly<Record<string, string>>;
  /** Repository / project secrets by name: every job gets them. */
  readonly secrets: Readonly<Record<string, string>>;
  /**
   * Secrets of each environment by its name, given only to a job that names the environment
   * (GitHub environment secrets; GitLab variables scoped to the environment). @default none
   */
  readonly environments?: Readonly<Record<string, Readonly<Record<string, string>>>>;
  /** GitLab's protected variables: only a pipeline whose CI_COMMIT_REF_PROTECTED is "true" gets them. @default none */
  readonly protectedSecrets?: Readonly<Record<string, string>>;
  /** The checked-out repository (copied into each job's workspace). */
  readonly repository: string;
  /** Where the npm stand-in writes the environment each install saw. */
  readonly installLog: string;
  /** Directory holding the `npm` stand-in (put first on PATH). */
  readonly shims: string;
}

/** The outcome of one job. */
export interface JobResult {
  readonly ok: boolean;
  /** Each step or line that ran, with its output. */
  readonly log: string;
  /** The job's workspace, for inspection. */
  readonly workspace: string;
  /** The job's `outputs` as evaluated at its end (GitHub; none when the job was skipped). */
  readonly outputs?: Readonly<Record<string, string>>;
}

/**
 * How a runner differs from the default one (umask 022, a workspace of the job's user): what some
 * real runners do by default.
 */
export interface RunnerQuirks {
  /**
   * The umask the job's scripts run under, the workspace then made with the mode it leaves of
   * 0777: GitLab's docker and kubernetes executors clone and run under umask 0000, so
   * CI_PROJECT_DIR is writable by everyone.
   */
  readonly umask?: number;
  /**
   * The owner given to the workspace and the temp directory (a test running as root only): a
   * GitHub `container:` job runs as root in directories of the runner's user (uid 1001).
   */
  readonly owner?: number;
}

let runCounter = 0;

/** A fresh machine: HOME, workspace and temp directory, all new. */
export function freshRunner(base: string, quirks: RunnerQuirks = {}): { home: string; workspace: string; temp: string } {
  const dir = fs.mkdtempSync(path.join(base, `runner-${++runCounter}-`));
  const home = path.join(dir, 'home');
  const workspace = path.join(dir, 'work');
  const temp = path.join(dir, 'tmp');
  for (const d of [home, workspace, temp]) fs.mkdirSync(d, { recursive: true });
  if (quirks.umask !== undefined) fs.chmodSync(workspace, 0o777 & ~quirks.umask);
  if (quirks.owner !== undefined) for (const d of [workspace, temp]) fs.chownSync(d, quirks.owner, quirks.owner);
  return { home, workspace, temp };
}

/** The system PATH with the `npm` stand-in first. */
function pathFor(service: Service): string {
  return [service.shims, process.env.PATH ?? ''].join(path.delimiter);
}

/**
 * Runs one bash script (under `umask` when given); resolves with its exit code and output. Asynchronous: the emulator's log
 * and the fake forge live in this process and must keep answering while the script runs.
 */
export function bash(script: string, cwd: string, env: Record<string, string>, umask?: number): Promise<{ code: number; output: string }> {
  const body = umask === undefined ? script : `umask ${umask.toString(8).padStart(4, '0')}\n${script}`;
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', body], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code: code ?? 1, output }));
  });
}

/** Copies `from` (file or directory) to `to`, creating parents. */
export function copy(from: string, to: string): void {
  fs.mkdirSync(path.dirname(to), { recursive: true });
  fs.cpSync(from, to, { recursive: true });
}

/** The base environment of a job: no variable of the test process leaks in. */
export function baseEnv(service: Service, runner: { home: string; temp: string }): Record<string, string> {
  return { PATH: pathFor(service), HOME: runner.home, CI: 'true', LANG: 'C.UTF-8', ...service.runnerEnv, PROXYACCOUNT_TEST_TMP: runner.temp };
}

/** The `npm` stand-in and the fake-install log location. */
export function writeShims(dir: string, installLog: string): void {
  fs.mkdirSync(dir, { recursive: true });
  const npm = path.join(dir, 'npm');
  fs.writeFileSync(
    npm,
    `#!${process.execPath}
// Test stand-in for npm: only "npm ci --prefix DIR --omit=dev --ignore-scripts ..." of this build,
// with the checkout's node_modules. Records which variables it was given.
const fs = require('node:fs');
const path = require('node:path');
const args = process.argv.slice(2);
fs.appendFileSync(${JSON.stringify(installLog)}, JSON.stringify({ args, env: Object.keys(process.env) }) + '\\n');
const prefix = args.includes('--prefix') ? args[args.indexOf('--prefix') + 1] : undefined;
if (args[0] !== 'ci' || !prefix || !args.includes('--omit=dev') || !args.includes('--ignore-scripts')) {
  console.error('npm stand-in: unexpected command: npm ' + args.join(' '));
  process.exit(1);
}
// As npm ci: only from a lockfile, and only one that matches package.json.
const manifest = JSON.parse(fs.readFileSync(path.join(prefix, 'package.json'), 'utf8'));
const lockFile = path.join(prefix, 'npm-shrinkwrap.json');
if (!fs.existsSync(lockFile)) {
  console.error('npm stand-in: npm ci can only install with an existing package-lock.json or npm-shrinkwrap.json');
  process.exit(1);
}
const locked = JSON.parse(fs.readFileSync(lockFile, 'utf8')).packages[''].dependencies;
if (JSON.stringify(locked) !== JSON.stringify(manifest.dependencies)) {
  console.error('npm stand-in: npm-shrinkwrap.json does not match package.json');
  process.exit(1);
}
fs.rmSync(path.join(prefix, 'node_modules'), { recursive: true, force: true });
fs.symlinkSync(${JSON.stringify(path.join(ROOT, 'node_modules'))}, path.join(prefix, 'node_modules'));
`,
    { mode: 0o755 },
  );
}

/** The proxyaccount tarball of this build, as scripts/pack.js packs it for a release. */
export function packThisBuild(dir: string): string {
  const out = execFileSync(process.execPath, [path.join(ROOT, 'scripts', 'pack.js'), '--out', dir, '--json'], { encoding: 'utf8' });
  const packed = JSON.parse(out) as Array<{ name: string; tarball: string }>;
  const cli = packed.find((p) => p.name === 'proxyaccount');
  if (cli === undefined) throw new Error('scripts/pack.js made no proxyaccount package');
  return cli.tarball;
}

/** Every install the stand-in saw: its arguments and the names of its environment variables. */
export function installs(service: Service): Array<{ args: string[]; env: string[] }> {
  if (!fs.existsSync(service.installLog)) return [];
  return fs
    .readFileSync(service.installLog, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as { args: string[]; env: string[] });
}
