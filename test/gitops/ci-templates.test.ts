// The CI templates under examples/ci cannot rot: every file parses as YAML, has the jobs it
// promises, and every `proxyaccount` command it runs exists with the flags it passes (checked
// against the CLI's own help; test/e2e/gitops.test.ts runs the same commands against the emulator).
// And they keep their promises where a full run cannot show it: the pull request's code planned
// with credentials only where someone chose to let it (an environment's, never a fork's), no apply
// a newer run can cancel, one Terraform version, a pinned install without credentials, bodies cut
// to the forge's limit, and only the exit codes that mean something passing (their shell steps
// run here with stand-in commands).
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parse } from 'yaml';
import type { Step } from './github-runner';

const ROOT = path.resolve(__dirname, '..', '..');
const CLI = path.join(ROOT, 'bin', 'proxyaccount.js');
const TEMPLATES = [
  'examples/ci/github-actions/pull-request.yml',
  'examples/ci/github-actions/apply.yml',
  'examples/ci/github-actions/drift.yml',
  'examples/ci/gitlab/.gitlab-ci.yml',
];

/** Every string anywhere in a parsed YAML document. */
function strings(v: unknown): string[] {
  if (typeof v === 'string') return [v];
  if (Array.isArray(v)) return v.flatMap(strings);
  if (typeof v === 'object' && v !== null) return Object.values(v).flatMap(strings);
  return [];
}

/** The `proxyaccount SUBCOMMAND [SUB] --flags` invocations in a template's scripts. */
function invocations(doc: unknown): string[][] {
  const out: string[][] = [];
  for (const s of strings(doc)) {
    for (const m of s.matchAll(/proxyaccount ([a-z]+(?: [a-z]+)?)((?: --?[a-z-]+(?: [^\s-][^\s]*)?)*)/g)) {
      const words = m[1]!.split(' ');
      const flags = [...m[2]!.matchAll(/--[a-z-]+/g)].map((f) => f[0]);
      out.push([...words, ...flags]);
    }
  }
  return out;
}

const helpCache = new Map<string, string>();
function help(command: string[]): string {
  const key = command.join(' ');
  if (!helpCache.has(key)) helpCache.set(key, execFileSync(process.execPath, [CLI, ...command, '--help'], { encoding: 'utf8' }));
  return helpCache.get(key)!;
}

describe.each(TEMPLATES)('%s', (file) => {
  const doc: unknown = parse(fs.readFileSync(path.join(ROOT, file), 'utf8'));

  it('parses and runs proxyaccount commands that exist with the flags it passes', () => {
    const calls = invocations(doc);
    expect(calls.length).toBeGreaterThan(0);
    for (const call of calls) {
      const words = call.filter((w) => !w.startsWith('--'));
      const command = words[0] === 'provider' ? words.slice(0, 2) : words.slice(0, 1);
      const text = help(command);
      for (const flag of call.filter((w) => w.startsWith('--')))
        expect({ call: call.join(' '), flag, known: text.includes(flag) }).toEqual({ call: call.join(' '), flag, known: true });
    }
  });

  it('installs the provider as the README says and uses review or drift', () => {
    const text = strings(doc).join('\n');
    expect(text).toMatch(/proxyaccount provider install --dir \S+ --cli-config \S+/);
    expect(text).toMatch(/proxyaccount (review|drift)|terraform apply/);
  });
});

describe('the three jobs', () => {
  it('GitHub Actions: review with a sticky comment, apply on merge, scheduled drift that opens an issue', () => {
    const pr = parse(fs.readFileSync(path.join(ROOT, TEMPLATES[0]!), 'utf8')) as { on: Record<string, unknown> };
    const drift = parse(fs.readFileSync(path.join(ROOT, TEMPLATES[2]!), 'utf8')) as { on: Record<string, unknown> };
    expect(Object.keys(pr.on)).toContain('pull_request');
    expect(strings(pr).join('\n')).toContain('<!-- proxyaccount-review -->');
    expect(Object.keys(drift.on)).toContain('schedule');
    expect(strings(drift).join('\n')).toMatch(/issues\.create/);
  });

  it('GitLab: review, apply and drift jobs', () => {
    const gl = parse(fs.readFileSync(path.join(ROOT, TEMPLATES[3]!), 'utf8')) as Record<string, unknown>;
    expect(Object.keys(gl)).toEqual(expect.arrayContaining(['review', 'apply', 'drift']));
  });

  it('the review comment marker the workflow looks for is the one review writes', () => {
    const { REVIEW_MARKER } = require('../../src/gitops/review-render') as typeof import('../../src/gitops/review-render');
    expect(REVIEW_MARKER).toBe('<!-- proxyaccount-review -->');
  });
});

