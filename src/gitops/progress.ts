// Progress of a long CLI run on standard error: a live bar on a terminal (cli-progress), plain
// lines in CI (`CI` set) or when standard error is not a terminal, so logs stay readable.
import type { ScanProgress } from './drift';

/** Progress with free-form notes between the steps. */
export interface Progress extends ScanProgress {
  /** One line about what happens now (e.g. "terraform plan -refresh-only"). */
  note(message: string): void;
}

/** The reporter for this process's standard error. */
export function progressReporter(stream: NodeJS.WriteStream = process.stderr, env: NodeJS.ProcessEnv = process.env): Progress {
  const plain = env.CI !== undefined && env.CI !== '' ? true : !stream.isTTY;
  if (plain) {
    let n = 0;
    let total = 0;
    return {
      note: (m) => void stream.write(`proxyaccount: ${m}\n`),
      start: (t) => {
        total = t;
        n = 0;
      },
      step: (account, collection) => void stream.write(`proxyaccount: [${++n}/${total}] scanning ${collection} of ${account}\n`),
      stop: () => undefined,
    };
  }
  // Loaded only on a terminal: CI runs never pay for it.
  const { SingleBar, Presets } = require('cli-progress') as typeof import('cli-progress');
  const bar = new SingleBar({ format: 'scanning {bar} {value}/{total}  {what}', stream, clearOnComplete: true, hideCursor: true }, Presets.shades_classic);
  return {
    note: (m) => void stream.write(`proxyaccount: ${m}\n`),
    start: (t) => bar.start(t, 0, { what: '' }),
    step: (account, collection) => bar.increment({ what: `${collection} of ${account}` }),
    stop: () => bar.stop(),
  };
}

/**
 * Progress of a long `terraform plan`, read from its output: how many resources it has read
 * (terraform prints "Refreshing state..." as it reads each one), as a note every `everyMs` while
 * the count grows. A plan of a large account takes tens of seconds before drift's scan starts.
 */
export function planProgress(note: (message: string) => void, what: string, everyMs = 5000): { line(line: string): void; stop(): void } {
  let read = 0;
  let told = 0;
  const timer = setInterval(() => {
    if (read === told) return;
    told = read;
    note(`${what}: ${read} resource${read === 1 ? '' : 's'} read so far`);
  }, everyMs);
  timer.unref();
  return {
    line: (l) => {
      if (l.includes(': Refreshing state...')) read += 1;
    },
    stop: () => clearInterval(timer),
  };
}
