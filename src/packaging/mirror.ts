// Lays a provider out for Terraform: the unpacked and packed filesystem-mirror layouts and the
// static tree of the Provider Network Mirror Protocol. Every directory of the tree is checked
// (private-tree.ts) and every file goes through a temporary file renamed into place.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { sha256File } from './checksums';
import { PLATFORM_PATTERN, type ProviderAddress, releaseFileNames } from './names';
import { discardAll, removeStaleTemps, type StagedFile, stageFile, walkPrivateTree } from './private-tree';
import type { ReleaseArchive, VerifiedRelease } from './release-dir';
import { hash1, listZipEntries, packageEntriesProblem, readZipEntries, type ZipEntryInfo, type ZipListing } from './zip';

/** `HOST/NAMESPACE/TYPE`, the provider's directories in every mirror layout. */
const typeParts = (address: ProviderAddress): string[] => [address.host, address.namespace, address.type];

/**
 * The zip names (`terraform-provider-TYPE_VERSION_OS_ARCH.zip`, any version and platform) that a
 * temporary file in `typeDir` was made for: a killed install of other platforms than this run's
 * leaves zips of tens of megabytes that no later run would otherwise remove.
 */
function zipTempNames(typeDir: string, type: string): string[] {
  const prefix = `terraform-provider-${type}_`;
  const names = new Set<string>();
  for (const entry of fs.readdirSync(typeDir)) {
    const m = /^\.?(.+\.zip)\.tmp-\d+/.exec(entry);
    if (m?.[1]?.startsWith(prefix) && /_[a-z0-9]+_[a-z0-9]+\.zip$/.test(m[1])) names.add(m[1]);
  }
  return [...names];
}

/** Options of {@link installUnpacked}. */
export interface InstallUnpackedOptions {
  /** The executable to install. */
  readonly source: string;
  /** The filesystem mirror's root. */
  readonly mirrorDir: string;
  readonly address: ProviderAddress;
  readonly version: string;
  readonly platform: string;
}

/**
 * Installs one executable into a filesystem mirror with the unpacked layout
 * `HOST/NAMESPACE/TYPE/VERSION/PLATFORM/terraform-provider-TYPE_vVERSION`, replacing an earlier
 * one atomically, and removes a packed zip of the same version and platform, which would compete
 * with it. Returns the installed file.
 */
export function installUnpacked(opts: InstallUnpackedOptions): string {
  const root = path.resolve(opts.mirrorDir);
  const parts = typeParts(opts.address);
  walkPrivateTree(root, [...parts, opts.version, opts.platform], true);
  const names = releaseFileNames(opts.address.type, opts.version);
  const name = names.executable(opts.platform);
  const versionDir = path.join(root, ...parts, opts.version);
  const platformDir = path.join(versionDir, opts.platform);
  for (const dir of [versionDir, platformDir]) removeStaleTemps(dir, [name]);
  // The temporary file waits in the VERSION directory: Terraform hashes every file of the
  // platform directory as the package, so a file a killed install left there would break it.
  stageFile(path.join(platformDir, name), { from: opts.source }, 0o755, versionDir).commit();
  const zip = path.join(root, ...parts, names.zip(opts.platform));
  if (fs.lstatSync(zip, { throwIfNoEntry: false })?.isDirectory() === false) fs.unlinkSync(zip);
  return path.join(platformDir, name);
}

/**
 * Copies a verified archive, from the descriptor it was verified through, into a temporary file in
 * `typeDir` and checks the copy, which nobody else can change: its SHA-256 against SHA256SUMS
 * (the file may have been rewritten in place since) and its entries. With `hashed`, also returns
 * the copy's `h1:` hash.
 */
async function stageArchive(archive: ReleaseArchive, typeDir: string, hashed: boolean): Promise<{ staged: StagedFile; h1?: string }> {
  const staged = stageFile(path.join(typeDir, archive.name), { fd: archive.fd }, 0o644);
  try {
    const sha256 = await sha256File(staged.tmp);
    if (sha256 !== archive.sha256) {
      throw new Error(`${archive.file} changed while it was being copied (SHA256SUMS says ${archive.sha256}, the copy has ${sha256}); refusing to use it`);
    }
    const check = (entries: readonly ZipListing[]): void => {
      const problem = packageEntriesProblem(entries, archive.executable);
      if (problem !== undefined) throw new Error(`${archive.file} changed while it was being copied: ${problem}; refusing to use it`);
    };
    if (!hashed) {
      check(await listZipEntries(staged.tmp));
      return { staged };
    }
    const entries = await readZipEntries(staged.tmp);
    check(entries);
    return { staged, h1: hash1(entries) };
  } catch (err) {
    staged.discard();
    throw err;
  }
}

