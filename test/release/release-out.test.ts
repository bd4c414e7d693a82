// `npm run release --out DIR` writes and signs what DIR holds, so DIR must be a real directory of
// the user's that nobody else can write (as the mirrors' directories): whoever else could write
// there could swap a zip and its SHA256SUMS line before gpg signs them, or plant a link for the
// release to write through. Every file is written through a new O_EXCL | O_NOFOLLOW temporary
// file with an explicit mode, renamed into place; the zip is hashed as it is written. So must every
// directory above DIR be the user's or root's, writable by nobody else unless sticky: whoever could
// rename DIR away could put a directory of their own in its place while the release writes. And
// the release ends by checking that DIR is still the directory it checked, holding what it wrote.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ROOT } from './helpers/release';

const { zipExecutable, prepareOutDir, confirmOutDir } = require('../../scripts/release.js') as {
  zipExecutable: (executable: string, name: string, zipFile: string) => Promise<{ sha256: string; size: number }>;
  prepareOutDir: (outDir: string, packaging: unknown) => { dev: number; ino: number };
  confirmOutDir: (outDir: string, checked: { dev: number; ino: number }, written: Map<string, string>) => void;
};
const packaging = (): unknown => require(path.join(ROOT, 'dist', 'packaging', 'index.js'));

// Tests run as root in CI: a directory of another uid can then be made.
const asRoot = process.getuid?.() === 0;
const itAsRoot = asRoot ? it : it.skip;
const OTHER = 12345;
const WHY =
  'the release signs what its directory holds, and whoever else can write there can replace a zip and its SHA256SUMS line before they are signed, ' +
  "or plant a link that turns the release's writes onto your files, so --out must be a real directory of your own that nobody else can write";

let dir: string;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'proxyaccount-release-out-'));
  fs.chmodSync(dir, 0o755);
});

