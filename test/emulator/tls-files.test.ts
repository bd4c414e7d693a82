// The emulator's atomic writes (the kept certificate key, the CA file clients trust) never write
// through a link another user planted beside them: the temporary file is unguessable and created
// with O_EXCL | O_NOFOLLOW, and the rename replaces a link at the destination instead of its target.
import { chmodSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { prepareTls } from '../../src/emulator/tls';

let dir: string;
let target: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'proxyaccount-emulator-files-'));
  target = join(dir, 'root-owned-target');
  writeFileSync(target, 'must stay\n', { mode: 0o644 });
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

it('a link planted at the temporary name the write used to take is not written through', () => {
  const caOut = join(dir, 'ca.pem');
  symlinkSync(target, `${caOut}.${process.pid}.tmp`);
  const keyStore = join(dir, 'state.key.pem');
  symlinkSync(target, `${keyStore}.${process.pid}.tmp`);
  const tls = prepareTls({ host: '127.0.0.1', keyStorePath: keyStore, caOutPath: caOut, log: () => undefined });
  tls.cleanup();
  expect(readFileSync(target, 'utf8')).toBe('must stay\n');
  expect(readFileSync(caOut, 'utf8')).toContain('BEGIN CERTIFICATE');
  expect(readFileSync(keyStore, 'utf8')).toContain('BEGIN PRIVATE KEY');
  expect(lstatSync(keyStore).mode & 0o777).toBe(0o600);
});

it('a link planted at the destination is replaced, its target left alone', () => {
  const caOut = join(dir, 'ca.pem');
  symlinkSync(target, caOut);
  prepareTls({ host: '127.0.0.1', caOutPath: caOut, log: () => undefined }).cleanup();
  expect(readFileSync(target, 'utf8')).toBe('must stay\n');
  expect(lstatSync(caOut).isSymbolicLink()).toBe(false);
  expect(readFileSync(caOut, 'utf8')).toContain('BEGIN CERTIFICATE');
});

describe('the kept certificate key', () => {
  it('is neither read nor kept in a directory others can write to', () => {
    const shared = join(dir, 'shared');
    mkdirSync(shared);
    chmodSync(shared, 0o777);
    const keyStore = join(shared, 'state.key.pem');
    const lines: string[] = [];
    const first = prepareTls({ host: '127.0.0.1', keyStorePath: keyStore, log: (l) => lines.push(l) });
    first.cleanup();
    expect(lines.join('\n')).toContain('writable by group or others (mode 0777)');
    expect(() => readFileSync(keyStore)).toThrow();
  });

  it('a planted link at the kept key is not read (its key is not used) and is replaced', () => {
    const planted = prepareTls({ host: '127.0.0.1', keyStorePath: join(dir, 'other.key.pem'), log: () => undefined });
    planted.cleanup();
    const keyStore = join(dir, 'state.key.pem');
    symlinkSync(join(dir, 'other.key.pem'), keyStore);
    const lines: string[] = [];
    const tls = prepareTls({ host: '127.0.0.1', keyStorePath: keyStore, log: (l) => lines.push(l) });
    tls.cleanup();
    expect(tls.keyPem).not.toBe(planted.keyPem);
    expect(lines.join('\n')).toContain('is a symbolic link');
    expect(lstatSync(keyStore).isSymbolicLink()).toBe(false);
  });
});
