// scripts/offline-install.js installs into a temporary sibling of the folder and renames it into
// place only on success: a failed install leaves nothing that would make the retry fail with "not
// empty". The tarball must be a regular file. (The successful installs are in pack.test.ts.)
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

function offlineInstall(tarball: string, dir: string): { status: number | null; stderr: string } {
  const r = spawnSync(process.execPath, [path.join(ROOT, 'scripts', 'offline-install.js'), tarball, dir], { encoding: 'utf8', cwd: work });
  return { status: r.status, stderr: r.stderr };
}

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

  it('refuses a tarball that is not a regular file, creating nothing', () => {
    const notFile = fs.mkdtempSync(path.join(work, 'a-dir-'));
    const dir = path.join(work, 'oi2');
    const r = offlineInstall(notFile, dir);
    expect(r.status).toBe(1);
    expect(r.stderr).toBe(`offline-install: ${notFile} is not a regular file: give the .tgz that scripts/pack.js wrote\n`);
    expect(fs.existsSync(dir)).toBe(false);
  });
});
