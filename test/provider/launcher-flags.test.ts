// The provider changes V8 flags when it loads (WebAssembly stays on the baseline compiler, the young
// generation at its starting size; see
// src/main-provider.ts), and V8 refuses a code cache made under other flags. So a start that
// served an RPC must still leave a cache the next start can use: the flags are put back before the
// launcher writes it at exit. Real processes, no TLS (no PLUGIN_CLIENT_CERT), stopped with SIGTERM.
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as http2 from 'node:http2';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';

const EXECUTABLE = path.resolve(__dirname, '..', '..', 'dist', 'provider', 'terraform-provider-proxyaccount');
const COOKIE = 'd602bf8f470bc67ca7faa0386276bbdd4330efaf76d1a219cb4d6991ca9872b2';

/** One unary gRPC call with an empty request to the handshake line's Unix socket; resolves with the grpc-status trailer. */
function call(socketPath: string, method: string): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const session = http2.connect('http://localhost', { createConnection: () => net.connect(socketPath) });
    session.once('error', reject);
    const req = session.request({ ':method': 'POST', ':path': method, 'content-type': 'application/grpc', te: 'trailers' });
    req.on('trailers', (t) => resolve(t['grpc-status'] as string | undefined));
    req.on('data', () => undefined);
    req.on('end', () => session.close());
    req.on('error', reject);
    req.end(Buffer.alloc(5));
  });
}

/** Starts the executable, optionally calls GetProviderSchema, stops it; returns how it used the code cache. */
function start(cacheDir: string, rpc: boolean): Promise<{ codeCache: unknown; status?: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(EXECUTABLE, [], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, TF_PLUGIN_MAGIC_COOKIE: COOKIE, TF_LOG: 'DEBUG', PROXYACCOUNT_CODE_CACHE: cacheDir },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let status: string | undefined;
    child.stdout.on('data', (c: Buffer) => {
      const before = stdout;
      stdout += c.toString();
      if (before.includes('\n') || !stdout.includes('\n')) return;
      const socketPath = /^1\|6\|unix\|([^|]+)\|grpc\|/.exec(stdout)?.[1];
      if (socketPath === undefined) {
        reject(new Error(`no Unix socket in the handshake line: ${stdout}`));
        return;
      }
      const done = rpc ? call(socketPath, '/tfplugin6.Provider/GetProviderSchema') : Promise.resolve(undefined);
      done.then((s) => {
        status = s;
        child.kill('SIGTERM');
      }, reject);
    });
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.once('error', reject);
    child.once('exit', () => {
      const serving = stderr
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .find((l) => l['@message'] === 'plugin serving');
      resolve({ codeCache: serving?.code_cache, status });
    });
  });
}

let dir: string;
beforeAll(() => {
  if (!fs.existsSync(EXECUTABLE)) throw new Error(`${EXECUTABLE} is missing: run \`npm run build\` first`);
});
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'proxyaccount-launcher-flags-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('the provider executable after serving an RPC', () => {
  it('leaves a code cache that the next start uses', async () => {
    const first = await start(dir, true);
    expect(first).toEqual({ codeCache: 'miss', status: '0' });
    const second = await start(dir, true);
    expect(second).toEqual({ codeCache: 'hit', status: '0' });
    const third = await start(dir, false);
    expect(third.codeCache).toBe('hit');
  });
});
