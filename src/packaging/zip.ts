// Reads release zips (yauzl) and computes Terraform's "h1:" package hash of their contents.
import { createHash } from 'node:crypto';
import * as yauzl from 'yauzl';

/** One entry of a zip, with the SHA-256 of its uncompressed contents. */
export interface ZipEntryInfo {
  /** The entry's path inside the zip. */
  readonly name: string;
  /** Unix file type and mode bits from the external attributes (0 when the zip was made without them). */
  readonly mode: number;
  /** The uncompressed size in bytes. */
  readonly size: number;
  /** SHA-256 of the uncompressed contents, lowercase hex. */
  readonly sha256: string;
  /** The system that made the entry (high byte of "version made by"): 3 is Unix, whose mode bits unzip applies. */
  readonly madeBy: number;
  /** The first 64 bytes of the contents (enough to tell an executable's format and machine). */
  readonly head: Buffer;
}

/** Every entry of a zip file (directories included), each read through once to hash it. */
export async function readZipEntries(file: string): Promise<ZipEntryInfo[]> {
  const zip = await yauzl.openPromise(file, { lazyEntries: true, autoClose: false });
  try {
    const entries: ZipEntryInfo[] = [];
    for (let entry = await nextEntry(zip); entry !== undefined; entry = await nextEntry(zip)) {
      const hash = createHash('sha256');
      let head = Buffer.alloc(0);
      if (!entry.fileName.endsWith('/')) {
        for await (const chunk of await zip.openReadStreamPromise(entry)) {
          hash.update(chunk as Buffer);
          if (head.length < 64) head = Buffer.concat([head, (chunk as Buffer).subarray(0, 64 - head.length)]);
        }
      }
      entries.push({
        name: entry.fileName,
        mode: (entry.externalFileAttributes >>> 16) & 0o177777,
        size: entry.uncompressedSize,
        sha256: hash.digest('hex'),
        madeBy: entry.versionMadeBy >> 8,
        head,
      });
    }
    return entries;
  } finally {
    zip.close();
  }
}

function nextEntry(zip: yauzl.ZipFile): Promise<yauzl.Entry | undefined> {
  return new Promise((resolve, reject) => {
    const onEntry = (entry: yauzl.Entry): void => done(entry);
    const onEnd = (): void => done(undefined);
    const onError = (err: Error): void => {
      cleanup();
      reject(err);
    };
    const cleanup = (): void => {
      zip.off('entry', onEntry);
      zip.off('end', onEnd);
      zip.off('error', onError);
    };
    const done = (entry: yauzl.Entry | undefined): void => {
      cleanup();
      resolve(entry);
    };
    zip.on('entry', onEntry);
    zip.on('end', onEnd);
    zip.on('error', onError);
    zip.readEntry();
  });
}

/**
 * Terraform's `h1:` hash of a provider package (golang.org/x/mod's dirhash Hash1 over the zip's
 * entries): SHA-256 over the sorted lines `SHA256HEX  NAME\n`, base64, prefixed `h1:`. The same
 * value Terraform records in `.terraform.lock.hcl` for the unpacked package.
 */
export function hash1(entries: readonly Pick<ZipEntryInfo, 'name' | 'sha256'>[]): string {
  const summary = createHash('sha256');
  for (const entry of [...entries].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    if (entry.name.includes('\n')) throw new Error(`cannot hash a package holding a file name with a newline: ${JSON.stringify(entry.name)}`);
    summary.update(`${entry.sha256}  ${entry.name}\n`);
  }
  return `h1:${summary.digest('base64')}`;
}

/** The `h1:` hash of a zip file's contents. */
export async function zipHash1(file: string): Promise<string> {
  return hash1(await readZipEntries(file));
}
