// Shared set-up of the proxy-server tests: an emulator started in this process (so a test can
// give authorized hostnames a resolver of its own), its log, target servers on loopback (HTTP,
// HTTPS and a TCP echo), a small API client and runners for curl and Python.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { createServer as createTcpServer, type AddressInfo, type Server as TcpServer } from 'node:net';
import { Agent, request } from 'undici';
import { startEmulator, type EmulatorServer } from '../../src/emulator';
import type { Clock } from '../../src/emulator/clock';
import type { HostResolver } from '../../src/emulator/proxy/admission';
import { prepareTls } from '../../src/emulator/tls';

export const PARENT = { username: 'acme', password: 'acme-Password:1' };
/** 1 KB of proxied payload is 1 GB of usage. */
export const BYTES_PER_GB = 1000;
/** A hostname only the emulator's resolver knows: it resolves to 127.0.0.3. */
export const RUNNER_HOST = 'runner.example.test';

/** A parsed JSON answer, read loosely by the tests (their assertions check its shape). */
// biome-ignore lint/suspicious/noExplicitAny: the tests index answers freely and assert on them
type Json = any;

/** What the HTTP and HTTPS targets saw of the last request. */
export interface Seen {
  method: string;
  headers: Record<string, string | string[] | undefined>;
  bodyBytes: number;
}

/** The running world of one test file. */
export interface ProxyWorld {
  readonly emulator: EmulatorServer;
  /** Every line the emulator logged. */
  readonly log: string[];
  /** `http://127.0.0.1:<port>`: answers with `?size=` bytes (default 100) and records what it saw. */
  readonly httpTarget: string;
  /** `https://127.0.0.1:<port>`, certificate in `targetCaFile`. */
  readonly httpsTarget: string;
  readonly targetCaFile: string;
  /** `127.0.0.1:<port>` of a TCP server echoing every byte back. */
  readonly echoTarget: string;
  /** The last request the HTTP(S) targets saw. */
  lastSeen(): Seen | undefined;
  /** `http://127.0.0.1:<port>` of the proxy of a catalogue host. */
  proxyUrl(host: string): string;
  api(
    method: 'GET' | 'POST',
    path: string,
    form?: Record<string, string>,
    auth?: { username: string; password: string },
  ): Promise<{ status: number; json: Json }>;
  /** POST with a JSON body, or GET without one. */
  control(path: string, body?: object): Promise<{ status: number; json: Json }>;
  close(): Promise<void>;
}

/** The resolver of authorized hostnames by default: RUNNER_HOST is 127.0.0.3, no other name resolves. */
export const runnerResolver: HostResolver = async (name) => (name === RUNNER_HOST ? ['127.0.0.3'] : []);

/**
 * Starts the emulator (parent acme on plan20) and the targets; `clock` lets a test move time without
 * a write, `resolve` answer (or count, or fail) the lookups of authorized hostnames.
 */
