// scripts/sea.js builds each cross-platform executable from a Node binary kept in a cache
// (PROXYACCOUNT_NODE_BINARIES_DIR, else ~/.cache/proxyaccount/node-binaries), and the release
// zips, hashes and signs what it builds. So the cache is used only as the mirrors and --out are:
// a real directory of the user's that nobody else can write, holding a binary of the user's that
// nobody else can write and that starts as a binary of its platform must. No download here: the
// cached "binary" is a file with the right first bytes.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const sea = require('../../scripts/sea.js') as {
  nodeBinary: (name: string) => string;
  platform: () => string;
  PLATFORMS: Record<string, { pkg: string; bin: string; magic: number[] }>;
};

const asRoot = process.getuid?.() === 0;
const itAsRoot = asRoot ? it : it.skip;
const OTHER = 12345;
/** A Linux platform this machine is not, so nodeBinary goes to the cache. */
const CROSS = sea.platform() === 'linux_arm64' ? 'linux_amd64' : 'linux_arm64';
const { pkg, magic } = sea.PLATFORMS[CROSS]!;
const SUB = `${pkg}-${process.version.slice(1)}`;
const WHY =
  'a single executable is that Node binary with the provider injected, and the release zips, hashes and signs it, so whoever else could ' +
  'write the cache could put a program of their own in the release: the cache (PROXYACCOUNT_NODE_BINARIES_DIR, else ' +
  '~/.cache/proxyaccount/node-binaries) must be a real directory of your own that nobody else can write';

let base: string;
let saved: string | undefined;

beforeAll(() => {
  base = fs.mkdtempSync(path.join(os.tmpdir(), 'proxyaccount-sea-cache-'));
  saved = process.env.PROXYACCOUNT_NODE_BINARIES_DIR;
});

afterAll(() => {
  if (saved === undefined) delete process.env.PROXYACCOUNT_NODE_BINARIES_DIR;
  else process.env.PROXYACCOUNT_NODE_BINARIES_DIR = saved;
  if (base) fs.rmSync(base, { recursive: true, force: true });
});

/** A cache directory holding a cached binary (the platform's first bytes, then `tail`); returns the binary's path. */
function cache(name: string, tail = 'node'): string {
  const dir = path.join(base, name);
  fs.mkdirSync(path.join(dir, SUB), { recursive: true, mode: 0o755 });
  const bin = path.join(dir, SUB, 'node');
  fs.writeFileSync(bin, Buffer.concat([Buffer.from(magic), Buffer.from(tail)]), { mode: 0o755 });
  fs.chmodSync(bin, 0o755);
  process.env.PROXYACCOUNT_NODE_BINARIES_DIR = dir;
  return bin;
}

describe('the Node binaries cache', () => {
  it('uses a cached binary of yours in a directory of yours that nobody else can write', () => {
    const bin = cache('good');
    expect(sea.nodeBinary(CROSS)).toBe(bin);
  });

  it('refuses a cache directory that group or others can write, with the chmod that mends it', () => {
    const bin = cache('writable-dir');
    const dir = path.dirname(path.dirname(bin));
    fs.chmodSync(dir, 0o777);
    expect(() => sea.nodeBinary(CROSS)).toThrow(
      `refusing to write the Node binaries cache: this directory is writable by group or others: ${dir} (mode 0777). ${WHY}: run chmod go-w '${dir}'`,
    );
  });

  it('refuses a version directory that group or others can write', () => {
    const bin = cache('writable-sub');
    fs.chmodSync(path.dirname(bin), 0o777);
    expect(() => sea.nodeBinary(CROSS)).toThrow(`this directory is writable by group or others: ${path.dirname(bin)} (mode 0777)`);
  });

  it('refuses a cached binary that group or others can write', () => {
    const bin = cache('writable-bin', 'PLANTED');
    fs.chmodSync(bin, 0o777);
    expect(() => sea.nodeBinary(CROSS)).toThrow(
      `refusing to use ${bin} from the Node binaries cache: group or others can write it (mode 0777); remove it to fetch it again. ${WHY}`,
    );
  });

  itAsRoot('refuses a cached binary another user owns, and a cache directory another user owns', () => {
    const bin = cache('their-bin', 'PLANTED');
    fs.chownSync(bin, OTHER, OTHER);
    expect(() => sea.nodeBinary(CROSS)).toThrow(
      `refusing to use ${bin} from the Node binaries cache: it is owned by uid ${OTHER}, not by the current user (uid 0); remove it to fetch it again. ${WHY}`,
    );
    const theirs = cache('their-dir');
    const dir = path.dirname(path.dirname(theirs));
    fs.chownSync(dir, OTHER, OTHER);
    expect(() => sea.nodeBinary(CROSS)).toThrow(
      `refusing to write the Node binaries cache into ${dir}: it is owned by uid ${OTHER}, not by the current user (uid 0). ${WHY}`,
    );
  });

  it('refuses a cached binary that is a symbolic link, or not a binary of its platform', () => {
    const bin = cache('link');
    const real = path.join(base, 'real-node');
    fs.renameSync(bin, real);
    fs.symlinkSync(real, bin);
    expect(() => sea.nodeBinary(CROSS)).toThrow(`refusing to use ${bin} from the Node binaries cache: it is a symbolic link. ${WHY}`);
    const wrong = cache('not-elf');
    fs.writeFileSync(wrong, '#!/bin/sh\necho planted\n');
    fs.chmodSync(wrong, 0o755);
    expect(() => sea.nodeBinary(CROSS)).toThrow(
      `refusing to use ${wrong} from the Node binaries cache: it is not a Node binary of its platform; remove it to fetch it again. ${WHY}`,
    );
  });
});
