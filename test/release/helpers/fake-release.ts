// Small release directories for the install and mirror tests: the real zip step
// (scripts/release.js's zipExecutable) around a few bytes instead of a 100 MB single executable,
// so these tests need no `npm run release`. Also zips no release makes (crafted).
import { once } from 'node:events';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { formatSha256Sums, sha256File } from '../../../src/packaging';
import { VERSION } from './release';

export const BASE = `terraform-provider-proxyaccount_${VERSION}`;
export const EXECUTABLE = `terraform-provider-proxyaccount_v${VERSION}`;
export const SOURCE_DIR = path.join('registry.terraform.io', 'proxyaccount', 'proxyaccount');
export const zipName = (platform: string): string => `${BASE}_${platform}.zip`;

interface YazlOptions {
  mode: number;
  mtime: Date;
  forceDosTimestamp: boolean;
}
/** The part of yazl (no type declarations installed) the crafted zips use. */
interface YazlZipFile {
  addBuffer(data: Buffer, name: string, options: YazlOptions & { compress: boolean }): void;
  addEmptyDirectory(name: string, options: YazlOptions): void;
  end(): void;
  readonly outputStream: NodeJS.ReadableStream;
}
const yazl = require('yazl') as { ZipFile: new () => YazlZipFile };

const { zipExecutable } = require('../../../scripts/release.js') as {
  zipExecutable: (executable: string, name: string, zipFile: string, date?: Date) => Promise<void>;
};

/** Writes SHA256SUMS for every zip in `dir`. */
export async function writeSums(dir: string): Promise<void> {
  const sums = new Map<string, string>();
  for (const f of fs.readdirSync(dir).filter((f) => f.endsWith('.zip'))) sums.set(f, await sha256File(path.join(dir, f)));
  fs.writeFileSync(path.join(dir, `${BASE}_SHA256SUMS`), formatSha256Sums(sums));
}

/** The zip of one platform, as release.js makes it, holding `content` as the executable. */
export async function zipPackage(zipFile: string, content: string): Promise<void> {
  const exe = `${zipFile}.exe-src`;
  fs.writeFileSync(exe, content);
  await zipExecutable(exe, EXECUTABLE, zipFile);
  fs.rmSync(exe);
}

/** A release directory with a tiny "executable" per platform (its text names the platform and `tag`). */
export async function fakeRelease(dir: string, platforms: readonly string[] = ['linux_amd64', 'linux_arm64'], tag = 'a'): Promise<string> {
  fs.mkdirSync(dir, { recursive: true });
  for (const platform of platforms) await zipPackage(path.join(dir, zipName(platform)), `#!/bin/sh\necho ${platform} ${tag}\n`);
  await writeSums(dir);
  return dir;
}

/**
 * A zip of the given entries (a name ending in `/` is a directory). yazl refuses names with `\`,
 * `..` or a leading `/`, as it should: write each such name as a placeholder of the same length
 * and patch the bytes afterwards (the name is in the local header and the central directory; no
 * checksum covers it).
 */
export async function craftedZip(file: string, entries: readonly { name: string; data: string; mode: number }[]): Promise<void> {
  const zip = new yazl.ZipFile();
  const patches: [Buffer, Buffer][] = [];
  entries.forEach((e, i) => {
    let name = e.name;
    if (name.includes('\\') || name.startsWith('/') || name.split('/').includes('..')) {
      const placeholder = `${'Q'.repeat(Buffer.byteLength(name) - 1)}${i}`;
      patches.push([Buffer.from(placeholder), Buffer.from(name)]);
      name = placeholder;
    }
    const options = { mode: e.mode, mtime: new Date(Date.UTC(2020, 0, 1)), forceDosTimestamp: true };
    if (name.endsWith('/')) zip.addEmptyDirectory(name, options);
    else zip.addBuffer(Buffer.from(e.data), name, { ...options, compress: false });
  });
  const chunks: Buffer[] = [];
  zip.outputStream.on('data', (c: Buffer) => chunks.push(c));
  zip.end();
  await once(zip.outputStream, 'end');
  const bytes = Buffer.concat(chunks);
  for (const [from, to] of patches) {
    for (let at = bytes.indexOf(from); at !== -1; at = bytes.indexOf(from, at + 1)) to.copy(bytes, at);
  }
  fs.writeFileSync(file, bytes);
}
