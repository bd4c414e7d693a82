// `proxyaccount provider install`: lays the bundled provider (or a release's verified zips, for
// several platforms) out as a Terraform filesystem mirror so `terraform init` works offline, and
// prints the CLI configuration that uses it. `provider mirror`: a Provider Network Mirror
// Protocol tree from a release, to serve over HTTPS.
import type { Command } from 'commander';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  installPackedMirror,
  installUnpacked,
  type NetworkMirrorResult,
  openRelease,
  ownersChecked,
  PLATFORM_PATTERN,
  type ProviderAddress,
  type VerifiedRelease,
  writeNetworkMirror,
  writeOwnFile,
} from '../packaging';

/** The provider's registry address, as written in `required_providers`. */
export const PROVIDER_HOST = 'registry.terraform.io';
export const PROVIDER_NAMESPACE = 'proxyaccount';
export const PROVIDER_TYPE = 'proxyaccount';
export const PROVIDER_SOURCE = `${PROVIDER_HOST}/${PROVIDER_NAMESPACE}/${PROVIDER_TYPE}`;
const ADDRESS: ProviderAddress = { host: PROVIDER_HOST, namespace: PROVIDER_NAMESPACE, type: PROVIDER_TYPE };

/** Where `npm run build` leaves the bundled, executable provider. */
export function bundledProviderPath(): string {
  return path.resolve(__dirname, '..', 'provider', `terraform-provider-${PROVIDER_TYPE}`);
}

/** Where `npm run release` leaves the release (zips, SHA256SUMS, manifest). */
export function defaultReleaseDir(): string {
  return path.resolve(__dirname, '..', 'release');
}

export function packageVersion(): string {
  return (require('../../package.json') as { version: string }).version;
}

/**
 * Terraform's name for this machine's platform, e.g. `linux_amd64`. `fromRelease`: the provider
 * comes from a release, which builds Windows executables too; the bundled Node.js script runs
 * only where a shell line can start it.
 */
export function terraformPlatform(platform: NodeJS.Platform = process.platform, arch: string = process.arch, fromRelease = false): string {
  const osName: Partial<Record<NodeJS.Platform, string>> = {
    linux: 'linux',
    darwin: 'darwin',
    freebsd: 'freebsd',
    openbsd: 'openbsd',
    ...(fromRelease ? { win32: 'windows' } : {}),
  };
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
 * Replaces an earlier install of the same version atomically (write, then rename). Refuses a
 * mirror directory that is a symbolic link, another user's or writable by others (Terraform
 * runs what the mirror holds).
 */
export function installProvider(mirrorDir: string, source = bundledProviderPath()): InstallResult {
  if (!fs.existsSync(source)) {
    throw new Error(`the bundled provider ${source} does not exist: run \`npm run build\` first`);
  }
  const version = packageVersion();
  const platform = terraformPlatform();
  const executable = installUnpacked({ source, mirrorDir, address: ADDRESS, version, platform });
  return { mirrorDir: path.resolve(mirrorDir), executable, version, platform };
}

/** Options of {@link installFromRelease}. */
export interface InstallFromReleaseOptions {
  /** The release directory (`npm run release` output). */
  readonly from: string;
  /** The filesystem mirror's root. */
  readonly mirrorDir: string;
  /** Platforms to install. @default this machine's */
  readonly platforms?: readonly string[];
}

/** What {@link installFromRelease} installed. */
export interface InstallFromReleaseResult {
  readonly mirrorDir: string;
  readonly version: string;
  readonly platforms: readonly string[];
  /** The zips written, in the packed layout. */
  readonly files: readonly string[];
  /** Whether the release holds a SHA256SUMS signature (not checked). */
  readonly signature: boolean;
}

/** Opens the `--from` release (refusing one another user could have written), uses it, and closes it. */
async function withRelease<T>(from: string, platforms: readonly string[] | undefined, use: (release: VerifiedRelease) => Promise<T>): Promise<T> {
  const release = await openRelease(from, { type: PROVIDER_TYPE, version: packageVersion(), platforms, label: '--from' });
  try {
    return await use(release);
  } finally {
    release.close();
  }
}

/**
 * Installs a release's zips, each checked against the release's SHA256SUMS, into a filesystem
 * mirror with the packed layout `HOST/NAMESPACE/TYPE/terraform-provider-TYPE_VERSION_OS_ARCH.zip`,
 * which is what lets `terraform providers lock -platform=...` hash every platform.
 */
export async function installFromRelease(opts: InstallFromReleaseOptions): Promise<InstallFromReleaseResult> {
  const platforms = checkPlatforms(opts.platforms && opts.platforms.length > 0 ? opts.platforms : [terraformPlatform(process.platform, process.arch, true)]);
  const mirrorDir = path.resolve(opts.mirrorDir);
  return withRelease(opts.from, platforms, async (release) => {
    const files = await installPackedMirror(release, mirrorDir, ADDRESS);
    return { mirrorDir, version: release.version, platforms, files, signature: release.signature };
  });
}