describe('what a template may not do', () => {
  it.each(TEMPLATES)('%s: no unpinned npx, and the pinned tarball is checked against its SHA-256 before install', (file) => {
    const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
    expect(text).not.toMatch(/npx\s+(--yes\s+)?proxyaccount/);
    expect(text).toMatch(/PROXYACCOUNT_TARBALL: https:\/\/\S+\/v\d+\.\d+\.\d+\/proxyaccount-\d+\.\d+\.\d+\.tgz/);
    expect(text).toMatch(/sha256sum -c -/);
    expect(text).toMatch(/PROXYACCOUNT_AUTH_FAILURE_CACHE: /);
  });

  it.each(TEMPLATES.slice(0, 3))('%s: secrets only in the steps that use them, never workflow- or job-wide', (file) => {
    const wf = github(file);
    const secretIn = (env: Record<string, unknown> | undefined): boolean => Object.values(env ?? {}).some((v) => /secrets\./.test(String(v)));
    expect(secretIn(wf.env)).toBe(false);
    for (const job of Object.values(wf.jobs)) {
      expect(secretIn(job.env)).toBe(false);
      if (!callsTheApi(job)) continue;
      const install = job.steps.find((s) => s.run?.includes('npm ci'));
      expect(install).toBeDefined();
      expect(secretIn(install?.env)).toBe(false);
    }
  });

  it('GitHub: the failed-authentication memory is restored, and saved even when the job failed', () => {
    for (const file of TEMPLATES.slice(0, 3)) {
      for (const job of Object.values(github(file).jobs).filter(callsTheApi)) {
        expect(job.steps.some((s) => s.uses?.startsWith('actions/cache/restore@'))).toBe(true);
        expect(job.steps.find((s) => s.uses?.startsWith('actions/cache/save@'))?.if).toBe('always()');
      }
    }
  });

  it('GitLab: the memory is cached with when: always, and the install runs without the secrets or the job token', () => {
    const gl = gitlab();
    expect(gl.default.cache.when).toBe('always');
    expect(gl.default.cache.paths).toContain('.proxyaccount-auth/');
    const install = gl.default.before_script.find((l) => l.includes('npm ci'));
    // The job token is also the registry and dependency-proxy password, and inside the clone URL.
    for (const secret of [
      'PROXYACCOUNT_PASSWORD',
      'PROXYACCOUNT_TOKEN',
      'PROXYACCOUNT_PLAN_KEY',
      'GITLAB_TOKEN',
      'CI_JOB_TOKEN',
      'TF_HTTP_PASSWORD',
      'CI_REGISTRY_PASSWORD',
      'CI_DEPENDENCY_PROXY_PASSWORD',
      'CI_DEPLOY_PASSWORD',
      'CI_REPOSITORY_URL',
    ])
      expect(install).toContain(`-u ${secret}`);
  });

  it('applies the reviewed plan artifact, never a new plan; the only plan after it is a check, read by proxyaccount review', () => {
    const apply = github(TEMPLATES[1]!).jobs.apply!;
    expect(apply.steps.some((s) => s.uses?.startsWith('actions/download-artifact@v4'))).toBe(true);
    const runs = apply.steps.map((s) => s.run ?? '');
    const applyAt = runs.findIndex((r) => /terraform apply -input=false (-lock-timeout=\S+ )?plan\.tfplan/.test(r));
    expect(applyAt).toBeGreaterThan(-1);
    expect(onlyAppliesThePlan(runs.join('\n'))).toBe(true);
    for (const [i, r] of runs.entries())
      if (/terraform plan/.test(r)) expect({ i, afterApply: i > applyAt, check: isCheck(r) }).toEqual({ i, afterApply: true, check: true });
    const gl = gitlab();
    const script = gl.apply.script.join('\n');
    expect(onlyAppliesThePlan(script)).toBe(true);
    expect(script.indexOf('terraform plan')).toBeGreaterThan(script.indexOf('terraform apply'));
    expect(isCheck(script.slice(script.indexOf('terraform plan')))).toBe(true);
    // Kept only sealed, and unsealed just before the apply.
    expect(gl.review.artifacts.paths).toContain('infra/plan.tfplan.sealed');
    expect(gl.review.artifacts.paths).not.toContain('infra/plan.tfplan');
    expect(script.indexOf('proxyaccount plan-file unseal plan.tfplan.sealed --out plan.tfplan')).toBeGreaterThan(-1);
    expect(script.indexOf('proxyaccount plan-file unseal')).toBeLessThan(script.indexOf('terraform apply'));
    const keep = github(TEMPLATES[0]!).jobs.review!.steps.find((s) => s.uses?.startsWith('actions/upload-artifact@'));
    expect(String(keep?.with?.path).trim().split('\n')).toEqual(['infra/plan.tfplan.sealed', 'infra/review.md']);
    const unseal = runs.findIndex((r) => r.includes('proxyaccount plan-file unseal plan.tfplan.sealed --out plan.tfplan'));
    expect(unseal).toBeGreaterThan(-1);
    expect(unseal).toBeLessThan(applyAt);
  });
});

/** Every `terraform apply` applies plan.tfplan, and no plan is written over it. */
function onlyAppliesThePlan(script: string): boolean {
  const applies = [...script.matchAll(/terraform apply[^\n]*/g)].map((m) => m[0]);
  return applies.length > 0 && applies.every((a) => / plan\.tfplan$/.test(a)) && !/terraform plan[^\n]*-out=plan\.tfplan/.test(script);
}

/**
 * A check after the apply: its plan is saved and read by proxyaccount review, which counts
 * resource changes only (never -detailed-exitcode, whose exit 2 an output of live data causes).
 */
function isCheck(script: string): boolean {
  const out = /terraform plan[^\n]*-out=(\S+)/.exec(script)?.[1];
  return out !== undefined && out !== 'plan.tfplan' && script.includes(`proxyaccount review ${out}`) && !script.includes('-detailed-exitcode');
}

