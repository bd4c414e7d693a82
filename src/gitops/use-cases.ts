// The GitOps use cases as functions that return data: the CLI's commands and the demo only render
// what these return. Each reads the account through the account store it is given (or builds one
// from PROXYACCOUNT_*, by the provider's own rules) and plans through the one terraform runner.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { type AccountStore, EPHEMERAL_TOKEN_PREFIX } from '../account';
import { type Catalogue, RESOURCE_TYPES } from '../resource-types';
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
}

async function withStore<T>(source: StoreSource, use: (store: AccountStore) => Promise<T>): Promise<T> {
  if (source.store !== undefined) return use(source.store);
  const store = storeFromEnv(source.env ?? process.env);
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
  /** Label prefix of the tokens to delete. @default the ephemeral resource's */
  readonly prefix?: string;
  /** Only tokens created longer ago than this, in milliseconds. */
  readonly olderThanMs: number;
  /** Sub-accounts to prune besides the parent (the API cannot list them). @default none */
  readonly usernames?: readonly string[];
  /** List what would be deleted, delete nothing. @default false */
  readonly dryRun?: boolean;
  /** Called as each token is deleted (or found, on a dry run). */
  readonly onToken?: (t: PrunedToken) => void;
  /** The clock. @default Date.now() */
  readonly now?: number;
}

/** `proxyaccount tokens prune`: deletes leftover ephemeral tokens by label prefix and age; returns them. */
export async function pruneTokens(opts: PruneOptions): Promise<PrunedToken[]> {
  const prefix = opts.prefix ?? EPHEMERAL_TOKEN_PREFIX;
  if (prefix === '') throw new Error('--prefix must not be empty: it would delete every token');
  return withStore(opts, async (store) => {
    const done: PrunedToken[] = [];
    for (const username of [null, ...(opts.usernames ?? [])]) {
      const list = store.account(username).tokens;
      const tokens = await list.list();
      // Age on the API's clock (its answers' Date), which stamped createdAt: a runner's clock ahead
      // would prune a token a run still uses.
      const cutoff = (opts.now ?? store.now()) - opts.olderThanMs;
      for (const t of tokens) {
        if (!t.label.startsWith(prefix) || t.createdAt.getTime() > cutoff) continue;
        if (opts.dryRun !== true) await list.delete(t.id);
        const pruned = { username, id: t.id, label: t.label, createdAt: t.createdAt };
        opts.onToken?.(pruned);
        done.push(pruned);
      }
    }
    return done;
  });
}
