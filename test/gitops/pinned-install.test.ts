// The CI templates' pinned install, with the real npm: the release tarball scripts/pack.js makes
// carries an npm-shrinkwrap.json pinning what package-lock.json pins, and each template's install
// step, run as written (offline, from the npm cache `npm ci` filled), installs exactly that tree
// and runs no install script. Needs a build (dist/) and the repository's npm cache.
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parse } from 'yaml';

jest.setTimeout(180_000);

const ROOT = path.resolve(__dirname, '..', '..');

interface LockEntry {
  readonly version?: string;
  readonly integrity?: string;
  readonly dev?: boolean;
  readonly link?: boolean;
  readonly dependencies?: Record<string, string>;
}

interface Lockfile {
  readonly packages: Record<string, LockEntry>;
}

const LOCK = JSON.parse(fs.readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8')) as Lockfile;

let work: string;
let tarball: string;

/** The environment of the install: no variable of the test that could find modules elsewhere, npm offline. */
function installEnv(extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? os.homedir(),
    npm_config_offline: 'true',
    npm_config_update_notifier: 'false',
  };
  if (process.env.npm_config_cache !== undefined) env.npm_config_cache = process.env.npm_config_cache;
  return { ...env, ...extra };
}

/** Every installed package under a node_modules folder, by lockfile location, with its version. */
function installed(nodeModules: string, prefix = 'node_modules'): Map<string, string> {
  const found = new Map<string, string>();
  if (!fs.existsSync(nodeModules)) return found;
  for (const entry of fs.readdirSync(nodeModules, { withFileTypes: true })) {
    if (!entry.isDirectory() || entry.name.startsWith('.')) continue;
    const names = entry.name.startsWith('@') ? fs.readdirSync(path.join(nodeModules, entry.name)).map((s) => `${entry.name}/${s}`) : [entry.name];
    for (const name of names) {
      const dir = path.join(nodeModules, name);
      found.set(`${prefix}/${name}`, (JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as { version: string }).version);
      for (const [k, v] of installed(path.join(dir, 'node_modules'), `${prefix}/${name}/node_modules`)) found.set(k, v);
    }
  }
  return found;
}

/** The lockfile's production packages (the CLI depends on every dependency of the root) and their versions. */
function productionTree(): Map<string, string> {
  return new Map(
    Object.entries(LOCK.packages)
      .filter(([location, e]) => location !== '' && e.dev !== true && e.link !== true)
      .map(([location, e]) => [location, e.version ?? '']),
  );
}

beforeAll(() => {
  if (!fs.existsSync(path.join(ROOT, 'dist', 'index.js'))) throw new Error('dist/ is missing: run `npm run build` before this suite (npm test does)');
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'proxyaccount-pinned-install-'));
  const packed = JSON.parse(
    execFileSync(process.execPath, [path.join(ROOT, 'scripts', 'pack.js'), '--out', path.join(work, 'packed'), '--json'], { encoding: 'utf8' }),
  ) as Array<{
    name: string;
    tarball: string;
  }>;
  const cli = packed.find((p) => p.name === 'proxyaccount');
  if (cli === undefined) throw new Error('scripts/pack.js made no proxyaccount package');
  tarball = cli.tarball;
});

afterAll(() => {
  if (work !== undefined) fs.rmSync(work, { recursive: true, force: true });
});

describe('the release tarball', () => {
  it('carries an npm-shrinkwrap.json with exactly the production packages package-lock.json pins', () => {
    const text = execFileSync('tar', ['xzf', tarball, '-O', 'package/npm-shrinkwrap.json'], { encoding: 'utf8' });
    const shrinkwrap = JSON.parse(text) as Lockfile & { lockfileVersion: number };
    const manifest = JSON.parse(execFileSync('tar', ['xzf', tarball, '-O', 'package/package.json'], { encoding: 'utf8' })) as {
      dependencies: Record<string, string>;
    };
    expect(shrinkwrap.lockfileVersion).toBe(3);
    expect(shrinkwrap.packages['']?.dependencies).toEqual(manifest.dependencies);
    const entries = Object.entries(shrinkwrap.packages).filter(([location]) => location !== '');
    expect(new Map(entries.map(([location, e]) => [location, e.version]))).toEqual(productionTree());
    for (const [location, e] of entries) {
      expect({ location, integrity: e.integrity }).toEqual({ location, integrity: LOCK.packages[location]?.integrity });
      expect(e.integrity).toMatch(/^sha512-/);
      expect(e.dev).toBeUndefined();
    }
  });
});

/** A template's install script (GitHub: the step; GitLab: the before_script line), as written. */
function installScript(file: string): string {
  const doc = parse(fs.readFileSync(path.join(ROOT, file), 'utf8')) as {
    jobs?: Record<string, { steps: Array<{ run?: string }> }>;
    default?: { before_script: string[] };
  };
  const lines = doc.jobs !== undefined ? Object.values(doc.jobs).flatMap((j) => j.steps.map((s) => s.run ?? '')) : (doc.default?.before_script ?? []);
  const line = lines.find((l) => l.includes('npm ci'));
  if (line === undefined) throw new Error(`${file} has no install step`);
  return line;
}

describe.each([
  ['examples/ci/github-actions/pull-request.yml', 'RUNNER_TEMP', 'proxyaccount'],
  ['examples/ci/gitlab/.gitlab-ci.yml', 'CI_PROJECT_DIR', '.proxyaccount'],
])('%s: the install step with the real npm', (file, dirVar, folder) => {
  let dir: string;
  let result: { status: number | null; output: string };

  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(work, 'runner-'));
    const sha = createHash('sha256').update(fs.readFileSync(tarball)).digest('hex');
    const r = spawnSync('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', installScript(file)], {
      cwd: dir,
      encoding: 'utf8',
      env: installEnv({
        [dirVar]: dir,
        GITHUB_PATH: path.join(dir, 'github-path'),
        PROXYACCOUNT_TARBALL: `file://${tarball}`,
        PROXYACCOUNT_TARBALL_SHA256: sha,
      }),
    });
    result = { status: r.status, output: r.stdout + r.stderr };
    if (/ENOTCACHED|only-if-cached/.test(result.output)) {
      throw new Error(
        `a pinned package is not in the npm cache (run \`npm ci\` in the repository with the network first; this test never downloads):\n${result.output}`,
      );
    }
  });

  it('installs exactly the pinned tree and runs no install script', () => {
    expect({ status: result.status, output: result.status === 0 ? '' : result.output }).toEqual({ status: 0, output: '' });
    const pkg = path.join(dir, folder);
    expect(installed(path.join(pkg, 'node_modules'))).toEqual(productionTree());
    // better-sqlite3's install script would have built (or downloaded) its addon here.
    expect(fs.existsSync(path.join(pkg, 'node_modules', 'better-sqlite3', 'build'))).toBe(false);
  });

  it('puts a working proxyaccount command where the template adds it to PATH', () => {
    const binDir = dirVar === 'RUNNER_TEMP' ? fs.readFileSync(path.join(dir, 'github-path'), 'utf8').trim() : path.join(dir, '.proxyaccount-bin');
    const version = execFileSync(path.join(binDir, 'proxyaccount'), ['--version'], { encoding: 'utf8', env: installEnv({}) });
    expect(version.trim()).toBe((JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version);
  });
});