type GithubStep = Step;

interface GithubJob {
  readonly if?: string;
  readonly environment?: string | { name: string };
  readonly needs?: string | string[];
  readonly env?: Record<string, unknown>;
  readonly concurrency?: string | { group: string; queue?: string; 'cancel-in-progress'?: unknown };
  readonly steps: GithubStep[];
}

interface GithubWorkflow {
  readonly on: { readonly pull_request?: { readonly branches?: string[] } } & Record<string, unknown>;
  readonly env?: Record<string, unknown>;
  readonly concurrency?: unknown;
  readonly jobs: Record<string, GithubJob>;
}

interface GitlabPipeline {
  readonly workflow?: { auto_cancel?: { on_new_commit?: string } };
  readonly default: { cache: { when: string; paths: string[] }; before_script: string[] };
  readonly review: {
    script: string[];
    after_script?: string[];
    artifacts: { paths: string[] };
    environment?: unknown;
    rules?: Array<{ if?: string; when?: string }>;
  };
  readonly apply: { script: string[]; dependencies?: string[]; resource_group?: string };
  readonly drift: { script: string[]; artifacts: { paths: string[] } };
}

function github(file: string): GithubWorkflow {
  return parse(fs.readFileSync(path.join(ROOT, file), 'utf8')) as GithubWorkflow;
}

function gitlab(): GitlabPipeline {
  return parse(fs.readFileSync(path.join(ROOT, TEMPLATES[3]!), 'utf8')) as GitlabPipeline;
}

/** A job that runs terraform or the CLI (so installs it and talks to the API or the state). */
function callsTheApi(job: GithubJob): boolean {
  return job.steps.some((s) => /\b(terraform|proxyaccount) /.test(s.run ?? ''));
}

function step(file: string, job: string, name: string): GithubStep {
  const found = github(file).jobs[job]?.steps.find((s) => s.name === name);
  if (found === undefined) throw new Error(`${file} has no step "${name}" in job ${job}`);
  return found;
}

/**
 * Runs a template's shell script as the runner would (bash -eo pipefail) with stand-ins for
 * `proxyaccount` (exits with $STUB_DRIFT or $STUB_REVIEW, writing its --out file: a copy of
 * $STUB_DRIFT_REPORT or $STUB_REVIEW_REPORT when set, else one line; and its --json-out file),
 * `terraform` (exits with $STUB_TERRAFORM, else 0) and `curl` (records its arguments and the files
 * it would send, `name@file`); returns the exit code, its output, what curl was asked, which
 * stand-ins ran (with their arguments), what the script wrote to GITHUB_OUTPUT and the files left
 * in its working directory.
 */
