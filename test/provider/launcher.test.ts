// The provider executable's start-up path (scripts/provider-launcher.js, assembled by
// scripts/bundle-provider.js): the bundle compiled with a per-user V8 code cache. The first start
// makes the cache when it exits, the next ones use it, a run that ends in an error writes none, a
// damaged cache is refused by V8 and replaced, and PROXYACCOUNT_CODE_CACHE=off writes nothing.
// Each case is a real process that completes the go-plugin handshake and exits on SIGTERM as
// Terraform's shutdown would make it.
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const EXECUTABLE = path.resolve(__dirname, '..', '..', 'dist', 'provider', 'terraform-provider-proxyaccount');
const COOKIE = 'd602bf8f470bc67ca7faa0386276bbdd4330efaf76d1a219cb4d6991ca9872b2';
/** Served on a Unix socket in a private directory; no certificate (no PLUGIN_CLIENT_CERT). */
const HANDSHAKE_WITHOUT_TLS = /^1\|6\|unix\|\/[^|]+\/proxyaccount-plugin-[^/|]+\/plugin\.sock\|grpc\|$/;

interface Start {
  handshake: string;
  stderr: string;
  codeCache: string | undefined;
  codeCacheNote: string | undefined;
  exitCode: number | null;
  /** Node's command line once serving, as Linux shows it (the shell line exec'd Node in its place). */
  argv: string[];
  /** The environment Node was started with. */
  environ: Record<string, string>;
}

/** Starts the executable, reads its handshake line and DEBUG log, stops it with SIGTERM. */
function start(env: NodeJS.ProcessEnv, how: 'executable' | 'node script' = 'executable', executable = EXECUTABLE, nodeFlags: string[] = []): Promise<Start> {
  return new Promise((resolve, reject) => {
    const [file, args] = how === 'executable' ? [executable, []] : [process.execPath, [...nodeFlags, executable]];
    const child = spawn(file, args, {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, TF_PLUGIN_MAGIC_COOKIE: COOKIE, TF_LOG: 'DEBUG', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let argv: string[] = [];
    const environ: Record<string, string> = {};
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString();
      if (!stdout.includes('\n') || child.exitCode !== null) return;
      argv = fs.readFileSync(`/proc/${child.pid}/cmdline`, 'utf8').split('\0').slice(0, -1);
      for (const entry of fs.readFileSync(`/proc/${child.pid}/environ`, 'utf8').split('\0').slice(0, -1)) {
        const eq = entry.indexOf('=');
        environ[entry.slice(0, eq)] = entry.slice(eq + 1);
      }
      child.kill('SIGTERM');
    });
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.once('error', reject);
    child.once('exit', (exitCode) => {
      const serving = stderr
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .find((l) => l['@message'] === 'plugin serving');
      resolve({
        handshake: stdout.split('\n')[0] ?? '',
        stderr,
        codeCache: serving?.code_cache as string | undefined,
        codeCacheNote: serving?.code_cache_note as string | undefined,
        exitCode,
        argv,
        environ,
      });
    });
  });
}

let dir: string;
beforeAll(() => {
  if (!fs.existsSync(EXECUTABLE)) throw new Error(`${EXECUTABLE} is missing: run \`npm run build\` first`);
});
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'proxyaccount-code-cache-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const cacheFiles = (): string[] => (fs.existsSync(dir) ? fs.readdirSync(dir) : []);

