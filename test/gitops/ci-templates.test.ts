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
