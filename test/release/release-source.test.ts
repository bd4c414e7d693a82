// `provider install --from` and `provider mirror --from` read only a release that nobody but the
// user (or root) can have written: SHA256SUMS comes from the same directory as the zips, so whoever
// can write there can replace a zip and its line together, and Terraform would run their program.
// The directory, SHA256SUMS and each zip are checked (owner, write bits, no link), and what the
// command prints says what was checked, not "verified".
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { installFromRelease, writeMirror } from '../../src/cli/provider';
import { BASE, fakeRelease, SOURCE_DIR, zipName } from './helpers/fake-release';
import { providerCli } from './helpers/provider-cli';

// Tests run as root in CI: a file of another uid can then be made, and that user can act through setpriv.
const asRoot = process.getuid?.() === 0;
const itAsRoot = asRoot ? it : it.skip;
const OTHER = 12345;

let root: string;

beforeAll(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'proxyaccount-release-source-'));
  fs.chmodSync(root, 0o755); // the other user must reach the shared directory below
});

afterAll(() => {
  if (root) fs.rmSync(root, { recursive: true, force: true });
});

let cases = 0;
const fresh = (): string => path.join(root, `mirror-${cases++}`);
const release = (platforms: string[] = ['linux_amd64']): Promise<string> => fakeRelease(path.join(root, `release-${cases++}`), platforms);

/** The two commands that read a release, each from `from` into a fresh directory, which they return. */
const READERS: [string, (from: string, dir: string) => Promise<unknown>][] = [
  ['provider install --from', (from, dir) => installFromRelease({ from, mirrorDir: dir, platforms: ['linux_amd64'] })],
  ['provider mirror', (from, dir) => writeMirror({ from, dir })],
];

const WHY =
  'Terraform runs what is installed from a release, and whoever can change its directory, its SHA256SUMS or a zip can replace a zip and its SHA256SUMS line together';
const quote = (file: string): string => `'${file.replace(/'/g, "'\\''")}'`;
/** The refusal of files of the user's that group or others can write: all of them, and the chmod that mends them. */
const writableRefusal = (dir: string, files: [string, string][]): string =>
  `refusing to use the release in ${dir}: group or others can write ${files.map(([f, mode]) => `${f} (mode ${mode})`).join(', ')}. ${WHY}. ` +
  `If nobody else has changed ${files.length === 1 ? 'it' : 'them'}, run chmod go-w ${files.map(([f]) => quote(f)).join(' ')}`;

