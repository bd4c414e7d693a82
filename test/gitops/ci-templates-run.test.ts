// The CI templates run as written on fresh runners (ci-runner.ts: bash, a new HOME per job, the
// emulator, no Docker), with the install step pointed at this build: review, apply of the
// reviewed plan, drift, on GitHub Actions and on GitLab. No merged change goes unseen: an apply
// that leaves the account short of the merged code fails naming what is left, drift reports a
// change whose apply never ran, an apply that did not succeed fails the run, and GitLab applies
// only a plan reviewed at the merged head. And the ban budget holds on runners that
// keep nothing but what the template caches: six drift runs with a wrong password, each on a
// fresh machine, and four different wrong passwords on one machine, leave the emulator unbanned.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ProxyAccountClient } from '../../src/sdk';
import { startEmulator, type RunningEmulator } from '../helpers/emulator';
import { requireTerraform } from '../e2e/helpers/terraform';
import { freshRunner, installs, packThisBuild, ROOT, writeShims, type Service } from './ci-runner';
import { startFakeForge, type FakeForge } from './fake-forge';
import { runGithubJob } from './github-runner';
import { runGitlabJob } from './gitlab-runner';

jest.setTimeout(600_000);

const PARENT = { username: 'ci-parent', password: 'ci-parent-password' };
const GH = 'examples/ci/github-actions';
/** The closed-and-merged pull request's event, as apply.yml reads it. */
const MERGED = { pull_request: { number: 5, merged: true, merge_commit_sha: '5e1f0c0a9d7b2e3f4a5b6c7d8e9f0a1b2c3d4e5f' } };

const MAIN_TF = `terraform {
  required_providers {
    proxyaccount = {
      source  = "proxyaccount/proxyaccount"
      version = "~> 0.1"
    }
  }
  backend "http" {}
}

resource "proxyaccount_authorized_ip" "office" {
  ip    = "203.0.113.10"
  label = "office"
}
`;

/** The same code plus one IP: what main holds when a merge's change never reached the account. */
const MAIN_TF_WITH_LAB = `${MAIN_TF}
resource "proxyaccount_authorized_ip" "lab" {
  ip    = "203.0.113.11"
  label = "lab"
}
`;

/** A checked-out repository whose infra/ holds `files`. */
function repository(name: string, files: Record<string, string>): string {
  const dir = path.join(base, name);
  for (const [file, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, 'infra', file)), { recursive: true });
    fs.writeFileSync(path.join(dir, 'infra', file), text);
  }
  return dir;
}

/** A zip of a directory's files, as GitLab serves a job's artifacts. */
function zipOf(dir: string): Promise<Buffer> {
  const yazl = require('yazl') as { ZipFile: new () => { addBuffer(b: Buffer, name: string): void; end(): void; outputStream: NodeJS.ReadableStream } };
  const zip = new yazl.ZipFile();
  const walk = (d: string): string[] =>
    fs.readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(d, e.name)) : [path.join(d, e.name)]));
  for (const f of walk(dir)) zip.addBuffer(fs.readFileSync(f), path.relative(dir, f));
  zip.end();
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    zip.outputStream.on('data', (c: Buffer) => chunks.push(c));
    zip.outputStream.on('end', () => resolve(Buffer.concat(chunks)));
    zip.outputStream.on('error', reject);
  });
}

let base: string;
let em: RunningEmulator;
let forge: FakeForge;
let override: Record<string, string>;
/** The API's request log since the last call of `take`. */
let apiLines: string[] = [];
let stopListening: () => void;

/** A service (caches, artifacts, secrets) shared by the runs of one scenario. */
function service(name: string, secrets: Record<string, string>): Service {
  const dir = path.join(base, name);
  const s: Service = {
    caches: path.join(dir, 'caches'),
    artifacts: path.join(dir, 'artifacts'),
    installLog: path.join(dir, 'installs.jsonl'),
    shims: path.join(dir, 'shims'),
    repository: path.join(base, 'repository'),
    secrets,
    runnerEnv: { PROXYACCOUNT_CA_CERT_FILE: em.caFile, CHECKPOINT_DISABLE: '1' },
  };
  fs.mkdirSync(s.caches, { recursive: true });
  fs.mkdirSync(s.artifacts, { recursive: true });
  writeShims(s.shims, s.installLog);
  return s;
}

