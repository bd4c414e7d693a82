// Runs the CI templates under examples/ci the way a fresh hosted runner would, without Docker:
// each job gets a new HOME, workspace and temp directory, its `run:` / `script:` lines run in
// order with bash, and it keeps between runs only what the template itself caches (actions/cache,
// GitLab `cache:`) or passes on as artifacts. Steps that only talk to GitHub or GitLab
// (actions/github-script) are skipped; GitLab's API is a local stand-in (fake-forge.ts).
//
// The install step runs as written (curl of the pinned tarball, sha256sum -c, npm install) with
// the tarball pointed at this build; `npm` is a stand-in that installs it offline with this
// checkout's node_modules (no registry, no native build) and records the environment it saw.
import { spawn, spawnSync } from 'node:child_process';
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
  /** Repository / project secrets by name. */
  readonly secrets: Readonly<Record<string, string>>;
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
}

let runCounter = 0;

/** A fresh machine: HOME, workspace and temp directory, all new. */
export function freshRunner(base: string): { home: string; workspace: string; temp: string } {
  const dir = fs.mkdtempSync(path.join(base, `runner-${++runCounter}-`));
  const home = path.join(dir, 'home');
  const workspace = path.join(dir, 'work');
  const temp = path.join(dir, 'tmp');
  for (const d of [home, workspace, temp]) fs.mkdirSync(d, { recursive: true });
  return { home, workspace, temp };
}

/** The system PATH with the `npm` stand-in first. */
function pathFor(service: Service): string {
  return [service.shims, process.env.PATH ?? ''].join(path.delimiter);
}

/**
 * Runs one bash script; resolves with its exit code and output. Asynchronous: the emulator's log
 * and the fake forge live in this process and must keep answering while the script runs.
 */
export function bash(script: string, cwd: string, env: Record<string, string>): Promise<{ code: number; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', script], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
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
// Test stand-in for npm: only "npm install --global --prefix DIR ... TARBALL" of this build,
// installed offline with the checkout's node_modules. Records which variables it was given.
const fs = require('node:fs');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const args = process.argv.slice(2);
fs.appendFileSync(${JSON.stringify(installLog)}, JSON.stringify({ args, env: Object.keys(process.env) }) + '\\n');
const prefix = args[args.indexOf('--prefix') + 1];
const tarball = args[args.length - 1];
if (args[0] !== 'install' || !args.includes('--global') || !prefix || !tarball.endsWith('.tgz')) {
  console.error('npm stand-in: unexpected command: npm ' + args.join(' '));
  process.exit(1);
}
const pkg = path.join(prefix, 'lib', 'node_modules', 'proxyaccount');
// A second install on the same machine replaces the first, as npm's would.
fs.rmSync(pkg, { recursive: true, force: true });
fs.rmSync(path.join(prefix, 'bin', 'proxyaccount'), { force: true });
fs.mkdirSync(pkg, { recursive: true });
execFileSync('tar', ['xzf', tarball, '--strip-components=1', '-C', pkg]);
fs.symlinkSync(${JSON.stringify(path.join(ROOT, 'node_modules'))}, path.join(pkg, 'node_modules'));
fs.mkdirSync(path.join(prefix, 'bin'), { recursive: true });
fs.symlinkSync(path.join(pkg, 'bin', 'proxyaccount.js'), path.join(prefix, 'bin', 'proxyaccount'));
`,
    { mode: 0o755 },
  );
}

/** A tarball of this build laid out as `npm pack` lays it out (package/…). */
export function packThisBuild(dir: string): string {
  const stage = path.join(dir, 'stage', 'package');
  fs.mkdirSync(stage, { recursive: true });
  copy(path.join(ROOT, 'package.json'), path.join(stage, 'package.json'));
  copy(path.join(ROOT, 'bin'), path.join(stage, 'bin'));
  fs.cpSync(path.join(ROOT, 'dist'), path.join(stage, 'dist'), {
    recursive: true,
    filter: (src) => !/[/\\]dist[/\\](packages|release|sea)([/\\]|$)/.test(src),
  });
  const tarball = path.join(dir, 'proxyaccount-this-build.tgz');
  spawnSync('tar', ['czf', tarball, '-C', path.join(dir, 'stage'), 'package'], { stdio: 'ignore' });
  return tarball;
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
