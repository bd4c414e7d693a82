// The emulator's temporary directory outlives a `kill -9` (no handler runs), so the next start
// removes the directories of this user whose emulator is dead, and nothing else: not a live
// emulator's, not another user's, not a symlink, not one without a recorded owner.
import { spawn, spawnSync } from 'node:child_process';
import { chownSync, existsSync, lstatSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { sweepStaleTempDirs, TEMP_DIR_PREFIX } from '../../src/emulator/temp-dir';
import { startEmulator } from '../helpers/emulator';

const BIN = resolve(__dirname, '..', '..', 'bin', 'proxyaccount.js');

/** Starts an emulator process directly (its pid is needed) and resolves with its caFile. */
function spawnEmulator(): Promise<{ pid: number; caFile: string; exited: Promise<unknown> }> {
  const child = spawn(process.execPath, [BIN, 'emulator', '--port', '0', '--http-port', '0'], { stdio: ['ignore', 'pipe', 'ignore'] });
  const exited = new Promise((r) => child.once('exit', r));
  return new Promise((resolveReady, reject) => {
    let out = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      out += chunk;
      const newline = out.indexOf('\n');
      if (newline !== -1) resolveReady({ pid: child.pid!, caFile: (JSON.parse(out.slice(0, newline)) as { caFile: string }).caFile, exited });
    });
    void exited.then(() => reject(new Error('emulator exited before it was ready')));
  });
}

describe('an emulator killed with SIGKILL', () => {
  it('leaves its temporary directory only until the next emulator starts', async () => {
    const killed = await spawnEmulator();
    const dir = dirname(killed.caFile);
    expect(dir.startsWith(join(tmpdir(), TEMP_DIR_PREFIX))).toBe(true);
    process.kill(killed.pid, 'SIGKILL');
    await killed.exited;
    expect(existsSync(dir)).toBe(true);
    const next = await startEmulator();
    try {
      expect(existsSync(dir)).toBe(false);
      expect(existsSync(next.caFile)).toBe(true);
    } finally {
      await next.stop();
    }
    expect(existsSync(dirname(next.caFile))).toBe(false);
  });
});

describe('the sweep', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'proxyaccount-test-sweep-'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  const make = (name: string, pid: number | undefined): string => {
    const dir = join(root, TEMP_DIR_PREFIX + name);
    mkdirSync(dir);
    if (pid !== undefined) writeFileSync(join(dir, 'owner.pid'), `${pid}\n`);
    writeFileSync(join(dir, 'ca.pem'), 'x');
    return dir;
  };

  it("removes only this user's directories whose emulator no longer runs", () => {
    const deadPid = spawnSync(process.execPath, ['-e', '']).pid!;
    make('dead', deadPid);
    make('alive', process.pid);
    make('no-owner', undefined);
    const foreign = make('foreign', deadPid);
    // A link named like an emulator directory, to a directory elsewhere: never followed.
    const elsewhere = join(root, 'elsewhere');
    mkdirSync(elsewhere);
    writeFileSync(join(elsewhere, 'owner.pid'), `${deadPid}\n`);
    symlinkSync(elsewhere, join(root, `${TEMP_DIR_PREFIX}link`));
    writeFileSync(join(root, 'unrelated'), 'x');
    const asRoot = process.getuid?.() === 0;
    // Tests run as root here: a directory of another uid is then possible to make.
    if (asRoot) chownSync(foreign, 12345, 12345);
    const removed = sweepStaleTempDirs(root).sort();
    expect(removed).toEqual((asRoot ? ['dead'] : ['dead', 'foreign']).map((n) => TEMP_DIR_PREFIX + n));
    expect(existsSync(join(root, `${TEMP_DIR_PREFIX}alive`))).toBe(true);
    expect(existsSync(join(root, `${TEMP_DIR_PREFIX}no-owner`))).toBe(true);
    expect(existsSync(join(root, 'unrelated'))).toBe(true);
    expect(lstatSync(join(root, `${TEMP_DIR_PREFIX}link`)).isSymbolicLink()).toBe(true);
    expect(existsSync(join(elsewhere, 'owner.pid'))).toBe(true);
    expect(existsSync(foreign)).toBe(asRoot);
  });
});