function checkPlatforms(platforms: readonly string[]): string[] {
  const bad = platforms.filter((p) => !PLATFORM_PATTERN.test(p));
  if (bad.length > 0) throw new Error(`--platform ${bad.join(', ')} is not a Terraform platform name such as linux_amd64 or darwin_arm64`);
  return [...new Set(platforms)];
}

/** Options of {@link writeMirror}. */
export interface WriteMirrorOptions {
  /** The release directory (`npm run release` output). */
  readonly from: string;
  /** The network mirror's root directory (served at the mirror URL). */
  readonly dir: string;
  /** Platforms to publish. @default every platform of the release */
  readonly platforms?: readonly string[];
}

/** What {@link writeMirror} wrote: the files, this run's platforms, and the earlier platforms kept or dropped. */
export interface WriteMirrorResult extends NetworkMirrorResult {
  readonly platforms: readonly string[];
  readonly version: string;
  /** Whether the release holds a SHA256SUMS signature (not checked). */
  readonly signature: boolean;
}

/** Lays out a Provider Network Mirror Protocol tree from a release whose zips match its SHA256SUMS. */
export async function writeMirror(opts: WriteMirrorOptions): Promise<WriteMirrorResult> {
  const platforms = opts.platforms && opts.platforms.length > 0 ? checkPlatforms(opts.platforms) : undefined;
  return withRelease(opts.from, platforms, async (release) => {
    const result = await writeNetworkMirror(release, opts.dir, ADDRESS);
    return { ...result, platforms: release.archives.map((a) => a.platform), version: release.version, signature: release.signature };
  });
}

/**
 * What `--from` checked, said plainly: SHA256SUMS comes from the same directory as the zips, so it
 * catches a zip damaged or changed by accident, and the ownership check keeps other users out;
 * the signature would be what proves the release is the publisher's, and nothing checks it.
 * Without POSIX owners (Windows) there was no ownership check, and the note must not claim one.
 */
function checkedNote(signature: boolean, owners = ownersChecked()): string {
  const sig = signature
    ? 'its SHA256SUMS.sig is not checked: verify it with gpg --verify before trusting a release you did not build'
    : 'the release has no SHA256SUMS.sig, so nothing proves who made it';
  const where = owners
    ? 'in a directory only you or root can change'
    : 'but who owns the release and who can write it were not checked (this system has no POSIX owners, as on Windows: only symbolic links are refused), so use a release in a folder only you can change, such as under your profile';
  return `each zip matched the release's SHA256SUMS, ${where}; ${sig}\n`;
}

/** A `provider_installation` block: this provider from one mirror, every other provider direct. */
function installationFrom(kind: 'network_mirror' | 'filesystem_mirror', setting: 'url' | 'path', value: string): string {
  return [
    'provider_installation {',
    `  ${kind} {`,
    `    ${setting.padEnd(7)} = ${JSON.stringify(value)}`,
    `    include = [${JSON.stringify(PROVIDER_SOURCE)}]`,
    '  }',
    '  direct {',
    `    exclude = [${JSON.stringify(PROVIDER_SOURCE)}]`,
    '  }',
    '}',
    '',
  ].join('\n');
}

/**
 * A network mirror's URL as Terraform takes it: absolute, `https:` (Terraform refuses any other
 * scheme, but only at `terraform init`), no query or fragment (Terraform appends paths to it),
 * no user name or password (Terraform takes credentials from a `credentials` block; the URL would
 * also be printed). Returns it normalized, ending in `/`; throws a clear error otherwise, without
 * repeating a value that may hold a password.
 */
export function checkMirrorUrl(raw: string): string {
  const example = 'such as https://mirror.example.com/providers/';
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error(`--url must be an absolute https:// URL, ${example}`);
  }
  if (url.username !== '' || url.password !== '') {
    throw new Error("--url must not hold a user name or password: give the mirror's credentials to Terraform in a `credentials` block instead");
  }
  if (url.protocol !== 'https:') throw new Error(`--url ${raw} is not an https:// URL: Terraform fetches a network mirror over HTTPS only`);
  if (url.search !== '' || url.hash !== '' || raw.includes('?') || raw.includes('#')) {
    throw new Error(`--url ${raw} has a query or fragment: Terraform appends the mirror's paths to it; give the base URL, ${example}`);
  }
  return url.href.endsWith('/') ? url.href : `${url.href}/`;
}

/** The CLI configuration that makes `terraform init` take this provider from a network mirror. */
export function networkMirrorCliConfig(url: string): string {
  return installationFrom('network_mirror', 'url', checkMirrorUrl(url));
}

