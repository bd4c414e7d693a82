// One GitHub Actions job of a template, run as a fresh hosted runner would (see ci-runner.ts):
// workflow, job and step `env`, `${{ }}` expressions the templates use, job and step `if:`
// conditions (with the results and outputs of the jobs it `needs`), step outcomes, job outputs,
// GITHUB_OUTPUT / GITHUB_PATH / GITHUB_ENV, and the actions whose effect matters here (checkout, cache
// restore/save, artifact upload/download). An expression, event field or action it does not know
// fails the run, so a template cannot silently depend on something this test does not model.
// A job's `environment` gives it that environment's secrets besides the repository's; protection
// rules (required reviewers, deployment branches) and concurrency groups are not modelled.
// `runGithubScript` runs one actions/github-script step's script against a stand-in GitHub API
// that records what it was asked and answers as the test says.
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parse } from 'yaml';
import { ROOT, baseEnv, bash, copy, freshRunner, type JobResult, type RunnerQuirks, type Service } from './ci-runner';

/** One step of a GitHub workflow, as the templates write it. */
export interface Step {
  readonly name?: string;
  readonly id?: string;
  readonly if?: string;
  readonly uses?: string;
  readonly run?: string;
  readonly with?: Record<string, unknown>;
  readonly env?: Record<string, unknown>;
  readonly 'working-directory'?: string;
}

interface Workflow {
  readonly env?: Record<string, unknown>;
  readonly jobs: Record<
    string,
    {
      readonly if?: string;
      readonly environment?: string | { readonly name: string };
      readonly env?: Record<string, unknown>;
      readonly outputs?: Record<string, string>;
      readonly steps: Step[];
    }
  >;
}

/** Options of one run. */
export interface GithubRunOptions {
  readonly file: string;
  readonly job: string;
  readonly service: Service;
  readonly base: string;
  /** Workflow-level `env` values to replace (e.g. the tarball URL pointed at this build). */
  readonly override?: Readonly<Record<string, string>>;
  /** Repository variables (`vars.*`). */
  readonly vars?: Readonly<Record<string, string>>;
  /** Reuse this runner (HOME and workspace) instead of a fresh one. */
  readonly runner?: ReturnType<typeof freshRunner>;
  /** How the fresh runner differs from a default one (see `RunnerQuirks`). @default none */
  readonly quirks?: RunnerQuirks;
  /** The event payload (`github.event.*`), e.g. `{ pull_request: { merged: true, … } }`. @default {} */
  readonly event?: Readonly<Record<string, unknown>>;
  /** The result of each job this one `needs` ('success', 'failure', 'cancelled', 'skipped'). @default {} */
  readonly needs?: Readonly<Record<string, string>>;
  /** The outputs of each job this one `needs` (a job that never ran has none). @default {} */
  readonly needsOutputs?: Readonly<Record<string, Readonly<Record<string, string>>>>;
  /**
   * When given, actions/github-script steps run (see `runGithubScript`) and each call they make
   * of GitHub's API is appended here. @default the steps are skipped
   */
  readonly githubCalls?: GithubCall[];
  /** How the stand-in GitHub API answers those steps (see `GithubAnswers`). @default no data */
  readonly githubAnswers?: GithubAnswers;
}

/**
 * How the stand-in API answers: a call of `method` (e.g. `rest.issues.listComments`; a
 * `github.paginate(fn, args)` is asked as fn's method) whose argument has every field of `where`
 * gets `data` (for paginate, the items) from the first answer that fits; any other, no data.
 */
export type GithubAnswers = ReadonlyArray<{ readonly method: string; readonly where?: Readonly<Record<string, unknown>>; readonly data: unknown }>;

/** One call a github-script step made of GitHub's API, e.g. `rest.issues.create` and its argument. */
export interface GithubCall {
  readonly method: string;
  readonly args: Record<string, unknown>;
}

let runId = 1000;

