// `provider install` (plain and --from) and `provider mirror` write only into a tree that this
// user alone can change: Terraform runs what a mirror holds, and a symbolic link or a directory
// someone else can write would turn our writes and deletions onto other files. Temporary files
// stay out of the package directory Terraform hashes, and a killed install's are removed.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { installFromRelease, installProvider, writeMirror } from '../../src/cli/provider';
import { EXECUTABLE, fakeRelease, SOURCE_DIR, zipName } from './helpers/fake-release';
import { VERSION } from './helpers/release';

// Tests run as root here: a directory of another uid, or one root may not use, is then possible to make.
const asRoot = process.getuid?.() === 0;
const itAsRoot = asRoot ? it : it.skip;

let root: string;
let release: string;
let source: string;

beforeAll(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'proxyaccount-mirror-tree-'));
  release = await fakeRelease(path.join(root, 'release'));
  source = path.join(root, 'provider-script');
  fs.writeFileSync(source, '#!/bin/sh\necho the script form\n');
});

afterAll(() => {
  if (root) fs.rmSync(root, { recursive: true, force: true });
});

let cases = 0;
/** A path for one test's mirror, not yet created. */
const fresh = (): string => path.join(root, `mirror-${cases++}`);

/** The three commands that write a mirror, each into `dir`. */
const WRITERS: [string, (dir: string) => Promise<unknown>][] = [
  ['provider install', async (dir) => installProvider(dir, source)],
  ['provider install --from', (dir) => installFromRelease({ from: release, mirrorDir: dir, platforms: ['linux_amd64'] })],
  ['provider mirror', (dir) => writeMirror({ from: release, dir })],
];

/** Every path under `dir`, relative, with a trailing `/` on directories. */
function tree(dir: string): string[] {
  return fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }).map((p) => (fs.lstatSync(path.join(dir, p)).isDirectory() ? `${p}/` : p));
}

/** A directory of someone else's, holding a file of theirs, that a link in the mirror points at. */
function victim(): { dir: string; untouched: () => void } {
  const dir = fs.mkdtempSync(path.join(root, 'victim-'));
  fs.mkdirSync(path.join(dir, 'linux_amd64'));
  fs.writeFileSync(path.join(dir, 'linux_amd64', 'important'), 'work');
  fs.writeFileSync(path.join(dir, 'notes.txt'), 'precious', { mode: 0o600 });
  const before = tree(dir);
  return {
    dir,
    untouched: () => {
      expect(tree(dir)).toEqual(before);
      expect(fs.readFileSync(path.join(dir, 'notes.txt'), 'utf8')).toBe('precious');
      expect(fs.statSync(path.join(dir, 'notes.txt')).mode & 0o777).toBe(0o600);
    },
  };
}

