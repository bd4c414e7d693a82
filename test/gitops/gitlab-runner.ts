// One GitLab CI job of the template, run as a fresh runner would (see ci-runner.ts): the
// repository cloned and CI_COMMIT_SHA checked out when it is a git repository (else its files
// copied), global `variables` (expanded as GitLab expands them), the project's variables (the
// protected ones only when CI_COMMIT_REF_PROTECTED is "true", those scoped to an environment
// only in a job naming it), `default` before_script and cache, the job's script in one bash
// session, then its after_script in another (with CI_JOB_STATUS), the cache restored before and
// saved after (`when: always`: also after a failure), artifacts of earlier jobs present (only
// those of the jobs `dependencies` names, when it names any) and this job's kept. `rules` are not
// read: the test runs the job it names, as if started by hand where it is manual.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parse } from 'yaml';
import { ROOT, baseEnv, bash, copy, freshRunner, type JobResult, type RunnerQuirks, type Service } from './ci-runner';

interface Cache {
  readonly key: string;
  readonly paths: string[];
  readonly when?: string;
}

interface Job {
  readonly script: string[];
  readonly before_script?: string[];
  readonly after_script?: string[];
  readonly environment?: string | { readonly name: string };
  readonly artifacts?: { readonly paths: string[]; readonly when?: string };
  readonly cache?: Cache;
  readonly dependencies?: string[];
}

interface Pipeline {
  readonly variables?: Record<string, string>;
  readonly default?: { readonly before_script?: string[]; readonly cache?: Cache };
  readonly [job: string]: unknown;
}

const FILE = 'examples/ci/gitlab/.gitlab-ci.yml';

/** Options of one job run. */
export interface GitlabRunOptions {
  readonly job: string;
  readonly service: Service;
  readonly base: string;
  /** Predefined variables of the CI service (CI_API_V4_URL, CI_JOB_TOKEN…). */
  readonly predefined: Readonly<Record<string, string>>;
  /** Pipeline `variables` to replace (e.g. the tarball URL pointed at this build). */
  readonly override?: Readonly<Record<string, string>>;
  /** How the fresh runner differs from a default one (e.g. GitLab's docker executor's umask 0000). @default none */
  readonly quirks?: RunnerQuirks;
}

/** Runs one job; returns its outcome. */
export async function runGitlabJob(o: GitlabRunOptions): Promise<JobResult> {
  const doc = parse(fs.readFileSync(path.join(ROOT, FILE), 'utf8')) as Pipeline;
  const job = doc[o.job] as Job | undefined;
  if (job === undefined) throw new Error(`${FILE} has no job ${o.job}`);
  const runner = freshRunner(o.base, o.quirks);
  const dir = runner.workspace;
  checkout(o.service.repository, dir, o.predefined.CI_COMMIT_SHA, o.quirks?.umask);
  const environment = typeof job.environment === 'string' ? job.environment : job.environment?.name;
  const env: Record<string, string> = {
    ...baseEnv(o.service, runner),
    ...o.predefined,
    CI_PROJECT_DIR: dir,
    ...o.service.secrets,
    ...(o.predefined.CI_COMMIT_REF_PROTECTED === 'true' ? o.service.protectedSecrets : {}),
    // A variable scoped to the job's environment wins over one of every environment.
    ...(environment === undefined ? {} : o.service.environments?.[environment]),
  };
  for (const [k, v] of Object.entries(doc.variables ?? {})) env[k] = o.override?.[k] ?? expandVars(String(v), env);

  // Artifacts of earlier jobs of the pipeline, as GitLab passes them to later stages.
  for (const earlier of fs.readdirSync(o.service.artifacts)) {
    if (job.dependencies !== undefined && !job.dependencies.includes(earlier)) continue;
    fs.cpSync(path.join(o.service.artifacts, earlier), dir, { recursive: true });
  }
  const cache = job.cache ?? doc.default?.cache;
  const cacheDir = cache === undefined ? undefined : path.join(o.service.caches, `gitlab-${cache.key}`);
  if (cacheDir !== undefined && fs.existsSync(cacheDir)) fs.cpSync(cacheDir, dir, { recursive: true });

  const lines = [...(job.before_script ?? doc.default?.before_script ?? []), ...job.script];
  const r = await bash(lines.join('\n'), dir, env, o.quirks?.umask);
  const ok = r.code === 0;
  const after =
    job.after_script === undefined
      ? undefined
      : await bash(job.after_script.join('\n'), dir, { ...env, CI_JOB_STATUS: ok ? 'success' : 'failed' }, o.quirks?.umask);

  if (cache !== undefined && cacheDir !== undefined && (ok || cache.when === 'always')) {
    for (const p of cache.paths) if (fs.existsSync(path.join(dir, p))) copy(path.join(dir, p), path.join(cacheDir, p));
  }
  if (job.artifacts !== undefined && (ok || job.artifacts.when === 'always')) {
    for (const p of job.artifacts.paths) if (fs.existsSync(path.join(dir, p))) copy(path.join(dir, p), path.join(o.service.artifacts, o.job, p));
  }
  return { ok, log: r.output + (after?.output ?? ''), workspace: dir };
}

/**
 * The pipeline's commit of a git repository, as GitLab's runner fetches it (under `umask`, as the
 * runner's clone is, when given); else a copy of the files.
 */
function checkout(repository: string, dir: string, sha: string | undefined, umask?: number): void {
  if (!fs.existsSync(path.join(repository, '.git'))) {
    fs.cpSync(repository, dir, { recursive: true });
    return;
  }
  if (sha === undefined) throw new Error(`the test gave no CI_COMMIT_SHA to check out of ${repository}`);
  const git = (args: string[], cwd: string): void => {
    execFileSync('sh', ['-c', `${umask === undefined ? '' : `umask ${umask.toString(8).padStart(4, '0')}; `}exec git "$@"`, 'git', ...args], {
      cwd,
      stdio: 'ignore',
      env: { PATH: process.env.PATH ?? '', GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' },
    });
  };
  git(['clone', '--quiet', '--no-checkout', repository, dir], path.dirname(dir));
  git(['-c', 'advice.detachedHead=false', 'checkout', '--quiet', '--detach', sha], dir);
}

/** `$NAME` and `${NAME}` replaced from `env`, as GitLab expands variables in `variables`. */
function expandVars(text: string, env: Record<string, string>): string {
  return text.replace(/\$\{(\w+)\}|\$(\w+)/g, (_, a: string | undefined, b: string | undefined) => env[(a ?? b)!] ?? '');
}
