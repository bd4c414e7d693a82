// Lays a verified release out for Terraform: the packed filesystem-mirror layout and the static
// tree of the Provider Network Mirror Protocol.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ProviderAddress } from './names';
import type { VerifiedRelease } from './release-dir';
import { zipHash1 } from './zip';

/** Copies a file into place atomically (write beside it, then rename). */
function copyAtomic(from: string, to: string): void {
  fs.mkdirSync(path.dirname(to), { recursive: true });
  const tmp = `${to}.tmp-${process.pid}`;
  fs.copyFileSync(from, tmp);
  fs.renameSync(tmp, to);
}

function writeAtomic(file: string, content: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.tmp-${process.pid}`;
  fs.writeFileSync(tmp, content);
  fs.renameSync(tmp, file);
}

/**
 * Installs the release's zips into a filesystem mirror with the packed layout
 * `HOST/NAMESPACE/TYPE/terraform-provider-TYPE_VERSION_OS_ARCH.zip`. Unlike the unpacked layout,
 * Terraform can hash a zip for a platform it does not run on, so `terraform providers lock
 * -platform=...` records every installed platform. Returns the files written.
 */
export function installPackedMirror(release: VerifiedRelease, mirrorDir: string, address: ProviderAddress): string[] {
  const dir = path.join(path.resolve(mirrorDir), address.host, address.namespace, address.type);
  return release.archives.map((archive) => {
    const target = path.join(dir, archive.name);
    copyAtomic(archive.file, target);
    return target;
  });
}

/** What `HOST/NAMESPACE/TYPE/VERSION.json` of a network mirror holds. */
export interface NetworkMirrorVersion {
  archives: Record<string, { url: string; hashes: string[] }>;
}

/**
 * Writes the static files of the Provider Network Mirror Protocol under `dir`:
 * `HOST/NAMESPACE/TYPE/index.json` (versions, merged with those already there),
 * `HOST/NAMESPACE/TYPE/VERSION.json` (each platform's zip, by a URL relative to that file, with
 * its `h1:` hash) and the zips beside them. Serve `dir` over HTTPS and point `network_mirror.url`
 * at it. Returns the files written.
 */
export async function writeNetworkMirror(release: VerifiedRelease, dir: string, address: ProviderAddress): Promise<string[]> {
  const typeDir = path.join(path.resolve(dir), address.host, address.namespace, address.type);
  const written: string[] = [];
  const version: NetworkMirrorVersion = { archives: {} };
  for (const archive of release.archives) {
    const target = path.join(typeDir, archive.name);
    copyAtomic(archive.file, target);
    written.push(target);
    version.archives[archive.platform] = { url: archive.name, hashes: [await zipHash1(archive.file)] };
  }
  const versionFile = path.join(typeDir, `${release.version}.json`);
  writeAtomic(versionFile, `${JSON.stringify(version, null, 2)}\n`);
  written.push(versionFile);
  const indexFile = path.join(typeDir, 'index.json');
  const index: { versions: Record<string, Record<string, never>> } = { versions: {} };
  if (fs.existsSync(indexFile)) {
    const previous = JSON.parse(fs.readFileSync(indexFile, 'utf8')) as { versions?: Record<string, Record<string, never>> };
    Object.assign(index.versions, previous.versions ?? {});
  }
  index.versions[release.version] = {};
  writeAtomic(indexFile, `${JSON.stringify(index, null, 2)}\n`);
  written.push(indexFile);
  return written;
}