/** Runs one job of a workflow file; returns its outcome. */
export async function runGithubJob(o: GithubRunOptions): Promise<JobResult> {
  const wf = parse(fs.readFileSync(path.join(ROOT, o.file), 'utf8')) as Workflow;
  const job = wf.jobs[o.job];
  if (job === undefined) throw new Error(`${o.file} has no job ${o.job}`);
  const runner = o.runner ?? freshRunner(o.base, o.quirks);
  const ws = runner.workspace;
  const id = String(++runId);
  const outputs = new Map<string, Record<string, string>>();
  const outcomes = new Map<string, string>();
  const env: Record<string, string> = { ...baseEnv(o.service, runner), GITHUB_WORKSPACE: ws, RUNNER_TEMP: runner.temp };
  // An environment's secrets over the repository's, as GitHub gives them to a job naming it.
  const environment = typeof job.environment === 'string' ? job.environment : job.environment?.name;
  const ctx: ExprContext = {
    ws,
    temp: runner.temp,
    id,
    vars: o.vars ?? {},
    secrets: { ...o.service.secrets, ...(environment === undefined ? {} : o.service.environments?.[environment]) },
    outputs,
    outcomes,
    event: o.event ?? {},
    needs: o.needs ?? {},
    needsOutputs: o.needsOutputs ?? {},
    env,
  };
  for (const [k, v] of Object.entries(wf.env ?? {})) env[k] = o.override?.[k] ?? expand(String(v), ctx);
  for (const [k, v] of Object.entries(job.env ?? {})) env[k] = expand(String(v), ctx);
  // A job runs, unless its condition says otherwise, only when every job it needs succeeded.
  const needsFailed = Object.values(ctx.needs).some((r) => r !== 'success');
  if (!shouldRun(job.if, needsFailed, ctx)) return { ok: true, log: `-- job skipped: ${o.job}\n`, workspace: ws };
  const extraPath: string[] = [];
  let failed = false;
  let log = '';
  for (const step of job.steps) {
    const label = step.name ?? step.uses ?? step.run?.split('\n')[0] ?? '?';
    if (!shouldRun(step.if, failed, ctx)) {
      log += `-- skipped: ${label}\n`;
      if (step.id !== undefined) outcomes.set(step.id, 'skipped');
      continue;
    }
    if (step.uses?.startsWith('actions/github-script@') && o.githubCalls !== undefined) {
      const stepEnv: Record<string, string> = { ...env };
      for (const [k, v] of Object.entries(step.env ?? {})) stepEnv[k] = expand(String(v), ctx);
      const r = await runGithubScript(expand(String(step.with?.script ?? ''), ctx), {
        cwd: ws,
        env: stepEnv,
        event: ctx.event,
        runId: id,
        ...(o.githubAnswers ? { answers: o.githubAnswers } : {}),
      });
      o.githubCalls.push(...r.calls);
      if (step.id !== undefined) outputs.set(step.id, r.outputs);
      log += `-- ran github-script (${r.code}): ${label}\n${r.output}`;
      if (step.id !== undefined) outcomes.set(step.id, r.code === 0 ? 'success' : 'failure');
      if (r.code !== 0) failed = true;
      continue;
    }
    if (step.uses !== undefined) {
      const done = useAction(step, o, ctx);
      log += `-- ${done}: ${label}\n`;
      if (step.id !== undefined) outcomes.set(step.id, 'success');
      continue;
    }
    const outFile = path.join(runner.temp, `output-${step.id ?? 'x'}`);
    const pathFile = path.join(runner.temp, 'path');
    const envFile = path.join(runner.temp, `env-${step.id ?? 'x'}`);
    fs.writeFileSync(outFile, '');
    fs.writeFileSync(envFile, '');
    if (!fs.existsSync(pathFile)) fs.writeFileSync(pathFile, '');
    const stepEnv: Record<string, string> = { ...env, GITHUB_OUTPUT: outFile, GITHUB_PATH: pathFile, GITHUB_ENV: envFile };
    for (const [k, v] of Object.entries(step.env ?? {})) stepEnv[k] = expand(String(v), ctx);
    stepEnv.PATH = [...extraPath, env.PATH].join(path.delimiter);
    const cwd = path.join(ws, step['working-directory'] ?? '.');
    const r = await bash(expand(step.run ?? '', ctx), cwd, stepEnv, o.quirks?.umask);
    log += `-- ran (${r.code}): ${label}\n${r.output}`;
    if (step.id !== undefined) outputs.set(step.id, parseOutputs(fs.readFileSync(outFile, 'utf8')));
    if (step.id !== undefined) outcomes.set(step.id, r.code === 0 ? 'success' : 'failure');
    for (const line of fs.readFileSync(pathFile, 'utf8').split('\n')) if (line !== '' && !extraPath.includes(line)) extraPath.unshift(line);
    // GITHUB_ENV: the variables a step sets for the steps after it (a step's own `env` still wins).
    Object.assign(env, parseOutputs(fs.readFileSync(envFile, 'utf8')));
    if (r.code !== 0) failed = true;
  }
  // Job outputs are evaluated at the end of the job, whatever its result.
  const jobOutputs = Object.fromEntries(Object.entries(job.outputs ?? {}).map(([k, v]) => [k, expand(String(v), ctx)]));
  return { ok: !failed, log, workspace: ws, outputs: jobOutputs };
}

