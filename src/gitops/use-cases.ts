// The GitOps use cases as functions that return data: the CLI's commands and the demo only render
// what these return. Each reads the account through the account store it is given (or builds one
// from PROXYACCOUNT_*, by the provider's own rules) and plans through the one terraform runner.
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { type AccountStore, EPHEMERAL_TOKEN_PREFIX, StoppedError } from '../account';
import { accountPhrase, type Catalogue, RESOURCE_TYPES } from '../resource-types';
import type { BearerToken } from '../sdk';
import { storeFromEnv } from './credentials';
import { comparesWithCode, type DriftReport, driftReport, pendingChanges, planGaps, type ScanProgress, scanChanges } from './drift';
import { absentAsDeleted, missingAsDeleted, planDrift, subAccountsDeletedInPlan } from './drift-deleted';
import { markKept, markUndeclared, undeclaredEntries, withoutUndeclared } from './drift-kept';
import { scanUnmanaged } from './drift-scan';
import { providerLayout, scanAccountOf, scanScope } from './drift-providers';
import { planProviderSource, type ProviderSource, readProviderSource } from './provider-source';
import { type LiveAccount, readAccount } from './export';
import { loadPlan } from './plan-input';
import { planProgress } from './progress';
import { type Plan, type PlanReading, parsePlanJson } from './plan-json';
import { declaredAfter, entriesTwice, managedTwice as managedTwiceItems } from './plan-overlaps';
import { type Review, reviewPlan } from './review';
import { describeFailure, Terraform, TerraformError } from './terraform';

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
  /** A plan already made (saved, or its JSON): no terraform plan is run. @default run one */
  readonly plan?: string;
  /** Scan the account for objects no resource manages (needs credentials). @default true */
  readonly scan?: boolean;
  /** The terraform executable. @default 'terraform' */
  readonly terraform?: string;
  readonly progress?: ScanProgress & { note(message: string): void };
  readonly catalogue?: Catalogue;
  /**
   * The provider configuration whose account the environment's credentials read
   * (`proxyaccount.other`). Given, it also says that the other configurations' accounts are
   * checked by runs of their own: their resources are then not a gap of this report.
   * @default the default (unaliased) one, and the others are a gap
   */
  readonly provider?: string;
  /** The scan's clock (expired tokens). @default the API's (its answers' `Date`) */
  readonly now?: number;
}

/** Options of {@link driftOfPlan}. */
export interface DriftOfPlanOptions extends StoreSource, Pick<DriftOptions, 'scan' | 'progress' | 'catalogue' | 'provider' | 'now'> {
  /**
   * The plan's JSON as terraform showed it, for what the parsed plan does not keep: which provider
   * configuration manages each resource. @default not known: every resource counts, and the
   * scanned account is reported as not confirmed
   */
  readonly json?: unknown;
  /** Whether the plan compares with the code (a normal plan) rather than the state alone (refresh-only). @default told from the plan */
  readonly comparesWithCode?: boolean;
  /**
   * Whether terraform planned with this very environment (drift ran it): a provider setting left to
   * the environment is then the scan's, and the plan refreshed (drift's own plans always do). A plan
   * given may not have: the report's limits then say what that hides. @default false
   */
  readonly plannedHere?: boolean;
  /**
   * The root module's provider blocks as written (runDrift reads them from `dir`): a `username` or
   * `base_url` that is exactly one root variable is resolved from the plan's value of it.
   * @default not read: such a setting is not resolved, and the account not confirmed
   */
  readonly source?: ProviderSource;
  /** What could not be checked before the scan (a normal plan that failed). @default nothing */
  readonly incomplete?: readonly string[];
}

/** A plan of a directory: its JSON, whether it is a normal plan, and what could not be checked. */
interface DirPlan {
  readonly json: unknown;
  readonly normal: boolean;
  readonly incomplete: string[];
}

/** The working directory, refused clearly before terraform runs (spawn reports a missing one as a missing terraform). */
function checkDir(dir: string): void {
  let isDir: boolean;
  try {
    isDir = statSync(dir).isDirectory();
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new Error(`--dir ${dir}: ${code === 'ENOENT' ? 'no such directory' : `cannot be read (${code ?? String(err)})`}`);
  }
  if (!isDir) throw new Error(`--dir ${dir}: not a directory`);
}