/**
 * Installs the release's zips into a filesystem mirror with the packed layout
 * `HOST/NAMESPACE/TYPE/terraform-provider-TYPE_VERSION_OS_ARCH.zip`. Unlike the unpacked layout,
 * Terraform can hash a zip for a platform it does not run on, so `terraform providers lock
 * -platform=...` records every installed platform. An unpacked install of the same version and
 * platform (plain `provider install`) is removed: it would compete with the zip. Nothing is
 * changed unless every zip's copy checks out. Returns the files written.
 */
export async function installPackedMirror(release: VerifiedRelease, mirrorDir: string, address: ProviderAddress): Promise<string[]> {
  const root = path.resolve(mirrorDir);
  const parts = typeParts(address);
  walkPrivateTree(root, parts, true);
  const typeDir = path.join(root, ...parts);
  removeStaleTemps(typeDir, zipTempNames(typeDir, address.type));
  const staged: StagedFile[] = [];
  try {
    for (const archive of release.archives) staged.push((await stageArchive(archive, typeDir, false)).staged);
    for (const archive of release.archives) {
      // Checked with lstat down to the platform directory: never remove a tree reached through a link.
      if (walkPrivateTree(root, [...parts, release.version, archive.platform], false)) {
        fs.rmSync(path.join(typeDir, release.version, archive.platform), { recursive: true });
      }
    }
    for (const s of staged) s.commit();
  } catch (err) {
    discardAll(staged);
    throw err;
  }
  return staged.map((s) => s.target);
}

/** What `HOST/NAMESPACE/TYPE/VERSION.json` of a network mirror holds. */
export interface NetworkMirrorVersion {
  archives: Record<string, { url: string; hashes: string[] }>;
}

/** What `HOST/NAMESPACE/TYPE/index.json` of a network mirror holds. */
interface NetworkMirrorIndex {
  versions: Record<string, Record<string, unknown>>;
}

/** What {@link writeNetworkMirror} wrote. */
export interface NetworkMirrorResult {
  /** The files written. */
  readonly files: readonly string[];
  /** Platforms VERSION.json listed before that this run did not publish, kept: their zip is there and matches its hashes. */
  readonly kept: readonly string[];
  /** Platforms VERSION.json listed before, dropped from it, and why. */
  readonly dropped: readonly { readonly platform: string; readonly reason: string }[];
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const describe = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'an array' : `a ${typeof v}`);

