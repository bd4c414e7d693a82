// What `provider mirror` and `provider install --from` accept and write: VERSION.json merged with
// the platforms already published, existing JSON checked before anything is written, zips that
// are not what a release makes refused, hashes taken from the copy, and the mirror URL checked.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { checkMirrorUrl, installFromRelease, writeMirror } from '../../src/cli/provider';
import { hash1, installPackedMirror, openRelease, writeNetworkMirror, zipHash1 } from '../../src/packaging';
import { craftedZip, EXECUTABLE, fakeRelease, SOURCE_DIR, writeSums, zipName, zipPackage } from './helpers/fake-release';
import { VERSION } from './helpers/release';
import { providerCli } from './helpers/provider-cli';

const ADDRESS = { host: 'registry.terraform.io', namespace: 'proxyaccount', type: 'proxyaccount' };

let root: string;
let release: string;

beforeAll(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'proxyaccount-mirror-files-'));
  release = await fakeRelease(path.join(root, 'release'));
});

afterAll(() => {
  if (root) fs.rmSync(root, { recursive: true, force: true });
});

let cases = 0;
const fresh = (): string => path.join(root, `case-${cases++}`);
const typeDir = (dir: string): string => path.join(dir, SOURCE_DIR);
const readJson = (file: string): unknown => JSON.parse(fs.readFileSync(file, 'utf8'));

describe('provider mirror --platform: the platforms already published', () => {
  it('keeps the platforms VERSION.json listed whose zip is still there and matches; drops, and says so, the others', async () => {
    const dir = fresh();
    await writeMirror({ from: release, dir });
    const amd64 = { url: zipName('linux_amd64'), hashes: [await zipHash1(path.join(release, zipName('linux_amd64')))] };
    const arm64 = { url: zipName('linux_arm64'), hashes: [await zipHash1(path.join(release, zipName('linux_arm64')))] };
    const versionFile = path.join(typeDir(dir), `${VERSION}.json`);

    const refreshed = await writeMirror({ from: release, dir, platforms: ['linux_arm64'] });
    expect(refreshed).toMatchObject({ platforms: ['linux_arm64'], kept: ['linux_amd64'], dropped: [] });
    expect(readJson(versionFile)).toEqual({ archives: { linux_amd64: amd64, linux_arm64: arm64 } });

    // The published amd64 zip changed under the mirror: its listed hash no longer holds.
    await zipPackage(path.join(typeDir(dir), zipName('linux_amd64')), 'something else');
    const res = await providerCli(['provider', 'mirror', '--from', release, '--dir', dir, '--platform', 'linux_arm64']);
    expect(res.error).toBeUndefined();
    expect(res.stderr).toContain(
      `dropped linux_amd64 from ${VERSION}.json, which listed it: its zip ${zipName('linux_amd64')} no longer matches ${amd64.hashes[0]} (it hashes to h1:`,
    );
    expect(readJson(versionFile)).toEqual({ archives: { linux_arm64: arm64 } });

    // A zip gone from the tree.
    await writeMirror({ from: release, dir });
    fs.rmSync(path.join(typeDir(dir), zipName('linux_arm64')));
    const gone = await writeMirror({ from: release, dir, platforms: ['linux_amd64'] });
    expect(gone.dropped).toEqual([{ platform: 'linux_arm64', reason: `its zip ${zipName('linux_arm64')} is missing` }]);
    expect(readJson(versionFile)).toEqual({ archives: { linux_amd64: amd64 } });
    expect(readJson(path.join(typeDir(dir), 'index.json'))).toEqual({ versions: { [VERSION]: {} } });
  });

  it('says which earlier platforms it kept', async () => {
    const dir = fresh();
    await writeMirror({ from: release, dir });
    const res = await providerCli(['provider', 'mirror', '--from', release, '--dir', dir, '--platform', 'linux_arm64']);
    expect(res.stderr).toContain(`(linux_arm64; kept linux_amd64 from before) to ${dir}`);
  });
});

