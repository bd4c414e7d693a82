// Whether a process still runs, for the emulator's temporary directories named by pid and for a
// provider that watches its parent. The SDK and src/packaging keep their own copies: each stands
// alone (the SDK depends on Node and undici only; packaging runs in the release scripts).

/** True when process `pid` runs, as this user or another (EPERM: it exists, but is not ours to signal). */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