function runWithStubs(
  script: string,
  env: Record<string, string>,
): { code: number; output: string; curl: string; ran: string; outputs: string; files: string[] } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'proxyaccount-ci-step-'));
  try {
    const bin = path.join(dir, 'bin');
    fs.mkdirSync(bin);
    fs.mkdirSync(path.join(dir, 'infra'));
    const stub = (name: string, body: string): void => fs.writeFileSync(path.join(bin, name), `#!/bin/sh\n${body}\n`, { mode: 0o755 });
    stub(
      'proxyaccount',
      `cmd=$1; out=; json=; echo "proxyaccount $*" >> "${path.join(dir, 'ran.log')}"
while [ $# -gt 0 ]; do if [ "$1" = --out ]; then out=$2; fi; if [ "$1" = --json-out ]; then json=$2; fi; shift; done
case $cmd in drift) report=$STUB_DRIFT_REPORT ;; review) report=$STUB_REVIEW_REPORT ;; esac
if [ -n "$out" ]; then if [ -n "$report" ]; then cp "$report" "$out"; else echo "stub $cmd report" > "$out"; fi; fi
if [ -n "$json" ]; then echo '{"stub": true}' > "$json"; fi
case $cmd in drift) exit "\${STUB_DRIFT:-0}" ;; review) exit "\${STUB_REVIEW:-0}" ;; plan-file) exit "\${STUB_SEAL:-0}" ;; esac`,
    );
    // git as it is, unless a test gives the tree a commit has.
    stub(
      'git',
      `if [ -n "\${STUB_GIT_TREE:-}" ]; then echo "$STUB_GIT_TREE"; else exec ${JSON.stringify(execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim())} "$@"; fi`,
    );
    // With STUB_PLAN_FILES, `-out=FILE` makes an empty FILE, as the script's later lines expect.
    stub(
      'terraform',
      `echo "terraform $1" >> "${path.join(dir, 'ran.log')}"\nif [ -n "\${STUB_PLAN_FILES:-}" ]; then for a in "$@"; do case "$a" in -out=*) : > "\${a#-out=}" ;; esac; done; fi\nexit "\${STUB_TERRAFORM:-0}"`,
    );
    const curlLog = path.join(dir, 'curl.log');
    stub('curl', `echo "$*" >> "${curlLog}"\nfor a in "$@"; do case "$a" in *@*) f=\${a#*@}; if [ -f "$f" ]; then cat "$f" >> "${curlLog}"; fi ;; esac; done`);
    const r = spawnSync('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', script], {
      cwd: dir,
      encoding: 'utf8',
      maxBuffer: 16 * 1024 * 1024,
      env: { PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}`, GITHUB_OUTPUT: path.join(dir, 'output'), ...env },
    });
    const read = (f: string): string => (fs.existsSync(path.join(dir, f)) ? fs.readFileSync(path.join(dir, f), 'utf8') : '');
    const files = fs.readdirSync(dir).filter((f) => fs.statSync(path.join(dir, f)).isFile() && !['ran.log', 'curl.log', 'output'].includes(f));
    return { code: r.status ?? 1, output: r.stdout + r.stderr, curl: read('curl.log'), ran: read('ran.log'), outputs: read('output'), files: files.sort() };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

describe('no merged change is skipped unseen', () => {
  it('GitHub: applies wait in a queue that cancels none; the group is at the job, never the workflow', () => {
    const wf = github(TEMPLATES[1]!);
    expect(wf.concurrency).toBeUndefined();
    expect(wf.jobs.apply!.concurrency).toEqual({ group: 'proxyaccount-apply', queue: 'max' });
    // Any other group in the templates queues as well (one pending run per group would cancel),
    // but the review's, whose older runs are meant to be cancelled (below).
    for (const file of TEMPLATES.slice(0, 3)) {
      expect(github(file).concurrency).toBeUndefined();
      for (const [name, job] of Object.entries(github(file).jobs))
        if (job.concurrency !== undefined && !(file === TEMPLATES[0] && name === 'review'))
          expect({ file, name, queue: typeof job.concurrency === 'object' && job.concurrency.queue }).toEqual({ file, name, queue: 'max' });
    }
  });

  it('GitHub: a push cancels the review of the commit before it, so an older plan is never posted over a newer one (finding: an older run approved last overwrote the newer review)', () => {
    const review = github(TEMPLATES[0]!).jobs.review!;
    // One group per pull request: a push to another pull request cancels nothing here.
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a GitHub Actions expression, not a JavaScript template
    const group = 'proxyaccount-review-${{ github.event.pull_request.number }}';
    expect(review.concurrency).toEqual({ group, 'cancel-in-progress': true });
    // The job that plans is the one that posts: no other job of the workflow writes the comment.
    for (const [name, job] of Object.entries(github(TEMPLATES[0]!).jobs))
      if (name !== 'review') expect({ name, comments: job.steps.some((s) => s.uses?.startsWith('actions/github-script@')) }).toEqual({ name, comments: false });
  });

  it('GitHub: an apply that did not succeed, cancelled included, has a job that fails the run', () => {
    const notApplied = github(TEMPLATES[1]!).jobs['not-applied'];
    expect(notApplied).toBeDefined();
    expect(notApplied!.needs).toBe('apply');
    expect(notApplied!.if).toMatch(/^always\(\) && .*needs\.apply\.result != 'success'/);
  });

  it('GitLab: a newer pipeline never cancels an apply waiting for the resource group', () => {
    const gl = gitlab();
    expect(gl.workflow?.auto_cancel?.on_new_commit).toBe('none');
    expect(gl.apply.resource_group).toBe('proxyaccount');
  });

  it('GitLab: apply never uses a plan file of the repository or of an earlier job, and checks the reviewed commit', () => {
    const gl = gitlab();
    const script = gl.apply.script.join('\n');
    expect(gl.apply.dependencies).toEqual([]);
    // No test of whether a plan file is already there: it would be the repository's.
    expect(script).not.toMatch(/\[ (! )?-[ef] [^\]]*plan\.tfplan/);
    expect(script.indexOf('rm -rf infra/plan.tfplan')).toBeGreaterThan(-1);
    expect(script.indexOf('rm -rf infra/plan.tfplan')).toBeLessThan(script.indexOf('download?job=review'));
    expect(script).toContain('$api/merge_requests/$mr"');
    expect(script.indexOf('"$reviewed" = "$head"')).toBeLessThan(script.indexOf('terraform apply'));
    expect(gl.review.artifacts.paths).toContain('infra/reviewed-commit');
  });

  it('GitLab: apply looks for the review on every ref a merge request pipeline runs on, and checks the merged code is the code planned', () => {
    const gl = gitlab();
    const script = gl.apply.script.join('\n');
    expect(script).toMatch(/for ref in head merge train; do/);
    expect(script).toContain('refs%2Fmerge-requests%2F$mr%2F$ref/download?job=review');
    // The tree of the commit planned, kept by the review, against the tree of the merged commit.
    expect(gl.review.script.join('\n')).toContain('git rev-parse "HEAD^{tree}" > reviewed-tree');
    expect(gl.review.artifacts.paths).toContain('infra/reviewed-tree');
    expect(script.indexOf('tree=$(git rev-parse "HEAD^{tree}")')).toBeGreaterThan(-1);
    expect(script.indexOf('reviewed-tree')).toBeLessThan(script.indexOf('terraform apply'));
  });

  it('GitHub: only pull requests into the default branch are reviewed and applied', () => {
    // One list in both, so a branch name left unchanged shows at once as a pull request without a review.
    for (const file of TEMPLATES.slice(0, 2)) expect({ file, branches: github(file).on.pull_request?.branches }).toEqual({ file, branches: ['main'] });
  });

  it('GitHub drift: the reports are kept, and the drift issue filed for drift and for an incomplete check, even when a later step failed', () => {
    const steps = github(TEMPLATES[2]!).jobs.drift!.steps;
    const keep = steps.find((s) => s.uses?.startsWith('actions/upload-artifact@'));
    expect(keep?.if).toBe('always()');
    expect(String(keep?.with?.path).trim().split('\n')).toEqual(['drift.md', 'drift.json', 'review.md']);
    expect(steps.find((s) => s.name === 'Open or update the drift issue')?.if).toBe(
      "always() && (steps.drift.outputs.code == '2' || steps.drift.outputs.code == '3')",
    );
  });
});

describe('one Terraform version', () => {
  it('every GitHub workflow pins the same TERRAFORM_VERSION and sets up exactly that version', () => {
    const versions = TEMPLATES.slice(0, 3).map((file) => String(github(file).env?.TERRAFORM_VERSION));
    expect(versions[0]).toMatch(/^\d+\.\d+\.\d+$/);
    expect(versions).toEqual([versions[0], versions[0], versions[0]]);
    for (const file of TEMPLATES.slice(0, 3)) {
      for (const job of Object.values(github(file).jobs)) {
        for (const s of job.steps.filter((x) => x.uses?.startsWith('hashicorp/setup-terraform@'))) {
          // biome-ignore lint/suspicious/noTemplateCurlyInString: a GitHub Actions expression, not a JavaScript template
          expect({ file, version: s.with?.terraform_version }).toEqual({ file, version: '${{ env.TERRAFORM_VERSION }}' });
        }
      }
    }
  });
});

describe('a pinned install that sees no credential', () => {
  it('GitHub: every checkout leaves no token behind', () => {
    for (const file of TEMPLATES.slice(0, 3)) {
      for (const job of Object.values(github(file).jobs)) {
        for (const s of job.steps.filter((x) => x.uses?.startsWith('actions/checkout@')))
          expect({ file, persist: s.with?.['persist-credentials'] }).toEqual({ file, persist: false });
      }
    }
  });

  it.each(TEMPLATES)('%s: installs the unpacked release with npm ci (its shrinkwrap), no install scripts, never npm install', (file) => {
    // Comments aside: they say why npm install is not used.
    const text = fs
      .readFileSync(path.join(ROOT, file), 'utf8')
      .split('\n')
      .filter((l) => !l.trim().startsWith('#'))
      .join('\n');
    expect(text).not.toMatch(/npm install/);
    expect(text).toMatch(/tar xzf "\$\w+\/\.?proxyaccount\.tgz" -C "\$\w+\/\.?proxyaccount" --strip-components=1/);
    expect(text).toMatch(/npm ci --prefix "\$\w+\/\.?proxyaccount" --omit=dev --ignore-scripts/);
  });
});

describe('only the exit codes that mean something pass', () => {
  // 1: an error; 127: not found; 134: aborted; 137: killed. None may read as "nothing found".
  const FAILURES = [1, 127, 134, 137];
  const ATTENTION = 'What needs attention before the pending changes are applied';

  it.each([0, 2])('GitHub drift: proxyaccount drift exiting %i passes and is kept as the step output', (code) => {
    const r = runWithStubs(step(TEMPLATES[2]!, 'drift', 'Drift').run!, { STUB_DRIFT: String(code) });
    expect({ code: r.code, outputs: r.outputs }).toEqual({ code: 0, outputs: `code=${code}\n` });
  });

  it('GitHub drift: exit 3 (an incomplete check) fails the step, printing the report, and is kept for the drift issue step', () => {
    const r = runWithStubs(step(TEMPLATES[2]!, 'drift', 'Drift').run!, { STUB_DRIFT: '3' });
    expect({ code: r.code, outputs: r.outputs }).toEqual({ code: 1, outputs: 'code=3\n' });
    expect(r.output).toContain('stub drift report');
    expect(r.output).toContain(
      '::error::proxyaccount drift could not check everything (exit 3): it found no drift in what it checked, but this is not a clean run.',
    );
  });

  it.each(FAILURES)('GitHub drift: proxyaccount drift exiting %i fails the job', (code) => {
    const r = runWithStubs(step(TEMPLATES[2]!, 'drift', 'Drift').run!, { STUB_DRIFT: String(code) });
    expect({ code: r.code, output: r.output.trim() }).toEqual({ code: 1, output: `::error::proxyaccount drift failed (exit ${code}): see its output above.` });
  });

  it('GitHub drift: drift plans the code itself; no other step plans it unless drift found drift', () => {
    const steps = github(TEMPLATES[2]!).jobs.drift!.steps;
    const planning = steps.filter((s) => /terraform plan/.test(s.run ?? ''));
    expect(planning.map((s) => [s.name, s.if])).toEqual([[ATTENTION, "steps.drift.outputs.code == '2'"]]);
  });

  it.each([[0, 0], [2, 0], ...FAILURES.map((c) => [c, 1])])(
    'GitHub drift: the review of the plan for attention exiting %i ends the step with %i',
    (code, expected) => {
      const r = runWithStubs(step(TEMPLATES[2]!, 'drift', ATTENTION).run!, { STUB_REVIEW: String(code) });
      expect(r.code).toBe(expected);
    },
  );

  it.each([[0, 0], [2, 0], [3, 0], ...FAILURES.map((c) => [c, 1])])(
    'GitHub pull request: proxyaccount review exiting %i ends the step with %i',
    (code, expected) => {
      const r = runWithStubs(step(TEMPLATES[0]!, 'review', 'Review').run!, { STUB_REVIEW: String(code) });
      expect(r.code).toBe(expected);
    },
  );

  it.each([0, 2, 3])(
    "GitHub and GitLab drift (exit %i): drift's report is written as JSON too, the file its cut lists name, and the artifact keeps it (finding: pointer to a report nobody keeps)",
    (code) => {
      const gh = runWithStubs(step(TEMPLATES[2]!, 'drift', 'Drift').run!, { STUB_DRIFT: String(code) });
      const keep = github(TEMPLATES[2]!).jobs.drift!.steps.find((s) => s.uses?.startsWith('actions/upload-artifact@'));
      const kept = String(keep?.with?.path).trim().split('\n');
      const gl = runWithStubs(gitlab().drift.script.join('\n'), { STUB_DRIFT: String(code), STUB_REVIEW: '0' });
      for (const [r, paths] of [
        [gh, kept],
        [gl, gitlab().drift.artifacts.paths],
      ] as const) {
        const json = /proxyaccount drift .*--json-out (\S+)/.exec(r.ran)?.[1];
        expect({ json, written: json !== undefined && r.files.includes(json), kept: json !== undefined && paths.includes(json) }).toEqual({
          json: 'drift.json',
          written: true,
          kept: true,
        });
      }
    },
  );

  it.each(FAILURES)('GitLab drift: proxyaccount drift exiting %i fails the job before any plan or issue', (code) => {
    const r = runWithStubs(gitlab().drift.script.join('\n'), { STUB_DRIFT: String(code) });
    expect(r.code).not.toBe(0);
    expect(r.output).toContain(`proxyaccount drift failed (exit ${code})`);
    expect({ curl: r.curl, terraform: r.ran.includes('terraform') }).toEqual({ curl: '', terraform: false });
  });

  it.each([0, 3])('GitLab drift: with drift exiting %i nothing else plans the code', (code) => {
    const r = runWithStubs(gitlab().drift.script.join('\n'), { STUB_DRIFT: String(code) });
    expect(r.ran).toMatch(/^proxyaccount drift --dir infra --max-chars \d+ --out drift\.md --json-out drift\.json\n$/);
  });

  it('GitLab drift: exit 3 files the drift issue, titled and opened as an incomplete check with the report below, then fails the job', () => {
    const r = runWithStubs(gitlab().drift.script.join('\n'), { STUB_DRIFT: '3', CI_JOB_URL: 'https://gl/job/3' });
    expect(r.code).toBe(1);
    expect(r.curl).toContain('title=proxyaccount: the drift check was incomplete');
    expect(r.curl.slice(r.curl.indexOf('\n') + 1)).toBe(
      '**The drift check was incomplete** ([job](https://gl/job/3)): no drift was found in what could be checked, but "Not checked" below says what could not be, and why. The job failed: this is not a clean report.\n\nstub drift report\n',
    );
    expect(r.output).toContain('stub drift report');
    expect(r.output).toContain('proxyaccount drift could not check everything (exit 3)');
  });

  it.each([
    ['the review of the plan', { STUB_REVIEW: '1' }, 'proxyaccount review of the plan of the code failed (exit 1)'],
    ['terraform plan', { STUB_TERRAFORM: '1' }, 'terraform plan of the code failed (exit 1)'],
  ])('GitLab drift: drift found and then %s failing: the drift issue is still opened, saying what is not known, and the job fails', (_, env, message) => {
    const r = runWithStubs(gitlab().drift.script.join('\n'), { STUB_DRIFT: '2', ...env });
    expect(r.code).not.toBe(0);
    expect(r.output).toContain(message);
    expect(r.curl).toContain('/issues');
    expect(r.curl).toContain('title=proxyaccount: the account differs from the code');
    expect(r.curl).toContain('stub drift report');
    expect(r.curl).toContain(`## Before the pending changes are applied\n\nNot known: ${message} in this pipeline`);
  });

  it.each([
    [0, 0, false],
    [2, 0, true],
    [2, 2, true],
  ])('GitLab drift: drift %i and the review %i pass, opening an issue: %s', (drift, review, issue) => {
    const r = runWithStubs(gitlab().drift.script.join('\n'), { STUB_DRIFT: String(drift), STUB_REVIEW: String(review) });
    expect({ code: r.code, issue: r.curl.includes('/issues') }).toEqual({ code: 0, issue });
  });
});