interface ExprContext {
  readonly ws: string;
  readonly temp: string;
  readonly id: string;
  readonly vars: Readonly<Record<string, string>>;
  readonly secrets: Readonly<Record<string, string>>;
  readonly outputs: Map<string, Record<string, string>>;
  /** Each step's outcome by id: 'success', 'failure' or 'skipped'; none for a step not reached. */
  readonly outcomes: Map<string, string>;
  readonly event: Readonly<Record<string, unknown>>;
  readonly needs: Readonly<Record<string, string>>;
  readonly needsOutputs: Readonly<Record<string, Readonly<Record<string, string>>>>;
  /** The workflow's and job's `env`, as far as set. */
  readonly env: Readonly<Record<string, string>>;
}

/** The value of one expression the templates use. */
function value(expr: string, c: ExprContext): string {
  const e = expr.trim();
  if (e === 'github.workspace') return c.ws;
  if (e === 'github.run_id') return c.id;
  if (e === 'github.run_attempt') return '1';
  if (e === 'github.token') return 'test-github-token';
  if (e === 'github.repository') return 'owner/repo';
  const secret = /^secrets\.(\w+)$/.exec(e);
  if (secret) return c.secrets[secret[1]!] ?? '';
  const variable = /^vars\.(\w+)$/.exec(e);
  if (variable) return c.vars[variable[1]!] ?? '';
  const output = /^steps\.([\w-]+)\.outputs\.(\w+)$/.exec(e);
  if (output) return c.outputs.get(output[1]!)?.[output[2]!] ?? '';
  const outcome = /^steps\.([\w-]+)\.outcome$/.exec(e);
  if (outcome) return c.outcomes.get(outcome[1]!) ?? '';
  const need = /^needs\.([\w-]+)\.result$/.exec(e);
  if (need) {
    if (c.needs[need[1]!] === undefined) throw new Error(`the test gave no result for the needed job ${need[1]}`);
    return c.needs[need[1]!]!;
  }
  const needOutput = /^needs\.([\w-]+)\.outputs\.(\w+)$/.exec(e);
  if (needOutput) {
    if (c.needs[needOutput[1]!] === undefined) throw new Error(`the test gave no result for the needed job ${needOutput[1]}`);
    return c.needsOutputs[needOutput[1]!]?.[needOutput[2]!] ?? '';
  }
  const envVar = /^env\.(\w+)$/.exec(e);
  if (envVar && c.env[envVar[1]!] !== undefined) return c.env[envVar[1]!]!;
  if (e.startsWith('github.event.')) return eventField(e.slice('github.event.'.length), c.event);
  throw new Error(`the test's runner does not know the expression \${{ ${e} }}`);
}

/** A field of the event payload; one the test did not give fails the run rather than read as ''. */
function eventField(dotted: string, event: Readonly<Record<string, unknown>>): string {
  let v: unknown = event;
  for (const key of dotted.split('.')) {
    if (typeof v !== 'object' || v === null || !(key in v)) throw new Error(`the test gave no github.event.${dotted}`);
    v = (v as Record<string, unknown>)[key];
  }
  return String(v);
}

function expand(text: string, c: ExprContext): string {
  return text.replace(/\$\{\{(.*?)\}\}/g, (_, e: string) => value(e, c));
}

/**
 * An `if:` condition of the forms the templates use: atoms joined by `&&` and `||`, grouped with
 * parentheses, each a status function (`always()`, `success()`, `failure()`, `cancelled()`) or
 * `X == 'v'`, `X != 'v'`, `X == true`, `X == Y` (two values). Without a status function GitHub
 * adds `success()`.
 * Nothing is ever cancelled here.
 */
