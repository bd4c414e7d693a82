// The one terraform runner, for review, drift and the demo: `terraform ARGS` in one working
// directory with a given environment, the output kept, and a failure that carries terraform's
// diagnostics whole (from the first "Error:" on), so that the line naming the cause is never cut.
import { type ChildProcess, spawn } from 'node:child_process';
import { statSync } from 'node:fs';

/** How a child process ended, with its whole output. */
export interface RunResult {
  /** Exit code, or null when a signal ended it. */
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Options of a {@link Launcher}. */
export interface LaunchOptions {
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
  /** Called with each complete line of stdout as it arrives. @default none */
  readonly onStdoutLine?: (line: string) => void;
  /** Run `command` through the shell. @default false */
  readonly shell?: boolean;
  /** Start the child in its own process group (the demo's, so a terminal Ctrl-C reaches only it). @default false */
  readonly detached?: boolean;
  /** Called once the child is started, and again (with `ended`) when it has ended. */
  readonly onChild?: (child: ChildProcess, ended: boolean) => void;
}

/** Starts a process and resolves when it ends; rejects only when it cannot be started. */
export type Launcher = (command: string, args: readonly string[], opts: LaunchOptions) => Promise<RunResult>;

/** Runs `command` to completion with its output kept; never rejects on an exit code. */
export const launch: Launcher = (command, args, opts) =>
  new Promise((resolve, reject) => {
    let child: ChildProcess;
    try {
      child = spawn(command, [...args], {
        cwd: opts.cwd,
        env: opts.env,
        shell: opts.shell ?? false,
        detached: opts.detached ?? false,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
    } catch (err) {
      reject(err);
      return;
    }
    opts.onChild?.(child, false);
    let stdout = '';
    let stderr = '';
    let partial = '';
    child.stdout?.setEncoding('utf8');
    child.stderr?.setEncoding('utf8');
    child.stdout?.on('data', (chunk: string) => {
      stdout += chunk;
      if (opts.onStdoutLine === undefined) return;
      const lines = (partial + chunk).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) opts.onStdoutLine(line);
    });
    child.stderr?.on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.once('error', (err) => {
      opts.onChild?.(child, true);
      reject(err);
    });
    child.once('close', (code, signal) => {
      opts.onChild?.(child, true);
      if (partial !== '' && opts.onStdoutLine !== undefined) opts.onStdoutLine(partial);
      resolve({ code, signal, stdout, stderr });
    });
  });

/** The most of terraform's output a message carries (a plan of many failing resources repeats itself). */
const MAX_DIAGNOSTIC_CHARS = 6000;

/**
 * What terraform said about a failure: its diagnostics whole, from the first "Error:" line (boxed
 * or not) to the end; without one, the last 40 lines. Cut only past {@link MAX_DIAGNOSTIC_CHARS},
 * at a line end, saying so: the beginning names the cause.
 */
export function diagnosticsOf(result: Pick<RunResult, 'stdout' | 'stderr'>): string {
  const lines = `${result.stdout}\n${result.stderr}`.split('\n').map((l) => l.trimEnd());
  const first = lines.findIndex((l) => /^(│\s*)?Error: /.test(l));
  const kept = (first === -1 ? lines.filter((l) => l !== '').slice(-40) : lines.slice(first)).join('\n').trim();
  if (kept.length <= MAX_DIAGNOSTIC_CHARS) return kept;
  const cut = kept.lastIndexOf('\n', MAX_DIAGNOSTIC_CHARS);
  const head = kept.slice(0, cut === -1 ? MAX_DIAGNOSTIC_CHARS : cut);
  return `${head}\n… (${kept.split('\n').length - head.split('\n').length} more lines of terraform's output)`;
}

/** What a failure says in place of standard output that holds secrets. */
const STDOUT_WITHHELD = "terraform's standard output is not shown: it holds the plan's values, secrets included";

/** A terraform command that ended with an exit code the caller did not expect. */
export class TerraformError extends Error {
  /** The run's result; without its standard output when that holds secrets. */
  readonly result: RunResult;
  /** True when the standard output was dropped because it holds secrets (`terraform show -json`). */
  readonly stdoutWithheld: boolean;

  /**
   * @param reason what the exit code means, when it is not a plain failure
   * @param opts.secretStdout the standard output holds secrets: it is dropped here, so that no
   *   message (nor anything that keeps this error) can carry any of it, even the start of a JSON
   *   plan that a killed terraform left half-written
   */
  constructor(
    readonly args: readonly string[],
    result: RunResult,
    reason?: string,
    opts: { readonly secretStdout?: boolean } = {},
  ) {
    const ended = result.code === null ? `was stopped by ${result.signal ?? 'a signal'}` : `exited with ${result.code}`;
    super(`${reason !== undefined ? `${reason}: ` : ''}terraform ${args.join(' ')} ${ended}`);
    this.name = 'TerraformError';
    this.stdoutWithheld = opts.secretStdout === true;
    this.result = this.stdoutWithheld ? { ...result, stdout: '' } : result;
  }

  /** Terraform's diagnostics, for the failure message. */
  get outputTail(): string {
    const tail = diagnosticsOf(this.result);
    return this.stdoutWithheld ? [tail, `(${STDOUT_WITHHELD})`].filter((s) => s !== '').join('\n') : tail;
  }
}

/** Options of a {@link Terraform} runner. */
export interface TerraformOptions {
  /** The terraform executable. @default 'terraform' */
  readonly bin?: string;
  /** The working directory. */
  readonly cwd: string;
  /** The complete environment. @default process.env */
  readonly env?: NodeJS.ProcessEnv;
  /** How children are started (the demo's process group, so an interrupt reaches them). @default {@link launch} */
  readonly launcher?: Launcher;
}

/** Why `dir` cannot be a working directory, else undefined. */
function missingDirectory(dir: string): string | undefined {
  const stat = statSync(dir, { throwIfNoEntry: false });
  if (stat === undefined) return `the directory ${dir} does not exist`;
  return stat.isDirectory() ? undefined : `${dir} is not a directory`;
}

/** Runs terraform commands in one working directory. */
export class Terraform {
  readonly bin: string;

  constructor(private readonly opts: TerraformOptions) {
    this.bin = opts.bin ?? 'terraform';
  }

  /** The working directory. */
  get cwd(): string {
    return this.opts.cwd;
  }

  /**
   * Runs `terraform ARGS` and resolves with its result when the exit code is in `ok`; otherwise
   * rejects with a {@link TerraformError} carrying the output (without standard output when
   * `secretStdout`). A missing executable says what to install.
   */
  async run(
    args: readonly string[],
    ok: readonly number[] = [0],
    onStdoutLine?: (line: string) => void,
    opts: { readonly secretStdout?: boolean } = {},
  ): Promise<RunResult> {
    const env = { ...(this.opts.env ?? process.env), TF_IN_AUTOMATION: '1', TF_INPUT: '0' };
    let result: RunResult;
    try {
      result = await (this.opts.launcher ?? launch)(this.bin, args, { cwd: this.opts.cwd, env, ...(onStdoutLine !== undefined ? { onStdoutLine } : {}) });
    } catch (err) {
      // spawn says ENOENT for a working directory that is missing as for a missing executable
      // (and ENOTDIR for one that is a file).
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') {
        throw new Error(missingDirectory(this.opts.cwd) ?? `${this.bin} was not found: install Terraform 1.5 or later`);
      }
      throw err;
    }
    if (result.code === null || !ok.includes(result.code)) throw new TerraformError(args, result, undefined, opts);
    return result;
  }

  /**
   * `terraform show -json FILE`: a saved plan as JSON, which holds secrets: never print it, nor any
   * part of it, in a failure (terraform killed while writing it) or a parse error (JSON.parse quotes
   * the text around the fault).
   */
  async showPlan(planFile: string): Promise<unknown> {
    const args = ['show', '-json', '-no-color', planFile];
    const result = await this.run(args, [0], undefined, { secretStdout: true });
    try {
      return JSON.parse(result.stdout) as unknown;
    } catch (err) {
      throw new Error(`terraform ${args.join(' ')} printed output that is not JSON (${jsonFault(err, result.stdout)}); ${STDOUT_WITHHELD}`);
    }
  }
}

/** A failure of the CLI's own terraform runs: the command, its directory, and terraform's diagnostics whole. */
export function describeFailure(err: unknown, dir: string): Error {
  if (!(err instanceof TerraformError)) return err instanceof Error ? err : new Error(String(err));
  const r = err.result;
  const ended = r.code === null ? `was stopped by ${r.signal ?? 'a signal'}` : `exited ${r.code}`;
  return new Error(`\`terraform ${err.args.join(' ')}\` in ${dir} ${ended}:\n${err.outputTail}`);
}

/**
 * Where JSON text stops parsing, without quoting it (V8's messages quote the text around the
 * fault, which in a plan may be a password): "it ends early" or "at character 1234".
 */
export function jsonFault(err: unknown, text: string): string {
  const message = err instanceof Error ? err.message : '';
  const at = /position (\d+)/.exec(message);
  if (at !== null) return Number(at[1]) >= text.trimEnd().length ? 'it ends early' : `at character ${at[1]} of ${text.length}`;
  return /end of (JSON|data)/i.test(message) || text.trim() === '' ? 'it ends early' : `somewhere in its ${text.length} characters`;
}