/** The first `Error:` line of a failed terraform run, for one line of a report. */
function errorSummary(err: TerraformError): string {
  const line = err.outputTail.split('\n').find((l) => /Error: /.test(l));
  return (line ?? err.message).replace(/^│\s*/, '').trim();
}

/**
 * Flags that hold whatever TF_CLI_ARGS and TF_CLI_ARGS_plan say (terraform puts their flags before
 * the command line's, and the last of a flag wins): a plan that does not refresh holds no drift (a
 * CI's `-refresh=false` for speed would make every drift run clean); a destroy plan shows the code
 * deleting everything instead of what changed; `-detailed-exitcode` turns every plan with changes
 * into a failure (exit 2) and no report.
 */
const PLAN_MODE = ['-refresh=true', '-destroy=false', '-detailed-exitcode=false'] as const;
/** Drift's normal plan: {@link PLAN_MODE}, and never refresh-only, which does not compare with the code (the report would claim it did). */
const NORMAL_PLAN = [...PLAN_MODE, '-refresh-only=false'] as const;

/**
 * A plan of `dir` as JSON: `terraform init` when needed, then a normal plan, which refreshes (its
 * `resource_drift` is the drift) and also says what the code would still change. When the code
 * cannot be planned (a change refused at plan time), a refresh-only plan still gives the drift,
 * and the report says the pending changes were not checked. When both fail, the normal plan's
 * diagnostics are the error (a refused credential's message comes from the first run).
 */