describe('who the review job trusts', () => {
  it.each(TEMPLATES.slice(0, 3))(
    "%s: never pull_request_target or workflow_run, which would run code of a pull request with the base repository's secrets",
    (file) => {
      const on = github(file).on;
      expect(Object.keys(on)).not.toContain('pull_request_target');
      expect(Object.keys(on)).not.toContain('workflow_run');
    },
  );

  it('GitHub: every job that reads a secret names the environment that holds it, the review its own', () => {
    const expected: Record<string, string> = {
      'pull-request.yml/review': 'proxyaccount-review',
      'apply.yml/apply': 'proxyaccount-apply',
      'drift.yml/drift': 'proxyaccount-drift',
    };
    const found: Record<string, unknown> = {};
    for (const file of TEMPLATES.slice(0, 3)) {
      for (const [name, job] of Object.entries(github(file).jobs))
        if (strings(job).some((v) => /secrets\./.test(v))) found[`${path.basename(file)}/${name}`] = job.environment;
    }
    expect(found).toEqual(expected);
  });

  it('GitHub: pull requests from forks are never planned, and are told so', () => {
    const jobs = github(TEMPLATES[0]!).jobs;
    expect(jobs.review?.if).toBe('github.event.pull_request.head.repo.full_name == github.repository');
    expect(jobs.fork?.if).toBe('github.event.pull_request.head.repo.full_name != github.repository');
    const r = runWithStubs(jobs.fork!.steps[0]!.run!, {});
    expect(r.code).toBe(1);
    expect(r.output).toMatch(/^::error::Pull requests from forks are not reviewed here: their runs get no credentials/);
  });

  it('GitLab: the review runs in the proxyaccount-review environment, started by hand, in merge request pipelines only', () => {
    const review = gitlab().review;
    expect(review.environment).toEqual({ name: 'proxyaccount-review', action: 'prepare' });
    expect(review.rules).toEqual([{ if: '$CI_PIPELINE_SOURCE == "merge_request_event"', when: 'manual' }]);
  });

  it.each([
    ['no credential at all', {}],
    ['GITLAB_TOKEN only', { GITLAB_TOKEN: 'glpat' }],
    ['account credentials without GITLAB_TOKEN', { PROXYACCOUNT_USERNAME: 'u', PROXYACCOUNT_PASSWORD: 'p' }],
  ])('GitLab: a review job with %s stops before terraform or the CLI runs, saying why', (_, env) => {
    const r = runWithStubs(gitlab().review.script.join('\n'), env);
    expect(r.code).toBe(1);
    expect(r.output).toContain('Not reviewed: this job got no account credentials, no GITLAB_TOKEN or no PROXYACCOUNT_PLAN_KEY.');
    expect({ ran: r.ran, curl: r.curl }).toEqual({ ran: '', curl: '' });
  });

  it('GitLab: a review job with a PROXYACCOUNT_PLAN_KEY the seal would refuse stops before anything runs, saying why', () => {
    const r = runWithStubs(gitlab().review.script.join('\n'), {
      PROXYACCOUNT_PASSWORD: 'p',
      GITLAB_TOKEN: 'glpat',
      PROXYACCOUNT_PLAN_KEY: 'only-twenty-chars-xx',
    });
    expect(r.code).toBe(1);
    expect(r.output).toContain('Not reviewed: PROXYACCOUNT_PLAN_KEY has 20 characters; it needs at least 32');
    expect({ ran: r.ran, curl: r.curl }).toEqual({ ran: '', curl: '' });
  });

  it('GitLab: a seal that fails ends the review job before its note (finding: `seal && rm` let the job go on and post)', () => {
    const env = {
      PROXYACCOUNT_PASSWORD: 'p',
      GITLAB_TOKEN: 'glpat',
      PROXYACCOUNT_PLAN_KEY: 'k'.repeat(44),
      CI_COMMIT_SHA: 'abc123',
      CI_API_V4_URL: 'https://gl/api/v4',
      CI_PROJECT_ID: '7',
      CI_MERGE_REQUEST_IID: '8',
      STUB_GIT_TREE: 'f00d',
      STUB_PLAN_FILES: '1',
    };
    const script = gitlab().review.script.join('\n');
    const failed = runWithStubs(script, { ...env, STUB_SEAL: '1' });
    expect(failed.code).not.toBe(0);
    expect(failed.ran).toContain('proxyaccount plan-file seal plan.tfplan --out plan.tfplan.sealed');
    expect(failed.curl).not.toContain('/notes');
    // The same job with a seal that works posts its note.
    const posted = runWithStubs(script, env);
    expect({ code: posted.code, output: posted.code === 0 ? '' : posted.output }).toEqual({ code: 0, output: '' });
    expect(posted.curl).toContain('https://gl/api/v4/projects/7/merge_requests/8/notes');
  });

  it('GitLab: a review that failed says so on the merge request, when it holds the token to', () => {
    const after = gitlab().review.after_script?.join('\n') ?? '';
    const sha = {
      CI_MERGE_REQUEST_SOURCE_BRANCH_SHA: 'abc123',
      CI_MERGE_REQUEST_IID: '8',
      CI_API_V4_URL: 'https://gl/api/v4',
      CI_PROJECT_ID: '7',
      CI_JOB_URL: 'https://gl/job/1',
    };
    const failed = runWithStubs(after, { ...sha, CI_JOB_STATUS: 'failed', GITLAB_TOKEN: 'glpat' });
    expect(failed.code).toBe(0);
    expect(failed.curl).toContain('https://gl/api/v4/projects/7/merge_requests/8/notes');
    expect(failed.curl).toContain(
      '<!-- proxyaccount-review -->\n**The review failed for abc123** ([job](https://gl/job/1)): the review notes above are of earlier commits and out of date.',
    );
    expect(runWithStubs(after, { ...sha, CI_JOB_STATUS: 'success', GITLAB_TOKEN: 'glpat' }).curl).toBe('');
    expect(runWithStubs(after, { ...sha, CI_JOB_STATUS: 'failed' }).curl).toBe('');
  });
});

