// `proxyaccount provider install`: lays the bundled provider out as a Terraform filesystem
// mirror so `terraform init` works offline, and prints the CLI configuration that uses it.
import type { Command } from 'commander';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/** The provider's registry address, as written in `required_providers`. */
export const PROVIDER_HOST = 'registry.terraform.io';
export const PROVIDER_NAMESPACE = 'proxyaccount';
export const PROVIDER_TYPE = 'proxyaccount';
export const PROVIDER_SOURCE = `${PROVIDER_HOST}/${PROVIDER_NAMESPACE}/${PROVIDER_TYPE}`;

/** Where `npm run build` leaves the bundled, executable provider. */
export function bundledProviderPath(): string {
  return path.resolve(__dirname, '..', 'provider', `terraform-provider-${PROVIDER_TYPE}`);
}

export function packageVersion(): string {
  return (require('../../package.json') as { version: string }).version;
}

/** Terraform's name for this machine's platform, e.g. `linux_amd64`. */
export function terraformPlatform(platform: NodeJS.Platform = process.platform, arch: string = process.arch): string {
  const osName: Partial<Record<NodeJS.Platform, string>> = { linux: 'linux', darwin: 'darwin', freebsd: 'freebsd', openbsd: 'openbsd' };
  const archName: Record<string, string> = { x64: 'amd64', arm64: 'arm64', ia32: '386', arm: 'arm' };
  const o = osName[platform];
  const a = archName[arch];
  if (!o || !a) {
    throw new Error(
      `the provider is a Node.js script and cannot be installed for ${platform}/${arch}; supported: linux, darwin, freebsd, openbsd on x64, arm64, ia32, arm`,
    );
  }
  return `${o}_${a}`;
}

export interface InstallResult {
  /** The mirror's root directory (what `filesystem_mirror.path` points at). */
  mirrorDir: string;
  /** The installed executable. */
  executable: string;
  version: string;
  platform: string;
}

/**
 * Copies the bundled provider into `mirrorDir` using the unpacked mirror layout
 * `HOST/NAMESPACE/TYPE/VERSION/PLATFORM/terraform-provider-TYPE_vVERSION`.
 * Replaces an earlier install of the same version atomically (write, then rename).
 */
export function installProvider(mirrorDir: string, source = bundledProviderPath()): InstallResult {
  if (!fs.existsSync(source)) {
    throw new Error(`the bundled provider ${source} does not exist: run \`npm run build\` first`);
  }
  const version = packageVersion();
  const platform = terraformPlatform();
  const targetDir = path.join(path.resolve(mirrorDir), PROVIDER_HOST, PROVIDER_NAMESPACE, PROVIDER_TYPE, version, platform);
  fs.mkdirSync(targetDir, { recursive: true });
  const executable = path.join(targetDir, `terraform-provider-${PROVIDER_TYPE}_v${version}`);
  const tmp = `${executable}.tmp-${process.pid}`;
  fs.copyFileSync(source, tmp);
  fs.chmodSync(tmp, 0o755);
  fs.renameSync(tmp, executable);
  return { mirrorDir: path.resolve(mirrorDir), executable, version, platform };
}

/** The CLI configuration block that makes `terraform init` take the provider from the mirror. */
export function mirrorCliConfig(mirrorDir: string): string {
  return [
    'provider_installation {',
    '  filesystem_mirror {',
    `    path    = ${JSON.stringify(path.resolve(mirrorDir))}`,
    `    include = [${JSON.stringify(PROVIDER_SOURCE)}]`,
    '  }',
    '  direct {',
    `    exclude = [${JSON.stringify(PROVIDER_SOURCE)}]`,
    '  }',
    '}',
    '',
  ].join('\n');
}

/** The CLI configuration for provider development: Terraform runs the build output directly. */
export function devOverridesCliConfig(providerDir = path.dirname(bundledProviderPath())): string {
  return [
    'provider_installation {',
    '  dev_overrides {',
    `    ${JSON.stringify(PROVIDER_SOURCE)} = ${JSON.stringify(providerDir)}`,
    '  }',
    '  direct {}',
    '}',
    '',
  ].join('\n');
}

export function register(program: Command): void {
  const provider = program.command('provider').description('Install the Terraform provider for offline use');
  provider
    .command('install')
    .description('Lay out the built provider as a filesystem mirror and print the Terraform CLI configuration that uses it')
    .option('--dir <dir>', 'mirror directory', path.join(os.homedir(), '.terraform.d', 'plugins'))
    .option('--cli-config <file>', 'also write the CLI configuration to this file (use it with TF_CLI_CONFIG_FILE)')
    .option('--dev-overrides', 'print a dev_overrides configuration pointing at the build output instead of installing')
    .action((opts: { dir: string; cliConfig?: string; devOverrides?: boolean }) => {
      let config: string;
      if (opts.devOverrides) {
        if (!fs.existsSync(bundledProviderPath())) {
          throw new Error(`the bundled provider ${bundledProviderPath()} does not exist: run \`npm run build\` first`);
        }
        config = devOverridesCliConfig();
        process.stderr.write('dev_overrides: skip `terraform init` for this provider; Terraform runs the build output directly\n');
      } else {
        const result = installProvider(opts.dir);
        process.stderr.write(`installed ${PROVIDER_SOURCE} ${result.version} (${result.platform}) to ${result.executable}\n`);
        config = mirrorCliConfig(result.mirrorDir);
      }
      if (opts.cliConfig) {
        fs.writeFileSync(opts.cliConfig, config);
        process.stderr.write(`wrote ${opts.cliConfig}; export TF_CLI_CONFIG_FILE=${path.resolve(opts.cliConfig)}\n`);
      }
      process.stdout.write(config);
    });
}
