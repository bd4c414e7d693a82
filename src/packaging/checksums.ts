// SHA-256 of files and the `sha256sum` format of a release's SHA256SUMS file.
import { createHash } from 'node:crypto';
import { createReadStream, readSync } from 'node:fs';

/** The SHA-256 of a file, lowercase hex, read as a stream (release zips are tens of megabytes). */
export async function sha256File(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/**
 * The SHA-256 of the file open as `fd`, read from its start with positional reads: what was
 * hashed is what a later copy from the same descriptor gets, whatever the file's name now names.
 */
export function sha256Fd(fd: number): string {
  const hash = createHash('sha256');
  const buf = Buffer.allocUnsafe(1 << 20);
  for (let pos = 0, n = readSync(fd, buf, 0, buf.length, pos); n > 0; pos += n, n = readSync(fd, buf, 0, buf.length, pos)) hash.update(buf.subarray(0, n));
  return hash.digest('hex');
}

/** `sha256sum` output for the given files: `HEX  NAME` lines sorted by name. */
export function formatSha256Sums(sums: ReadonlyMap<string, string>): string {
  return [...sums.keys()]
    .sort()
    .map((name) => `${sums.get(name)}  ${name}\n`)
    .join('');
}

/**
 * Parses `sha256sum` output (text or binary mode markers) into file name → hex digest.
 * Throws on a malformed line, naming it, rather than skipping it: a skipped line is a file that
 * would then count as "not listed" for the wrong reason.
 */
export function parseSha256Sums(text: string, source = 'SHA256SUMS'): Map<string, string> {
  const sums = new Map<string, string>();
  text.split('\n').forEach((line, i) => {
    if (line.trim() === '') return;
    const m = /^([0-9a-fA-F]{64}) [ *](.+)$/.exec(line.replace(/\r$/, ''));
    if (!m) throw new Error(`${source} line ${i + 1} is not "SHA256  FILE": ${JSON.stringify(line.slice(0, 100))}`);
    sums.set(m[2]!, m[1]!.toLowerCase());
  });
  return sums;
}
