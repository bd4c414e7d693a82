// Reads release zips (yauzl) and computes Terraform's "h1:" package hash of their contents.
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import { Readable } from 'node:stream';
import * as yauzl from 'yauzl';

/** An entry as the zip's central directory lists it, read without its contents. */
export interface ZipListing {
  /** The entry's path inside the zip, as yauzl decodes it. */
  readonly name: string;
  /** The name's bytes as stored, which is what Go's archive/zip (and so Terraform) reads. */
  readonly rawName: Buffer;
  /** Unix file type and mode bits from the external attributes (0 when the zip was made without them). */
  readonly mode: number;
}

/** One entry of a zip, with the SHA-256 of its uncompressed contents. */
export interface ZipEntryInfo extends ZipListing {
  /** The uncompressed size in bytes. */
  readonly size: number;
  /** SHA-256 of the uncompressed contents, lowercase hex. */
  readonly sha256: string;
  /** The system that made the entry (high byte of "version made by"): 3 is Unix, whose mode bits unzip applies. */
  readonly madeBy: number;
  /** The first 64 bytes of the contents (enough to tell an executable's format and machine). */
  readonly head: Buffer;
}

/**
 * Opens a zip keeping names as stored (`strictFileNames`: yauzl would otherwise turn `\` into
 * `/`, a name Terraform does not see) and naming the zip in every error yauzl raises.
 */
async function withZip<T>(file: string, use: (zip: yauzl.ZipFile) => Promise<T>, open?: OpenFile): Promise<T> {
  let zip: yauzl.ZipFile | undefined;
  const options = { lazyEntries: true, autoClose: false, strictFileNames: true };
  try {
    zip = await (open ? yauzl.fromRandomAccessReaderPromise(new FdReader(open.fd), open.size, options) : yauzl.openPromise(file, options));
    return await use(zip);
  } catch (err) {
    throw new Error(`${file} cannot be read as a zip: ${err instanceof Error ? err.message : String(err)}`);
  } finally {
    zip?.close();
  }
}

/** A file already open: its descriptor and size. */
export interface OpenFile {
  readonly fd: number;
  readonly size: number;
}

/**
 * Reads a zip through a descriptor that stays open after the zip is closed (yauzl's own `fromFd`
 * closes it), so that the caller can go on to copy the file it checked from the same descriptor.
 */
class FdReader extends yauzl.RandomAccessReader {
  constructor(private readonly fd: number) {
    super();
  }

  override _readStreamForRange(start: number, end: number): Readable {
    const fd = this.fd;
    let pos = start;
    // Positional reads that never close the descriptor nor move a shared file position.
    return new Readable({
      read(size) {
        const want = Math.min(size, end - pos);
        if (want <= 0) {
          this.push(null);
          return;
        }
        const buf = Buffer.allocUnsafe(want);
        fs.read(fd, buf, 0, want, pos, (err, n) => {
          if (err) this.destroy(err);
          else if (n === 0) this.destroy(new Error('unexpected end of file'));
          else {
            pos += n;
            this.push(buf.subarray(0, n));
          }
        });
      },
    });
  }
}

/**
 * The entries of a zip file from its central directory, contents unread; through `open` (the
 * descriptor of `file`, left open) when given, `file` then only naming it in errors.
 */
export function listZipEntries(file: string, open?: OpenFile): Promise<ZipListing[]> {
  return withZip(
    file,
    async (zip) => {
      const entries: ZipListing[] = [];
      for (let entry = await nextEntry(zip); entry !== undefined; entry = await nextEntry(zip)) {
        entries.push({ name: entry.fileName, rawName: Buffer.from(entry.fileNameRaw), mode: (entry.externalFileAttributes >>> 16) & 0o177777 });
      }
      return entries;
    },
    open,
  );
}

/** Every entry of a zip file (directories included), each read through once to hash it. */
export function readZipEntries(file: string): Promise<ZipEntryInfo[]> {
  return withZip(file, async (zip) => {
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
        rawName: Buffer.from(entry.fileNameRaw),
        mode: (entry.externalFileAttributes >>> 16) & 0o177777,
        size: entry.uncompressedSize,
        sha256: hash.digest('hex'),
        madeBy: entry.versionMadeBy >> 8,
        head,
      });
    }
    return entries;
  });
}

/**
 * The contents of the files of a zip whose names `wanted` accepts (names as stored), each at most
 * `maxBytes` (a larger one is an error, not read): small text files out of an archive, such as the
 * copy of the configuration a saved Terraform plan holds.
 */
export async function readZipFiles(file: string, wanted: (name: string) => boolean, maxBytes = 1 << 20): Promise<Map<string, Buffer>> {
  let tooLarge: string | undefined;
  const out = await withZip(file, async (zip) => {
    const files = new Map<string, Buffer>();
    for (let entry = await nextEntry(zip); entry !== undefined; entry = await nextEntry(zip)) {
      if (entry.fileName.endsWith('/') || !wanted(entry.fileName)) continue;
      if (entry.uncompressedSize > maxBytes) {
        tooLarge = entry.fileName;
        break;
      }
      const chunks: Buffer[] = [];
      for await (const chunk of await zip.openReadStreamPromise(entry)) chunks.push(chunk as Buffer);
      files.set(entry.fileName, Buffer.concat(chunks));
    }
    return files;
  });
  // Not a zip that cannot be read (withZip's wording): a file this reader does not take.
  if (tooLarge !== undefined) throw new Error(`${tooLarge} in ${file} is larger than ${maxBytes} bytes, the most read`);
  return out;
}

const S_IFMT = 0o170000;
const S_IFREG = 0o100000;

/**
 * Why a zip's entries are not a provider package as `npm run release` makes it, or undefined
 * when they are: exactly one entry, a regular file (or one without Unix mode bits) named
 * `executable`, spelled so in the bytes Terraform reads. release.js adds no directory entries.
 * Anything else (a second or duplicate entry, a link, another name) would either not be the
 * provider or get an `h1:` hash from us that Terraform computes differently and rejects.
 */
export function packageEntriesProblem(entries: readonly ZipListing[], executable: string): string | undefined {
  const names = entries.map((e) => JSON.stringify(e.rawName.toString('latin1'))).join(', ');
  if (entries.length !== 1) return `it holds ${entries.length} entries (${names || 'none'}), not the one file ${executable}`;
  const [entry] = entries;
  if (entry!.name !== executable || !entry!.rawName.equals(Buffer.from(executable))) return `its one entry is ${names}, not ${executable}`;
  const type = entry!.mode & S_IFMT;
  if (type !== 0 && type !== S_IFREG) return `its entry ${executable} is not a regular file (mode ${entry!.mode.toString(8)})`;
  return undefined;
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
  const sorted = [...entries].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  sorted.forEach((entry, i) => {
    if (entry.name.includes('\n')) throw new Error(`cannot hash a package holding a file name with a newline: ${JSON.stringify(entry.name)}`);
    // Go's dirhash keys a zip's files by name: for two entries of one name it hashes the last one's
    // contents twice, so ours would differ from Terraform's.
    if (i > 0 && sorted[i - 1]!.name === entry.name) throw new Error(`cannot hash a package holding two entries named ${JSON.stringify(entry.name)}`);
    summary.update(`${entry.sha256}  ${entry.name}\n`);
  });
  return `h1:${summary.digest('base64')}`;
}

/** The `h1:` hash of a zip file's contents. */
export async function zipHash1(file: string): Promise<string> {
  return hash1(await readZipEntries(file));
}
