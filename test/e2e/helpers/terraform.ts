// Runs the real terraform binary against the built provider (installed into a temporary
// filesystem mirror) and an emulator. Used by every end-to-end test.
import { execFile, execFileSync, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { installProvider, mirrorCliConfig } from '../../../src/cli/provider';

/** The provider `npm run build` bundles (resolved from here: under ts-jest, src/ is not dist/). */
export const BUNDLED_PROVIDER = path.resolve(__dirname, '..', '..', '..', 'dist', 'provider', 'terraform-provider-proxyaccount');

/** The single executable `npm run build:sea` writes for this platform (Linux x64 here). */
export const SEA_PROVIDER = path.resolve(__dirname, '..', '..', '..', 'dist', 'sea', 'linux_amd64', 'terraform-provider-proxyaccount');

/**
 * The provider the suite installs: the bundled script, or with PROXYACCOUNT_E2E_PROVIDER=sea the
 * single executable, run with a PATH that holds terraform only (no Node).
 */
export const E2E_PROVIDER = process.env.PROXYACCOUNT_E2E_PROVIDER === 'sea' ? SEA_PROVIDER : BUNDLED_PROVIDER;

/**
 * A directory holding only a link to terraform: the PATH of a runner without Node. Made inside
 * `within`, a directory the caller removes, so that no run leaves one behind.
 */
export function pathWithoutNode(within: string): string {
  const dir = fs.mkdtempSync(path.join(within, 'no-node-'));
  const tf = execFileSync('sh', ['-c', 'command -v terraform'], { encoding: 'utf8' }).trim();
  fs.symlinkSync(tf, path.join(dir, 'terraform'));
  return dir;
}

/** How a terraform command ended. */
export interface TerraformResult {
  /** Exit code. */
  code: number;
  /** Standard output. */
  stdout: string;
  /** Standard error. */
  stderr: string;
}

let checkedVersion: string | undefined;

/** The oldest Terraform the suite supports: write-only attributes arrived in 1.11. */
export const MIN_TERRAFORM = [1, 11] as const;

/** Fails (never skips) with a clear message when terraform is not on PATH or too old; returns its version. */
export function requireTerraform(): string {
  if (checkedVersion !== undefined) return checkedVersion;
  let version: string;
  try {
    // Piped stderr and no inherited TF_* settings: a developer's CLI configuration is not the test's business.
    const out = execFileSync('terraform', ['version', '-json'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...cleanEnv(), CHECKPOINT_DISABLE: '1' },
    });
    version = (JSON.parse(out) as { terraform_version: string }).terraform_version;
  } catch (err) {
    throw new Error(
      `The end-to-end tests need the terraform CLI (>= ${MIN_TERRAFORM.join('.')}) on PATH and could not run it: ` +
        `${err instanceof Error ? err.message : String(err)}. Install Terraform and run the tests again.`,
    );
  }
  const [major = 0, minor = 0] = version.split('.').map(Number);
  if (major < MIN_TERRAFORM[0] || (major === MIN_TERRAFORM[0] && minor < MIN_TERRAFORM[1])) {
    throw new Error(`The end-to-end tests need terraform >= ${MIN_TERRAFORM.join('.')} (write-only attributes); found ${version} on PATH.`);
  }
  checkedVersion = version;
  return version;
}

/** process.env without PROXYACCOUNT_* and TF_* variables. */
function cleanEnv(): NodeJS.ProcessEnv {
  const base: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    // Never inherit a developer's real account settings or Terraform tuning into a test.
    if (!k.startsWith('PROXYACCOUNT_') && !k.startsWith('TF_')) base[k] = v;
  }
  return base;
}

/** Options of {@link Workspace}. */
export interface WorkspaceOptions {
  /** Extra environment for terraform (PROXYACCOUNT_* settings usually). */
  env?: NodeJS.ProcessEnv;
  /** The provider executable to install. @default E2E_PROVIDER */
  provider?: string;
}

/** A temporary Terraform working directory wired to the built provider through a filesystem mirror. */
export class Workspace {
  /** The working directory terraform runs in (`-chdir`). */
  readonly dir: string;
  private readonly root: string;
  /** The environment terraform runs with (mirror configuration, credentials). */
  readonly env: NodeJS.ProcessEnv;

  constructor(opts: WorkspaceOptions = {}) {
    requireTerraform();
    this.root = fs.mkdtempSync(path.join(os.tmpdir(), 'proxyaccount-e2e-'));
    this.dir = path.join(this.root, 'work');
    fs.mkdirSync(this.dir);
    const mirror = path.join(this.root, 'mirror');
    const cliConfig = path.join(this.root, 'terraform.rc');
    try {
      installProvider(mirror, opts.provider ?? E2E_PROVIDER);
      fs.writeFileSync(cliConfig, mirrorCliConfig(mirror));
    } catch (err) {
      // No dispose() will come for a workspace that was never made.
      fs.rmSync(this.root, { recursive: true, force: true });
      throw err;
    }
    this.env = {
      ...cleanEnv(),
      TF_CLI_CONFIG_FILE: cliConfig,
      TF_IN_AUTOMATION: '1',
      TF_INPUT: '0',
      CHECKPOINT_DISABLE: '1',
      // The provider remembers rejected credentials across runs: keep that memory in the
      // workspace, never in the user's cache, so one test's 401 cannot refuse another's run.
      PROXYACCOUNT_AUTH_FAILURE_CACHE: path.join(this.root, 'auth-failures.json'),
      ...((opts.provider ?? E2E_PROVIDER) === SEA_PROVIDER ? { PATH: pathWithoutNode(this.root) } : {}),
      ...opts.env,
    };
  }

