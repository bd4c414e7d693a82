// The demo's working directory: the provider mirror, the CLI configuration, the synthesized stack
// and its state. A temporary one is removed however the demo ends, unless it must be kept.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/** The demo's working directory. */
export class WorkDir {
  private removed = false;
  private reasonToKeep: string | undefined;
  private readonly removeOnExit = (): void => {
    if (this.shouldRemove()) this.remove();
  };

  private constructor(
    /** Absolute path. */
    readonly root: string,
    /** True when the demo made it (a temporary directory) rather than being given it. */
    readonly temporary: boolean,
    /** `--keep`: leave it in place. */
    private readonly keep: boolean,
  ) {
    process.on('exit', this.removeOnExit);
  }

  /**
   * A new temporary directory, or `requested` (created if missing; it must be empty so that no
   * earlier state gets mixed in). A requested directory is never removed.
   */
  static open(requested: string | undefined, keep: boolean): WorkDir {
    if (requested === undefined) {
      return new WorkDir(mkdtempSync(path.join(os.tmpdir(), 'proxyaccount-demo-')), true, keep);
    }
    const root = path.resolve(requested);
    if (existsSync(root) && readdirSync(root).length > 0) {
      throw new Error(`--work-dir ${root} is not empty: give a new or empty directory (a kept one holds an earlier run's state)`);
    }
    mkdirSync(root, { recursive: true });
    return new WorkDir(root, false, true);
  }

  /** A path inside the directory. */
  path(...parts: string[]): string {
    return path.join(this.root, ...parts);
  }

  /** Keeps the directory whatever the options say (it holds the only state of real objects). */
  mustKeep(reason: string): void {
    this.reasonToKeep = reason;
  }

  /** Lets the directory go again (the objects are destroyed). */
  release(): void {
    this.reasonToKeep = undefined;
  }

  /** Why the directory stays, or undefined when it will be removed. */
  get keptBecause(): string | undefined {
    if (this.reasonToKeep !== undefined) return this.reasonToKeep;
    if (!this.temporary) return 'it was given with --work-dir';
    if (this.keep) return '--keep';
    return undefined;
  }

  /** Removes the directory unless it is to be kept; returns whether it was removed. Call once, at the end. */
  finish(): boolean {
    process.off('exit', this.removeOnExit);
    if (!this.shouldRemove()) return false;
    this.remove();
    return true;
  }

  private shouldRemove(): boolean {
    return !this.removed && this.keptBecause === undefined;
  }

  private remove(): void {
    this.removed = true;
    rmSync(this.root, { recursive: true, force: true });
  }
}
