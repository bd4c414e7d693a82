// Runs `proxyaccount emulator` directly, for tests that need the raw stdout, stderr and exit code
// (the shared helper hides those behind a ready emulator).
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { join, resolve } from 'node:path';
import type { Readable } from 'node:stream';

const REPO_ROOT = resolve(__dirname, '..', '..');

/** A spawned emulator command and everything it has printed so far. */
export interface CliProcess {
  child: ChildProcessByStdio<null, Readable, Readable>;
  stdout(): string;
  stderr(): string;
  /** Resolves with the exit code (or signal name) once the process has ended. */
  exited: Promise<number | string>;
  /** Resolves with the first stdout line; rejects if the process ends first. */
  firstLine: Promise<string>;
}

/** Spawns `node bin/proxyaccount.js emulator ...args`. */
export function spawnCli(args: string[], opts: { cwd?: string } = {}): CliProcess {
  const child = spawn(process.execPath, [join(REPO_ROOT, 'bin', 'proxyaccount.js'), 'emulator', ...args], {
    cwd: opts.cwd ?? REPO_ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
  child.stderr.setEncoding('utf8').on('data', (c: string) => (err += c));
  const exited = new Promise<number | string>((done) => child.once('exit', (code, signal) => done(code ?? signal ?? -1)));
  const firstLine = new Promise<string>((ok, fail) => {
    child.stdout.on('data', () => {
      const nl = out.indexOf('\n');
      if (nl !== -1) ok(out.slice(0, nl));
    });
    void exited.then((code) => fail(new Error(`exited with ${code} before printing a line; stderr: ${err}`)));
  });
  firstLine.catch(() => undefined);
  return { child, stdout: () => out, stderr: () => err, exited, firstLine };
}

/** Runs the command to completion (for invocations expected to fail fast). */
export async function runCli(args: string[]): Promise<{ code: number | string; stdout: string; stderr: string }> {
  const p = spawnCli(args);
  const timer = setTimeout(() => p.child.kill('SIGKILL'), 15_000);
  const code = await p.exited;
  clearTimeout(timer);
  return { code, stdout: p.stdout(), stderr: p.stderr() };
}
