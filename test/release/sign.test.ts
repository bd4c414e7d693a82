// scripts/release.js signs the SHA256SUMS bytes it computed, given to gpg on its stdin, never the
// file by name (which someone could swap before gpg read it), and without leaving the passphrase
// where another process of the user could read it: not in argv or gpg's environment (gpg-agent, a
// daemon that outlives the release, inherits it), but on a pipe of its own (descriptor 3); not in
// an agent the signing started (stopped afterwards), and not in the cache of an agent that was
// already running (cleared). No release build needed: any bytes are signed.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { HAS_GPG, throwawayKey } from './helpers/gpg';

const { signSums } = require('../../scripts/release.js') as {
  signSums: (file: string, sums: Buffer, keyId: string, env: NodeJS.ProcessEnv) => Promise<{ file: string; sha256: string }>;
};

let work: string;

beforeAll(() => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'pa-sign-'));
});

afterAll(() => {
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

describe("gpg's environment", () => {
  it('holds neither PROXYACCOUNT_GPG_PASSPHRASE nor PROXYACCOUNT_GPG_KEY_ID; the bytes go on stdin, the passphrase on descriptor 3', async () => {
    // A stand-in gpg that records what it was given.
    const bin = fs.mkdtempSync(path.join(work, 'bin-'));
    const dump = path.join(work, 'gpg-env');
    fs.writeFileSync(
      path.join(bin, 'gpg'),
      `#!/bin/sh\nenv > '${dump}'\nprintf '%s\\n' "$@" > '${dump}.args'\ncat > '${dump}.stdin'\ncat <&3 > '${dump}.fd3'\nprintf signature\n`,
      { mode: 0o755 },
    );
    const sums = path.join(work, 'SUMS');
    fs.writeFileSync(sums, 'the file on disk\n');
    const passphrase = `pass-${Math.random().toString(36).slice(2)}`;
    await signSums(sums, Buffer.from('the bytes computed\n'), 'ABCDEF', {
      PATH: `${bin}:/usr/bin:/bin`,
      GNUPGHOME: fs.mkdtempSync(path.join(work, 'home-')),
      PROXYACCOUNT_GPG_PASSPHRASE: passphrase,
      PROXYACCOUNT_GPG_KEY_ID: 'ABCDEF',
    });
    const env = fs.readFileSync(dump, 'utf8');
    expect(env).toContain('GNUPGHOME=');
    expect(env).not.toContain(passphrase);
    expect(env).not.toContain('PROXYACCOUNT_GPG');
    const args = fs.readFileSync(`${dump}.args`, 'utf8').trimEnd().split('\n');
    expect(args).not.toContain(passphrase);
    expect(args).not.toContain(sums);
    expect(args.slice(-3)).toEqual(['--passphrase-fd', '3', '-']);
    expect(fs.readFileSync(`${dump}.stdin`, 'utf8')).toBe('the bytes computed\n');
    expect(fs.readFileSync(`${dump}.fd3`, 'utf8')).toBe(passphrase);
  });
});

(HAS_GPG ? describe : describe.skip)(`the gpg-agent${HAS_GPG ? '' : ' (skipped: gpg is not on PATH on this machine)'}`, () => {
  const passphrase = `pass-${Math.random().toString(36).slice(2)}`;
  let env: NodeJS.ProcessEnv;
  let keyId: string;
  let sums: string;

  const agentPid = (): string | undefined =>
    /^D (\d+)/m.exec(
      execFileSync('gpg-connect-agent', ['--no-autostart', 'GETINFO pid', '/bye'], { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }),
    )?.[1];
  const stopAgent = (): void => {
    execFileSync('gpgconf', ['--kill', 'gpg-agent'], { env, stdio: 'ignore' });
  };

  beforeAll(() => {
    // A short path: gpg-agent's socket lives in GNUPGHOME and Unix socket paths are limited.
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'pa-gpg-'));
    fs.chmodSync(home, 0o700);
    env = { ...process.env, GNUPGHOME: home };
    delete env.PROXYACCOUNT_GPG_KEY_ID;
    delete env.PROXYACCOUNT_GPG_PASSPHRASE;
    keyId = throwawayKey(env, passphrase, 'proxyaccount sign test <sign-test@example.invalid>');
    sums = path.join(work, 'terraform-provider-proxyaccount_0.1.0_SHA256SUMS');
    fs.writeFileSync(sums, `${'0'.repeat(64)}  a.zip\n`);
  });

  afterAll(() => {
    if (env) {
      stopAgent();
      fs.rmSync(env.GNUPGHOME!, { recursive: true, force: true });
    }
  });

  it('stops the agent the signing started, so nothing keeps the passphrase after the release', async () => {
    stopAgent();
    expect(agentPid()).toBeUndefined();
    await signSums(sums, fs.readFileSync(sums), keyId, { ...env, PROXYACCOUNT_GPG_PASSPHRASE: passphrase });
    expect(() => execFileSync('gpg', ['--batch', '--verify', `${sums}.sig`, sums], { env, stdio: 'pipe' })).not.toThrow();
    expect(agentPid()).toBeUndefined();
  });

  it('leaves an agent that was already running, without the passphrase in its cache: a wrong one then fails', async () => {
    stopAgent();
    execFileSync('gpg-connect-agent', ['/bye'], { env, stdio: 'ignore' }); // the user's agent, started before the release
    const pid = agentPid();
    expect(pid).toBeDefined();
    await signSums(sums, fs.readFileSync(sums), keyId, { ...env, PROXYACCOUNT_GPG_PASSPHRASE: passphrase });
    expect(agentPid()).toBe(pid);
    await expect(signSums(sums, fs.readFileSync(sums), keyId, { ...env, PROXYACCOUNT_GPG_PASSPHRASE: `wrong-${passphrase}` })).rejects.toThrow(
      `with key ${keyId} failed`,
    );
    if (fs.existsSync('/proc/self/environ')) expect(fs.readFileSync(`/proc/${pid}/environ`, 'latin1')).not.toContain(passphrase);
  });

  it('writes the signature with mode 0644 whatever the umask, replacing a link at its name instead of writing through it', async () => {
    const victim = path.join(work, 'victim');
    fs.writeFileSync(victim, 'precious\n', { mode: 0o600 });
    fs.rmSync(`${sums}.sig`, { force: true });
    fs.symlinkSync(victim, `${sums}.sig`);
    const before = process.umask(0o002);
    try {
      await signSums(sums, fs.readFileSync(sums), keyId, { ...env, PROXYACCOUNT_GPG_PASSPHRASE: passphrase });
    } finally {
      process.umask(before);
    }
    expect(fs.readFileSync(victim, 'utf8')).toBe('precious\n');
    const st = fs.lstatSync(`${sums}.sig`);
    expect(st.isFile()).toBe(true);
    expect(st.mode & 0o777).toBe(0o644);
    expect(() => execFileSync('gpg', ['--batch', '--verify', `${sums}.sig`, sums], { env, stdio: 'pipe' })).not.toThrow();
  });

  it('signs the bytes it is given, not what the file at the name holds (which someone may have swapped before gpg read it)', async () => {
    const computed = `${'1'.repeat(64)}  terraform-provider-proxyaccount_0.1.0_linux_amd64.zip\n`;
    const swapped = `${'2'.repeat(64)}  terraform-provider-proxyaccount_0.1.0_linux_amd64.zip\n`;
    fs.writeFileSync(sums, swapped);
    const signed = await signSums(sums, Buffer.from(computed), keyId, { ...env, PROXYACCOUNT_GPG_PASSPHRASE: passphrase });
    expect(signed.file).toBe(`${sums}.sig`);
    const verify = (text: string): void => {
      const file = path.join(work, 'to-verify');
      fs.writeFileSync(file, text);
      execFileSync('gpg', ['--batch', '--verify', signed.file, file], { env, stdio: 'pipe' });
    };
    expect(() => verify(computed)).not.toThrow();
    expect(() => verify(swapped)).toThrow();
    fs.writeFileSync(sums, computed);
  });
});
