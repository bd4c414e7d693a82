// Starts the emulator as a real process (`node bin/proxyaccount.js emulator`) for test suites:
// SDK integration, Terraform end-to-end and the emulator's own tests. Needs a build (dist/).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Agent, request, type Dispatcher } from 'undici';

/** What the emulator prints on its ready line. */
export interface EmulatorInfo {
  url: string;
  httpUrl: string;
  caFile: string;
  adminToken: string;
  /** Catalogue host → `127.0.0.1:<port>` of its emulated proxy. */
  proxies: Record<string, string>;
  /** The request header that picks the exit country. */
  countryHeader: string;
  /** The response header that reports the exit IP. */
  exitIpHeader: string;
}

/** A running emulator process and handles for driving it. */
export interface RunningEmulator extends EmulatorInfo {
  caPem: string;
  /** undici Dispatcher trusting the emulator's CA, for raw requests in tests */
  dispatcher: import('undici').Dispatcher;
  control: {
    advanceClock(seconds: number): Promise<void>;
    usage(username: string, gb: number): Promise<void>;
    plan(username: string, plan: string): Promise<void>;
    fault(spec: {
      path: string;
      status?: number;
      count?: number;
      delayMs?: number;
      /** Serve the request untouched, taking its turn (so that the next fault meets the next request). */
      pass?: boolean;
      reset?: boolean;
      method?: string;
      dropResponse?: boolean;
      delayAfterMs?: number;
      retryAfterSeconds?: number;
      statusAfterServing?: number;
    }): Promise<void>;
    reset(): Promise<void>;
  };
  stop(): Promise<void>; // SIGTERM, waits for exit, removes temp files it created
  /**
   * Calls `listener` with each complete stderr line from now on (one per API request:
   * `METHOD PATH STATUS ms`), e.g. to count the requests a command made. Returns the unsubscribe.
   */
  onStderrLine(listener: (line: string) => void): () => void;
}

const REPO_ROOT = resolve(__dirname, '..', '..');
const BIN = join(REPO_ROOT, 'bin', 'proxyaccount.js');
const READY_TIMEOUT_MS = 15_000;
const STOP_TIMEOUT_MS = 10_000;
const STDERR_KEEP = 64 * 1024;

/**
 * Spawns an emulator on ephemeral ports and resolves once it has printed its JSON line.
 * @param opts.args extra command-line arguments (appended; a later `--port` wins)
 * @param opts.accounts accounts-file content, written to a temporary file passed as `--accounts`
 * @param opts.stateFile passed as `--state` (the caller owns the file)
 * @param opts.env environment of the process. @default process.env
 */
export function startEmulator(opts: { args?: string[]; accounts?: object; stateFile?: string; env?: NodeJS.ProcessEnv } = {}): Promise<RunningEmulator> {
  const tempDir = mkdtempSync(join(tmpdir(), 'proxyaccount-test-emulator-'));
  const args = [BIN, 'emulator', '--port', '0', '--http-port', '0'];
  if (opts.accounts !== undefined) {
    const accountsFile = join(tempDir, 'accounts.json');
    writeFileSync(accountsFile, JSON.stringify(opts.accounts));
    args.push('--accounts', accountsFile);
  }
  if (opts.stateFile !== undefined) args.push('--state', opts.stateFile);
  args.push(...(opts.args ?? []));

  const child = spawn(process.execPath, args, { cwd: REPO_ROOT, env: opts.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  let partialLine = '';
  const lineListeners = new Set<(line: string) => void>();
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-STDERR_KEEP);
    const lines = (partialLine + chunk).split('\n');
    partialLine = lines.pop() ?? '';
    for (const line of lines) for (const listener of lineListeners) listener(line);
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) => {
    child.once('exit', (code, signal) => done({ code, signal }));
  });
  // If a suite forgets stop(), SIGTERM still lets the emulator remove its own temporary files.
  const killOnExit = (): void => {
    child.kill('SIGTERM');
  };
  process.once('exit', killOnExit);
  const cleanup = (): void => {
    process.off('exit', killOnExit);
    rmSync(tempDir, { recursive: true, force: true });
  };

  const ready = new Promise<EmulatorInfo>((resolveReady, rejectReady) => {
    let stdout = '';
    let settled = false;
    const fail = (why: string): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      child.kill('SIGKILL');
      cleanup();
      rejectReady(new Error(`emulator ${why}; stderr:\n${stderr.trim() || '(empty)'}`));
    };
    const timer = setTimeout(() => fail(`not ready within ${READY_TIMEOUT_MS / 1000} s`), READY_TIMEOUT_MS);
    child.once('error', (err) => fail(`could not be spawned (${err.message})`));
    void exited.then(({ code, signal }) => fail(`exited before it was ready (code ${code}, signal ${signal})`));
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      stdout += chunk;
      const newline = stdout.indexOf('\n');
      if (newline === -1) return;
      try {
        const info = JSON.parse(stdout.slice(0, newline)) as EmulatorInfo;
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolveReady(info);
      } catch {
        fail(`printed something other than its JSON line: ${stdout.slice(0, 200)}`);
      }
    });
  });

  return ready.then((info) => {
    const caPem = readFileSync(info.caFile, 'utf8');
    const dispatcher = new Agent({ connect: { ca: caPem } });
    const control = controlClient(info, dispatcher);
    let stopped: Promise<void> | undefined;
    const stop = (): Promise<void> => {
      stopped ??= (async () => {
        const kill = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
        const { code, signal } = await exited;
        clearTimeout(kill);
        await dispatcher.close();
        cleanup();
        if (code !== 0) throw new Error(`emulator did not exit cleanly (code ${code}, signal ${signal}); stderr:\n${stderr.trim()}`);
      })();
      return stopped;
    };
    const onStderrLine = (listener: (line: string) => void): (() => void) => {
      lineListeners.add(listener);
      return () => lineListeners.delete(listener);
    };
    return { ...info, caPem, dispatcher, control, stop, onStderrLine };
  });
}

function controlClient(info: EmulatorInfo, dispatcher: Dispatcher): RunningEmulator['control'] {
  const post = async (path: string, body: object): Promise<void> => {
    const res = await request(`${info.url}/_emulator/${path}`, {
      method: 'POST',
      dispatcher,
      headers: { authorization: `Bearer ${info.adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const text = await res.body.text();
    if (res.statusCode !== 200) throw new Error(`POST /_emulator/${path} failed with ${res.statusCode}: ${text}`);
  };
  return {
    advanceClock: (seconds) => post('clock', { advanceSeconds: seconds }),
    usage: (username, gb) => post('usage', { username, gb }),
    plan: (username, plan) => post('plan', { username, plan }),
    fault: (spec) => post('faults', spec),
    reset: () => post('reset', {}),
  };
}
