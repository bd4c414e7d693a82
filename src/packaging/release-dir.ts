// Opens a release directory (what `npm run release` writes) and checks each zip against the
// release's SHA256SUMS before anything uses it. The directory, SHA256SUMS and the zips must be the
// user's (or root's) and writable by nobody else (private-tree.ts), and each file is read through
// the one descriptor it was checked through.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseSha256Sums, sha256Fd } from './checksums';
import { releaseFileNames } from './names';
import { checkReleaseDir, openReleaseFile } from './private-tree';
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
  /** The descriptor the zip was checked through, open until {@link VerifiedRelease.close}: copy from it, not from `file`. */
  readonly fd: number;
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
  /** Whether the directory holds a `…_SHA256SUMS.sig`, which nothing here checks. */
  readonly signature: boolean;
  /** Closes the zips' descriptors. */
  close(): void;
}

/** Options of {@link openRelease}. */
export interface OpenReleaseOptions {
  /** The provider type, e.g. `proxyaccount`. */
  readonly type: string;
  /** The version to take from the directory. */
  readonly version: string;
  /** Platforms to verify and return. @default every platform SHA256SUMS lists */
  readonly platforms?: readonly string[];
  /** How errors name the directory (the option that gave it). @default 'the release directory' */
  readonly label?: string;
}

/** Reads the whole file open as `fd`, from its start. */
function readFd(fd: number, size: number): string {
  const buf = Buffer.alloc(size);
  let n = 0;
  for (let got = 1; n < size && got > 0; n += got) got = fs.readSync(fd, buf, n, size - n, n);
  return buf.subarray(0, n).toString('utf8');
}

/**
 * Reads `DIR/terraform-provider-TYPE_VERSION_SHA256SUMS` and checks the SHA-256 of each
 * requested platform's zip against it, then its entries. Refuses (throws) a directory, SHA256SUMS
 * or zip that another user owns or that group or others can write, a symbolic link, and a zip that
 * is missing, not listed, different from its line, or not one executable as `npm run release`
 * zips it: a mirror must never hold a package the release did not produce, nor one whose `h1:`
 * hash Terraform computes differently. SHA256SUMS only catches a zip that changed by accident: the
 * signature (`…_SHA256SUMS.sig`) is not checked. Callers copy each zip from `fd` and check the copy
 * again, then call `close`.
 */
export async function openRelease(dir: string, opts: OpenReleaseOptions): Promise<VerifiedRelease> {
  const names = releaseFileNames(opts.type, opts.version);
  const root = path.resolve(dir);
  // SHA256SUMS and the zips to be read (every platform's when none is asked for), checked together
  // first so that one refusal names every file group or others can write.
  const wanted = (f: string): boolean => {
    const platform = names.platformOf(f);
    return f === names.sums || (platform !== undefined && (opts.platforms === undefined || opts.platforms.includes(platform)));
  };
  checkReleaseDir(root, opts.label ?? 'the release directory', wanted);
  const sumsFile = path.join(root, names.sums);
  const sumsOpen = openReleaseFile(sumsFile);
  if (sumsOpen === undefined) {
    const found = fs.readdirSync(root).filter((f) => f.endsWith('_SHA256SUMS'));
    throw new Error(
      `${root} holds no ${names.sums}${found.length > 0 ? ` (it has ${found.join(', ')})` : ''}: make the release with \`npm run release\`, or point --from at its directory`,
    );
  }
  let text: string;
  try {
    text = readFd(sumsOpen.fd, sumsOpen.size);
  } finally {
    fs.closeSync(sumsOpen.fd);
  }
  const sums = parseSha256Sums(text, names.sums);
  const available = [...sums.keys()]
    .map((f) => names.platformOf(f))
    .filter((p): p is string => p !== undefined)
    .sort();
  const platforms = opts.platforms ?? available;
  if (platforms.length === 0) throw new Error(`${names.sums} lists no zip of ${opts.type} ${opts.version}`);
  const archives: ReleaseArchive[] = [];
  const close = (): void => {
    for (const a of archives.splice(0)) fs.closeSync(a.fd);
  };
  try {
    for (const platform of platforms) archives.push(await openArchive(root, names, sums, available, platform));
  } catch (err) {
    close();
    throw err;
  }
  const signature = fs.existsSync(path.join(root, names.signature));
  return { dir: root, type: opts.type, version: opts.version, available, archives: [...archives], signature, close };
}

/** Opens and checks one platform's zip; its descriptor is closed unless it is returned. */
async function openArchive(
  root: string,
  names: ReturnType<typeof releaseFileNames>,
  sums: ReadonlyMap<string, string>,
  available: readonly string[],
  platform: string,
): Promise<ReleaseArchive> {
  const name = names.zip(platform);
  const expected = sums.get(name);
  if (expected === undefined) {
    throw new Error(`the release in ${root} has no ${platform} package: ${names.sums} lists ${available.join(', ') || 'no platform'}`);
  }
  const file = path.join(root, name);
  const open = openReleaseFile(file);
  if (open === undefined) throw new Error(`${name} is listed in ${names.sums} but missing from ${root}`);
  try {
    const actual = sha256Fd(open.fd);
    if (actual !== expected) {
      throw new Error(
        `${name} does not match ${names.sums} (expected sha256 ${expected}, the file has ${actual}): it changed after the release was made; refusing to use it`,
      );
    }
    const executable = names.executable(platform);
    const problem = packageEntriesProblem(await listZipEntries(file, open), executable);
    if (problem !== undefined) throw new Error(`${name} in ${root} is not a provider package as \`npm run release\` makes it: ${problem}; refusing to use it`);
    return { platform, file, name, sha256: actual, executable, fd: open.fd };
  } catch (err) {
    fs.closeSync(open.fd);
    throw err;
  }
}
