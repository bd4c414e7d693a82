// Runs the terraform CLI for the demo: the version check, a clean environment (a generated CLI
// configuration, never the user's); the runner itself is the GitOps commands' (src/gitops/terraform.ts).
import { execFile } from 'node:child_process';
import { Terraform } from '../../gitops/terraform';
import type { ProcessGroup } from './processes';

export { Terraform, TerraformError } from '../../gitops/terraform';

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

/** Options of the demo's terraform runner. */
export interface DemoTerraformOptions {
  /** The terraform executable. @default 'terraform' */
  readonly bin?: string;
  /** The working directory (the synthesized stack). */
  readonly cwd: string;
  /** The complete environment (see {@link terraformEnv}). */
  readonly env: NodeJS.ProcessEnv;
  /** Where the children run, so that an interrupt reaches them. */
  readonly processes: ProcessGroup;
}

/** The one terraform runner (src/gitops/terraform.ts), its children in the demo's process group. */
export function demoTerraform(opts: DemoTerraformOptions): Terraform {
  return new Terraform({
    ...(opts.bin !== undefined ? { bin: opts.bin } : {}),
    cwd: opts.cwd,
    env: opts.env,
    launcher: (command, args, o) => opts.processes.run(command, args, o),
  });
}