describe.each(READERS)('%s', (_name, read) => {
  itAsRoot('refuses a release directory that another user replaced a zip and SHA256SUMS in (a shared download directory), installing nothing', async () => {
    const shared = await release();
    fs.chownSync(shared, OTHER, OTHER);
    fs.chmodSync(shared, 0o777);
    // As that user: their own program as the zip, and SHA256SUMS remade to match it.
    const script = `
      const fs = require('fs'), path = require('path');
      const { zipExecutable } = require(${JSON.stringify(path.resolve(__dirname, '../../scripts/release.js'))});
      const dir = ${JSON.stringify(shared)}, zip = path.join(dir, ${JSON.stringify(zipName('linux_amd64'))});
      fs.writeFileSync(path.join(dir, 'evil'), '#!/bin/sh\\necho not the released provider\\n');
      zipExecutable(path.join(dir, 'evil'), ${JSON.stringify(`terraform-provider-proxyaccount_v${BASE.split('_')[1]}`)}, zip + '.new').then(() => {
        fs.rmSync(zip, { force: true });
        fs.renameSync(zip + '.new', zip);
        const sum = require('crypto').createHash('sha256').update(fs.readFileSync(zip)).digest('hex');
        fs.rmSync(path.join(dir, ${JSON.stringify(`${BASE}_SHA256SUMS`)}), { force: true });
        fs.writeFileSync(path.join(dir, ${JSON.stringify(`${BASE}_SHA256SUMS`)}), sum + '  ' + path.basename(zip) + '\\n');
      });`;
    const r = spawnSync('setpriv', [`--reuid=${OTHER}`, `--regid=${OTHER}`, '--clear-groups', process.execPath, '-e', script], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`setpriv failed: ${r.stderr || r.error}`);
    expect(fs.statSync(path.join(shared, zipName('linux_amd64'))).uid).toBe(OTHER);
    const dir = fresh();
    await expect(read(shared, dir)).rejects.toThrow(
      `refusing to use the release in ${shared}: it is owned by uid ${OTHER}, neither you (uid 0) nor root. ${WHY}`,
    );
    expect(fs.existsSync(dir)).toBe(false);
  });

  it('refuses a release directory that group or others can write', async () => {
    const from = await release();
    fs.chmodSync(from, 0o775);
    await expect(read(from, fresh())).rejects.toThrow(writableRefusal(from, [[from, '0775']]));
  });

  it('names every file group or others can write at once (a release made or downloaded under umask 002), with the chmod that mends them', async () => {
    const from = await release();
    const sums = path.join(from, `${BASE}_SHA256SUMS`);
    const zip = path.join(from, zipName('linux_amd64'));
    fs.chmodSync(from, 0o775);
    fs.chmodSync(sums, 0o664);
    fs.chmodSync(zip, 0o664);
    const dir = fresh();
    const err = await read(from, dir).then(
      () => undefined,
      (e: Error) => e,
    );
    expect(err?.message).toBe(
      writableRefusal(from, [
        [from, '0775'],
        [sums, '0664'],
        [zip, '0664'],
      ]),
    );
    // Not advice to do what the user did.
    expect(err?.message).not.toContain('npm run release');
    expect(fs.existsSync(dir)).toBe(false);
    // The command it gives is the whole fix: one run of it, and the release is taken.
    const chmod = /run (chmod go-w .*)$/.exec(err!.message)![1]!;
    expect(spawnSync('sh', ['-c', chmod]).status).toBe(0);
    await read(from, dir);
    expect(fs.readdirSync(path.join(dir, SOURCE_DIR))).toContain(zipName('linux_amd64'));
  });

  itAsRoot("refuses a SHA256SUMS or a zip that is another user's, or that others can write", async () => {
    for (const [file, change, problem] of [
      [`${BASE}_SHA256SUMS`, (f: string) => fs.chownSync(f, OTHER, OTHER), `it is owned by uid ${OTHER}, neither you (uid 0) nor root`],
      [zipName('linux_amd64'), (f: string) => fs.chownSync(f, OTHER, OTHER), `it is owned by uid ${OTHER}, neither you (uid 0) nor root`],
      [`${BASE}_SHA256SUMS`, (f: string) => fs.chmodSync(f, 0o666), '0666'],
      [zipName('linux_amd64'), (f: string) => fs.chmodSync(f, 0o646), '0646'],
    ] as const) {
      const from = await release();
      const target = path.join(from, file);
      change(target);
      const dir = fresh();
      await expect(read(from, dir)).rejects.toThrow(
        problem.startsWith('it is') ? `refusing to use the release in ${target}: ${problem}. ${WHY}` : writableRefusal(from, [[target, problem]]),
      );
      expect(fs.existsSync(dir)).toBe(false);
    }
  });

  it('refuses a SHA256SUMS or a zip that is a symbolic link, and a --from that is one', async () => {
    for (const file of [`${BASE}_SHA256SUMS`, zipName('linux_amd64')]) {
      const from = await release();
      const elsewhere = path.join(root, `elsewhere-${cases++}`);
      fs.renameSync(path.join(from, file), elsewhere);
      fs.symlinkSync(elsewhere, path.join(from, file));
      await expect(read(from, fresh())).rejects.toThrow(
        `refusing to use the release in ${path.join(from, file)}: it is a symbolic link (give the file it points to instead)`,
      );
    }
    const link = path.join(root, `link-${cases++}`);
    fs.symlinkSync(await release(), link);
    await expect(read(link, fresh())).rejects.toThrow(
      `refusing to use the release in ${link}: it is a symbolic link (give the directory it points to instead)`,
    );
  });

  it('names a --from that does not exist or is a file', async () => {
    const missing = path.join(root, 'does-not-exist');
    await expect(read(missing, fresh())).rejects.toThrow(`--from ${missing} does not exist`);
    const file = path.join(await release(), `${BASE}_SHA256SUMS`);
    await expect(read(file, fresh())).rejects.toThrow(`--from ${file} is not a directory: give the directory \`npm run release\` wrote, not a file in it`);
  });

  it("still takes a release of the user's own", async () => {
    const dir = fresh();
    await read(await release(), dir);
    expect(fs.readdirSync(path.join(dir, SOURCE_DIR))).toContain(zipName('linux_amd64'));
  });
});

