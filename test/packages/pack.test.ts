// `npm pack` of every package (scripts/pack.js), each tarball installed offline into an empty
// folder (scripts/offline-install.js): the SDK's tree is undici alone and talks to the emulator
// package, which serves; the full package's command runs. Needs a build (dist/).
import { type ChildProcessWithoutNullStreams, execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve, sep } from 'node:path';
import { promisify } from 'node:util';

const ROOT = resolve(__dirname, '..', '..');
const run = promisify(execFile);
const ROOT_PKG = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  version: string;
  license: string;
  engines: Record<string, string>;
  repository: unknown;
  homepage: string;
  bugs: unknown;
  dependencies: Record<string, string>;
};

interface Packed {
  name: string;
  version: string;
  tarball: string;
  dependencies: Record<string, string>;
}

interface Manifest {
  name: string;
  version: string;
  license: string;
  engines: Record<string, string>;
  repository: { url: string };
  homepage: string;
  bugs: unknown;
  main: string;
  types: string;
  exports: Record<string, unknown>;
  dependencies: Record<string, string>;
  bin?: Record<string, string>;
}

/** The environment of child processes: nothing that could find modules outside their folder. */
const childEnv = (): NodeJS.ProcessEnv => {
  const env = { ...process.env };
  delete env.NODE_PATH;
  delete env.NODE_OPTIONS;
  return env;
};

/** Every installed package directory under a node_modules folder, nested ones included. */
function installedPackages(nodeModules: string, prefix = ''): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(nodeModules, { withFileTypes: true })) {
    if (!entry.isDirectory() || entry.name.startsWith('.')) continue;
    const names = entry.name.startsWith('@') ? readdirSync(join(nodeModules, entry.name)).map((s) => `${entry.name}/${s}`) : [entry.name];
    for (const name of names) {
      found.push(prefix + name);
      const nested = join(nodeModules, name, 'node_modules');
      if (existsSync(nested)) found.push(...installedPackages(nested, `${prefix}${name}>`));
    }
  }
  return found.sort();
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesUnder(join(dir, e.name)) : [join(dir, e.name)]));
}