function shouldRun(cond: string | undefined, failed: boolean, c: ExprContext): boolean {
  if (cond === undefined) return !failed;
  const e = cond.trim();
  const status = /\b(always|success|failure|cancelled)\(\)/.test(e);
  const atom = (t: string): boolean => {
    if (t === 'always()') return true;
    if (t === 'success()') return !failed;
    if (t === 'failure()') return failed;
    if (t === 'cancelled()') return false;
    const m = /^([\w.-]+) (==|!=) (?:'([^']*)'|(true|false)|([a-z][\w.-]*))$/.exec(t);
    if (!m) throw new Error(`the test's runner does not know the condition ${t}`);
    const equal = value(m[1]!, c) === (m[3] ?? m[4] ?? value(m[5]!, c));
    return m[2] === '==' ? equal : !equal;
  };
  const result = evaluate(tokens(e), atom, e);
  return status ? result : !failed && result;
}

/** `(`, `)`, `&&`, `||` and the atoms between them (a status function keeps its `()`). */
function tokens(e: string): string[] {
  const out: string[] = [];
  for (const m of e.matchAll(/\s*(&&|\|\||\(|\)|(?:always|success|failure|cancelled)\(\)|[^()&|]+)/g)) {
    const t = m[1]!.trim();
    if (t !== '') out.push(t);
  }
  return out;
}

/** `||` of `&&` of atoms or parenthesized conditions, as GitHub reads them. */
function evaluate(ts: string[], atom: (t: string) => boolean, source: string): boolean {
  let i = 0;
  const either = (): boolean => {
    let r = both();
    while (ts[i] === '||') {
      i++;
      r = both() || r;
    }
    return r;
  };
  const both = (): boolean => {
    let r = single();
    while (ts[i] === '&&') {
      i++;
      r = single() && r;
    }
    return r;
  };
  const single = (): boolean => {
    const t = ts[i++];
    if (t === '(') {
      const r = either();
      if (ts[i++] !== ')') throw new Error(`the test's runner cannot read the condition ${source}`);
      return r;
    }
    if (t === undefined || t === ')' || t === '&&' || t === '||') throw new Error(`the test's runner cannot read the condition ${source}`);
    return atom(t);
  };
  const r = either();
  if (i !== ts.length) throw new Error(`the test's runner cannot read the condition ${source}`);
  return r;
}

/**
 * Runs an actions/github-script script as the action does (an async function of `require`,
 * `github`, `context` and `core`) in a node process in `cwd`, against a stand-in GitHub API that
 * records each call (a `github.paginate(fn, args)` as fn's method) and answers it with what
 * `answers` gives (default: no data, `{ data: [] }`; `paginate` with `[]`). Returns what
 * `core.setOutput` was given as `outputs`.
 */
export async function runGithubScript(
  script: string,
  o: {
    cwd: string;
    env: Readonly<Record<string, string>>;
    event: Readonly<Record<string, unknown>>;
    runId?: string;
    answers?: GithubAnswers;
  },
): Promise<{ code: number; output: string; calls: GithubCall[]; outputs: Record<string, string> }> {
  const callsFile = path.join(fs.mkdtempSync(path.join(path.dirname(o.cwd), 'github-script-')), 'calls.json');
  const harness = `
const fs = require('node:fs');
const calls = [];
const outputs = {};
const table = JSON.parse(process.env.GITHUB_SCRIPT_ANSWERS);
const answers = (method, args) =>
  table.find((a) => a.method === method && Object.entries(a.where ?? {}).every(([k, v]) => JSON.stringify(args[k]) === JSON.stringify(v)))?.data;
const METHOD = Symbol('method');
const api = (names) => new Proxy(() => {}, {
  get: (_, key) => (key === METHOD ? names.join('.') : api([...names, String(key)])),
  apply: (_, __, args) => {
    const paginated = names.join('.') === 'paginate';
    const method = paginated ? args[0][METHOD] : names.join('.');
    const given = (paginated ? args[1] : args[0]) ?? {};
    calls.push({ method, args: given });
    const data = answers(method, given);
    return Promise.resolve(paginated ? (data ?? []) : { data: data ?? [] });
  },
});
const event = JSON.parse(process.env.GITHUB_SCRIPT_EVENT);
const context = {
  repo: { owner: 'owner', repo: 'repo' },
  serverUrl: 'https://github.com',
  runId: Number(process.env.GITHUB_SCRIPT_RUN_ID),
  payload: event,
  issue: { number: event.pull_request?.number },
};
const core = {
  setOutput: (k, v) => { outputs[k] = String(v); },
  setFailed: (m) => { console.error(m); process.exitCode = 1; },
  info: (m) => console.log(m),
};
const AsyncFunction = (async () => {}).constructor;
new AsyncFunction('require', 'github', 'context', 'core', process.env.GITHUB_SCRIPT)(require, api([]), context, core)
  .catch((e) => { console.error(e); process.exitCode = 1; })
  .finally(() => fs.writeFileSync(process.env.GITHUB_SCRIPT_CALLS, JSON.stringify({ calls, outputs })));
`;
  const env = {
    ...o.env,
    GITHUB_SCRIPT: script,
    GITHUB_SCRIPT_EVENT: JSON.stringify(o.event),
    GITHUB_SCRIPT_RUN_ID: o.runId ?? '1',
    GITHUB_SCRIPT_CALLS: callsFile,
    GITHUB_SCRIPT_ANSWERS: JSON.stringify(o.answers ?? []),
  };
  const r = await new Promise<{ code: number; output: string }>((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', harness], { cwd: o.cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code: code ?? 1, output }));
  });
  const recorded = fs.existsSync(callsFile)
    ? (JSON.parse(fs.readFileSync(callsFile, 'utf8')) as { calls: GithubCall[]; outputs: Record<string, string> })
    : { calls: [], outputs: {} };
  return { ...r, ...recorded };
}