describe('the provider executable', () => {
  it('makes the code cache on its first start, uses it on the next', async () => {
    const first = await start({ PROXYACCOUNT_CODE_CACHE: dir });
    expect(first.handshake).toMatch(HANDSHAKE_WITHOUT_TLS);
    expect(first.exitCode).toBe(0);
    expect(first.codeCache).toBe('miss');
    const files = cacheFiles();
    expect(files).toEqual([expect.stringMatching(new RegExp(`^provider-[0-9a-f]{16}-${process.version.replace(/\./g, '\\.')}-${process.arch}\\.bin$`))]);
    const file = path.join(dir, files[0]!);
    expect(fs.statSync(file).size).toBeGreaterThan(10_000);
    if (process.platform !== 'win32') expect(fs.statSync(file).mode & 0o777).toBe(0o600);

    const second = await start({ PROXYACCOUNT_CODE_CACHE: dir });
    expect(second.handshake).toMatch(HANDSHAKE_WITHOUT_TLS);
    expect(second.codeCache).toBe('hit');
  });

  it('a run that ends in an error leaves no cache: the next start that serves makes it', async () => {
    // Run by hand (no magic cookie): the message, exit code 1, and nothing compiled beyond the start,
    // which a cache kept until the next build would impose on every later start.
    const byHand = await new Promise<{ code: number | null; stderr: string }>((resolve, reject) => {
      const child = spawn(EXECUTABLE, [], {
        env: { PATH: process.env.PATH, HOME: process.env.HOME, PROXYACCOUNT_CODE_CACHE: dir },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
      child.once('error', reject);
      child.once('exit', (code) => resolve({ code, stderr }));
    });
    expect(byHand.code).toBe(1);
    expect(byHand.stderr).toContain('This binary is a plugin for Terraform');
    expect(cacheFiles()).toEqual([]);

    const served = await start({ PROXYACCOUNT_CODE_CACHE: dir });
    expect(served.codeCache).toBe('miss');
    expect(served.exitCode).toBe(0);
    expect(cacheFiles()).toHaveLength(1);
  });

  it('also starts as a script given to node (the launcher then reads the file itself), with the same code cache', async () => {
    expect((await start({ PROXYACCOUNT_CODE_CACHE: dir })).codeCache).toBe('miss');
    const asScript = await start({ PROXYACCOUNT_CODE_CACHE: dir }, 'node script');
    expect(asScript.handshake).toMatch(HANDSHAKE_WITHOUT_TLS);
    expect(asScript.exitCode).toBe(0);
    expect(asScript.codeCache).toBe('hit');
  });

  it('names the bundle the same from every copy, so a cache made by another copy does not put its path in stack traces', async () => {
    // V8 keeps a script's name in its code cache: the second copy would otherwise run as the first.
    const copies = ['first', 'second'].map((name) => {
      fs.mkdirSync(path.join(dir, name));
      const copy = path.join(dir, name, 'terraform-provider-proxyaccount_v0.1.0');
      fs.copyFileSync(EXECUTABLE, copy);
      fs.chmodSync(copy, 0o755);
      return copy;
    });
    const cache = path.join(dir, 'cache');
    const profiles = path.join(dir, 'profiles');
    expect((await start({ PROXYACCOUNT_CODE_CACHE: cache }, 'executable', copies[0])).codeCache).toBe('miss');
    // Node takes --cpu-prof only on its command line: the second copy runs as a script given to node.
    const second = await start({ PROXYACCOUNT_CODE_CACHE: cache }, 'node script', copies[1], ['--cpu-prof', `--cpu-prof-dir=${profiles}`]);
    expect(second.codeCache).toBe('hit');
    const [profile] = fs.readdirSync(profiles);
    const { nodes } = JSON.parse(fs.readFileSync(path.join(profiles, profile!), 'utf8')) as {
      nodes: { callFrame: { url: string; functionName: string; lineNumber: number } }[];
    };
    const urls = new Set(nodes.map((n) => n.callFrame.url));
    expect([...urls].filter((u) => u.includes(path.join(dir, 'first')))).toEqual([]);
    // The bundle's functions (the launcher itself runs under the copy's own path).
    expect(urls).toContain('terraform-provider-proxyaccount');
    expect(urls).toContain(`file://${copies[1]}`);
    // The bundle's lines are the file's: a function the profile saw is on the line it names.
    const lines = fs.readFileSync(EXECUTABLE, 'latin1').split('\n');
    const serve = nodes.find((n) => n.callFrame.url === 'terraform-provider-proxyaccount' && n.callFrame.functionName === 'serve');
    expect(lines[serve!.callFrame.lineNumber]).toMatch(/\bfunction serve\(/);
  });

  it('starts normally with a damaged cache, and replaces it', async () => {
    await start({ PROXYACCOUNT_CODE_CACHE: dir });
    const file = path.join(dir, cacheFiles()[0]!);
    const bytes = fs.readFileSync(file);
    bytes.fill(0x5a, 0, 64);
    fs.writeFileSync(file, bytes);

    const damaged = await start({ PROXYACCOUNT_CODE_CACHE: dir });
    expect(damaged.handshake).toMatch(HANDSHAKE_WITHOUT_TLS);
    expect(damaged.codeCache).toBe('rejected');
    expect(fs.readFileSync(file).subarray(0, 64).equals(Buffer.alloc(64, 0x5a))).toBe(false);
    expect((await start({ PROXYACCOUNT_CODE_CACHE: dir })).codeCache).toBe('hit');
  });

  it('writing a new cache removes the caches not written for 30 days, and nothing else', async () => {
    const days = (n: number): Date => new Date(Date.now() - n * 24 * 3600 * 1000);
    const place = (name: string, age: number): string => {
      const file = path.join(dir, name);
      fs.writeFileSync(file, 'old', { mode: 0o600 });
      fs.utimesSync(file, days(age), days(age));
      return name;
    };
    const stale = [place('provider-0123456789abcdef-v20.11.0-x64.bin', 40), place('provider-fedcba9876543210-v18.19.1-arm64.bin', 31)];
    const kept = [
      place('provider-1111111111111111-v20.11.0-x64.bin', 29), // another build, written lately
      place('notes.bin', 400), // not one of our caches
      place('provider-0123456789abcdef-v20.11.0-x64.bin.bak', 400),
    ];
    fs.mkdirSync(path.join(dir, 'provider-2222222222222222-v20.11.0-x64.bin'));
    fs.utimesSync(path.join(dir, 'provider-2222222222222222-v20.11.0-x64.bin'), days(90), days(90)); // a directory: left alone

    expect((await start({ PROXYACCOUNT_CODE_CACHE: dir })).codeCache).toBe('miss');
    const files = cacheFiles();
    for (const name of stale) expect(files).not.toContain(name);
    for (const name of kept) expect(files).toContain(name);
    expect(files).toContain('provider-2222222222222222-v20.11.0-x64.bin');
    expect(files.filter((f) => f.endsWith(`-${process.version}-${process.arch}.bin`))).toHaveLength(1);

    // A start that uses the cache writes nothing, so it removes nothing either.
    const late = place('provider-3333333333333333-v20.11.0-x64.bin', 60);
    expect((await start({ PROXYACCOUNT_CODE_CACHE: dir })).codeCache).toBe('hit');
    expect(cacheFiles()).toContain(late);
  });

  it('writes nothing with PROXYACCOUNT_CODE_CACHE=off, and follows XDG_CACHE_HOME by default', async () => {
    const off = await start({ PROXYACCOUNT_CODE_CACHE: 'off', XDG_CACHE_HOME: dir });
    expect(off.handshake).toMatch(HANDSHAKE_WITHOUT_TLS);
    expect(off.codeCache).toBe('off');
    expect(cacheFiles()).toEqual([]);

    const byDefault = await start({ XDG_CACHE_HOME: dir });
    expect(byDefault.codeCache).toBe('miss');
    expect(fs.readdirSync(path.join(dir, 'proxyaccount', 'code-cache'))).toHaveLength(1);
  });

  it('still starts when the cache directory cannot be used', async () => {
    const blocked = path.join(dir, 'not-a-directory');
    fs.writeFileSync(blocked, '');
    const res = await start({ PROXYACCOUNT_CODE_CACHE: blocked });
    expect(res.handshake).toMatch(HANDSHAKE_WITHOUT_TLS);
    expect(res.exitCode).toBe(0);
    expect(res.codeCache).toBe('untrusted');
    expect(res.codeCacheNote).toContain('is not a directory');
  });
});

describe('a code cache another user could have planted is never run', () => {
  /** A valid cache made by a first start, then moved into `where`; returns its path. */
  async function cacheIn(where: string): Promise<string> {
    const made = fs.mkdtempSync(path.join(os.tmpdir(), 'proxyaccount-code-cache-made-'));
    try {
      expect((await start({ PROXYACCOUNT_CODE_CACHE: made })).codeCache).toBe('miss');
      const name = fs.readdirSync(made)[0]!;
      fs.mkdirSync(where, { recursive: true });
      fs.copyFileSync(path.join(made, name), path.join(where, name));
      return path.join(where, name);
    } finally {
      fs.rmSync(made, { recursive: true, force: true });
    }
  }

  it('a directory of another uid: not read, not written, and a DEBUG note says why', async () => {
    const theirs = path.join(dir, 'theirs');
    const file = await cacheIn(theirs);
    fs.chownSync(file, 12345, 12345);
    fs.chownSync(theirs, 12345, 12345);
    const before = fs.readFileSync(file);
    const res = await start({ PROXYACCOUNT_CODE_CACHE: theirs });
    expect(res.handshake).toMatch(HANDSHAKE_WITHOUT_TLS);
    expect(res.codeCache).toBe('untrusted');
    expect(res.codeCacheNote).toContain('owned by uid 12345');
    expect(fs.readFileSync(file).equals(before)).toBe(true);
    expect(fs.readdirSync(theirs)).toEqual([path.basename(file)]);
  });

  it('a directory writable by group or others (0777), even our own: not used', async () => {
    const shared = path.join(dir, 'shared');
    await cacheIn(shared);
    fs.chmodSync(shared, 0o777);
    const res = await start({ PROXYACCOUNT_CODE_CACHE: shared });
    expect(res.codeCache).toBe('untrusted');
    expect(res.codeCacheNote).toContain('writable by group or others (mode 0777)');
  });

  it('a planted symbolic link: not followed to read, and its root-owned target is not overwritten', async () => {
    const target = await cacheIn(path.join(dir, 'elsewhere'));
    const before = fs.readFileSync(target);
    const mine = path.join(dir, 'mine');
    fs.mkdirSync(mine, { mode: 0o700 });
    const link = path.join(mine, path.basename(target));
    fs.symlinkSync(target, link);
    const res = await start({ PROXYACCOUNT_CODE_CACHE: mine });
    // Through the link the cache would have been a hit.
    expect(res.codeCache).toBe('miss');
    expect(fs.readFileSync(target).equals(before)).toBe(true);
    expect(fs.lstatSync(link).isSymbolicLink()).toBe(false);
    expect(fs.lstatSync(link).mode & 0o777).toBe(0o600);
  });

  it('a cache directory that is itself a symbolic link: not used', async () => {
    const real = path.join(dir, 'real');
    await cacheIn(real);
    const link = path.join(dir, 'link');
    fs.symlinkSync(real, link);
    const res = await start({ PROXYACCOUNT_CODE_CACHE: link });
    expect(res.codeCache).toBe('untrusted');
    expect(res.codeCacheNote).toContain('is a symbolic link');
  });
});

describe("the serving process's peak memory", () => {
  // The shell line caps glibc's malloc arenas and V8's helper threads (scripts/bundle-provider.js).
  it('Node starts with MALLOC_ARENA_MAX=2, or with the value the user set', async () => {
    const capped = await start({ PROXYACCOUNT_CODE_CACHE: 'off' });
    expect(capped.exitCode).toBe(0);
    expect(capped.environ.MALLOC_ARENA_MAX).toBe('2');
    const own = await start({ PROXYACCOUNT_CODE_CACHE: 'off', MALLOC_ARENA_MAX: '8' });
    expect(own.exitCode).toBe(0);
    expect(own.environ.MALLOC_ARENA_MAX).toBe('8');
  });

  it('Node starts with one V8 helper thread, unless NODE_OPTIONS says how many', async () => {
    const one = await start({ PROXYACCOUNT_CODE_CACHE: 'off' });
    expect(one.exitCode).toBe(0);
    expect(one.argv).toContain('--v8-pool-size=1');
    const own = await start({ PROXYACCOUNT_CODE_CACHE: 'off', NODE_OPTIONS: '--v8-pool-size=3' });
    expect(own.handshake).toMatch(HANDSHAKE_WITHOUT_TLS);
    expect(own.exitCode).toBe(0);
    expect(own.argv.filter((a) => a.startsWith('--v8-pool-size'))).toEqual([]);
  });
});

describe("Node's certificates", () => {
  // Node names the file in a warning when it loads it at start and cannot read it: the warning
  // shows whether Node itself loaded the variable (scripts/bundle-provider.js, the shell line).
  const NODE_LOADED = 'Ignoring extra certs from `/nonexistent/extra-ca.pem`';
  const EMPTY_DEFAULT_STORE = { SSL_CERT_FILE: '/dev/null', SSL_CERT_DIR: '/dev/null', PROXYACCOUNT_DEFERRED_NODE_ROOT_CERTS: '1' };

  it('NODE_EXTRA_CA_CERTS is not loaded by Node at start: the shell line hands it to the provider, which needs it only to reach the API', async () => {
    const res = await start({ PROXYACCOUNT_CODE_CACHE: 'off', NODE_EXTRA_CA_CERTS: '/nonexistent/extra-ca.pem' });
    expect(res.handshake).toMatch(HANDSHAKE_WITHOUT_TLS);
    expect(res.exitCode).toBe(0);
    expect(res.stderr).not.toContain(NODE_LOADED);
    expect(res.environ.PROXYACCOUNT_DEFERRED_NODE_EXTRA_CA_CERTS).toBe('/nonexistent/extra-ca.pem');
    expect(res.environ.NODE_EXTRA_CA_CERTS).toBeUndefined();
  });

  it("Node's default store is left empty (so no secure context makes Node parse its bundled roots), and the provider is told", async () => {
    // The user's own OpenSSL variables do not reach Node's store: it trusted none of them before either.
    const res = await start({ PROXYACCOUNT_CODE_CACHE: 'off', SSL_CERT_FILE: '/etc/ssl/certs/ca-certificates.crt', SSL_CERT_DIR: '/etc/ssl/certs' });
    expect(res.handshake).toMatch(HANDSHAKE_WITHOUT_TLS);
    expect(res.exitCode).toBe(0);
    expect(res.argv.slice(0, 4)).toEqual(['node', '--use-openssl-ca', '--v8-pool-size=1', '-e']);
    expect(res.argv.slice(5, 6)).toEqual([EXECUTABLE]);
    expect(res.environ).toMatchObject(EMPTY_DEFAULT_STORE);
  });

  it.each(['--use-openssl-ca', '--use-bundled-ca', '--max-old-space-size=200 --use-bundled-ca'])(
    'the store is left to Node when NODE_OPTIONS chooses one (%s): two choices would stop Node',
    async (nodeOptions) => {
      const res = await start({ PROXYACCOUNT_CODE_CACHE: 'off', NODE_OPTIONS: nodeOptions, SSL_CERT_FILE: '/etc/ssl/certs/ca-certificates.crt' });
      expect(res.handshake).toMatch(HANDSHAKE_WITHOUT_TLS);
      expect(res.exitCode).toBe(0);
      expect(res.argv.slice(0, 3)).toEqual(['node', '--v8-pool-size=1', '-e']);
      expect(res.environ.SSL_CERT_FILE).toBe('/etc/ssl/certs/ca-certificates.crt');
      expect(res.environ.PROXYACCOUNT_DEFERRED_NODE_ROOT_CERTS).toBeUndefined();
    },
  );

  it("NODE_EXTRA_CA_CERTS is left to Node when NODE_OPTIONS asks for OpenSSL's certificate store, whose certificates the provider cannot list", async () => {
    const res = await start({ PROXYACCOUNT_CODE_CACHE: 'off', NODE_EXTRA_CA_CERTS: '/nonexistent/extra-ca.pem', NODE_OPTIONS: '--use-openssl-ca' });
    expect(res.handshake).toMatch(HANDSHAKE_WITHOUT_TLS);
    expect(res.stderr).toContain(NODE_LOADED);
  });
});
