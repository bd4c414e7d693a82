// The GitOps use cases as functions that return data: the CLI's commands and the demo only render
// what these return. Each reads the account through the account store it is given (or builds one
// from PROXYACCOUNT_*, by the provider's own rules) and plans through the one terraform runner.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { type AccountStore, EPHEMERAL_TOKEN_PREFIX, StoppedError } from '../account';
import { accountPhrase, type Catalogue, RESOURCE_TYPES } from '../resource-types';
import type { BearerToken } from '../sdk';
import { storeFromEnv } from './credentials';
import { type DriftReport, driftReport, planDrift, type ScanProgress, scanUnmanaged } from './drift';
import { type LiveAccount, readAccount } from './export';
import { loadPlan } from './plan-input';
import { type Plan, parsePlanJson } from './plan-json';
import { type Review, reviewPlan } from './review';
import { describeFailure, Terraform } from './terraform';

/** Where a use case gets its account store: a given one (kept open), or one from the environment (closed after). */
export interface StoreSource {
  /** A store to use (the demo's); the caller closes it. @default built from `env` */
  readonly store?: AccountStore;
  /** The environment PROXYACCOUNT_* is read from. @default process.env */
  readonly env?: NodeJS.ProcessEnv;
  /**
   * The stop signal (Ctrl-C), bound to the store built from `env`: once it fires, reads are
   * cancelled and no new write starts, while a write already sent finishes. A given store keeps
   * its own. @default none
   */
  readonly signal?: AbortSignal;
}

async function withStore<T>(source: StoreSource, use: (store: AccountStore) => Promise<T>): Promise<T> {
  if (source.store !== undefined) return use(source.store);
  const store = storeFromEnv(source.env ?? process.env, source.signal !== undefined ? { signal: source.signal } : {});
  try {
    return await use(store);
  } finally {
    await store.close();
  }
}

/** A quiet scan (the demo prints its own steps). */
export const SILENT_PROGRESS: ScanProgress & { note(message: string): void } = {
  note: () => undefined,
  start: () => undefined,
  step: () => undefined,
  stop: () => undefined,
};

/** Options of {@link runDrift}. */
export interface DriftOptions extends StoreSource {
  /** The Terraform working directory. */
  readonly dir: string;
  /** A refresh-only plan already made (saved, or its JSON): no terraform plan is run. @default run one */
  readonly plan?: string;
  /** Scan the account for objects no resource manages (needs credentials). @default true */
  readonly scan?: boolean;
  /** The terraform executable. @default 'terraform' */
  readonly terraform?: string;
  readonly progress?: ScanProgress & { note(message: string): void };
  readonly catalogue?: Catalogue;
  /** The scan's clock (expired tokens). @default Date.now() */
  readonly now?: number;
}

