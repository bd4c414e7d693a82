// scripts/offline-install.js installs into a temporary sibling of the folder and renames it into
// place only on success: a failed install leaves nothing that would make the retry fail with "not
// empty". The tarball must be a regular file. The installed folder has the mode a plain mkdir
// gives it under the umask, or the one it had when it existed. (The installs of the real packages
// are in pack.test.ts; here a one-file package stands in.)
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..');
let work: string;

beforeAll(() => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'proxyaccount-offline-install-'));
});

afterAll(() => {
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

function offlineInstall(tarball: string, dir: string, umask = '022'): { status: number | null; stderr: string } {
  const r = spawnSync('sh', ['-c', `umask ${umask} && exec "$0" "$@"`, process.execPath, path.join(ROOT, 'scripts', 'offline-install.js'), tarball, dir], {
    encoding: 'utf8',
    cwd: work,
  });
  return { status: r.status, stderr: r.stderr };
}

/** A package of one file and no dependencies, packed as npm packs (package/…), so npm installs it offline. */
function tinyTarball(): string {
  const src = fs.mkdtempSync(path.join(work, 'tiny-src-'));
  fs.mkdirSync(path.join(src, 'package'));
  fs.writeFileSync(path.join(src, 'package', 'package.json'), JSON.stringify({ name: 'tiny', version: '1.0.0' }));
  fs.writeFileSync(path.join(src, 'package', 'index.js'), 'module.exports = 1;\n');
  const tarball = path.join(work, 'tiny-1.0.0.tgz');
  expect(spawnSync('tar', ['czf', tarball, '-C', src, 'package']).status).toBe(0);
  return tarball;
}

const mode = (dir: string): number => fs.statSync(dir).mode & 0o7777;

describe('offline-install.js', () => {
  it('leaves nothing behind when npm fails, so the retry fails for the same reason, not "not empty"', () => {
    const bad = path.join(work, 'bad.tgz');
    fs.writeFileSync(bad, 'garbage\n');
    const dir = path.join(work, 'oi1');
    for (let attempt = 0; attempt < 2; attempt++) {
      const r = offlineInstall(bad, dir);
      expect(r.status).toBe(1);
      expect(r.stderr).toContain('offline-install: npm install --offline');
      expect(r.stderr).not.toContain('is not empty');
      expect(fs.existsSync(dir)).toBe(false);
      expect(fs.readdirSync(work).filter((f) => f.includes('oi1'))).toEqual([]); // no temporary sibling either
    }
  });

  it('keeps an empty folder it was given when npm fails', () => {
    const bad = path.join(work, 'bad2.tgz');
    fs.writeFileSync(bad, 'garbage\n');
    const dir = path.join(work, 'empty');
    fs.mkdirSync(dir);
    expect(offlineInstall(bad, dir).status).toBe(1);
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it("gives a new folder the mode mkdir gives it under the umask, not the temporary folder's 0700", () => {
    const tarball = tinyTarball();
    for (const [umask, expected] of [
      ['022', 0o755],
      ['027', 0o750],
    ] as const) {
      const dir = path.join(work, `new-${umask}`);
      const r = offlineInstall(tarball, dir, umask);
      expect(r.stderr).toBe('');
      expect(fs.existsSync(path.join(dir, 'node_modules', 'tiny', 'index.js'))).toBe(true);
      expect(mode(dir)).toBe(expected);
    }
  });

  it('keeps the mode of an empty folder it was given', () => {
    const tarball = tinyTarball();
    const dir = path.join(work, 'given');
    fs.mkdirSync(dir);
    fs.chmodSync(dir, 0o751);
    expect(offlineInstall(tarball, dir).status).toBe(0);
    expect(fs.existsSync(path.join(dir, 'node_modules', 'tiny', 'index.js'))).toBe(true);
    expect(mode(dir)).toBe(0o751);
  });

  it('refuses a tarball that is not a regular file, creating nothing', () => {
    const notFile = fs.mkdtempSync(path.join(work, 'a-dir-'));
    const dir = path.join(work, 'oi2');
    const r = offlineInstall(notFile, dir);
    expect(r.status).toBe(1);
    expect(r.stderr).toBe(`offline-install: ${notFile} is not a regular file: give the .tgz that scripts/pack.js wrote\n`);
    expect(fs.existsSync(dir)).toBe(false);
  });
});