describe('existing index.json and VERSION.json are checked before anything is written', () => {
  /** A mirror tree holding only `file` with `text`. */
  function treeWith(file: string, text: string): { dir: string; file: string } {
    const dir = fresh();
    fs.mkdirSync(typeDir(dir), { recursive: true });
    fs.writeFileSync(path.join(typeDir(dir), file), text);
    return { dir, file: path.join(typeDir(dir), file) };
  }

  it.each([
    ['index.json', '{bad', 'a network-mirror index ({"versions":{"VERSION":{}}}): it is not JSON ('],
    ['index.json', '{"versions":"0.2.0"}', 'a network-mirror index ({"versions":{"VERSION":{}}}): its "versions" is a string, not an object'],
    ['index.json', '[]', 'a network-mirror index ({"versions":{"VERSION":{}}}): it holds an array'],
    ['index.json', '{}', 'a network-mirror index ({"versions":{"VERSION":{}}}): its "versions" is missing, not an object'],
    ['index.json', '{"versions":{"0.2.0":[]}}', 'its version "0.2.0" is an array, not an object'],
    [`${VERSION}.json`, '{"archives":', 'a network-mirror version file ({"archives":{"OS_ARCH":{"url":"…","hashes":["h1:…"]}}}): it is not JSON ('],
    [`${VERSION}.json`, 'null', 'it holds null'],
    [`${VERSION}.json`, '{"archives":[]}', 'its "archives" is an array, not an object'],
    [
      `${VERSION}.json`,
      '{"archives":{"linux_amd64":{"url":"x.zip","hashes":"h1:x"}}}',
      'its archive linux_amd64 is not {"url": string, "hashes": [string, …]}',
    ],
    [`${VERSION}.json`, '{"archives":{"../x":{"url":"x.zip","hashes":[]}}}', 'its archive "../x" is not a platform name such as linux_amd64'],
  ])('refuses %s holding %s, naming the file', async (name, text, why) => {
    const { dir, file } = treeWith(name, text);
    const message = await writeMirror({ from: release, dir }).then(
      () => '',
      (e: Error) => e.message,
    );
    expect(message).toContain(`${file} is not a network-mirror `);
    expect(message).toContain(why);
    expect(message).toContain('; fix or remove it');
    expect(fs.readdirSync(typeDir(dir))).toEqual([name]); // no zip, no other JSON, no temporary file
    expect(fs.readFileSync(file, 'utf8')).toBe(text);
  });

  it('keeps the versions index.json already lists', async () => {
    const { dir, file } = treeWith('index.json', '{"versions":{"0.0.9":{}}}');
    await writeMirror({ from: release, dir });
    expect(readJson(file)).toEqual({ versions: { '0.0.9': {}, [VERSION]: {} } });
  });
});

describe('zips that are not what a release makes are refused before anything is copied', () => {
  const exe = (data = '#!/bin/sh\n') => ({ name: EXECUTABLE, data, mode: 0o100755 });
  const CASES: [string, { name: string; data: string; mode: number }[], string][] = [
    ['two entries of one name', [exe('first\n'), exe('second\n')], `it holds 2 entries ("${EXECUTABLE}", "${EXECUTABLE}"), not the one file ${EXECUTABLE}`],
    ['a backslash in a name', [exe(), { name: 'a\\b', data: 'x', mode: 0o100644 }], 'cannot be read as a zip: invalid characters in fileName: a\\b'],
    ['a name climbing out', [exe(), { name: '../evil', data: 'x', mode: 0o100644 }], 'cannot be read as a zip: invalid relative path: ../evil'],
    ['an absolute name', [exe(), { name: '/tmp/evil', data: 'x', mode: 0o100644 }], 'cannot be read as a zip: absolute path: /tmp/evil'],
    ['a directory entry', [{ name: 'docs/', data: '', mode: 0o40755 }, exe()], 'it holds 2 entries ("docs/", '],
    ['a symbolic link', [exe(), { name: 'link', data: '/etc/passwd', mode: 0o120777 }], 'it holds 2 entries'],
    ['another name', [{ name: 'terraform-provider-other_v1', data: 'x', mode: 0o100755 }], `its one entry is "terraform-provider-other_v1", not ${EXECUTABLE}`],
    ['the executable as a link', [{ name: EXECUTABLE, data: '/bin/sh', mode: 0o120777 }], `its entry ${EXECUTABLE} is not a regular file (mode 120777)`],
  ];

  it.each(CASES)('%s', async (_what, entries, problem) => {
    const from = fs.mkdtempSync(path.join(root, 'crafted-'));
    await craftedZip(path.join(from, zipName('linux_amd64')), entries);
    await writeSums(from);
    for (const write of [
      (dir: string) => writeMirror({ from, dir }),
      (dir: string) => installFromRelease({ from, mirrorDir: dir, platforms: ['linux_amd64'] }),
    ]) {
      const dir = fresh();
      const err = await write(dir).then(
        () => undefined,
        (e: Error) => e.message,
      );
      expect(err).toContain(zipName('linux_amd64'));
      expect(err).toContain(problem);
      expect(fs.existsSync(dir)).toBe(false);
    }
  });

  it('hashes no package holding two entries of one name (Terraform would hash the last one twice)', () => {
    expect(() =>
      hash1([
        { name: 'a', sha256: '1'.repeat(64) },
        { name: 'a', sha256: '2'.repeat(64) },
      ]),
    ).toThrow('cannot hash a package holding two entries named "a"');
  });
});