describe('a SHA256SUMS that lists the CLI tarball too (what `npm run release` writes)', () => {
  it.each(READERS)('%s takes the zips and leaves the tarball alone', async (_name, read) => {
    const from = await release();
    fs.writeFileSync(path.join(from, 'proxyaccount-0.1.0.tgz'), 'a tarball');
    fs.appendFileSync(path.join(from, `${BASE}_SHA256SUMS`), `${'1'.repeat(64)}  proxyaccount-0.1.0.tgz\n`);
    const dir = fresh();
    await read(from, dir);
    expect(fs.readdirSync(path.join(dir, SOURCE_DIR)).filter((f) => f.endsWith('.tgz'))).toEqual([]);
  });
});

describe('what the commands say they checked', () => {
  it('install --from says what SHA256SUMS proves and that no signature was checked, never "verified"', async () => {
    const from = await release();
    const res = await providerCli(['provider', 'install', '--from', from, '--platform', 'linux_amd64', '--dir', fresh()]);
    expect(res.error).toBeUndefined();
    expect(res.stderr).not.toContain('verified');
    expect(res.stderr).toContain("each zip matched the release's SHA256SUMS, in a directory only you or root can change");
    expect(res.stderr).toContain('the release has no SHA256SUMS.sig, so nothing proves who made it');
  });

  it('says, where there are no POSIX owners (Windows: no process.getuid), that the owner and write permission were not checked', async () => {
    // As Node is on Windows: a release anyone can write, which only the link check guards there.
    const from = await release();
    fs.chmodSync(from, 0o777);
    fs.chmodSync(path.join(from, `${BASE}_SHA256SUMS`), 0o666);
    const getuid = Object.getOwnPropertyDescriptor(process, 'getuid')!;
    delete (process as { getuid?: unknown }).getuid;
    try {
      for (const args of [
        ['provider', 'install', '--from', from, '--platform', 'linux_amd64', '--dir', fresh()],
        ['provider', 'mirror', '--from', from, '--dir', fresh()],
      ]) {
        const res = await providerCli(args);
        expect(res.error).toBeUndefined();
        expect(res.stderr).not.toContain('only you or root can change');
        expect(res.stderr).toContain(
          "each zip matched the release's SHA256SUMS, but who owns the release and who can write it were not checked (this system has no POSIX owners, as on Windows: only symbolic links are refused)",
        );
      }
    } finally {
      Object.defineProperty(process, 'getuid', getuid);
    }
    expect(typeof process.getuid).toBe('function');
  });

  it('provider mirror says a SHA256SUMS.sig there was not checked', async () => {
    const from = await release();
    fs.writeFileSync(path.join(from, `${BASE}_SHA256SUMS.sig`), 'a signature');
    const res = await providerCli(['provider', 'mirror', '--from', from, '--dir', fresh()]);
    expect(res.error).toBeUndefined();
    expect(res.stderr).toContain('its SHA256SUMS.sig is not checked: verify it with gpg --verify before trusting a release you did not build');
  });
});
