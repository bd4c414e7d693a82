// Runs the terraform CLI for the demo: the version check, a clean environment (a generated CLI
// configuration, never the user's), and one call per command with its output kept for messages.
import { execFile } from 'node:child_process';
import type { ProcessGroup, RunResult } from './processes';

/** The oldest Terraform the demo accepts (the project's documented minimum). */
export const MIN_TERRAFORM_VERSION: readonly [number, number] = [1, 5];

/** Environment variables of Terraform that would change what the demo's commands do; logging may stay. */
const TERRAFORM_VARIABLES = /^TF_(?!LOG$|LOG_PATH$|LOG_CORE$|LOG_PROVIDER$)/;

/**
 * The environment for terraform: the demo's own process environment without `TF_*` settings
 * other than logging (the user's CLI configuration, plugin cache, extra arguments or workspace
 * are not the demo's business) and without `PROXYACCOUNT_*` (the target supplies those), plus the given settings.
 */
export function terraformEnv(base: NodeJS.ProcessEnv, cliConfigFile: string, providerEnv: Readonly<Record<string, string>>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(base)) {
    if (!TERRAFORM_VARIABLES.test(key) && !key.startsWith('PROXYACCOUNT_')) env[key] = value;
  }
  return {
    ...env,
    ...providerEnv,
    TF_CLI_CONFIG_FILE: cliConfigFile,
    TF_IN_AUTOMATION: '1',
    TF_INPUT: '0',
    CHECKPOINT_DISABLE: '1',
  };
}

/**
 * Checks that `terraform` can run and is recent enough; resolves to its version. Rejects with a
 * message that says what to install when it is missing or too old.
 */
export function checkTerraform(bin: string, env: NodeJS.ProcessEnv): Promise<string> {
  const wanted = `Terraform ${MIN_TERRAFORM_VERSION.join('.')} or later`;
  return new Promise((resolve, reject) => {
    execFile(bin, ['version', '-json'], { env: { ...env, CHECKPOINT_DISABLE: '1' }, timeout: 30_000 }, (err, stdout) => {
      if (err) {
        const code = (err as NodeJS.ErrnoException).code;
        reject(
          new Error(
            code === 'ENOENT'
              ? `${bin === 'terraform' ? 'terraform was not found on PATH' : `${bin} was not found`}: install ${wanted} (https://developer.hashicorp.com/terraform/install) and run the demo again`
              : `\`${bin} version\` failed (${err.message.split('\n')[0]}): the demo needs ${wanted}`,
          ),
        );
        return;
      }
      let version: string | undefined;
      try {
        version = (JSON.parse(stdout) as { terraform_version?: unknown }).terraform_version as string | undefined;
      } catch {
        // Terraform before 0.13 prints no JSON: far too old anyway.
      }
      if (typeof version !== 'string' || !/^\d+\.\d+/.test(version)) {
        reject(new Error(`could not read the version of ${bin}: the demo needs ${wanted}`));
        return;
      }
      const [major, minor] = version.split('.').map(Number);
      if (major < MIN_TERRAFORM_VERSION[0] || (major === MIN_TERRAFORM_VERSION[0] && minor < MIN_TERRAFORM_VERSION[1])) {
        reject(new Error(`${bin === 'terraform' ? 'the terraform on PATH' : bin} is version ${version}, too old: the demo needs ${wanted}`));
        return;
      }
      resolve(version);
    });
  });
}

/** A terraform command that ended with an exit code the caller did not expect. */
export class TerraformError extends Error {
  /** @param reason what the exit code means, when it is not a plain failure */
  constructor(
    readonly args: readonly string[],
    readonly result: RunResult,
    reason?: string,
  ) {
    const ended = result.code === null ? `was stopped by ${result.signal ?? 'a signal'}` : `exited with ${result.code}`;
    super(`${reason !== undefined ? `${reason}: ` : ''}terraform ${args.join(' ')} ${ended}`);
    this.name = 'TerraformError';
  }

  /** The end of terraform's output (its diagnostics), for the failure message. */
  get outputTail(): string {
    const text = `${this.result.stdout}\n${this.result.stderr}`.trim();
    return text.split('\n').slice(-40).join('\n');
  }
}

/** Options of a {@link Terraform} runner. */
export interface TerraformOptions {
  /** The terraform executable. @default 'terraform' */
  readonly bin?: string;
  /** The working directory (the synthesized stack). */
  readonly cwd: string;
  /** The complete environment (see {@link terraformEnv}). */
  readonly env: NodeJS.ProcessEnv;
  /** Where the children run, so that an interrupt reaches them. */
  readonly processes: ProcessGroup;
}

/** Runs terraform commands in one working directory. */
export class Terraform {
  private readonly bin: string;

  constructor(private readonly opts: TerraformOptions) {
    this.bin = opts.bin ?? 'terraform';
  }

  /** The working directory. */
  get cwd(): string {
    return this.opts.cwd;
  }

  /**
   * Runs `terraform ARGS` and resolves with its result when the exit code is in `ok`; otherwise
   * rejects with a {@link TerraformError} carrying the output.
   */
  async run(args: readonly string[], ok: readonly number[] = [0], onStdoutLine?: (line: string) => void): Promise<RunResult> {
    const result = await this.opts.processes.run(this.bin, args, { cwd: this.opts.cwd, env: this.opts.env, onStdoutLine });
    if (result.code === null || !ok.includes(result.code)) throw new TerraformError(args, result);
    return result;
  }

  /** `terraform show -json FILE`: a saved plan as JSON (which holds secrets: never print it). */
  async showPlan(planFile: string): Promise<unknown> {
    const result = await this.run(['show', '-json', '-no-color', planFile]);
    return JSON.parse(result.stdout) as unknown;
  }
}