  /** Writes (or replaces) a file in the working directory. */
  write(name: string, content: string): void {
    fs.writeFileSync(path.join(this.dir, name), content);
  }

  /** Reads a file of the working directory. */
  read(name: string): string {
    return fs.readFileSync(path.join(this.dir, name), 'utf8');
  }

  /** Runs terraform with the given arguments in the working directory. Never throws on exit codes. */
  run(args: string[], extraEnv: NodeJS.ProcessEnv = {}): Promise<TerraformResult> {
    return new Promise((resolve, reject) => {
      execFile(
        'terraform',
        [`-chdir=${this.dir}`, ...args],
        { env: { ...this.env, ...extraEnv }, maxBuffer: 64 * 1024 * 1024, timeout: 180_000 },
        (err, stdout, stderr) => {
          if (err && typeof (err as NodeJS.ErrnoException).code === 'string') return reject(err);
          const code = err ? Number((err as { code?: number }).code ?? 1) : 0;
          resolve({ code, stdout: String(stdout), stderr: String(stderr) });
        },
      );
    });
  }

  /** Runs terraform and fails with its full output unless the exit code is one of `expected`. */
  async expect(args: string[], expected: number[] = [0], extraEnv: NodeJS.ProcessEnv = {}): Promise<TerraformResult> {
    const res = await this.run(args, extraEnv);
    if (!expected.includes(res.code)) {
      throw new Error(
        `terraform ${args.join(' ')} exited ${res.code} (expected ${expected.join(' or ')})\n--- stdout\n${res.stdout}\n--- stderr\n${res.stderr}`,
      );
    }
    return res;
  }

  /** `terraform init`, which must succeed (main.tf must name the provider first). */
  init(): Promise<TerraformResult> {
    return this.expect(['init', '-no-color', '-input=false']);
  }

  /** `terraform apply -auto-approve`, which must succeed. */
  apply(): Promise<TerraformResult> {
    return this.expect(['apply', '-no-color', '-input=false', '-auto-approve']);
  }

  /** `plan -detailed-exitcode`: 0 = no changes, 2 = changes. */
  async planExitCode(extra: string[] = []): Promise<TerraformResult> {
    return this.expect(['plan', '-no-color', '-input=false', '-detailed-exitcode', ...extra], [0, 2]);
  }

  /** The state as `terraform show -json` reports it. */
  async state(): Promise<TerraformShow> {
    const res = await this.expect(['show', '-json', '-no-color']);
    return JSON.parse(res.stdout) as TerraformShow;
  }

  /** Deletes a file of the working directory; a missing file is fine. */
  remove(name: string): void {
    fs.rmSync(path.join(this.dir, name), { force: true });
  }

  /** Writes `main.tf`: the required_providers block followed by `blocks`. */
  config(...blocks: string[]): void {
    this.write('main.tf', [REQUIRED_PROVIDERS, ...blocks].join('\n'));
  }

  /** `terraform destroy -auto-approve`, which must succeed. */
  destroy(): Promise<TerraformResult> {
    return this.expect(['destroy', '-no-color', '-input=false', '-auto-approve']);
  }

  /** `terraform import ADDRESS ID`, which must succeed. */
  importCli(address: string, id: string): Promise<TerraformResult> {
    return this.expect(['import', '-no-color', '-input=false', address, id]);
  }

  /** `terraform state rm ADDRESS...`: Terraform forgets the objects, the API keeps them. */
  stateRm(...addresses: string[]): Promise<TerraformResult> {
    return this.expect(['state', 'rm', '-no-color', ...addresses]);
  }

  /** The root module's outputs (`terraform output -json`), by name. */
  async outputs(): Promise<Record<string, unknown>> {
    const res = await this.expect(['output', '-json', '-no-color']);
    const parsed = JSON.parse(res.stdout) as Record<string, { value: unknown }>;
    return Object.fromEntries(Object.entries(parsed).map(([k, v]) => [k, v.value]));
  }

  /**
   * Starts terraform in its own process group (so a test can send the group SIGINT, as a
   * terminal's Ctrl-C does) and returns the child without waiting for it.
   */
  spawnDetached(args: string[]): ChildProcessWithoutNullStreams {
    return spawn('terraform', [`-chdir=${this.dir}`, ...args], { env: this.env, detached: true, stdio: 'pipe' });
  }

  /** Removes the temporary directories. */
  dispose(): void {
    fs.rmSync(this.root, { recursive: true, force: true });
  }
}

/** The parts of `terraform show -json` the tests read. */
export interface TerraformShow {
  values?: {
    root_module?: {
      resources?: Array<{ address: string; type: string; name: string; values: Record<string, unknown>; sensitive_values?: Record<string, unknown> }>;
    };
  };
}

/** Finds a resource's values in `terraform show -json` output by address. */
export function resourceValues(show: TerraformShow, address: string): Record<string, unknown> | undefined {
  return show.values?.root_module?.resources?.find((r) => r.address === address)?.values;
}

/** HCL for the provider's required_providers block. */
export const REQUIRED_PROVIDERS = `terraform {
  required_providers {
    proxyaccount = {
      source  = "proxyaccount/proxyaccount"
      version = "~> 0.1"
    }
  }
}
`;
