// The child processes of the demo (the example app, terraform) and how they are stopped. Each
// child gets its own process group, so a terminal Ctrl-C reaches only the demo, which then sends
// terraform exactly one SIGINT (one lets terraform stop gracefully; a second makes it abandon its
// state). Whatever way the demo ends, no child outlives it.
import type { ChildProcess } from 'node:child_process';
import { launch, type RunResult } from '../../gitops/terraform';

export type { RunResult } from '../../gitops/terraform';

/** Options of {@link ProcessGroup.run}. */
export interface RunOptions {
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
  /** Run `command` through the shell (for cdktf.json's `app`, which is a shell command). @default false */
  readonly shell?: boolean;
  /** Called with each complete line of stdout as it arrives. @default none */
  readonly onStdoutLine?: (line: string) => void;
}

/** The children the demo has running, stopped together on interrupt and on exit. */
export class ProcessGroup {
  private readonly live = new Set<ChildProcess>();
  private readonly killAll = (): void => this.kill();

  constructor() {
    // Last resort: whatever ends the demo (an uncaught error, process.exit), no child survives it.
    process.on('exit', this.killAll);
  }

  /** Whether a child is running now. */
  get busy(): boolean {
    return this.live.size > 0;
  }

  /** Runs `command` to completion in its own process group; never rejects on an exit code, only when it cannot be started. */
  run(command: string, args: readonly string[], opts: RunOptions): Promise<RunResult> {
    return launch(command, args, { ...opts, detached: true, onChild: (child, ended) => (ended ? this.live.delete(child) : this.live.add(child)) });
  }

  /** Sends SIGINT to every running child's process group: terraform then stops gracefully. */
  interrupt(): void {
    this.signalAll('SIGINT');
  }

  /** Kills every running child's process group at once. Synchronous, so it also works in an exit handler. */
  kill(): void {
    this.signalAll('SIGKILL');
  }

  /** Stops watching for exit; call once the demo is over and nothing runs. */
  dispose(): void {
    process.off('exit', this.killAll);
  }

  private signalAll(signal: NodeJS.Signals): void {
    for (const child of this.live) {
      if (child.pid === undefined) continue;
      try {
        // The negative pid names the child's process group: terraform and the providers it started.
        process.kill(-child.pid, signal);
      } catch {
        // Already gone.
      }
    }
  }
}