/** The CLI configuration block that makes `terraform init` take the provider from the mirror. */
export function mirrorCliConfig(mirrorDir: string): string {
  return installationFrom('filesystem_mirror', 'path', path.resolve(mirrorDir));
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

const collect = (value: string, previous: string[]): string[] => [...previous, ...value.split(',').filter(Boolean)];

function writeCliConfig(file: string | undefined, config: string): void {
  if (!file) return;
  writeOwnFile(file, config, 'the CLI configuration (--cli-config)');
  process.stderr.write(`wrote ${file}; export TF_CLI_CONFIG_FILE=${path.resolve(file)}\n`);
}

export function register(program: Command): void {
  const provider = program.command('provider').description('Install the Terraform provider for offline use, or lay out a mirror of a release');
  provider
    .command('install')
    .description(
      'Lay out the built provider (or a release, for several platforms) as a filesystem mirror and print the Terraform CLI configuration that uses it',
    )
    .option('--dir <dir>', 'mirror directory', path.join(os.homedir(), '.terraform.d', 'plugins'))
    .option('--cli-config <file>', 'also write the CLI configuration to this file (use it with TF_CLI_CONFIG_FILE)')
    .option('--dev-overrides', 'print a dev_overrides configuration pointing at the build output instead of installing')
    .option(
      '--from <dir>',
      "install the single executables of a release directory (`npm run release`; yours or root's, writable by nobody else), each zip checked against its SHA256SUMS",
    )
    .option('--platform <os_arch>', 'with --from: a platform to install, e.g. linux_arm64 (repeatable; default: this machine)', collect, [])
    .action(async (opts: { dir: string; cliConfig?: string; devOverrides?: boolean; from?: string; platform: string[] }, cmd: Command) => {
      let config: string;
      if (opts.platform.length > 0 && !opts.from) {
        throw new Error(
          '--platform needs --from DIR: without a release only the script form for this machine can be installed (make one with `npm run release`)',
        );
      }
      if (opts.devOverrides) {
        if (opts.from) throw new Error('--dev-overrides runs the build output directly; it cannot be combined with --from');
        // It installs nothing: a mirror directory asked for would silently not be made.
        if (cmd.getOptionValueSource('dir') === 'cli') {
          throw new Error('--dev-overrides runs the build output directly and installs nothing; it cannot be combined with --dir');
        }
        if (!fs.existsSync(bundledProviderPath())) {
          throw new Error(`the bundled provider ${bundledProviderPath()} does not exist: run \`npm run build\` first`);
        }
        config = devOverridesCliConfig();
        process.stderr.write('dev_overrides: skip `terraform init` for this provider; Terraform runs the build output directly\n');
      } else if (opts.from) {
        const result = await installFromRelease({ from: opts.from, mirrorDir: opts.dir, platforms: opts.platform });
        for (const file of result.files) process.stderr.write(`installed ${PROVIDER_SOURCE} ${result.version} to ${file}\n`);
        process.stderr.write(checkedNote(result.signature));
        config = mirrorCliConfig(result.mirrorDir);
      } else {
        const result = installProvider(opts.dir);
        process.stderr.write(`installed ${PROVIDER_SOURCE} ${result.version} (${result.platform}) to ${result.executable}\n`);
        config = mirrorCliConfig(result.mirrorDir);
      }
      writeCliConfig(opts.cliConfig, config);
      process.stdout.write(config);
    });
  provider
    .command('mirror')
    .description('Lay out a release as a static Provider Network Mirror Protocol tree and print the CLI configuration for it')
    .requiredOption('--dir <dir>', 'the mirror tree to write (serve it over HTTPS)')
    .option('--from <dir>', "the release directory (`npm run release`; yours or root's, writable by nobody else)", defaultReleaseDir())
    .option('--platform <os_arch>', 'a platform to publish (repeatable; default: every platform of the release)', collect, [])
    .option('--url <url>', 'the HTTPS URL the tree will be served at, for the printed configuration', 'https://mirror.example.com/providers/')
    .option('--cli-config <file>', 'also write the CLI configuration to this file (use it with TF_CLI_CONFIG_FILE)')
    .action(async (opts: { dir: string; from: string; platform: string[]; url: string; cliConfig?: string }) => {
      // Checked before anything is written.
      const config = networkMirrorCliConfig(opts.url);
      const result = await writeMirror({ from: opts.from, dir: opts.dir, platforms: opts.platform });
      for (const { platform, reason } of result.dropped) {
        process.stderr.write(`dropped ${platform} from ${result.version}.json, which listed it: ${reason}\n`);
      }
      const kept = result.kept.length > 0 ? `; kept ${result.kept.join(', ')} from before` : '';
      process.stderr.write(
        `wrote a network mirror of ${PROVIDER_SOURCE} ${result.version} (${result.platforms.join(', ')}${kept}) to ${path.resolve(opts.dir)}; serve it at ${checkMirrorUrl(opts.url)}\n`,
      );
      process.stderr.write(checkedNote(result.signature));
      writeCliConfig(opts.cliConfig, config);
      process.stdout.write(config);
    });
}