describe.each(WRITERS)('%s', (_name, write) => {
  it('creates the missing directories writable by this user alone, and leaves no temporary file', async () => {
    const dir = fresh();
    await write(dir);
    for (const rel of ['', ...SOURCE_DIR.split(path.sep).map((_, i, parts) => parts.slice(0, i + 1).join(path.sep))]) {
      const st = fs.lstatSync(path.join(dir, rel));
      expect(st.isDirectory()).toBe(true);
      expect(st.mode & 0o722).toBe(0o700);
    }
    expect(tree(dir).filter((p) => p.includes('.tmp-'))).toEqual([]);
  });

  it('refuses a mirror directory that is a symbolic link, writing nothing through it', async () => {
    const dir = fresh();
    const v = victim();
    fs.mkdirSync(dir);
    fs.symlinkSync(v.dir, path.join(dir, 'registry.terraform.io'));
    await expect(write(dir)).rejects.toThrow(
      `refusing to write the provider mirror into ${path.join(dir, 'registry.terraform.io')}: it is a symbolic link (give the directory it points to instead)`,
    );
    v.untouched();
  });

  it('refuses a --dir that is a symbolic link', async () => {
    const v = victim();
    const link = fresh();
    fs.symlinkSync(v.dir, link);
    await expect(write(link)).rejects.toThrow(`refusing to write the provider mirror into ${link}: it is a symbolic link`);
    v.untouched();
  });

  itAsRoot("refuses a directory of the tree that is another user's", async () => {
    const dir = fresh();
    const host = path.join(dir, 'registry.terraform.io');
    fs.mkdirSync(host, { recursive: true });
    fs.chownSync(host, 12345, 12345);
    await expect(write(dir)).rejects.toThrow(`refusing to write the provider mirror into ${host}: it is owned by uid 12345, not by the current user (uid 0)`);
    expect(tree(dir)).toEqual(['registry.terraform.io/']);
  });

  it('refuses a --dir that group or others can write', async () => {
    const dir = fresh();
    fs.mkdirSync(dir);
    fs.chmodSync(dir, 0o1777);
    await expect(write(dir)).rejects.toThrow(
      `refusing to write the provider mirror: this directory is writable by group or others: ${dir} (mode 0777). Terraform runs what a mirror holds, so each of its directories must be a real directory of your own that nobody else can write: run chmod go-w '${dir}'`,
    );
    expect(tree(dir)).toEqual([]);
  });

  it('names every directory group or others can write in one refusal (a tree made under umask 002), and creates nothing below them', async () => {
    const dir = fresh();
    const host = path.join(dir, 'registry.terraform.io');
    const namespace = path.join(host, 'proxyaccount');
    fs.mkdirSync(namespace, { recursive: true });
    for (const d of [dir, host, namespace]) fs.chmodSync(d, 0o775);
    const refusal = write(dir);
    await expect(refusal).rejects.toThrow(
      `these directories are writable by group or others: ${dir} (mode 0775), ${host} (mode 0775), ${namespace} (mode 0775).`,
    );
    await expect(refusal).rejects.toThrow(`run chmod go-w '${dir}' '${host}' '${namespace}'`);
    expect(tree(dir)).toEqual(['registry.terraform.io/', 'registry.terraform.io/proxyaccount/']);
    // The command it gives is all it takes.
    for (const d of [dir, host, namespace]) fs.chmodSync(d, 0o755);
    await write(dir);
    expect(tree(dir).length).toBeGreaterThan(2);
  });
});

describe('provider install --from over an unpacked install', () => {
  it('never removes an unpacked install reached through a symbolic link (a VERSION directory linked elsewhere)', async () => {
    const dir = fresh();
    const v = victim();
    fs.mkdirSync(path.join(dir, SOURCE_DIR), { recursive: true });
    fs.symlinkSync(v.dir, path.join(dir, SOURCE_DIR, VERSION));
    await expect(installFromRelease({ from: release, mirrorDir: dir, platforms: ['linux_amd64'] })).rejects.toThrow(
      `refusing to write the provider mirror into ${path.join(dir, SOURCE_DIR, VERSION)}: it is a symbolic link`,
    );
    v.untouched();
    expect(fs.readdirSync(path.join(dir, SOURCE_DIR))).toEqual([VERSION]); // no zip either
  });

  it('replaces an unpacked install of the same version and platform', async () => {
    const dir = fresh();
    installProvider(dir, source);
    await installFromRelease({ from: release, mirrorDir: dir, platforms: ['linux_amd64'] });
    expect(tree(path.join(dir, SOURCE_DIR)).sort()).toEqual([`${VERSION}/`, zipName('linux_amd64')]);
  });
});