function githubSecrets(password: string, state: string): Record<string, string> {
  return {
    PROXYACCOUNT_BASE_URL: em.url,
    PROXYACCOUNT_USERNAME: PARENT.username,
    PROXYACCOUNT_PASSWORD: password,
    TF_HTTP_ADDRESS: `${forge.url}/state/${state}`,
    TF_HTTP_USERNAME: 'state-user',
    TF_HTTP_PASSWORD: 'state-password',
  };
}

function take(): string[] {
  const lines = apiLines.filter((l) => /^[A-Z]+ \/api\//.test(l));
  apiLines = [];
  return lines;
}

/** The API still answers the right password: the address is not banned. */
async function expectNotBanned(): Promise<void> {
  const client = new ProxyAccountClient({ baseUrl: em.url, auth: PARENT, dispatcher: em.dispatcher, maxRetries: 0, authFailureCache: false });
  await expect(client.ips.list()).resolves.toBeDefined();
  await client.close();
  take();
}

beforeAll(async () => {
  requireTerraform();
  for (const tool of ['curl', 'sha256sum', 'tar', 'unzip']) {
    // The templates' install step uses them as a hosted runner has them; fail clearly, never skip.
    if (spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0) throw new Error(`${tool} is needed on PATH to run the CI templates`);
  }
  if (!fs.existsSync(path.join(ROOT, 'dist', 'provider', 'terraform-provider-proxyaccount'))) throw new Error('run `npm run build` first');
  base = fs.mkdtempSync(path.join(os.tmpdir(), 'proxyaccount-ci-run-'));
  em = await startEmulator({ accounts: { accounts: [{ ...PARENT, plan: 'plan50' }] } });
  stopListening = em.onStderrLine((l) => apiLines.push(l));
  forge = await startFakeForge();
  const tarball = packThisBuild(path.join(base, 'pack'));
  override = {
    PROXYACCOUNT_TARBALL: `file://${tarball}`,
    PROXYACCOUNT_TARBALL_SHA256: createHash('sha256').update(fs.readFileSync(tarball)).digest('hex'),
  };
  repository('repository', { 'main.tf': MAIN_TF });
});

afterAll(async () => {
  stopListening?.();
  await em?.stop();
  await forge?.close();
  if (base !== undefined) fs.rmSync(base, { recursive: true, force: true });
});

describe('GitHub Actions templates on fresh runners', () => {
  let gh: Service;
  beforeAll(() => {
    gh = service('github', githubSecrets(PARENT.password, 'github'));
  });

  it('pull request: plans, reviews, keeps the plan; the install step never saw a secret', async () => {
    const r = await runGithubJob({ file: `${GH}/pull-request.yml`, job: 'review', service: gh, base, override });
    expect({ ok: r.ok, log: r.ok ? '' : r.log }).toEqual({ ok: true, log: '' });
    expect(fs.readFileSync(path.join(gh.artifacts, 'proxyaccount-plan', 'review.md'), 'utf8')).toContain('<!-- proxyaccount-review -->');
    expect(fs.existsSync(path.join(gh.artifacts, 'proxyaccount-plan', 'plan.tfplan'))).toBe(true);
    // A plan only: nothing in the remote state yet, nothing created.
    expect(forge.states.get('/state/github')).toBeUndefined();
    const seen = installs(gh);
    expect(seen).toHaveLength(1);
    for (const name of ['PROXYACCOUNT_PASSWORD', 'PROXYACCOUNT_USERNAME', 'PROXYACCOUNT_BASE_URL', 'TF_HTTP_PASSWORD'])
      expect(seen[0]!.env).not.toContain(name);
  });

  it('merge: applies the reviewed plan on another fresh runner, into the remote state', async () => {
    const r = await runGithubJob({ file: `${GH}/apply.yml`, job: 'apply', service: gh, base, override, event: MERGED });
    expect({ ok: r.ok, log: r.ok ? '' : r.log }).toEqual({ ok: true, log: '' });
    // The saved plan is applied as it is: no new plan is shown, and it is the reviewed one; the
    // plan of the merged code after it is empty.
    expect(r.log).not.toMatch(/Plan: \d+ to add/);
    expect(r.log).toMatch(/Apply complete! Resources: 1 added/);
    expect(r.log).toMatch(/The account matches the merged code\./);
    expect(JSON.parse(forge.states.get('/state/github') ?? '{}').resources).toHaveLength(1);
    const client = new ProxyAccountClient({ baseUrl: em.url, auth: PARENT, dispatcher: em.dispatcher, authFailureCache: false });
    expect(await client.ips.list()).toContain('203.0.113.10');
    await client.close();
  });

  it('nightly: the drift job finds no drift on a third fresh runner', async () => {
    const r = await runGithubJob({ file: `${GH}/drift.yml`, job: 'drift', service: gh, base, override });
    expect({ ok: r.ok, log: r.ok ? '' : r.log }).toEqual({ ok: true, log: '' });
    expect(r.log).toMatch(/-- ran \(0\): Changes the code makes that the account does not have yet/);
    expect(r.log).toMatch(/-- skipped: Open or update the drift issue/);
  });

  it('merged code the reviewed plan does not cover: the apply fails after applying, naming what is left', async () => {
    // The pull request reviewed main as it was (nothing to change); main now also holds the lab
    // IP, from a merge whose apply never ran.
    const review = await runGithubJob({ file: `${GH}/pull-request.yml`, job: 'review', service: gh, base, override });
    expect({ ok: review.ok, log: review.ok ? '' : review.log }).toEqual({ ok: true, log: '' });
    const withLab = { ...gh, repository: repository('repository-lab', { 'main.tf': MAIN_TF_WITH_LAB }) };
    const r = await runGithubJob({ file: `${GH}/apply.yml`, job: 'apply', service: withLab, base, override, event: MERGED });
    expect(r.ok).toBe(false);
    expect(r.log).toMatch(/Apply complete! Resources: 0 added/);
    expect(r.log).toMatch(
      /::error::After the apply the account still differs from the merged code; terraform would still change: proxyaccount_authorized_ip\.lab\./,
    );
    const client = new ProxyAccountClient({ baseUrl: em.url, auth: PARENT, dispatcher: em.dispatcher, authFailureCache: false });
    expect(await client.ips.list()).not.toContain('203.0.113.11');
    await client.close();
  });

  it('nightly: a merged change whose apply never ran is reported as drift, with what is pending', async () => {
    const withLab = { ...gh, repository: path.join(base, 'repository-lab') };
    const r = await runGithubJob({ file: `${GH}/drift.yml`, job: 'drift', service: withLab, base, override });
    expect({ ok: r.ok, log: r.ok ? '' : r.log }).toEqual({ ok: true, log: '' });
    expect(r.log).toMatch(/-- skipped \(talks to GitHub\): Open or update the drift issue/);
    expect(fs.readFileSync(path.join(r.workspace, 'pending.md'), 'utf8')).toContain('203.0.113.11');
  });

  it('an apply that did not succeed (here cancelled) fails the run; a successful one does not', async () => {
    const notApplied = (event: typeof MERGED, apply: string) =>
      runGithubJob({ file: `${GH}/apply.yml`, job: 'not-applied', service: gh, base, override, event, needs: { apply } });
    const cancelled = await notApplied(MERGED, 'cancelled');
    expect(cancelled.ok).toBe(false);
    expect(cancelled.log).toMatch(/::error::The apply of this merge ended 'cancelled': its change is not in the account\./);
    const applied = await notApplied(MERGED, 'success');
    expect({ ok: applied.ok, log: applied.log }).toEqual({ ok: true, log: '-- job skipped: not-applied\n' });
    // A pull request closed without merging: nothing was to be applied.
    const closed = { pull_request: { ...MERGED.pull_request, merged: false } };
    const unmerged = await notApplied(closed, 'skipped');
    expect(unmerged.ok).toBe(true);
  });

  it('six drift runs with a wrong password, each on a fresh runner with only the cache, send one request and leave the address unbanned', async () => {
    const wrong = service('github-wrong', githubSecrets('rotated-wrong-password', 'github'));
    take();
    const results = [];
    for (let i = 0; i < 6; i++) results.push(await runGithubJob({ file: `${GH}/drift.yml`, job: 'drift', service: wrong, base, override }));
    const lines = take();
    for (const r of results) {
      expect(r.ok).toBe(false);
      expect(r.log).toMatch(/-- cache saved as /);
      expect(r.log).not.toContain('rotated-wrong-password');
    }
    expect(results[0]!.log).toMatch(/so 3 more would ban it/);
    for (const r of results.slice(1)) expect(r.log.replace(/\s+/g, ' ')).toMatch(/rejected these same credentials with 401 in an earlier run/);
    expect(lines.filter((l) => / 401 /.test(l))).toHaveLength(1);
    expect(lines.filter((l) => / 429 /.test(l))).toHaveLength(0);
    await expectNotBanned();
  });

  it('four different wrong passwords on one machine: two reach the API, the address stays unbanned', async () => {
    const runner = freshRunner(base);
    const results = [];
    take();
    for (const password of ['wrong-1-aaaa', 'wrong-2-bbbb', 'wrong-3-cccc', 'wrong-4-dddd']) {
      const s = service(`github-four-${password}`, githubSecrets(password, 'github'));
      // One machine: the same HOME and workspace (and so the same memory) for all four.
      results.push(await runGithubJob({ file: `${GH}/drift.yml`, job: 'drift', service: s, base, override, runner }));
    }
    const lines = take();
    for (const r of results) expect(r.ok).toBe(false);
    expect(lines.filter((l) => / 401 /.test(l))).toHaveLength(2);
    expect(results[3]!.log.replace(/\s+/g, ' ')).toMatch(/rejected 2 authentications from this machine/);
    await expectNotBanned();
  });
});

describe('the GitLab template on fresh runners', () => {
  /** The merge request's head, which the review plans, and the commit its merge made on main. */
  const HEAD_SHA = '1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b';
  const MERGE_SHA = '9f8e7d6c5b4a39281706f5e4d3c2b1a098765432';
  const API = '/api/v4/projects/7';
  let gl: Service;
  let predefined: Record<string, string>;
  beforeAll(async () => {
    await em.control.reset();
    take();
    gl = service('gitlab', {
      PROXYACCOUNT_BASE_URL: em.url,
      PROXYACCOUNT_USERNAME: PARENT.username,
      PROXYACCOUNT_PASSWORD: PARENT.password,
      GITLAB_TOKEN: 'glpat-test',
    });
    // A plan file committed to the repository: apply must never use it.
    gl = { ...gl, repository: repository('repository-gitlab', { 'main.tf': MAIN_TF, 'plan.tfplan': 'not the reviewed plan' }) };
    predefined = {
      CI_API_V4_URL: `${forge.url}/api/v4`,
      CI_PROJECT_ID: '7',
      CI_JOB_TOKEN: 'job-token',
      CI_REGISTRY_PASSWORD: 'job-token',
      CI_DEPENDENCY_PROXY_PASSWORD: 'job-token',
      CI_REPOSITORY_URL: 'https://gitlab-ci-token:job-token@gitlab.example/group/project.git',
      CI_MERGE_REQUEST_IID: '3',
      CI_COMMIT_SHA: HEAD_SHA,
    };
    forge.answer('GET', `${API}/repository/commits/${MERGE_SHA}/merge_requests`, 200, JSON.stringify([{ iid: 3, state: 'merged' }]));
  });

  /** The merged merge request, as the API shows it, and the review's artifacts as the artifact API serves them. */
  async function mergedAt(sha: string): Promise<void> {
    forge.answer('GET', `${API}/merge_requests/3`, 200, JSON.stringify({ iid: 3, state: 'merged', sha }));
    forge.answer('GET', `${API}/jobs/artifacts/refs%2Fmerge-requests%2F3%2Fhead/download?job=review`, 200, await zipOf(path.join(gl.artifacts, 'review')));
  }

  it('review on the merge request: plans, reviews, posts the note, keeps the plan and its commit; the install saw no secret', async () => {
    const r = await runGitlabJob({ job: 'review', service: gl, base, predefined, override });
    expect({ ok: r.ok, log: r.ok ? '' : r.log }).toEqual({ ok: true, log: '' });
    expect(forge.calls).toContain('POST /api/v4/projects/7/merge_requests/3/notes');
    expect(fs.existsSync(path.join(gl.artifacts, 'review', 'infra', 'plan.tfplan'))).toBe(true);
    expect(fs.readFileSync(path.join(gl.artifacts, 'review', 'infra', 'reviewed-commit'), 'utf8').trim()).toBe(HEAD_SHA);
    const seen = installs(gl);
    expect(seen).toHaveLength(1);
    for (const name of [
      'PROXYACCOUNT_PASSWORD',
      'GITLAB_TOKEN',
      'CI_JOB_TOKEN',
      'TF_HTTP_PASSWORD',
      'CI_REGISTRY_PASSWORD',
      'CI_DEPENDENCY_PROXY_PASSWORD',
      'CI_REPOSITORY_URL',
    ])
      expect(seen[0]!.env).not.toContain(name);
  });

  it('apply on main refuses a plan reviewed at an older commit than the merged head, and applies nothing', async () => {
    const newer = 'ffffffffffffffffffffffffffffffffffffffff';
    await mergedAt(newer);
    const r = await runGitlabJob({ job: 'apply', service: gl, base, predefined: { ...predefined, CI_COMMIT_SHA: MERGE_SHA }, override });
    expect(r.ok).toBe(false);
    expect(r.log.replace(/\s+/g, ' ')).toContain(`Not applied: the last successful review of !3 is of ${HEAD_SHA}, but !3 was merged at ${newer}`);
    expect(r.log).not.toMatch(/Apply complete!/);
    expect(forge.states.get('/api/v4/projects/7/terraform/state/proxyaccount')).toBeUndefined();
  });

  it('apply on main: the plan reviewed at the merged head, downloaded (never the committed file), into GitLab-managed state; then drift finds none', async () => {
    await mergedAt(HEAD_SHA);
    const calls = forge.calls.length;
    const r = await runGitlabJob({ job: 'apply', service: gl, base, predefined: { ...predefined, CI_COMMIT_SHA: MERGE_SHA }, override });
    expect({ ok: r.ok, log: r.ok ? '' : r.log }).toEqual({ ok: true, log: '' });
    expect(forge.calls.slice(calls)).toContain('GET /api/v4/projects/7/jobs/artifacts/refs%2Fmerge-requests%2F3%2Fhead/download');
    expect(r.log).toMatch(/Apply complete! Resources: 1 added/);
    expect(r.log).toMatch(/The account matches the merged code\./);
    expect(forge.states.get('/api/v4/projects/7/terraform/state/proxyaccount')).toBeDefined();
    const d = await runGitlabJob({ job: 'drift', service: gl, base, predefined, override });
    expect({ ok: d.ok, log: d.ok ? '' : d.log }).toEqual({ ok: true, log: '' });
    expect(forge.calls).not.toContain('POST /api/v4/projects/7/issues');
  });

  it('drift with a wrong password on fresh runners: the cache is saved on failure, one request in all', async () => {
    const wrong = service('gitlab-wrong', { ...gl.secrets, PROXYACCOUNT_PASSWORD: 'gitlab-wrong-password' });
    take();
    const results = [];
    for (let i = 0; i < 3; i++) results.push(await runGitlabJob({ job: 'drift', service: wrong, base, predefined, override }));
    const lines = take();
    for (const r of results) expect(r.ok).toBe(false);
    expect(lines.filter((l) => / 401 /.test(l))).toHaveLength(1);
    await expectNotBanned();
  });
});