/** A refresh-only plan of `dir` as JSON: `terraform init` when needed, then `plan -refresh-only` and `show -json`. */
async function refreshOnlyPlan(dir: string, bin: string | undefined, progress: { note(message: string): void }): Promise<unknown> {
  const tf = new Terraform({ cwd: dir, ...(bin !== undefined ? { bin } : {}) });
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'proxyaccount-drift-'));
  try {
    if (!existsSync(path.join(dir, '.terraform'))) {
      progress.note(`terraform init in ${dir}`);
      await tf.run(['init', '-input=false', '-no-color']);
    }
    progress.note('terraform plan -refresh-only');
    const file = path.join(tmp, 'drift.tfplan');
    await tf.run(['plan', '-refresh-only', '-input=false', '-no-color', `-out=${file}`]);
    return await tf.showPlan(file);
  } catch (err) {
    throw describeFailure(err, dir);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** Drift of a parsed refresh-only plan, and unless `scan` is false, what the account holds that nobody manages. */
export async function driftOfPlan(plan: Plan, opts: StoreSource & Pick<DriftOptions, 'scan' | 'progress' | 'catalogue' | 'now'> = {}): Promise<DriftReport> {
  const { changed, deleted } = planDrift(plan);
  const scanned = opts.scan !== false;
  const scan = scanned
    ? await withStore(opts, (store) =>
        scanUnmanaged(store, plan.priorState, opts.progress ?? SILENT_PROGRESS, opts.now ?? Date.now(), opts.catalogue ?? RESOURCE_TYPES),
      )
    : { unmanaged: [], expired: [], leftovers: [] };
  return driftReport({ changed, deleted, unmanaged: scan.unmanaged, expired: scan.expired, leftovers: scan.leftovers, scanned });
}

/** `proxyaccount drift`: the report of a working directory (or of a given plan). */
export async function runDrift(opts: DriftOptions): Promise<DriftReport> {
  const progress = opts.progress ?? SILENT_PROGRESS;
  const json =
    opts.plan !== undefined
      ? await loadPlan(opts.plan, { dir: opts.dir, ...(opts.terraform !== undefined ? { terraform: opts.terraform } : {}) })
      : await refreshOnlyPlan(opts.dir, opts.terraform, progress);
  return driftOfPlan(parsePlanJson(json), { ...opts, progress });
}

/** `proxyaccount review`: the review of a saved plan, its JSON, or `-` (JSON on standard input). */
export async function reviewPlanSource(source: string, opts: { dir?: string; terraform?: string; catalogue?: Catalogue } = {}): Promise<Review> {
  const json = await loadPlan(source, {
    ...(opts.dir !== undefined ? { dir: opts.dir } : {}),
    ...(opts.terraform !== undefined ? { terraform: opts.terraform } : {}),
  });
  return reviewPlan(parsePlanJson(json), opts.catalogue ?? RESOURCE_TYPES);
}

/** `proxyaccount export`: reads the parent and the named sub-accounts (each once); render with toHcl or toRoster. */
export function exportAccount(subAccounts: readonly string[], opts: StoreSource & { onStep?: (what: string) => void } = {}): Promise<LiveAccount> {
  return withStore(opts, (store) => readAccount(store, [...new Set(subAccounts)], opts.onStep));
}

/** One token {@link pruneTokens} deleted (or would delete). */
export interface PrunedToken {
  /** null for the parent. */
  readonly username: string | null;
  readonly id: number;
  readonly label: string;
  readonly createdAt: Date;
}

/** Options of {@link pruneTokens}. */
export interface PruneOptions extends StoreSource {
  /** Label prefix of the tokens to delete: the ephemeral resource's, or a longer one. @default the ephemeral resource's */
  readonly prefix?: string;
  /** Only tokens created longer ago than this, in milliseconds. */
  readonly olderThanMs: number;
  /** Sub-accounts to prune besides the parent (the API cannot list them). @default none */
  readonly usernames?: readonly string[];
  /** List what would be deleted, delete nothing. @default false */
  readonly dryRun?: boolean;
  /** Called as each token is deleted (or found, on a dry run). */
  readonly onToken?: (t: PrunedToken) => void;
  /**
   * Called just before each delete is sent (not on a dry run). Until `onToken` reports it, or the
   * run ends, its outcome is unknown: what a hard exit must name.
   */
  readonly onDeleting?: (t: PrunedToken) => void;
  /** The clock. @default Date.now() */
  readonly now?: number;
}

/**
 * {@link pruneTokens} stopped on its signal before the end. The deletes sent had finished (each
 * was reported through `onToken`); nothing was started after the signal.
 */
export class PruneStoppedError extends Error {
  constructor(
    /** The tokens deleted (or found, on a dry run) before the stop. */
    readonly pruned: readonly PrunedToken[],
    /** Tokens listed but not examined. */
    readonly notExamined: number,
    /** Accounts whose tokens were not read (null: the parent). */
    readonly notRead: ReadonlyArray<string | null>,
    dryRun: boolean,
  ) {
    const accounts = notRead.length === 0 ? '' : `; the tokens of ${notRead.map(accountPhrase).join(', ')} were not read`;
    super(`the run stopped: ${pruned.length} token(s) ${dryRun ? 'would be ' : ''}deleted, ${notExamined} listed token(s) not examined${accounts}`);
    this.name = 'PruneStoppedError';
  }
}

/** The prefix, when prune may use it: the ephemeral resource's or one that narrows it, never one that reaches managed tokens. */
function checkedPrefix(prefix: string): string {
  if (!prefix.startsWith(EPHEMERAL_TOKEN_PREFIX)) {
    throw new Error(
      `--prefix must start with '${EPHEMERAL_TOKEN_PREFIX}', the ephemeral resource's label prefix, which no managed token may carry ` +
        `(got ${JSON.stringify(prefix)}): prune deletes only that resource's leftovers; a longer prefix narrows them, e.g. '${EPHEMERAL_TOKEN_PREFIX}ci-'`,
    );
  }
  return prefix;
}

/** Looks every sub-account up, before anything is deleted: a misspelt one is refused first. */
async function refuseUnknown(store: AccountStore, usernames: readonly string[]): Promise<void> {
  const missing: string[] = [];
  for (const u of usernames) if ((await store.subAccounts.find(u)) === undefined) missing.push(`'${u}'`);
  if (missing.length > 0) throw new Error(`the parent account has no sub-account ${missing.join(', ')}: nothing was deleted`);
}

/**
 * `proxyaccount tokens prune`: deletes leftover ephemeral tokens by label prefix and age; returns
 * them. On the stop signal it throws {@link PruneStoppedError} once the delete in flight finished.
 */
export async function pruneTokens(opts: PruneOptions): Promise<PrunedToken[]> {
  const prefix = checkedPrefix(opts.prefix ?? EPHEMERAL_TOKEN_PREFIX);
  const usernames = [...new Set(opts.usernames ?? [])];
  const dryRun = opts.dryRun === true;
  const stopping = (): boolean => opts.signal?.aborted === true;
  return withStore(opts, async (store) => {
    const done: PrunedToken[] = [];
    const accounts = [null, ...usernames];
    try {
      await refuseUnknown(store, usernames);
    } catch (err) {
      if (stopping()) throw new PruneStoppedError(done, 0, accounts, dryRun);
      throw err;
    }
    for (const [i, username] of accounts.entries()) {
      const list = store.account(username).tokens;
      let tokens: readonly BearerToken[];
      try {
        tokens = await list.list();
      } catch (err) {
        if (stopping()) throw new PruneStoppedError(done, 0, accounts.slice(i), dryRun);
        throw err;
      }
      // Age on the API's clock (its answers' Date), which stamped createdAt: a runner's clock ahead
      // would prune a token a run still uses.
      const cutoff = (opts.now ?? store.now()) - opts.olderThanMs;
      for (const [j, t] of tokens.entries()) {
        // Checked before each delete: the store refuses a new write once stopped, but the run
        // must also say what it did and what it did not reach.
        if (stopping()) throw new PruneStoppedError(done, tokens.length - j, accounts.slice(i + 1), dryRun);
        if (!t.label.startsWith(prefix) || t.createdAt.getTime() > cutoff) continue;
        const pruned = { username, id: t.id, label: t.label, createdAt: t.createdAt };
        if (!dryRun) {
          opts.onDeleting?.(pruned);
          try {
            await list.delete(t.id);
          } catch (err) {
            if (err instanceof StoppedError) throw new PruneStoppedError(done, tokens.length - j, accounts.slice(i + 1), dryRun);
            throw err;
          }
        }
        opts.onToken?.(pruned);
        done.push(pruned);
      }
    }
    return done;
  });
}
