// The CI templates under examples/ci cannot rot: every file parses as YAML, has the jobs it
// promises, and every `proxyaccount` command it runs exists with the flags it passes (checked
// against the CLI's own help; test/e2e/gitops.test.ts runs the same commands against the emulator).
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parse } from 'yaml';

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
    const wf = parse(fs.readFileSync(path.join(ROOT, file), 'utf8')) as {
      env?: Record<string, string>;
      jobs: Record<string, { env?: Record<string, string>; steps: Array<{ name?: string; env?: Record<string, string>; run?: string }> }>;
    };
    const secretIn = (env: Record<string, string> | undefined): boolean => Object.values(env ?? {}).some((v) => /secrets\./.test(String(v)));
    expect(secretIn(wf.env)).toBe(false);
    for (const job of Object.values(wf.jobs)) {
      expect(secretIn(job.env)).toBe(false);
      const install = job.steps.find((s) => s.run?.includes('npm install'));
      expect(install).toBeDefined();
      expect(secretIn(install?.env)).toBe(false);
    }
  });

  it('GitHub: the failed-authentication memory is restored, and saved even when the job failed', () => {
    for (const file of TEMPLATES.slice(0, 3)) {
      const wf = parse(fs.readFileSync(path.join(ROOT, file), 'utf8')) as { jobs: Record<string, { steps: Array<{ uses?: string; if?: string }> }> };
      for (const job of Object.values(wf.jobs)) {
        expect(job.steps.some((s) => s.uses?.startsWith('actions/cache/restore@'))).toBe(true);
        expect(job.steps.find((s) => s.uses?.startsWith('actions/cache/save@'))?.if).toBe('always()');
      }
    }
  });

  it('GitLab: the memory is cached with when: always, and the install runs without the secrets', () => {
    const gl = parse(fs.readFileSync(path.join(ROOT, TEMPLATES[3]!), 'utf8')) as {
      default: { cache: { when: string; paths: string[] }; before_script: string[] };
    };
    expect(gl.default.cache.when).toBe('always');
    expect(gl.default.cache.paths).toContain('.proxyaccount-auth/');
    const install = gl.default.before_script.find((l) => l.includes('npm install'));
    for (const secret of ['PROXYACCOUNT_PASSWORD', 'PROXYACCOUNT_TOKEN', 'GITLAB_TOKEN', 'CI_JOB_TOKEN', 'TF_HTTP_PASSWORD'])
      expect(install).toContain(`-u ${secret}`);
  });

  it('applies the reviewed plan artifact, never a new plan', () => {
    const apply = fs.readFileSync(path.join(ROOT, TEMPLATES[1]!), 'utf8');
    expect(apply).toMatch(/actions\/download-artifact@v4/);
    expect(apply).toMatch(/terraform apply -input=false plan\.tfplan/);
    expect(apply).not.toMatch(/terraform plan/);
    const gl = parse(fs.readFileSync(path.join(ROOT, TEMPLATES[3]!), 'utf8')) as { apply: { script: string[] }; review: { artifacts: { paths: string[] } } };
    expect(gl.apply.script.join('\n')).not.toMatch(/terraform plan/);
    expect(gl.review.artifacts.paths).toContain('infra/plan.tfplan');
  });
});