describe('the zip is copied from the descriptor it was checked through, and the copy is checked again', () => {
  const WRITES: [string, (r: Awaited<ReturnType<typeof openRelease>>, dir: string) => Promise<unknown>][] = [
    ['provider mirror', (r, dir) => writeNetworkMirror(r, dir, ADDRESS)],
    ['provider install --from', (r, dir) => installPackedMirror(r, dir, ADDRESS)],
  ];

  it.each(WRITES)('%s installs the zip it checked when the name is given another file afterwards', async (_name, write) => {
    const from = await fakeRelease(fs.mkdtempSync(path.join(root, 'swapped-')), ['linux_amd64']);
    const zip = path.join(from, zipName('linux_amd64'));
    const checked = fs.readFileSync(zip);
    const verified = await openRelease(from, { type: 'proxyaccount', version: VERSION });
    try {
      await zipPackage(zip, '#!/bin/sh\necho swapped\n'); // a new file renamed over the name
      const dir = fresh();
      await write(verified, dir);
      expect(fs.readFileSync(path.join(typeDir(dir), zipName('linux_amd64')))).toEqual(checked);
    } finally {
      verified.close();
    }
  });

  it.each(WRITES)('%s refuses a zip rewritten in place after it was checked, writing nothing', async (_name, write) => {
    const from = await fakeRelease(fs.mkdtempSync(path.join(root, 'changing-')), ['linux_amd64']);
    const zip = path.join(from, zipName('linux_amd64'));
    const verified = await openRelease(from, { type: 'proxyaccount', version: VERSION });
    try {
      const other = path.join(root, `other-${cases}.zip`);
      await zipPackage(other, '#!/bin/sh\necho changed\n');
      fs.writeFileSync(zip, fs.readFileSync(other)); // the same file, new bytes
      const dir = fresh();
      await expect(write(verified, dir)).rejects.toThrow(`${zip} changed while it was being copied (SHA256SUMS says`);
      expect(fs.readdirSync(typeDir(dir))).toEqual([]);
    } finally {
      verified.close();
    }
  });
});

describe('provider mirror --url', () => {
  it.each([
    ['not a url', '--url must be an absolute https:// URL, such as https://mirror.example.com/providers/'],
    ['/providers/', '--url must be an absolute https:// URL'],
    ['http://localhost:1234/', '--url http://localhost:1234/ is not an https:// URL: Terraform fetches a network mirror over HTTPS only'],
    ['https://mirror.example.com/p/?v=1', 'has a query or fragment'],
    ['https://mirror.example.com/p/#top', 'has a query or fragment'],
    ['https://mirror.example.com/p/?', 'has a query or fragment'],
  ])('refuses %s before writing anything', async (url, message) => {
    const dir = fresh();
    const res = await providerCli(['provider', 'mirror', '--from', release, '--dir', dir, '--url', url]);
    expect(res.error).toContain(message);
    expect(fs.existsSync(dir)).toBe(false);
  });

  it('refuses a user name or password without repeating them', () => {
    let message = '';
    try {
      checkMirrorUrl('https://mirror-user:s3cret-value@mirror.example.com/');
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toContain('--url must not hold a user name or password');
    expect(message).not.toContain('s3cret-value');
    expect(message).not.toContain('mirror-user');
  });

  it('takes an https URL, ending it with a slash', () => {
    expect(checkMirrorUrl('https://mirror.example.com/providers')).toBe('https://mirror.example.com/providers/');
    expect(checkMirrorUrl('https://localhost:8443/')).toBe('https://localhost:8443/');
  });
});