export async function startProxyWorld(
  accounts: object[] = [{ ...PARENT, plan: 'plan20' }],
  clock?: Clock,
  resolve: HostResolver = runnerResolver,
): Promise<ProxyWorld> {
  const log: string[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'proxy-world-'));
  const accountsFile = join(dir, 'accounts.json');
  writeFileSync(accountsFile, JSON.stringify({ accounts }));
  const emulator = await startEmulator({
    port: 0,
    httpPort: 0,
    accountsPath: accountsFile,
    adminToken: 'admin-token-for-tests',
    log: (line) => log.push(line),
    clock,
    proxies: { bytesPerGb: BYTES_PER_GB, resolve },
  });
  let seen: Seen | undefined;
  const serve = (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse): void => {
    let bodyBytes = 0;
    req.on('data', (c: Buffer) => (bodyBytes += c.length));
    req.on('end', () => {
      seen = { method: req.method ?? '', headers: req.headers, bodyBytes };
      const size = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('size') ?? '100');
      res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': String(size) });
      res.end('x'.repeat(size));
    });
  };
  const tls = prepareTls({ host: '127.0.0.1', log: () => undefined });
  const http = createHttpServer(serve);
  const https = createHttpsServer({ cert: tls.certPem, key: tls.keyPem }, serve);
  const echo = createTcpServer((socket) => {
    socket.on('error', () => socket.destroy());
    socket.pipe(socket);
  });
  const listen = (server: Server | TcpServer): Promise<number> =>
    new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
  const [httpPort, httpsPort, echoPort] = await Promise.all([listen(http), listen(https), listen(echo)]);
  const dispatcher = new Agent({ connect: { ca: readFileSync(emulator.caFile) } });
  const call = async (method: string, path: string, headers: Record<string, string>, body: string | undefined) => {
    const res = await request(`${emulator.url}${path}`, { method: method as 'GET', headers, body, dispatcher });
    const text = await res.body.text();
    return { status: res.statusCode, json: text === '' ? undefined : JSON.parse(text) };
  };
  return {
    emulator,
    log,
    httpTarget: `http://127.0.0.1:${httpPort}`,
    httpsTarget: `https://127.0.0.1:${httpsPort}`,
    targetCaFile: tls.caFile,
    echoTarget: `127.0.0.1:${echoPort}`,
    lastSeen: () => seen,
    proxyUrl: (host) => `http://${emulator.proxies[host]}`,
    api: (method, path, form, auth = PARENT) => {
      const headers: Record<string, string> = { Authorization: `Basic ${Buffer.from(`${auth.username}:${auth.password}`).toString('base64')}` };
      let body: string | undefined;
      if (form !== undefined) {
        if (method === 'GET') path = `${path}?${new URLSearchParams(form)}`;
        else {
          body = new URLSearchParams(form).toString();
          headers['Content-Type'] = 'application/x-www-form-urlencoded';
        }
      }
      return call(method, path, headers, body);
    },
    control: (path, body) =>
      body === undefined
        ? call('GET', path, { Authorization: 'Bearer admin-token-for-tests' }, undefined)
        : call('POST', path, { Authorization: 'Bearer admin-token-for-tests', 'Content-Type': 'application/json' }, JSON.stringify(body)),
    close: async () => {
      await emulator.close();
      await dispatcher.close();
      for (const server of [http, https, echo]) server.close();
      http.closeAllConnections();
      https.closeAllConnections();
      tls.cleanup();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The outcome of one curl run: status of the last response, every header block, the body. */
export interface CurlResult {
  status: number;
  /** Raw header blocks of every response curl saw (the CONNECT answer included). */
  headers: string;
  body: string;
}

/** Runs curl with `args` (plus -s, header dump and status), never failing on HTTP errors. */
export function curl(args: string[]): Promise<CurlResult> {
  const dir = mkdtempSync(join(tmpdir(), 'curl-body-'));
  const bodyFile = join(dir, 'body');
  const format = '\n%{http_connect} %{http_code}';
  return new Promise<CurlResult>((resolve, reject) => {
    execFile('curl', ['-s', '-S', '-D', '-', '-o', bodyFile, '-w', format, '--max-time', '15', ...args], { encoding: 'utf8' }, (err, stdout, stderr) => {
      // 56: curl's exit code when the proxy refuses a CONNECT; the status is still reported.
      if ((err as { code?: unknown } | null)?.code === 'ENOENT') {
        reject(new Error('curl is not installed: the proxy tests use it as a real client (apt-get install curl)'));
        return;
      }
      if (err && (err as { code?: unknown }).code !== 56) {
        reject(new Error(`curl failed (${String((err as { code?: unknown }).code)}): ${stderr}`));
        return;
      }
      const lines = stdout.trimEnd().split('\n');
      // A refused CONNECT leaves http_code at 000: the proxy's answer is then http_connect.
      const [connectCode, code] = (lines.pop() ?? '').split(' ').map(Number);
      const status = code !== 0 ? code! : connectCode!;
      resolve({ status, headers: lines.join('\n'), body: existsSync(bodyFile) ? readFileSync(bodyFile, 'utf8') : '' });
    });
  }).finally(() => rmSync(dir, { recursive: true, force: true }));
}

/** A header's last value in a curl header dump (case-insensitive name). */
export function headerOf(dump: string, name: string): string | undefined {
  const re = new RegExp(`^${name}:\\s*(.*?)\\r?$`, 'gim');
  let value: string | undefined;
  for (const m of dump.matchAll(re)) value = m[1];
  return value;
}

/** Runs a Python 3 script (standard library only) with arguments; resolves to its stdout. */
export function python(script: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('python3', ['-c', script, ...args], { encoding: 'utf8', timeout: 20_000 }, (err, stdout, stderr) => {
      if ((err as { code?: unknown } | null)?.code === 'ENOENT')
        reject(new Error('python3 is not installed: the proxy tests use its standard library as a real client'));
      else if (err) reject(new Error(`python3 failed: ${stderr || err.message}`));
      else resolve(stdout);
    });
  });
}

/** `Basic` header value for a user and password. */
export function basicHeader(user: string, password: string): string {
  return `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
}
