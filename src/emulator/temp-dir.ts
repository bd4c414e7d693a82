// The emulator's temporary directory (the certificate file clients trust, when no --ca-out is
// given). SIGTERM and SIGINT remove it; `kill -9` cannot. So each directory records the pid of its
// emulator, and every start removes the directories of this user whose emulator no longer runs.
import { lstatSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isRunning } from '../util/process';

/** Every emulator temporary directory's name starts with this. */
export const TEMP_DIR_PREFIX = 'proxyaccount-emulator-';
/** The file inside that names the owning emulator's pid. */
const OWNER_FILE = 'owner.pid';

/**
 * Removes the stale directories in `root` (see {@link sweepStaleTempDirs}), then creates a new one
 * recording this process as its owner.
 */
export function createTempDir(root: string = tmpdir()): string {
  sweepStaleTempDirs(root);
  const dir = mkdtempSync(join(root, TEMP_DIR_PREFIX));
  writeFileSync(join(dir, OWNER_FILE), `${process.pid}\n`, { flag: 'wx', mode: 0o644 });
  return dir;
}

/**
 * Removes each emulator directory in `root` that is a real directory (not a symlink) owned by
 * this user, whose recorded owner pid no longer runs. A directory without a readable pid is left
 * alone: it may belong to an emulator that is starting, or to something else. Returns the names
 * removed.
 */
export function sweepStaleTempDirs(root: string = tmpdir()): string[] {
  const removed: string[] = [];
  let names: string[];
  try {
    names = readdirSync(root).filter((n) => n.startsWith(TEMP_DIR_PREFIX));
  } catch {
    return removed;
  }
  const uid = process.getuid?.();
  for (const name of names) {
    const dir = join(root, name);
    try {
      const st = lstatSync(dir);
      if (!st.isDirectory() || (uid !== undefined && st.uid !== uid)) continue;
      const owner = lstatSync(join(dir, OWNER_FILE));
      if (!owner.isFile()) continue;
      const pid = Number(readFileSync(join(dir, OWNER_FILE), 'utf8').trim());
      if (!Number.isSafeInteger(pid) || pid <= 0 || isRunning(pid)) continue;
      rmSync(dir, { recursive: true, force: true });
      removed.push(name);
    } catch {
      // Gone meanwhile, or not ours to read: leave it.
    }
  }
  return removed;
}
