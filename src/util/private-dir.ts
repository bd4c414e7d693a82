// Whether a directory may hold a per-user secret (OpenSSH's habit): a real directory, not a
// symbolic link, owned by the current user, writable by nobody else. Synchronous, for start-up
// paths; the SDK keeps its own asynchronous reading (src/sdk/private-file.ts), since it imports
// nothing else of ours.
import { lstatSync } from 'node:fs';

/** Why `dir` must not hold a secret, or undefined when it may. An absent directory is fine. */
export function privateDirProblemSync(dir: string): string | undefined {
  let st: ReturnType<typeof lstatSync>;
  try {
    st = lstatSync(dir);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ENOENT' ? undefined : `${dir} cannot be read (${(err as NodeJS.ErrnoException).code})`;
  }
  if (st.isSymbolicLink()) return `${dir} is a symbolic link`;
  if (!st.isDirectory()) return `${dir} is not a directory`;
  const uid = process.getuid?.();
  if (uid !== undefined && st.uid !== uid) return `${dir} is owned by uid ${st.uid}, not by the current user (uid ${uid})`;
  // Without POSIX owners (Windows) the mode's write bits say nothing of other users.
  if (uid !== undefined && (st.mode & 0o022) !== 0) return `${dir} is writable by group or others (mode ${(st.mode & 0o777).toString(8).padStart(4, '0')})`;
  return undefined;
}