afterAll(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

/** Runs scripts/release.js; resolves with its exit code and stderr. */
function release(args: string[]): Promise<{ code: number; stderr: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.PROXYACCOUNT_GPG_KEY_ID;
  delete env.PROXYACCOUNT_GPG_PASSPHRASE;
  return new Promise((resolve) => {
    execFile(process.execPath, [path.join(ROOT, 'scripts', 'release.js'), ...args], { env }, (err, _stdout, stderr) =>
      resolve({ code: err ? Number(err.code ?? 1) : 0, stderr: String(stderr) }),
    );
  });
}

/** Runs `fn` under `mask`, restoring the umask afterwards. */
async function underUmask<T>(mask: number, fn: () => Promise<T> | T): Promise<T> {
  const before = process.umask(mask);
  try {
    return await fn();
  } finally {
    process.umask(before);
  }
}

const mode = (file: string): number => fs.lstatSync(file).mode & 0o777;

describe('--out', () => {
  itAsRoot('refuses a directory another user made first (say /tmp/release), before building anything', async () => {
    const shared = path.join(dir, 'shared');
    fs.mkdirSync(shared, { mode: 0o755 });
    fs.chownSync(shared, OTHER, OTHER);
    const res = await release(['--platform', 'linux_amd64', '--out', shared]);
    expect(res.code).toBe(1);
    expect(res.stderr).toBe(`release: refusing to write the release into ${shared}: it is owned by uid ${OTHER}, not by the current user (uid 0). ${WHY}\n`);
    expect(fs.readdirSync(shared)).toEqual([]);
  });

  it('refuses a directory of yours that group or others can write, with the chmod that mends it', () => {
    const writable = path.join(dir, 'writable');
    fs.mkdirSync(writable);
    fs.chmodSync(writable, 0o775);
    expect(() => prepareOutDir(writable, packaging())).toThrow(
      `refusing to write the release: this directory is writable by group or others: ${writable} (mode 0775). ${WHY}: run chmod go-w '${writable}'`,
    );
  });

  it('refuses a symbolic link, even to a directory of yours', () => {
    const real = path.join(dir, 'real');
    fs.mkdirSync(real, { mode: 0o755 });
    const link = path.join(dir, 'link');
    fs.symlinkSync(real, link);
    expect(() => prepareOutDir(link, packaging())).toThrow(
      `refusing to write the release into ${link}: it is a symbolic link (give the directory it points to instead). ${WHY}`,
    );
  });

  it('makes a missing directory with mode 0755 whatever the umask, and keeps an existing one of yours as it is', async () => {
    const made = path.join(dir, 'made', 'release');
    await underUmask(0o077, () => prepareOutDir(made, packaging()));
    expect(mode(made)).toBe(0o755);
    const own = path.join(dir, 'own');
    fs.mkdirSync(own);
    fs.chmodSync(own, 0o700);
    prepareOutDir(own, packaging());
    expect(mode(own)).toBe(0o700);
  });
});

describe('the directories above --out', () => {
  const above = (parent: string, out: string, problem: string): string =>
    `refusing to write the release into ${out}: ${parent}, a directory above it, ${problem}, so someone else could move ${out} away while it is being written ` +
    "and put a directory of their own in its place. Every directory above it must be yours or root's and writable by nobody else, unless sticky (as /tmp is): give a directory elsewhere";

  itAsRoot('refuses an --out below a scratch directory another user made, sticky or not, before making or building anything', async () => {
    // The attack: they own the parent, so they may rename the release's own --out away once it
    // is checked and put a directory of theirs in its place, whose files they can swap.
    const scratch = path.join(dir, 'scratch');
    fs.mkdirSync(scratch);
    fs.chownSync(scratch, OTHER, OTHER);
    fs.chmodSync(scratch, 0o1777);
    const out = path.join(scratch, 'rel');
    const res = await release(['--platform', 'linux_amd64', '--out', out]);
    expect(res.code).toBe(1);
    expect(res.stderr).toBe(`release: ${above(scratch, out, `is owned by uid ${OTHER}, neither you (uid 0) nor root`)}\n`);
    expect(fs.readdirSync(scratch)).toEqual([]);
  });

  itAsRoot('follows a symbolic link above --out and checks the directories above where it points', () => {
    const theirs = path.join(dir, 'theirs');
    fs.mkdirSync(path.join(theirs, 'builds'), { recursive: true });
    fs.chownSync(theirs, OTHER, OTHER);
    const link = path.join(dir, 'builds-link');
    fs.symlinkSync(path.join(theirs, 'builds'), link);
    expect(() => prepareOutDir(path.join(link, 'rel'), packaging())).toThrow(`${theirs}, a directory above it, is owned by uid ${OTHER}`);
    expect(fs.readdirSync(path.join(theirs, 'builds'))).toEqual([]);
  });

  it('refuses one below a directory of yours that others can write and that is not sticky; takes it once sticky, as /tmp is', () => {
    const open = path.join(dir, 'open');
    fs.mkdirSync(open);
    fs.chmodSync(open, 0o777);
    const out = path.join(open, 'deeper', 'rel');
    expect(() => prepareOutDir(out, packaging())).toThrow(above(open, out, 'is writable by group or others (mode 0777) and not sticky'));
    expect(fs.readdirSync(open)).toEqual([]);
    fs.chmodSync(open, 0o1777);
    prepareOutDir(out, packaging());
    expect(mode(out)).toBe(0o755);
  });
});

describe('the end of the release', () => {
  const sha = (text: string): string => createHash('sha256').update(text).digest('hex');

  it('fails loudly when --out is no longer the directory that was checked (replaced while the release ran)', () => {
    const out = path.join(dir, 'confirm-replaced');
    const checked = prepareOutDir(out, packaging());
    fs.writeFileSync(path.join(out, 'SUMS'), 'computed\n', { mode: 0o644 });
    const written = new Map([['SUMS', sha('computed\n')]]);
    expect(() => confirmOutDir(out, checked, written)).not.toThrow();
    // The same name, the same file, in another directory: what was checked is gone.
    fs.renameSync(out, `${out}.moved`);
    fs.mkdirSync(out, { mode: 0o755 });
    fs.copyFileSync(path.join(`${out}.moved`, 'SUMS'), path.join(out, 'SUMS'));
    expect(() => confirmOutDir(out, checked, written)).toThrow(
      `--out ${out} is no longer the directory the release checked and wrote into: someone replaced it while the release ran. Do not publish what it holds`,
    );
  });

  it('fails when a file it wrote holds other bytes, or is a link', () => {
    const out = path.join(dir, 'confirm-bytes');
    const checked = prepareOutDir(out, packaging());
    fs.writeFileSync(path.join(out, 'a.zip'), 'swapped\n');
    expect(() => confirmOutDir(out, checked, new Map([['a.zip', sha('computed\n')]]))).toThrow(
      `${path.join(out, 'a.zip')} holds other bytes, not the file the release wrote: do not publish this release`,
    );
    fs.writeFileSync(path.join(out, 'elsewhere'), 'computed\n');
    fs.symlinkSync(path.join(out, 'elsewhere'), path.join(out, 'b.zip'));
    expect(() => confirmOutDir(out, checked, new Map([['b.zip', sha('computed\n')]]))).toThrow(`${path.join(out, 'b.zip')} cannot be opened (ELOOP)`);
  });
});

describe('the zip step', () => {
  it('never writes through a link planted at a temporary name (the old zip.tmp-PID), and hashes what it wrote', async () => {
    const victim = path.join(dir, 'victim');
    fs.writeFileSync(victim, 'precious\n', { mode: 0o600 });
    const exe = path.join(dir, 'exe');
    fs.writeFileSync(exe, '#!/bin/sh\necho provider\n');
    const zip = path.join(dir, 'terraform-provider-proxyaccount_0.1.0_linux_amd64.zip');
    fs.symlinkSync(victim, `${zip}.tmp-${process.pid}`);
    fs.symlinkSync(victim, zip);
    const written = await zipExecutable(exe, 'terraform-provider-proxyaccount_v0.1.0', zip);
    expect(fs.readFileSync(victim, 'utf8')).toBe('precious\n');
    expect(fs.lstatSync(zip).isFile()).toBe(true); // the link at the name was replaced, not written through
    const bytes = fs.readFileSync(zip);
    expect(written).toEqual({ sha256: createHash('sha256').update(bytes).digest('hex'), size: bytes.length });
    // No temporary file of ours is left.
    expect(fs.readdirSync(dir).filter((f) => f.startsWith('.'))).toEqual([]);
  });

  it('writes mode 0644 under umask 002 (user private groups), which provider install --from accepts', async () => {
    const exe = path.join(dir, 'exe2');
    fs.writeFileSync(exe, '#!/bin/sh\necho provider\n');
    const zip = path.join(dir, 'umask002.zip');
    await underUmask(0o002, () => zipExecutable(exe, 'terraform-provider-proxyaccount_v0.1.0', zip));
    expect(mode(zip)).toBe(0o644);
  });
});