async function planOfDir(dir: string, bin: string | undefined, progress: { note(message: string): void }, signal?: AbortSignal): Promise<DirPlan> {
  const tf = new Terraform({ cwd: dir, ...(bin !== undefined ? { bin } : {}) });
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'proxyaccount-drift-'));
  const file = path.join(tmp, 'drift.tfplan');
  try {
    if (!existsSync(path.join(dir, '.terraform'))) {
      progress.note(`terraform init in ${dir}`);
      await tf.run(['init', '-input=false', '-no-color']);
    }
    progress.note('terraform plan');
    let failed: TerraformError | undefined;
    const reading = planProgress((m) => progress.note(m), 'terraform plan');
    try {
      await tf.run(['plan', ...NORMAL_PLAN, '-input=false', '-no-color', `-out=${file}`], [0], reading.line);
    } catch (err) {
      // A stopped run (a signal, or the caller's stop) is not retried.
      if (!(err instanceof TerraformError) || err.result.code === null || signal?.aborted === true) throw err;
      failed = err;
    } finally {
      reading.stop();
    }
    if (failed === undefined) return { json: await tf.showPlan(file), normal: true, incomplete: [] };
    progress.note(
      `${describeFailure(failed, dir).message}\nthe code could not be planned: terraform plan -refresh-only instead (changes not yet applied are not checked)`,
    );
    const refreshing = planProgress((m) => progress.note(m), 'terraform plan -refresh-only');
    try {
      // PLAN_MODE here too: terraform refuses -refresh-only beside an inherited -refresh=false or -destroy.
      await tf.run(['plan', '-refresh-only', ...PLAN_MODE, '-input=false', '-no-color', `-out=${file}`], [0], refreshing.line);
    } catch (err) {
      if (!(err instanceof TerraformError)) throw err;
      const also = describeFailure(failed, dir);
      throw new Error(`${also.message}\n(then \`terraform plan -refresh-only\` failed too: ${errorSummary(err)})`);
    } finally {
      refreshing.stop();
    }
    const why = `the code could not be planned (\`terraform plan\` failed: ${errorSummary(failed)}), so changes not yet applied were not checked; the run's log has terraform's diagnostics`;
    return { json: await tf.showPlan(file), normal: false, incomplete: [why] };
  } catch (err) {
    throw describeFailure(err, dir);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/**
 * Drift of a parsed plan (refresh-only, or normal: then its pending changes count too), and unless
 * `scan` is false, what the account holds that nobody manages, and the managed objects it no
 * longer holds (which a plan made without refreshing does not show). The scan reads the
 * environment's account and compares it with the resources of one provider configuration
 * (`provider`), never merged with another's; a configuration that names another account is
 * refused before anything is read, and an object another configuration's resource may hold is
 * reported as held by it.
 */
export async function driftOfPlan(plan: Plan, opts: DriftOfPlanOptions = {}): Promise<DriftReport> {
  const catalogue = opts.catalogue ?? RESOURCE_TYPES;
  const withCode = opts.comparesWithCode ?? comparesWithCode(plan);
  const drift = planDrift(plan);
  const { deleted } = drift;
  // Against the code, what the plan does not change back is said so (drift-kept.ts).
  const changed = withCode ? markKept(drift.changed, plan) : drift.changed;
  const pending = withCode ? pendingChanges(plan, catalogue) : undefined;
  // Two resources of one object are a hazard whether or not anything drifted: the scheduled run names them too.
  const declared = withCode ? declaredAfter(plan, catalogue) : [];
  const managedTwice = [...managedTwiceItems(declared), ...entriesTwice(declared)].map(({ address, message }) => ({ address, message }));
  const incomplete = [...(opts.incomplete ?? []), ...planGaps(plan)];
  const planGiven = opts.plannedHere !== true;
  if (opts.scan === false)
    return driftReport({ changed, deleted, pending, unmanaged: [], expired: [], managedTwice, leftovers: [], scanned: false, incomplete, planGiven });
  // A given store's account is its own: the environment does not describe it.
  const account = opts.store !== undefined && opts.env === undefined ? { username: undefined, baseUrl: undefined } : scanAccountOf(opts.env ?? process.env);
  const scope = scanScope(plan.priorState, opts.json === undefined ? undefined : providerLayout(opts.json, opts.source), {
    ...(opts.provider !== undefined ? { provider: opts.provider } : {}),
    account,
    plannedHere: opts.plannedHere === true,
  });
  // A list's entries the plan keeps while its code does not declare them are scanned as unmanaged, whatever the state holds.
  const undeclared = withCode ? undeclaredEntries(plan, catalogue) : [];
  const scanned = withoutUndeclared(scope.state, undeclared);
  const scan = await withStore(opts, (store) => scanUnmanaged(store, scanned, opts.progress ?? SILENT_PROGRESS, opts.now, catalogue, scope.holders));
  // A sub-account the plan's own drift reports deleted is reported there already.
  const known = subAccountsDeletedInPlan(plan, catalogue);
  const missing = missingAsDeleted(
    scan.missing.filter((u) => !known.has(u)),
    scope.state,
    catalogue,
  );
  return driftReport({
    changed: [...changed, ...scanChanges(scan.changed, plan)],
    deleted: [...deleted, ...missing, ...absentAsDeleted(scan.absent, plan, catalogue)],
    pending,
    unmanaged: markUndeclared(scan.unmanaged, undeclared),
    held: scan.held,
    expired: scan.expired,
    managedTwice,
    leftovers: scan.leftovers,
    scanned: true,
    scope: {
      provider: scope.provider,
      confirmed: scope.confirmed,
      unconfirmed: scope.unconfirmed,
      notScanned: [...scope.notScanned],
      othersCheckedElsewhere: opts.provider !== undefined,
      holders: scope.holders,
    },
    incomplete: [...incomplete, ...scan.incomplete],
    planGiven,
  });
}

/** Drift reads a plan whose planning failed, reports what it holds, and says the rest was not checked (see planGaps). */
const DRIFT_READING: PlanReading = { errored: 'read' };

/**
 * `proxyaccount drift`: the report of a working directory (or of a given plan). The provider
 * blocks are read from `dir`'s root module, or from a saved plan's own copy of it; plan JSON holds
 * none, so a plan given as JSON must have been made in `dir`.
 */
export async function runDrift(opts: DriftOptions): Promise<DriftReport> {
  checkDir(opts.dir);
  const progress = opts.progress ?? SILENT_PROGRESS;
  if (opts.plan !== undefined) {
    // A saved plan's own copy of the root module, which is what was planned; plan JSON: dir's files.
    const source = await planProviderSource(opts.plan, opts.dir);
    const json = await loadPlan(opts.plan, { dir: opts.dir, ...(opts.terraform !== undefined ? { terraform: opts.terraform } : {}) });
    return driftOfPlan(parsePlanJson(json, DRIFT_READING), { ...opts, progress, json, source });
  }
  const source = readProviderSource(opts.dir);
  const made = await planOfDir(opts.dir, opts.terraform, progress, opts.signal);
  return driftOfPlan(parsePlanJson(made.json, DRIFT_READING), {
    ...opts,
    progress,
    json: made.json,
    source,
    comparesWithCode: made.normal,
    plannedHere: true,
    incomplete: made.incomplete,
  });
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