/** Resolves with the child's first stdout line (a JSON object), or rejects with its stderr. */
function firstLine(child: ChildProcessWithoutNullStreams, timeoutMs: number): Promise<Record<string, string>> {
  return new Promise((resolvePromise, reject) => {
    let out = '';
    let err = '';
    const timer = setTimeout(() => reject(new Error(`no ready line within ${timeoutMs} ms; stderr:\n${err}`)), timeoutMs);
    child.stderr.on('data', (d: Buffer) => {
      err += d.toString();
    });
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const nl = out.indexOf('\n');
      if (nl !== -1) {
        clearTimeout(timer);
        resolvePromise(JSON.parse(out.slice(0, nl)) as Record<string, string>);
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code} before its ready line; stderr:\n${err}`));
    });
  });
}

const work = mkdtempSync(join(tmpdir(), 'proxyaccount-pack-test-'));
const dirs = { sdk: join(work, 'install-sdk'), emulator: join(work, 'install-emulator'), full: join(work, 'install-full') };
let packed: Packed[] = [];
const manifest = (dir: string, name: string): Manifest => JSON.parse(readFileSync(join(dir, 'node_modules', name, 'package.json'), 'utf8')) as Manifest;

beforeAll(async () => {
  if (!existsSync(join(ROOT, 'dist', 'index.js')) || !existsSync(join(ROOT, 'dist', 'provider', 'terraform-provider-proxyaccount'))) {
    throw new Error('dist/ is missing: run `npm run build` before this suite (npm test does)');
  }
  const { stdout } = await run('node', [join(ROOT, 'scripts', 'pack.js'), '--out', join(work, 'packed'), '--json'], { env: childEnv() });
  packed = JSON.parse(stdout) as Packed[];
  const tarball = (name: string): string => {
    const p = packed.find((x) => x.name === name);
    if (!p) throw new Error(`scripts/pack.js made no ${name} package`);
    return p.tarball;
  };
  const install = (name: string, dir: string, extra: string[]) =>
    run('node', [join(ROOT, 'scripts', 'offline-install.js'), tarball(name), dir, ...extra], { env: childEnv() }).catch((e: { stderr?: string }) => {
      // offline-install says which dependency the npm cache lacks; never skip on it.
      throw new Error(`offline install of ${name} failed:\n${e.stderr ?? String(e)}`);
    });
  // The SDK runs its install scripts (it has none to run: nothing native); the other two skip
  // better-sqlite3's minute-long compile and reuse the repository's build of the same version.
  await install('@proxyaccount/sdk', dirs.sdk, []);
  await install('@proxyaccount/emulator', dirs.emulator, ['--ignore-scripts', '--native-from-repo']);
  await install('proxyaccount', dirs.full, ['--ignore-scripts', '--native-from-repo']);
}, 120_000);

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('npm pack of every package', () => {
  it('makes the three packages, each with the root version, license, engines and project links', () => {
    expect(packed.map((p) => p.name).sort()).toEqual(['@proxyaccount/emulator', '@proxyaccount/sdk', 'proxyaccount']);
    const rootRepo = ROOT_PKG.repository as { url: string };
    const installs: Array<[string, string]> = [
      [dirs.sdk, '@proxyaccount/sdk'],
      [dirs.emulator, '@proxyaccount/emulator'],
      [dirs.full, 'proxyaccount'],
    ];
    for (const [dir, name] of installs) {
      const m = manifest(dir, name);
      expect({ name: m.name, version: m.version, license: m.license, engines: m.engines, homepage: m.homepage, bugs: m.bugs, repo: m.repository.url }).toEqual({
        name,
        version: ROOT_PKG.version,
        license: 'MPL-2.0',
        engines: ROOT_PKG.engines,
        homepage: ROOT_PKG.homepage,
        bugs: ROOT_PKG.bugs,
        repo: rootRepo.url,
      });
      expect(m.homepage).not.toMatch(/example\.invalid/);
      const pkgDir = join(dir, 'node_modules', name);
      // exports, main and types point at files that were packed
      expect(m.exports['.']).toEqual({ types: m.types, default: m.main });
      for (const file of [m.main, m.types, 'README.md', 'LICENSE']) expect(existsSync(join(pkgDir, file))).toBe(true);
    }
  });

  it('gives the full package every dependency of the root, and the emulator only better-sqlite3', () => {
    expect(manifest(dirs.full, 'proxyaccount').dependencies).toEqual(ROOT_PKG.dependencies);
    expect(manifest(dirs.emulator, '@proxyaccount/emulator').dependencies).toEqual({ 'better-sqlite3': ROOT_PKG.dependencies['better-sqlite3'] });
  });
});

describe('@proxyaccount/sdk installed alone', () => {
  it('installs undici and nothing else: no native build, no gRPC, no CLI framework', () => {
    const installed = installedPackages(join(dirs.sdk, 'node_modules'));
    expect(installed).toEqual(['@proxyaccount/sdk', 'undici']);
    for (const heavy of ['better-sqlite3', '@grpc/grpc-js', 'commander', 'cli-progress', '@msgpack/msgpack']) expect(installed).not.toContain(heavy);
    expect(manifest(dirs.sdk, '@proxyaccount/sdk').dependencies).toEqual({ undici: ROOT_PKG.dependencies.undici });
    expect(filesUnder(join(dirs.sdk, 'node_modules')).filter((f) => f.endsWith('.node'))).toEqual([]);
  });

  it('ships only the SDK: its compiled files, package.json, README and LICENSE', () => {
    const pkgDir = join(dirs.sdk, 'node_modules', '@proxyaccount', 'sdk');
    const outside = filesUnder(pkgDir)
      .map((f) => relative(pkgDir, f).split(sep).join('/'))
      .filter((f) => !['package.json', 'README.md', 'LICENSE'].includes(f) && !f.startsWith('dist/sdk/'));
    expect(outside).toEqual([]);
  });

  it('loads from CommonJS and from an ES module, from its own folder', async () => {
    const cjs = await run(
      'node',
      [
        '-e',
        `const sdk = require('@proxyaccount/sdk');
         const undici = require.resolve('undici', { paths: [require.resolve('@proxyaccount/sdk')] });
         console.log(JSON.stringify({ version: sdk.SDK_VERSION, client: typeof sdk.ProxyAccountClient, error: typeof sdk.ApiError, undici }));`,
      ],
      { cwd: dirs.sdk, env: childEnv() },
    );
    const loaded = JSON.parse(cjs.stdout) as { version: string; client: string; error: string; undici: string };
    expect(loaded).toEqual({ version: ROOT_PKG.version, client: 'function', error: 'function', undici: expect.any(String) });
    expect(loaded.undici.startsWith(join(dirs.sdk, 'node_modules', 'undici'))).toBe(true);

    const esm = await run(
      'node',
      [
        '--input-type=module',
        '-e',
        `import { ProxyAccountClient, SDK_VERSION } from '@proxyaccount/sdk'; console.log(typeof ProxyAccountClient, SDK_VERSION);`,
      ],
      { cwd: dirs.sdk, env: childEnv() },
    );
    expect(esm.stdout.trim()).toBe(`function ${ROOT_PKG.version}`);
  });

  it('offers TypeScript types through its exports (strict, node16 resolution, library files checked)', async () => {
    const project = join(dirs.sdk, 'consumer');
    rmSync(project, { recursive: true, force: true });
    mkdirSync(project);
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          noEmit: true,
          module: 'node16',
          moduleResolution: 'node16',
          target: 'ES2022',
          skipLibCheck: false,
          types: ['node'],
          typeRoots: [join(ROOT, 'node_modules', '@types')],
        },
        files: ['consumer.ts'],
      }),
    );
    writeFileSync(
      join(project, 'consumer.ts'),
      `import { ProxyAccountClient, InvalidArgumentError } from '@proxyaccount/sdk';
const client = new ProxyAccountClient({ baseUrl: 'https://127.0.0.1:8443', auth: { username: 'demo', password: 'demo-password' } });
export const ips: Promise<string[]> = client.ips.list();
export const isError: boolean = new Error() instanceof InvalidArgumentError;
// @ts-expect-error the types are real: a number is not a base URL
export const wrong = new ProxyAccountClient({ baseUrl: 8443, auth: { token: 't' } });
`,
    );
    const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    const result = await run('node', [tsc, '-p', project], { cwd: project, env: childEnv() }).catch((e: { stdout?: string }) => ({
      stdout: e.stdout ?? String(e),
    }));
    expect(result.stdout).toBe('');
  }, 60_000);
});

describe('@proxyaccount/emulator and the installed SDK together', () => {
  let emulator: ChildProcessWithoutNullStreams | undefined;
  afterAll(async () => {
    if (!emulator || emulator.exitCode !== null) return;
    const exited = new Promise((done) => emulator?.once('exit', done));
    emulator.stdin.end(); // the child closes the emulator and exits
    await exited;
  });

  it('holds better-sqlite3 and none of the SDK, gRPC or CLI packages', () => {
    const installed = installedPackages(join(dirs.emulator, 'node_modules'));
    expect(installed).toEqual(expect.arrayContaining(['@proxyaccount/emulator', 'better-sqlite3']));
    for (const other of ['undici', '@grpc/grpc-js', 'commander', 'cli-progress', '@proxyaccount/sdk']) expect(installed).not.toContain(other);
  });

  it('serves on port 0, and the installed SDK adds and lists an authorized IP on it', async () => {
    emulator = spawn(
      'node',
      [
        '-e',
        `const { startEmulator } = require('@proxyaccount/emulator');
         startEmulator({ port: 0, httpPort: 0, adminToken: 'pack-test-admin', log: () => {} }).then((e) => {
           console.log(JSON.stringify({ url: e.url, caFile: e.caFile, sqlite: require.resolve('better-sqlite3', { paths: [require.resolve('@proxyaccount/emulator')] }) }));
           process.stdin.on('end', () => e.close().then(() => process.exit(0)));
           process.stdin.resume();
         }, (err) => { console.error(err); process.exit(1); });`,
      ],
      { cwd: dirs.emulator, env: childEnv() },
    );
    const ready = await firstLine(emulator, 15_000);
    expect(ready.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(ready.sqlite.startsWith(join(dirs.emulator, 'node_modules', 'better-sqlite3'))).toBe(true);

    const ip = `203.0.113.${1 + Math.floor(Math.random() * 250)}`;
    const client = await run(
      'node',
      [
        '-e',
        `const { readFileSync } = require('node:fs');
         const { ProxyAccountClient } = require('@proxyaccount/sdk');
         const client = new ProxyAccountClient({ baseUrl: process.env.URL, auth: { username: 'demo', password: 'demo-password' }, caCert: readFileSync(process.env.CA) });
         (async () => {
           const before = await client.ips.list();
           await client.ips.add({ ip: process.env.IP, label: 'pack-test' });
           const after = await client.ips.list();
           await client.close();
           console.log(JSON.stringify({ before, after }));
         })().catch((err) => { console.error(err); process.exit(1); });`,
      ],
      { cwd: dirs.sdk, env: { ...childEnv(), URL: ready.url, CA: ready.caFile, IP: ip } },
    );
    const { before, after } = JSON.parse(client.stdout) as { before: string[]; after: string[] };
    expect(before).not.toContain(ip);
    expect(after).toContain(ip);
  }, 60_000);
});

describe('proxyaccount, the full package', () => {
  it('runs `proxyaccount --version` from its installed bin link', async () => {
    const bin = join(dirs.full, 'node_modules', '.bin', 'proxyaccount');
    expect(statSync(bin).isFile()).toBe(true);
    const { stdout } = await run(bin, ['--version'], { cwd: dirs.full, env: childEnv() });
    expect(stdout.trim()).toBe(ROOT_PKG.version);
  });

  it('contains the same SDK and emulator files as the packages published alone', () => {
    const full = join(dirs.full, 'node_modules', 'proxyaccount', 'dist');
    const alone: Array<[string, string]> = [
      [join(dirs.sdk, 'node_modules', '@proxyaccount', 'sdk', 'dist'), 'sdk'],
      [join(dirs.emulator, 'node_modules', '@proxyaccount', 'emulator', 'dist'), 'emulator'],
      [join(dirs.emulator, 'node_modules', '@proxyaccount', 'emulator', 'dist'), 'util'],
    ];
    for (const [dist, part] of alone) {
      const files = filesUnder(join(dist, part))
        .map((f) => relative(dist, f))
        .sort();
      expect(files.length).toBeGreaterThan(0);
      expect(
        filesUnder(join(full, part))
          .map((f) => relative(full, f))
          .sort(),
      ).toEqual(files);
      for (const f of files) expect(readFileSync(join(full, f)).equals(readFileSync(join(dist, f)))).toBe(true);
    }
  });

  it('exports the SDK and carries the bundled provider', async () => {
    const { stdout } = await run('node', ['-e', `console.log(typeof require('proxyaccount').ProxyAccountClient)`], { cwd: dirs.full, env: childEnv() });
    expect(stdout.trim()).toBe('function');
    const provider = join(dirs.full, 'node_modules', 'proxyaccount', 'dist', 'provider', 'terraform-provider-proxyaccount');
    expect(statSync(provider).mode & 0o111).not.toBe(0);
  });
});
