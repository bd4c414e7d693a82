// A throwaway GPG signing key for the release-signing tests, in a GNUPGHOME of the test's own.
import { execFileSync } from 'node:child_process';

/** Whether gpg is on PATH (the signing tests need it; CI installs it). */
export const HAS_GPG = ((): boolean => {
  try {
    execFileSync('gpg', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

/**
 * Makes an ed25519 signing key protected by `passphrase` (valid one day) in `env.GNUPGHOME`;
 * returns its fingerprint. `env.GNUPGHOME` must be a short path (gpg-agent's socket lives there).
 */
export function throwawayKey(env: NodeJS.ProcessEnv, passphrase: string, uid: string): string {
  execFileSync('gpg', ['--batch', '--pinentry-mode', 'loopback', '--passphrase-fd', '0', '--quick-gen-key', uid, 'ed25519', 'sign', '1d'], {
    env,
    input: passphrase,
    stdio: ['pipe', 'ignore', 'ignore'],
  });
  const colons = execFileSync('gpg', ['--batch', '--list-secret-keys', '--with-colons'], { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  const fpr = /^fpr:+([0-9A-F]{40}):/m.exec(colons)?.[1];
  if (fpr === undefined) throw new Error('gpg made no key');
  return fpr;
}