describe("GitLab: the drift issue holds drift's report, then only what the review says needs attention", () => {
  const REVIEW = path.join(ROOT, 'test', 'gitops', 'goldens', 'update.review.md');

  function withReports(files: Record<string, string>, run: (paths: Record<string, string>) => void): void {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'proxyaccount-ci-report-'));
    try {
      const paths: Record<string, string> = {};
      for (const [name, text] of Object.entries(files)) {
        paths[name] = path.join(dir, name);
        fs.writeFileSync(paths[name]!, text);
      }
      run(paths);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }

  it("the review's attention items under their own heading, never its list of changes (drift's report has them)", () => {
    const review = fs.readFileSync(REVIEW, 'utf8');
    const attention = review.slice(review.indexOf('### ⚠️ Needs attention'), review.indexOf('\n\n###', review.indexOf('### ⚠️ Needs attention') + 1) + 1);
    expect(attention).toMatch(/^### ⚠️ Needs attention\n\n- \*\*parent_access_opened\*\* [^\n]+\n$/);
    expect(review).toContain('### (parent) — 1 change');
    withReports({ 'drift.md': '## proxyaccount drift report\n\n- the pending IP\n' }, (p) => {
      const r = runWithStubs(gitlab().drift.script.join('\n'), {
        STUB_DRIFT: '2',
        STUB_REVIEW: '2',
        STUB_DRIFT_REPORT: p['drift.md']!,
        STUB_REVIEW_REPORT: REVIEW,
      });
      expect(r.code).toBe(0);
      expect(r.curl.slice(r.curl.indexOf('\n') + 1)).toBe(
        '## proxyaccount drift report\n\n- the pending IP\n' +
          '\n## Before the pending changes are applied\n\n' +
          '_What `proxyaccount review` of a plan of the code, made after the drift report above, says needs attention. The changes themselves are listed once, in the report\'s "Not applied"._\n\n' +
          attention,
      );
    });
  });

  it('a review of pending changes none of which needs attention says so', () => {
    withReports(
      {
        'review.md':
          '<!-- proxyaccount-review -->\n## proxyaccount plan review\n\nNo change needs particular attention.\n\n### (parent) — 1 change\n\n- +IP 192.0.2.1\n',
      },
      (p) => {
        const r = runWithStubs(gitlab().drift.script.join('\n'), { STUB_DRIFT: '2', STUB_REVIEW: '2', STUB_REVIEW_REPORT: p['review.md']! });
        expect(r.code).toBe(0);
        expect(r.curl).toMatch(/_\n\nNo pending change needs particular attention\.\n$/);
        expect(r.curl).not.toContain('+IP 192.0.2.1');
      },
    );
  });

  it("drift's --max-chars leaves room: a report of that size and a review of its own limit, all attention items, are filed whole below 1,000,000 characters", () => {
    const maxChars = Number(/proxyaccount drift [^\n]*--max-chars (\d+)/.exec(gitlab().drift.script.join('\n'))?.[1]);
    expect(maxChars).toBeGreaterThanOrEqual(65_536);
    const items = ['<!-- proxyaccount-review -->', '## proxyaccount plan review', '', '**Plan:** 9999 to add.', '', '### ⚠️ Needs attention', ''];
    for (let i = 0; items.join('\n').length < 65_536 - 200; i++)
      items.push(`- **parent_access_opened** \`proxyaccount_authorized_ip.ip${i}\`: IP 10.0.${i >> 8}.${i & 255} may use the parent account's proxies`);
    const review = `${items.join('\n')}\n`;
    const line = '- (parent): IP `198.51.100.1` (label `added-by-hand`)\n';
    const drift = `## proxyaccount drift report\n\n${line.repeat(maxChars / line.length)}`.slice(0, maxChars - 1).concat('\n');
    withReports({ 'drift.md': drift, 'review.md': review }, (p) => {
      const r = runWithStubs(gitlab().drift.script.join('\n'), {
        STUB_DRIFT: '3',
        STUB_DRIFT_REPORT: p['drift.md']!,
        CI_JOB_URL: 'https://gl/job/9',
      });
      const sent = r.curl.slice(r.curl.indexOf('\n') + 1);
      expect({ size: sent.length <= 1_000_000, drift: sent.includes(drift) }).toEqual({ size: true, drift: true });
      const withAttention = runWithStubs(gitlab().drift.script.join('\n'), {
        STUB_DRIFT: '2',
        STUB_REVIEW: '2',
        STUB_DRIFT_REPORT: p['drift.md']!,
        STUB_REVIEW_REPORT: p['review.md']!,
        CI_JOB_URL: 'https://gl/job/9',
      });
      const body = withAttention.curl.slice(withAttention.curl.indexOf('\n') + 1);
      // Small values compared, never the million characters themselves.
      expect({ code: withAttention.code, size: body.length <= 1_000_000, drift: body.startsWith(drift), tail: body.slice(-60) }).toEqual({
        code: 0,
        size: true,
        drift: true,
        tail: review.slice(-60),
      });
    });
  });

  it('a drift report alone is filed as it is', () => {
    const r = runWithStubs(gitlab().drift.script.join('\n'), { STUB_DRIFT: '2', STUB_REVIEW: '0' });
    expect(r.code).toBe(0);
    expect(r.curl).toContain('description@drift-issue.md');
    expect(r.curl.slice(r.curl.indexOf('\n') + 1)).toBe('stub drift report\n');
  });
});