describe('provider install (unpacked layout)', () => {
  const platformDir = (dir: string): string => path.join(dir, SOURCE_DIR, VERSION, 'linux_amd64');
  const versionDir = (dir: string): string => path.join(dir, SOURCE_DIR, VERSION);

  it("removes the temporary files a killed install of ours left, and no one else's", () => {
    const dir = fresh();
    installProvider(dir, source);
    const deadPid = spawnSync(process.execPath, ['-e', '']).pid!;
    const plant = (where: string, name: string, uid?: number): string => {
      const file = path.join(where, name);
      fs.writeFileSync(file, 'half a provider');
      if (uid !== undefined) fs.chownSync(file, uid, uid);
      return file;
    };
    // Earlier versions wrote NAME.tmp-PID beside the executable, where Terraform hashes it as part of the package.
    const oldStyle = plant(platformDir(dir), `${EXECUTABLE}.tmp-${deadPid}`);
    const dead = plant(versionDir(dir), `.${EXECUTABLE}.tmp-${deadPid}-0123456789ab`);
    const running = plant(versionDir(dir), `.${EXECUTABLE}.tmp-${process.ppid}-0123456789ab`);
    const unrelated = plant(versionDir(dir), `.${EXECUTABLE}.tmp-${deadPid}-0123456789ab.keep`);
    const theirs = asRoot ? plant(versionDir(dir), `.${EXECUTABLE}.tmp-${deadPid}-ba9876543210`, 12345) : undefined;
    installProvider(dir, source);
    expect(fs.existsSync(oldStyle)).toBe(false);
    expect(fs.existsSync(dead)).toBe(false);
    expect(fs.existsSync(running)).toBe(true);
    expect(fs.existsSync(unrelated)).toBe(true);
    if (theirs) expect(fs.existsSync(theirs)).toBe(true);
    expect(fs.readdirSync(platformDir(dir))).toEqual([EXECUTABLE]); // the package is the executable alone
  });

  it('removes its temporary file when the rename fails', () => {
    const dir = fresh();
    // A directory where the executable goes: the rename fails after the copy.
    fs.mkdirSync(path.join(platformDir(dir), EXECUTABLE, 'x'), { recursive: true });
    expect(() => installProvider(dir, source)).toThrow(/EISDIR|ENOTEMPTY|EEXIST/);
    expect(tree(dir).filter((p) => p.includes('.tmp-'))).toEqual([]);
  });

  it('writes the executable with mode 0755 and removes a packed zip that would compete with it', async () => {
    const dir = fresh();
    await installFromRelease({ from: release, mirrorDir: dir, platforms: ['linux_amd64', 'linux_arm64'] });
    const result = installProvider(dir, source);
    expect(result.executable).toBe(path.join(platformDir(dir), EXECUTABLE));
    expect(fs.statSync(result.executable).mode & 0o777).toBe(0o755);
    expect(fs.readFileSync(result.executable, 'utf8')).toBe(fs.readFileSync(source, 'utf8'));
    expect(fs.readdirSync(path.join(dir, SOURCE_DIR)).sort()).toEqual([VERSION, zipName('linux_arm64')]);
  });
});

describe.each(WRITERS.slice(1))('%s: temporary zips a killed run left', (_name, write) => {
  it('removes those of every platform and version of the provider, not only the ones this run installs', async () => {
    const dir = fresh();
    await write(dir);
    const typeDir = path.join(dir, SOURCE_DIR);
    const deadPid = spawnSync(process.execPath, ['-e', '']).pid!;
    const plant = (name: string): string => {
      const file = path.join(typeDir, name);
      fs.writeFileSync(file, 'half a zip');
      return file;
    };
    const otherPlatform = plant(`.${zipName('windows_amd64')}.tmp-${deadPid}-0123456789ab`);
    const otherVersion = plant(`.terraform-provider-proxyaccount_0.0.9_linux_arm64.zip.tmp-${deadPid}-0123456789ab`);
    const running = plant(`.${zipName('darwin_amd64')}.tmp-${process.ppid}-0123456789ab`);
    const otherProvider = plant(`.terraform-provider-other_${VERSION}_linux_amd64.zip.tmp-${deadPid}-0123456789ab`);
    await write(dir); // linux_amd64 (install --from) or the release's platforms (mirror): never windows_amd64
    expect(fs.existsSync(otherPlatform)).toBe(false);
    expect(fs.existsSync(otherVersion)).toBe(false);
    expect(fs.existsSync(running)).toBe(true);
    expect(fs.existsSync(otherProvider)).toBe(true);
  });
});