/** The JSON in `file`, undefined when there is no such file. */
function readJson(file: string, what: string): unknown {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new Error(`${file} cannot be read (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new Error(`${file} is not ${what}: it is not JSON (${(err as Error).message}); fix or remove it`);
  }
}

function readIndex(file: string): NetworkMirrorIndex | undefined {
  const what = 'a network-mirror index ({"versions":{"VERSION":{}}})';
  const value = readJson(file, what);
  if (value === undefined) return undefined;
  const bad = (why: string): Error => new Error(`${file} is not ${what}: ${why}; fix or remove it`);
  if (!isObject(value)) throw bad(`it holds ${describe(value)}`);
  if (!isObject(value.versions)) throw bad(`its "versions" is ${value.versions === undefined ? 'missing' : describe(value.versions)}, not an object`);
  for (const [version, v] of Object.entries(value.versions)) {
    if (!isObject(v)) throw bad(`its version ${JSON.stringify(version)} is ${describe(v)}, not an object`);
  }
  return value as unknown as NetworkMirrorIndex;
}

function readVersion(file: string): NetworkMirrorVersion | undefined {
  const what = 'a network-mirror version file ({"archives":{"OS_ARCH":{"url":"…","hashes":["h1:…"]}}})';
  const value = readJson(file, what);
  if (value === undefined) return undefined;
  const bad = (why: string): Error => new Error(`${file} is not ${what}: ${why}; fix or remove it`);
  if (!isObject(value)) throw bad(`it holds ${describe(value)}`);
  if (!isObject(value.archives)) throw bad(`its "archives" is ${value.archives === undefined ? 'missing' : describe(value.archives)}, not an object`);
  for (const [platform, a] of Object.entries(value.archives)) {
    if (!PLATFORM_PATTERN.test(platform)) throw bad(`its archive ${JSON.stringify(platform)} is not a platform name such as linux_amd64`);
    if (!isObject(a) || typeof a.url !== 'string' || !Array.isArray(a.hashes) || !a.hashes.every((h) => typeof h === 'string')) {
      throw bad(`its archive ${platform} is not {"url": string, "hashes": [string, …]}`);
    }
  }
  return value as unknown as NetworkMirrorVersion;
}

/**
 * Why an earlier entry of VERSION.json can no longer be served, or undefined when it can: its
 * zip must be a file beside VERSION.json, a provider package, and match every hash listed
 * (`h1:` recomputed, `zh:` the zip's SHA-256).
 */
async function earlierEntryProblem(typeDir: string, executable: string, entry: { url: string; hashes: string[] }): Promise<string | undefined> {
  const { url } = entry;
  if (url !== path.basename(url) || url === '.' || url === '..' || /[\\?#%]/.test(url)) return `its url ${JSON.stringify(url)} is not a file beside it`;
  const file = path.join(typeDir, url);
  const st = fs.lstatSync(file, { throwIfNoEntry: false });
  if (st === undefined) return `its zip ${url} is missing`;
  if (!st.isFile()) return `its zip ${url} is not a regular file`;
  let entries: ZipEntryInfo[];
  try {
    entries = await readZipEntries(file);
  } catch (err) {
    return (err as Error).message;
  }
  const problem = packageEntriesProblem(entries, executable);
  if (problem !== undefined) return `its zip ${url} is not a provider package: ${problem}`;
  if (entry.hashes.length === 0) return 'it lists no hash';
  const h1 = hash1(entries);
  const zh = `zh:${await sha256File(file)}`;
  const wrong = entry.hashes.filter((h) => h !== h1 && h !== zh);
  if (wrong.length > 0) return `its zip ${url} no longer matches ${wrong.join(', ')} (it hashes to ${h1})`;
  return undefined;
}

/**
 * Writes the static files of the Provider Network Mirror Protocol under `dir`:
 * `HOST/NAMESPACE/TYPE/index.json` (versions, merged with those already there),
 * `HOST/NAMESPACE/TYPE/VERSION.json` (each platform's zip, by a URL relative to that file, with
 * its `h1:` hash, merged with the platforms already there whose zip still matches) and the zips
 * beside them. The existing JSON files are read and checked before anything is written, and the
 * `h1:` hashes are computed from the copies. Serve `dir` over HTTPS and point
 * `network_mirror.url` at it.
 */
export async function writeNetworkMirror(release: VerifiedRelease, dir: string, address: ProviderAddress): Promise<NetworkMirrorResult> {
  const root = path.resolve(dir);
  const parts = typeParts(address);
  const typeDir = path.join(root, ...parts);
  const versionFile = path.join(typeDir, `${release.version}.json`);
  const indexFile = path.join(typeDir, 'index.json');
  const existed = walkPrivateTree(root, parts, false);
  const index: NetworkMirrorIndex = { versions: { ...(existed ? readIndex(indexFile)?.versions : undefined) } };
  const earlier = existed ? readVersion(versionFile) : undefined;
  walkPrivateTree(root, parts, true);
  removeStaleTemps(typeDir, [...zipTempNames(typeDir, address.type), path.basename(versionFile), path.basename(indexFile)]);

  const names = releaseFileNames(address.type, release.version);
  const archives: NetworkMirrorVersion['archives'] = {};
  const kept: string[] = [];
  const dropped: { platform: string; reason: string }[] = [];
  const staged: StagedFile[] = [];
  try {
    for (const archive of release.archives) {
      const { staged: s, h1 } = await stageArchive(archive, typeDir, true);
      staged.push(s);
      archives[archive.platform] = { url: archive.name, hashes: [h1!] };
    }
    for (const [platform, entry] of Object.entries(earlier?.archives ?? {})) {
      if (Object.hasOwn(archives, platform)) continue;
      const reason = await earlierEntryProblem(typeDir, names.executable(platform), entry);
      if (reason === undefined) {
        archives[platform] = entry;
        kept.push(platform);
      } else {
        dropped.push({ platform, reason });
      }
    }
    const version: NetworkMirrorVersion = { archives: Object.fromEntries(Object.entries(archives).sort(([a], [b]) => (a < b ? -1 : 1))) };
    staged.push(stageFile(versionFile, { text: `${JSON.stringify(version, null, 2)}\n` }, 0o644));
    index.versions[release.version] = {};
    staged.push(stageFile(indexFile, { text: `${JSON.stringify(index, null, 2)}\n` }, 0o644));
    for (const s of staged) s.commit();
  } catch (err) {
    discardAll(staged);
    throw err;
  }
  return { files: staged.map((s) => s.target), kept, dropped };
}
