// Opens a release directory (what `npm run release` writes) and verifies each zip against the
// release's SHA256SUMS before anything uses it.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseSha256Sums, sha256File } from './checksums';
import { releaseFileNames } from './names';
import { listZipEntries, packageEntriesProblem } from './zip';

/** One platform's zip of a release, checked against SHA256SUMS. */
export interface ReleaseArchive {
  readonly platform: string;
  /** Absolute path of the zip. */
  readonly file: string;
  /** The zip's file name (`terraform-provider-TYPE_VERSION_OS_ARCH.zip`). */
  readonly name: string;
  /** SHA-256 of the zip, lowercase hex (equal to its SHA256SUMS line). */
  readonly sha256: string;
  /** The zip's one entry: `terraform-provider-TYPE_vVERSION` (`.exe` on Windows). */
  readonly executable: string;
}

/** A release whose requested zips all match its SHA256SUMS. */
export interface VerifiedRelease {
  readonly dir: string;
  readonly type: string;
  readonly version: string;
  /** Every platform SHA256SUMS lists a zip for, sorted. */
  readonly available: readonly string[];
  /** The requested platforms' zips, in the order asked. */
  readonly archives: readonly ReleaseArchive[];
}

/** Options of {@link openRelease}. */
export interface OpenReleaseOptions {
  /** The provider type, e.g. `proxyaccount`. */
  readonly type: string;
  /** The version to take from the directory. */
  readonly version: string;
  /** Platforms to verify and return. @default every platform SHA256SUMS lists */
  readonly platforms?: readonly string[];
}

/**
 * Reads `DIR/terraform-provider-TYPE_VERSION_SHA256SUMS` and checks the SHA-256 of each
 * requested platform's zip against it, then its entries. Refuses (throws) a zip that is missing,
 * not listed, different from its line, or not one executable as `npm run release` zips it: a
 * mirror must never hold a package the release did not produce, nor one whose `h1:` hash
 * Terraform computes differently. Callers copy the zips afterwards and check the copies again
 * (the release directory may change in between).
 */
export async function openRelease(dir: string, opts: OpenReleaseOptions): Promise<VerifiedRelease> {
  const names = releaseFileNames(opts.type, opts.version);
  const root = path.resolve(dir);
  const sumsFile = path.join(root, names.sums);
  if (!fs.existsSync(sumsFile)) {
    const found = fs.existsSync(root) ? fs.readdirSync(root).filter((f) => f.endsWith('_SHA256SUMS')) : [];
    throw new Error(
      `${root} holds no ${names.sums}${found.length > 0 ? ` (it has ${found.join(', ')})` : ''}: make the release with \`npm run release\`, or point --from at its directory`,
    );
  }
  const sums = parseSha256Sums(fs.readFileSync(sumsFile, 'utf8'), names.sums);
  const available = [...sums.keys()]
    .map((f) => names.platformOf(f))
    .filter((p): p is string => p !== undefined)
    .sort();
  const platforms = opts.platforms ?? available;
  if (platforms.length === 0) throw new Error(`${names.sums} lists no zip of ${opts.type} ${opts.version}`);
  const archives: ReleaseArchive[] = [];
  for (const platform of platforms) {
    const name = names.zip(platform);
    const expected = sums.get(name);
    if (expected === undefined) {
      throw new Error(`the release in ${root} has no ${platform} package: ${names.sums} lists ${available.join(', ') || 'no platform'}`);
    }
    const file = path.join(root, name);
    if (!fs.existsSync(file)) throw new Error(`${name} is listed in ${names.sums} but missing from ${root}`);
    const actual = await sha256File(file);
    if (actual !== expected) {
      throw new Error(
        `${name} does not match ${names.sums} (expected sha256 ${expected}, the file has ${actual}): it changed after the release was made; refusing to use it`,
      );
    }
    const executable = names.executable(platform);
    const problem = packageEntriesProblem(await listZipEntries(file), executable);
    if (problem !== undefined) throw new Error(`${name} in ${root} is not a provider package as \`npm run release\` makes it: ${problem}; refusing to use it`);
    archives.push({ platform, file, name, sha256: actual, executable });
  }
  return { dir: root, type: opts.type, version: opts.version, available, archives };
}