function parseOutputs(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const eq = line.indexOf('=');
    if (eq > 0) out[line.slice(0, eq)] = line.slice(eq + 1);
  }
  return out;
}

/** The effect of one `uses:` step; returns what was done. */
function useAction(step: Step, o: GithubRunOptions, c: ExprContext): string {
  const action = (step.uses ?? '').replace(/@.*$/, '');
  const w = Object.fromEntries(Object.entries(step.with ?? {}).map(([k, v]) => [k, expand(String(v), c)]));
  switch (action) {
    case 'actions/checkout':
      fs.cpSync(o.service.repository, c.ws, { recursive: true });
      return 'checked out';
    case 'actions/setup-node':
    case 'hashicorp/setup-terraform':
      return 'on PATH already';
    case 'actions/github-script':
      return 'skipped (talks to GitHub)';
    case 'actions/cache/restore': {
      // Exact key first, then the newest entry whose key starts with a restore key.
      const keys = fs.readdirSync(o.service.caches);
      const prefixes = String(w['restore-keys'] ?? '')
        .split('\n')
        .filter((p) => p !== '');
      const hit =
        keys.find((k) => k === w.key) ??
        keys
          .filter((k) => prefixes.some((p) => k.startsWith(p)))
          .sort((a, b) => fs.statSync(path.join(o.service.caches, b)).mtimeMs - fs.statSync(path.join(o.service.caches, a)).mtimeMs)[0];
      if (hit === undefined) return 'cache miss';
      copy(path.join(o.service.caches, hit), path.join(c.ws, String(w.path)));
      return `cache restored from ${hit}`;
    }
    case 'actions/cache/save': {
      const from = path.join(c.ws, String(w.path));
      if (!fs.existsSync(from)) return 'nothing to cache';
      copy(from, path.join(o.service.caches, String(w.key)));
      return `cache saved as ${w.key}`;
    }
    case 'actions/upload-artifact': {
      const files = String(w.path)
        .split('\n')
        .filter((p) => p.trim() !== '')
        .map((p) => p.trim());
      // A file that is not there is left out (if-no-files-found: warn or ignore), or fails the step.
      const found = files.filter((f) => fs.existsSync(path.join(c.ws, f)));
      if (found.length < files.length && w['if-no-files-found'] === 'error') throw new Error(`artifact ${w.name}: no file ${files.join(', ')}`);
      if (found.length === 0) return 'no files to upload';
      // v4 stores the files relative to their least common ancestor directory.
      const root = found.map((f) => path.dirname(f)).reduce((a, b) => (a === b ? a : '.'));
      for (const f of found) copy(path.join(c.ws, f), path.join(o.service.artifacts, String(w.name), path.relative(root, f)));
      return 'artifact uploaded';
    }
    case 'actions/download-artifact':
      copy(path.join(o.service.artifacts, String(w.name)), path.join(c.ws, String(w.path)));
      return 'artifact downloaded';
    default:
      throw new Error(`the test's runner does not know the action ${step.uses}`);
  }
}
