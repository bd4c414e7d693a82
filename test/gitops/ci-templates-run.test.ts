// The CI templates run as written on fresh runners (ci-runner.ts: bash, a new HOME per job, the
// emulator, no Docker), with the install step pointed at this build: review, apply of the
// reviewed plan, drift, on GitHub Actions and on GitLab. The credentials are where the templates
// ask for them, never repository-wide: GitHub environments' secrets, GitLab protected variables
// and variables of the review's environment; a review that gets none stops before anything runs.
// A failed review marks the last one out of date. No merged change goes unseen: an apply
// that leaves the account short of the merged code fails naming what is left, drift reports a
// change whose apply never ran (once, with what needs attention before it is applied), a drift
// check that could not run whole fails the run and says why in the drift issue, an apply that did not
// succeed fails the run, and GitLab applies only a plan reviewed at the merged head. And the ban budget holds on runners that
// keep nothing but what the template caches: six drift runs with a wrong password, each on a
// fresh machine, and four different wrong passwords on one machine, leave the emulator unbanned.
// The templates also run on runners' defaults that are hostile to private files: one GitLab job
// under umask 0000 (a project directory everyone can write, as GitLab's docker executor makes
// it), one GitHub job as well, in a workspace and temp directory of another user when the test
// runs as root (a `container:` job runs as root in the runner user's directories).
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { unsealPlan } from '../../src/gitops/plan-seal';
import { ProxyAccountClient } from '../../src/sdk';
import { startEmulator, type RunningEmulator } from '../helpers/emulator';
import { requireTerraform } from '../e2e/helpers/terraform';
import { freshRunner, installs, packThisBuild, ROOT, writeShims, type Service } from './ci-runner';
import { startFakeForge, type FakeForge } from './fake-forge';
import { type GithubCall, runGithubJob } from './github-runner';
import { runGitlabJob } from './gitlab-runner';

jest.setTimeout(600_000);

const PARENT = { username: 'ci-parent', password: 'ci-parent-password' };
/** An account whose plan has no bearer tokens: the API answers 402 to a list of its tokens. */
const TRIAL = { username: 'ci-trial', password: 'ci-trial-password' };
const GH = 'examples/ci/github-actions';
/** The closed-and-merged pull request's event, as apply.yml reads it. */
const MERGED = { pull_request: { number: 5, merged: true, merge_commit_sha: '5e1f0c0a9d7b2e3f4a5b6c7d8e9f0a1b2c3d4e5f' } };
/** The pull request's event as pull-request.yml reads it: its head, a branch of this repository. */
const OPENED = { pull_request: { number: 5, head: { sha: '4d3c2b1a0f9e8d7c6b5a4d3c2b1a0f9e8d7c6b5a', repo: { full_name: 'owner/repo' } } } };
/** The environments whose secrets the GitHub jobs read, and the job that reads each. */
const GITHUB_ENVIRONMENTS = ['proxyaccount-review', 'proxyaccount-apply', 'proxyaccount-drift'];
/** The secret the review seals its kept plan with, and apply unseals it with. */
const PLAN_KEY = 'kO3vX8qLr2TzW6nYb1cFh5jMp9sDg4aE7uQi0t=';
/** A file kept only sealed: not a saved plan (a zip), but one sealed with PLAN_KEY. */
async function expectSealedPlan(file: string): Promise<void> {
  const kept = fs.readFileSync(file);
  expect(kept.subarray(0, 2).toString('latin1')).not.toBe('PK');
  expect((await unsealPlan(kept, PLAN_KEY)).subarray(0, 2).toString('latin1')).toBe('PK');
}
/** GitLab's docker and kubernetes executors: jobs run under umask 0000, the project directory 0777. */
const UMASK_0000 = { umask: 0 } as const;
/** The runner user of a GitHub `container:` job (it runs as root in that user's directories). */
const RUNNER_UID = 1001;

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

/**
 * A service (caches, artifacts, secrets) shared by the runs of one scenario. `secrets` are the
 * repository's (every job gets them); `more` adds environments' secrets and protected variables.
 */
function service(name: string, secrets: Record<string, string>, more: Pick<Service, 'environments' | 'protectedSecrets'> = {}): Service {
  const dir = path.join(base, name);
  const s: Service = {
    caches: path.join(dir, 'caches'),
    artifacts: path.join(dir, 'artifacts'),
    installLog: path.join(dir, 'installs.jsonl'),
    shims: path.join(dir, 'shims'),
    repository: path.join(base, 'repository'),
    secrets,
    ...more,
    runnerEnv: { PROXYACCOUNT_CA_CERT_FILE: em.caFile, CHECKPOINT_DISABLE: '1' },
  };
  fs.mkdirSync(s.caches, { recursive: true });
  fs.mkdirSync(s.artifacts, { recursive: true });
  writeShims(s.shims, s.installLog);
  return s;
}

/**
 * A GitHub service whose credentials are secrets of the templates' environments only, none of the
 * repository: a job gets them only by naming its environment.
 */
function githubService(name: string, password: string, state: string, username = PARENT.username): Service {
  const secrets = {
    PROXYACCOUNT_BASE_URL: em.url,
    PROXYACCOUNT_USERNAME: username,
    PROXYACCOUNT_PASSWORD: password,
    TF_HTTP_ADDRESS: `${forge.url}/state/${state}`,
    TF_HTTP_USERNAME: 'state-user',
    TF_HTTP_PASSWORD: 'state-password',
    PROXYACCOUNT_PLAN_KEY: PLAN_KEY,
  };
  return service(name, {}, { environments: Object.fromEntries(GITHUB_ENVIRONMENTS.map((e) => [e, secrets])) });
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
  em = await startEmulator({
    accounts: {
      accounts: [
        { ...PARENT, plan: 'plan50' },
        { ...TRIAL, plan: 'trial' },
      ],
    },
  });
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
    gh = githubService('github', PARENT.password, 'github');
  });

  it('pull request: plans with the credentials of its environment, reviews, keeps the plan, updates only its own comment; the install step never saw a secret', async () => {
    // The pull request's author wrote the marker into a comment of theirs; the bot's review is the
    // other one. With FAIL_ON_ATTENTION the parent's new IP (it opens the parent) fails only the
    // attention gate: the review job succeeds and keeps its plan, which the merge below applies.
    const calls: GithubCall[] = [];
    const githubAnswers = [
      {
        method: 'rest.issues.listComments',
        data: [
          { id: 101, user: { login: 'pr-author', type: 'User' }, body: 'LGTM <!-- proxyaccount-review -->' },
          { id: 102, user: { login: 'github-actions[bot]', type: 'Bot' }, body: '<!-- proxyaccount-review -->\n## proxyaccount plan review\n(older)' },
        ],
      },
      // The pull request is still at the commit reviewed.
      { method: 'rest.pulls.get', data: { head: { sha: OPENED.pull_request.head.sha } } },
    ];
    const r = await runGithubJob({
      file: `${GH}/pull-request.yml`,
      job: 'review',
      service: gh,
      base,
      override,
      event: OPENED,
      vars: { FAIL_ON_ATTENTION: 'true' },
      githubCalls: calls,
      githubAnswers,
    });
    expect({ ok: r.ok, log: r.ok ? '' : r.log }).toEqual({ ok: true, log: '' });
    expect(r.outputs).toEqual({ code: '3' });
    expect(fs.readFileSync(path.join(gh.artifacts, 'proxyaccount-plan', 'review.md'), 'utf8')).toContain('<!-- proxyaccount-review -->');
    // The plan is kept only sealed: it holds the state's tokens and passwords in clear.
    expect(fs.readdirSync(path.join(gh.artifacts, 'proxyaccount-plan')).sort()).toEqual(['plan.tfplan.sealed', 'review.md']);
    await expectSealedPlan(path.join(gh.artifacts, 'proxyaccount-plan', 'plan.tfplan.sealed'));
    const written = calls.filter((c) => /Comment$/.test(c.method));
    expect(written.map((c) => [c.method, c.args.comment_id])).toEqual([['rest.issues.updateComment', 102]]);
    expect(String(written[0]!.args.body)).toMatch(new RegExp(`^<!-- proxyaccount-review -->\n_The plan of ${OPENED.pull_request.head.sha} \\(\\[run\\]`));
    expect(String(written[0]!.args.body)).not.toMatch(/Out of date|could not be checked/);
    expect(String(written[0]!.args.body)).toContain('parent_access_opened');
    // A plan only: nothing in the remote state yet, nothing created.
    expect(forge.states.get('/state/github')).toBeUndefined();
    const seen = installs(gh);
    expect(seen).toHaveLength(1);
    for (const name of ['PROXYACCOUNT_PASSWORD', 'PROXYACCOUNT_USERNAME', 'PROXYACCOUNT_BASE_URL', 'TF_HTTP_PASSWORD', 'PROXYACCOUNT_PLAN_KEY'])
      expect(seen[0]!.env).not.toContain(name);
    // The attention gate is a check of its own, failing for this commit.
    const gate = await runGithubJob({
      file: `${GH}/pull-request.yml`,
      job: 'attention',
      service: gh,
      base,
      override,
      event: OPENED,
      vars: { FAIL_ON_ATTENTION: 'true' },
      needs: { review: 'success' },
      needsOutputs: { review: r.outputs! },
    });
    expect(gate.ok).toBe(false);
    expect(gate.log).toMatch(/::error::The plan holds changes that need attention/);
  });

  it("pull request whose plan fails: the bot's last review is marked out of date, naming the commit", async () => {
    const calls: GithubCall[] = [];
    const broken = {
      ...gh,
      artifacts: path.join(base, 'github-broken-artifacts'),
      repository: repository('repository-broken', { 'main.tf': `${MAIN_TF}\nresource "proxyaccount_authorized_ip" {\n` }),
    };
    fs.mkdirSync(broken.artifacts, { recursive: true });
    const r = await runGithubJob({
      file: `${GH}/pull-request.yml`,
      job: 'review',
      service: broken,
      base,
      override,
      event: OPENED,
      githubCalls: calls,
      githubAnswers: [
        {
          method: 'rest.issues.listComments',
          data: [
            { id: 101, user: { login: 'pr-author' }, body: '<!-- proxyaccount-review -->\nNo changes.' },
            {
              id: 102,
              user: { login: 'github-actions[bot]' },
              body: '<!-- proxyaccount-review -->\n_The plan of 0ld ([run](u))._\n## proxyaccount plan review\n\nNo changes.\n',
            },
          ],
        },
      ],
    });
    expect(r.ok).toBe(false);
    expect(r.log).toMatch(/-- ran \(1\): Plan/);
    expect(r.log).toMatch(/-- skipped: Post or update the sticky comment/);
    const written = calls.filter((c) => /Comment$/.test(c.method));
    expect(written.map((c) => [c.method, c.args.comment_id])).toEqual([['rest.issues.updateComment', 102]]);
    const body = String(written[0]!.args.body);
    expect(body).toContain(`**The review failed for ${OPENED.pull_request.head.sha}**`);
    expect(body).toContain('this review is out of date; what follows is the review of an earlier commit.');
    expect(body).toContain('_The plan of 0ld ([run](u))._\n## proxyaccount plan review');
    expect(fs.existsSync(path.join(broken.artifacts, 'proxyaccount-plan'))).toBe(false);
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

  it("nightly: the drift job finds no drift on a third fresh runner, with one plan of the code (drift's own), under umask 0000 in another user's workspace", async () => {
    // A workspace everyone can write, and, as root, one of the runner's user as in a `container:`
    // job: the install step keeps the mirror and the CLI configuration out of it.
    const asRoot = process.getuid?.() === 0;
    const quirks = { ...UMASK_0000, ...(asRoot ? { owner: RUNNER_UID } : {}) };
    const r = await runGithubJob({ file: `${GH}/drift.yml`, job: 'drift', service: gh, base, override, quirks });
    expect({ ok: r.ok, log: r.ok ? '' : r.log }).toEqual({ ok: true, log: '' });
    const ws = fs.statSync(r.workspace);
    expect(ws.mode & 0o777).toBe(0o777);
    if (asRoot) expect(ws.uid).toBe(RUNNER_UID);
    expect(r.log).toMatch(/-- skipped: What needs attention before the pending changes are applied/);
    expect(r.log).toMatch(/-- skipped: Open or update the drift issue/);
  });

  it('merged code the reviewed plan does not cover: the apply fails after applying, naming what is left', async () => {
    // The pull request reviewed main as it was (nothing to change); main now also holds the lab
    // IP, from a merge whose apply never ran.
    const review = await runGithubJob({ file: `${GH}/pull-request.yml`, job: 'review', service: gh, base, override, event: OPENED });
    expect({ ok: review.ok, log: review.ok ? '' : review.log }).toEqual({ ok: true, log: '' });
    const withLab = { ...gh, repository: repository('repository-lab', { 'main.tf': MAIN_TF_WITH_LAB }) };
    const r = await runGithubJob({ file: `${GH}/apply.yml`, job: 'apply', service: withLab, base, override, event: MERGED });
    expect(r.ok).toBe(false);
    expect(r.log).toMatch(/Apply complete! Resources: 0 added/);
    expect(r.log).toMatch(
      /::error::After the apply the account still differs from the merged code; terraform would still change: proxyaccount_authorized_ip\.lab \(create\)\./,
    );
    const client = new ProxyAccountClient({ baseUrl: em.url, auth: PARENT, dispatcher: em.dispatcher, authFailureCache: false });
    expect(await client.ips.list()).not.toContain('203.0.113.11');
    await client.close();
    // not-applied: the plan was applied, so a re-run cannot help (the saved plan is stale now).
    expect(r.outputs).toEqual({ applied: 'success', checked: 'failure' });
    const calls: GithubCall[] = [];
    const said = await notAppliedAfterFailure(gh, r.outputs!, calls);
    expect(said.ok).toBe(false);
    expect(said.log).toMatch(/::error::The reviewed plan of this merge was applied, but afterwards the account does not match the merged code/);
    expect(said.log).not.toMatch(/Re-run the failed jobs/);
    expect(String(calls.find((c) => c.method === 'rest.issues.createComment')?.args.body)).toMatch(/was applied[\s\S]*new pull request/);
  });

  it("nightly: a merged change whose apply never ran is reported once, in drift's report, with what needs attention before it is applied; the reports are kept", async () => {
    const withLab = { ...gh, repository: path.join(base, 'repository-lab') };
    const calls: GithubCall[] = [];
    const r = await runGithubJob({ file: `${GH}/drift.yml`, job: 'drift', service: withLab, base, override, githubCalls: calls });
    expect({ ok: r.ok, log: r.ok ? '' : r.log }).toEqual({ ok: true, log: '' });
    const kept = path.join(withLab.artifacts, 'proxyaccount-drift');
    expect(fs.readFileSync(path.join(kept, 'drift.md'), 'utf8')).toMatch(
      /### Not applied: the code differs from the account \(1 change\)\n\n- `proxyaccount_authorized_ip\.lab`: .*203\.0\.113\.11/,
    );
    expect(fs.readFileSync(path.join(kept, 'review.md'), 'utf8')).toContain('parent_access_opened');
    // The whole report as JSON, which a list cut to fit the drift issue points to, is kept with it.
    const json = JSON.parse(fs.readFileSync(path.join(kept, 'drift.json'), 'utf8')) as { pending: Array<{ address: string }> };
    expect(json.pending.map((p) => p.address)).toEqual(['proxyaccount_authorized_ip.lab']);
    const issue = calls.find((c) => c.method === 'rest.issues.create');
    const body = String(issue?.args.body);
    expect(issue?.args.title).toBe('proxyaccount: the account differs from the code');
    // drift's report, then the review's attention items alone: the change is listed once.
    const [report, attention] = body.split('\n## Before the pending changes are applied\n\n');
    expect(report).toBe(fs.readFileSync(path.join(kept, 'drift.md'), 'utf8'));
    expect(attention).toMatch(
      /^_What `proxyaccount review` of a plan of the code[^\n]*_\n\n### ⚠️ Needs attention\n\n- \*\*parent_access_opened\*\* `proxyaccount_authorized_ip\.lab`: IP 203\.0\.113\.11 [^\n]*\n$/,
    );
    expect(body).not.toContain('## proxyaccount plan review');
  });

  it('nightly: drift found and code that cannot be planned: drift reports what it found and what it could not check, the drift issue says what is not known, and the run fails', async () => {
    // Drift: an IP added by hand. The code cannot be planned: a new token whose expiry has passed
    // is refused at plan time. drift falls back to a refresh-only plan and says so; the review's
    // plan fails.
    const client = new ProxyAccountClient({ baseUrl: em.url, auth: PARENT, dispatcher: em.dispatcher, authFailureCache: false });
    await client.ips.add({ ip: '203.0.113.99', label: 'by-hand' });
    const failing = {
      ...gh,
      repository: repository('repository-expired', {
        'main.tf': `${MAIN_TF}\nresource "proxyaccount_bearer_token" "old" {\n  label      = "old"\n  expires_at = "2001-01-01"\n}\n`,
      }),
    };
    const calls: GithubCall[] = [];
    try {
      const r = await runGithubJob({ file: `${GH}/drift.yml`, job: 'drift', service: failing, base, override, githubCalls: calls });
      expect(r.ok).toBe(false);
      expect(r.log).toMatch(/-- ran \(0\): Drift/);
      expect(r.log).toMatch(/-- ran \(1\): What needs attention before the pending changes are applied/);
      expect(r.log).toMatch(/Expiry date not in the future/);
      const drift = fs.readFileSync(path.join(gh.artifacts, 'proxyaccount-drift', 'drift.md'), 'utf8');
      expect(drift).toContain('203.0.113.99');
      expect(drift).toMatch(/### Not checked \(1\)\n\n- the code could not be planned/);
      const body = String(calls.find((c) => c.method === 'rest.issues.create')?.args.body);
      expect(body).toContain('203.0.113.99');
      expect(body).toMatch(/## Before the pending changes are applied\n\nNot known: the review of a plan of the code ended `failure` in this run/);
    } finally {
      await client.ips.delete({ ip: '203.0.113.99' });
      await client.close();
    }
  });

  it('nightly: an account whose tokens cannot be listed (its plan has none): no drift, but the check is incomplete: the drift issue says so and why, and the run fails', async () => {
    const trial = {
      ...githubService('github-trial', TRIAL.password, 'github-trial', TRIAL.username),
      repository: repository('repository-trial', { 'main.tf': VERSIONS_TF }),
    };
    const calls: GithubCall[] = [];
    const r = await runGithubJob({
      file: `${GH}/drift.yml`,
      job: 'drift',
      service: trial,
      base,
      override,
      githubCalls: calls,
      githubAnswers: [{ method: 'rest.issues.listForRepo', data: [{ number: 4 }] }],
    });
    expect(r.ok).toBe(false);
    expect(r.log).toMatch(/-- ran \(1\): Drift/);
    expect(r.log).toContain('::error::proxyaccount drift could not check everything (exit 3)');
    expect(r.log).toMatch(/-- skipped: What needs attention before the pending changes are applied/);
    const update = calls.find((c) => c.method === 'rest.issues.update');
    expect(update?.args).toMatchObject({ issue_number: 4, title: 'proxyaccount: the drift check was incomplete' });
    const body = String(update?.args.body);
    expect(body).toMatch(/^\*\*The drift check was incomplete\*\* \(\[run\]\(https:\/\/github\.com\/owner\/repo\/actions\/runs\/\d+\)\)/);
    expect(body).toContain('**No drift found, but the check is incomplete (see "Not checked"): this is not a clean report.**');
    expect(body).toMatch(/- the tokens of the parent account could not be listed \(.*402 Payment Required/);
    expect(fs.existsSync(path.join(trial.artifacts, 'proxyaccount-drift', 'drift.md'))).toBe(true);
  });

  it('an apply that did not succeed (here cancelled before it started) fails the run, telling to re-run; a successful one does not', async () => {
    const notApplied = (event: typeof MERGED, apply: string, calls?: GithubCall[]) =>
      runGithubJob({
        file: `${GH}/apply.yml`,
        job: 'not-applied',
        service: gh,
        base,
        override,
        event,
        needs: { apply },
        ...(calls ? { githubCalls: calls } : {}),
      });
    const calls: GithubCall[] = [];
    const cancelled = await notApplied(MERGED, 'cancelled', calls);
    expect(cancelled.ok).toBe(false);
    expect(cancelled.log).toMatch(
      /::error::The apply of this merge did not start \(the apply job ended 'cancelled'\): its change is not in the account\. Re-run the failed jobs/,
    );
    const comment = calls.find((c) => c.method === 'rest.issues.createComment');
    expect(comment?.args).toMatchObject({ issue_number: 5, body: expect.stringMatching(/did not start[\s\S]*Re-run the failed jobs/) });
    const applied = await notApplied(MERGED, 'success');
    expect({ ok: applied.ok, log: applied.log }).toEqual({ ok: true, log: '-- job skipped: not-applied\n' });
    // A pull request closed without merging: nothing was to be applied.
    const closed = { pull_request: { ...MERGED.pull_request, merged: false } };
    const unmerged = await notApplied(closed, 'skipped');
    expect(unmerged.ok).toBe(true);
  });

  it('six drift runs with a wrong password, each on a fresh runner with only the cache, send one request and leave the address unbanned', async () => {
    const wrong = githubService('github-wrong', 'rotated-wrong-password', 'github');
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
      const s = githubService(`github-four-${password}`, password, 'github');
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

/** The data-source example: a sub-account, its usage read by the data source, and an output of it (live data the plan reads). */
const USAGE_TF = fs.readFileSync(path.join(ROOT, 'examples', 'data-sources', 'proxyaccount_sub_account', 'data-source.tf'), 'utf8');

/** apply.yml's not-applied job after an apply job that failed with `outputs` (its steps' outcomes). */
function notAppliedAfterFailure(service: Service, outputs: Record<string, string>, calls: GithubCall[]) {
  return runGithubJob({
    file: `${GH}/apply.yml`,
    job: 'not-applied',
    service,
    base,
    override,
    event: MERGED,
    needs: { apply: 'failure' },
    needsOutputs: { apply: outputs },
    githubCalls: calls,
  });
}

/** The terraform block alone (the http backend, the provider). */
const VERSIONS_TF = MAIN_TF.slice(0, MAIN_TF.indexOf('resource '));

/** One authorized IP of the parent. */
function ipTf(name: string, ip: string): string {
  return `\nresource "proxyaccount_authorized_ip" "${name}" {\n  ip    = "${ip}"\n  label = "${name}"\n}\n`;
}

describe('GitHub Actions: the check after the apply, and what not-applied says', () => {
  let svc: Service;
  /** Review the pull request of `code`, then merge it: the apply job's result. */
  async function reviewThenMerge(name: string, code: string, beforeMerge: () => Promise<void> = async () => {}) {
    const s = { ...svc, repository: repository(name, { 'main.tf': code }) };
    const review = await runGithubJob({ file: `${GH}/pull-request.yml`, job: 'review', service: s, base, override, event: OPENED });
    expect({ ok: review.ok, log: review.ok ? '' : review.log }).toEqual({ ok: true, log: '' });
    await beforeMerge();
    return runGithubJob({ file: `${GH}/apply.yml`, job: 'apply', service: s, base, override, event: MERGED });
  }

  beforeAll(async () => {
    svc = githubService('github-usage', PARENT.password, 'github-usage');
    const first = await reviewThenMerge('repository-usage', VERSIONS_TF + USAGE_TF);
    expect({ ok: first.ok, log: first.ok ? '' : first.log }).toEqual({ ok: true, log: '' });
  });

  it('an output that reads live data and changed between review and merge fails nothing: only resources count', async () => {
    // Traffic between review and merge: the usage the output shows is not the reviewed plan's.
    const r = await reviewThenMerge('repository-usage-office', VERSIONS_TF + USAGE_TF + ipTf('office', '203.0.113.20'), () =>
      em.control.usage('analytics-team', 2),
    );
    expect({ ok: r.ok, log: r.ok ? '' : r.log }).toEqual({ ok: true, log: '' });
    expect(r.log).toMatch(/Apply complete! Resources: 1 added/);
    // The plan after the apply does show the output's new value; the job passes all the same.
    expect(r.log).toMatch(/Changes to Outputs:/);
    expect(r.log).toMatch(/The account matches the merged code\./);
  });

  it('an apply that failed while applying: not-applied says a re-run cannot finish it, and to open a new pull request', async () => {
    const r = await reviewThenMerge('repository-usage-lab', VERSIONS_TF + USAGE_TF + ipTf('office', '203.0.113.20') + ipTf('lab', '203.0.113.21'), () =>
      em.control.fault({ path: '/api/ip/add/', method: 'POST', status: 400, count: 1 }),
    );
    expect(r.ok).toBe(false);
    expect(r.log).toMatch(/-- ran \(1\): Apply the reviewed plan/);
    expect(r.outputs).toEqual({ applied: 'failure', checked: 'skipped' });
    const calls: GithubCall[] = [];
    const said = await notAppliedAfterFailure(svc, r.outputs!, calls);
    expect(said.ok).toBe(false);
    expect(said.log).toMatch(/::error::The apply of this merge ended 'failure' while Terraform was applying: part of its change may be in the account\./);
    expect(said.log).toMatch(/open a new pull request/);
    expect(said.log).not.toMatch(/Re-run the failed jobs/);
    expect(String(calls.find((c) => c.method === 'rest.issues.createComment')?.args.body)).toMatch(/while Terraform was applying[\s\S]*new pull request/);
  });
});

/**
 * A git repository whose commits are written directly (no work tree), each with `files` under
 * infra/ on top of its first parent's tree (null removes one) and the parents given: a merge
 * commit, or the merged result GitLab makes for a merged results pipeline. Each commit is
 * tagged, so a clone has it. Never the user's git configuration.
 */
class History {
  private count = 0;
  constructor(private readonly dir: string) {
    fs.mkdirSync(dir, { recursive: true });
    this.git(['init', '--quiet']);
  }

  commit(message: string, parents: string[], files: Record<string, string | null>): string {
    const index = { GIT_INDEX_FILE: path.join(this.dir, '.git', 'test-index') };
    this.git(parents.length > 0 ? ['read-tree', parents[0]!] : ['read-tree', '--empty'], index);
    for (const [file, text] of Object.entries(files)) {
      if (text === null) this.git(['update-index', '--force-remove', `infra/${file}`], index);
      else this.git(['update-index', '--add', '--cacheinfo', `100644,${this.git(['hash-object', '-w', '--stdin'], {}, text)},infra/${file}`], index);
    }
    const tree = this.git(['write-tree'], index);
    const sha = this.git(['commit-tree', tree, ...parents.flatMap((p) => ['-p', p]), '-m', message]);
    this.git(['tag', `commit-${++this.count}`, sha]);
    return sha;
  }

  tree(sha: string): string {
    return this.git(['rev-parse', `${sha}^{tree}`]);
  }

  private git(args: string[], env: Record<string, string> = {}, input?: string): string {
    const identity = { GIT_AUTHOR_NAME: 'ci test', GIT_AUTHOR_EMAIL: 'ci@example.test', GIT_COMMITTER_NAME: 'ci test', GIT_COMMITTER_EMAIL: 'ci@example.test' };
    return execFileSync('git', args, {
      cwd: this.dir,
      encoding: 'utf8',
      ...(input !== undefined ? { input } : {}),
      env: { PATH: process.env.PATH ?? '', GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', ...identity, ...env },
    }).trim();
  }
}

describe('the GitLab template on fresh runners', () => {
  const API = '/api/v4/projects/7';
  const STATE = '/api/v4/projects/7/terraform/state/proxyaccount';
  const OFFICE = { 'office.tf': ipTf('office', '203.0.113.10'), 'usage.tf': USAGE_TF };
  const LAB = { 'lab.tf': ipTf('lab', '203.0.113.11') };
  const VPN = { 'vpn.tf': ipTf('vpn', '203.0.113.12') };
  let gl: Service;
  let predefined: Record<string, string>;
  const GITLAB_CREDENTIALS = (): Record<string, string> => ({
    PROXYACCOUNT_BASE_URL: em.url,
    PROXYACCOUNT_USERNAME: PARENT.username,
    PROXYACCOUNT_PASSWORD: PARENT.password,
    PROXYACCOUNT_PLAN_KEY: PLAN_KEY,
    GITLAB_TOKEN: 'glpat-test',
  });
  let history: History;
  /** main's first commit: no resource yet, and a plan file committed to the repository (apply must never use it). */
  let root: string;
  /** !3 (the office IP and a sub-account whose usage an output shows), reviewed at its head and merged with a merge commit. */
  let head3: string;
  let merge3: string;
  /** !4 (the lab IP), branched before !3 merged and reviewed in a merged results pipeline, whose merged result holds !3. */
  let head4: string;
  let result4: string;
  let merge4: string;
  /** !5 (the VPN IP), branched after !3, reviewed alone at its head, merged after !4: its plan knows nothing of the lab IP. */
  let head5: string;
  let merge5: string;

  beforeAll(async () => {
    await em.control.reset();
    take();
    history = new History(path.join(base, 'repository-gitlab'));
    root = history.commit('main', [], { 'versions.tf': VERSIONS_TF, 'plan.tfplan': 'not the reviewed plan' });
    head3 = history.commit('!3', [root], OFFICE);
    merge3 = history.commit('Merge !3', [root, head3], OFFICE);
    head4 = history.commit('!4', [root], LAB);
    result4 = history.commit('Merged result of !4', [merge3, head4], LAB);
    merge4 = history.commit('Merge !4', [merge3, head4], LAB);
    head5 = history.commit('!5', [merge3], VPN);
    merge5 = history.commit('Merge !5', [merge4, head5], VPN);
    // As the template asks: protected variables (the default branch's pipelines: apply, drift),
    // and the same scoped to the review's environment, none of them for every pipeline.
    gl = service('gitlab', {}, { protectedSecrets: GITLAB_CREDENTIALS(), environments: { 'proxyaccount-review': GITLAB_CREDENTIALS() } });
    gl = { ...gl, repository: path.join(base, 'repository-gitlab') };
    predefined = {
      // A pipeline of the default branch, which is protected.
      CI_COMMIT_REF_PROTECTED: 'true',
      CI_API_V4_URL: `${forge.url}/api/v4`,
      CI_PROJECT_ID: '7',
      CI_DEFAULT_BRANCH: 'main',
      CI_JOB_TOKEN: 'job-token',
      CI_REGISTRY_PASSWORD: 'job-token',
      CI_DEPENDENCY_PROXY_PASSWORD: 'job-token',
      CI_REPOSITORY_URL: 'https://gitlab-ci-token:job-token@gitlab.example/group/project.git',
    };
  });

  /** A merge request pipeline of !`iid` on `sha` (in a merged results pipeline, the merged result of `head`). */
  function mergeRequestPipeline(iid: number, sha: string, head?: string, current = head ?? sha): Record<string, string> {
    // The merge request as the API shows it now: its head is `current`.
    forge.answer('GET', `${API}/merge_requests/${iid}`, 200, JSON.stringify({ iid, state: 'opened', sha: current }));
    return {
      ...predefined,
      // A merge request pipeline of an unprotected branch: no protected variable.
      CI_COMMIT_REF_PROTECTED: 'false',
      CI_MERGE_REQUEST_IID: String(iid),
      CI_COMMIT_SHA: sha,
      ...(head !== undefined ? { CI_MERGE_REQUEST_SOURCE_BRANCH_SHA: head } : {}),
    };
  }

  /** The last review job's artifacts, as the artifact API serves them for !`iid`'s `ref` (head, merge or train). */
  async function serveReview(iid: number, ref: string): Promise<void> {
    forge.answer(
      'GET',
      `${API}/jobs/artifacts/refs%2Fmerge-requests%2F${iid}%2F${ref}/download?job=review`,
      200,
      await zipOf(path.join(gl.artifacts, 'review')),
    );
  }

  /** !`iid`, merged at `head`, made commit `merge` on main, as the API shows them. */
  function merged(iid: number, head: string, merge: string): void {
    forge.answer('GET', `${API}/repository/commits/${merge}/merge_requests`, 200, JSON.stringify([{ iid, state: 'merged' }]));
    forge.answer('GET', `${API}/merge_requests/${iid}`, 200, JSON.stringify({ iid, state: 'merged', sha: head }));
  }

  function applyOn(sha: string) {
    return runGitlabJob({ job: 'apply', service: gl, base, predefined: { ...predefined, CI_COMMIT_SHA: sha }, override });
  }

  async function liveIps(): Promise<string[]> {
    const client = new ProxyAccountClient({ baseUrl: em.url, auth: PARENT, dispatcher: em.dispatcher, authFailureCache: false });
    try {
      return await client.ips.list();
    } finally {
      await client.close();
    }
  }

  it("review on the merge request, under the docker executor's umask 0000: plans, reviews, posts the note, keeps the plan, its commit and tree; the install saw no secret", async () => {
    const r = await runGitlabJob({ job: 'review', service: gl, base, predefined: mergeRequestPipeline(3, head3), override, quirks: UMASK_0000 });
    expect({ ok: r.ok, log: r.ok ? '' : r.log }).toEqual({ ok: true, log: '' });
    // CI_PROJECT_DIR as GitLab's docker executor leaves it: everyone can write it.
    expect(fs.statSync(r.workspace).mode & 0o777).toBe(0o777);
    expect(forge.calls).toContain('POST /api/v4/projects/7/merge_requests/3/notes');
    // The note names the commit it reviews, and the merge request is still there: no banner.
    const note = new URLSearchParams(forge.posted.filter((p) => p.call === 'POST /api/v4/projects/7/merge_requests/3/notes').at(-1)!.body).get('body')!;
    expect(note.startsWith(`<!-- proxyaccount-review -->\n_The plan of ${head3} ([job](`)).toBe(true);
    expect(note).not.toContain('Out of date');
    expect(note.match(/<!-- proxyaccount-review -->/g)).toHaveLength(1);
    expect(note).toContain('203.0.113.10');
    expect(fs.existsSync(path.join(gl.artifacts, 'review', 'infra', 'plan.tfplan'))).toBe(false);
    await expectSealedPlan(path.join(gl.artifacts, 'review', 'infra', 'plan.tfplan.sealed'));
    expect(fs.readFileSync(path.join(gl.artifacts, 'review', 'infra', 'reviewed-commit'), 'utf8').trim()).toBe(head3);
    expect(fs.readFileSync(path.join(gl.artifacts, 'review', 'infra', 'reviewed-tree'), 'utf8').trim()).toBe(history.tree(head3));
    await serveReview(3, 'head');
    const seen = installs(gl);
    expect(seen).toHaveLength(1);
    for (const name of [
      'PROXYACCOUNT_PASSWORD',
      'PROXYACCOUNT_PLAN_KEY',
      'GITLAB_TOKEN',
      'CI_JOB_TOKEN',
      'TF_HTTP_PASSWORD',
      'CI_REGISTRY_PASSWORD',
      'CI_DEPENDENCY_PROXY_PASSWORD',
      'CI_REPOSITORY_URL',
    ])
      expect(seen[0]!.env).not.toContain(name);
  });

  it('review in a pipeline that got no credentials (none for its environment, none protected): stops before anything runs, saying why', async () => {
    // Only GITLAB_TOKEN is scoped to the environment here, so the failure is said on the merge request.
    const bare = { ...gl, environments: { 'proxyaccount-review': { GITLAB_TOKEN: 'glpat-test' } }, artifacts: path.join(base, 'gitlab-bare-artifacts') };
    fs.mkdirSync(bare.artifacts, { recursive: true });
    take();
    const calls = forge.calls.length;
    const r = await runGitlabJob({ job: 'review', service: bare, base, predefined: mergeRequestPipeline(8, head3), override });
    expect(r.ok).toBe(false);
    expect(r.log.replace(/\s+/g, ' ')).toContain('Not reviewed: this job got no account credentials, no GITLAB_TOKEN or no PROXYACCOUNT_PLAN_KEY.');
    expect(r.log).not.toMatch(/Initializing/);
    expect(take()).toEqual([]);
    // No review note: only the after_script's note that the review failed.
    expect(forge.calls.slice(calls)).toEqual(['POST /api/v4/projects/7/merge_requests/8/notes']);
    expect(fs.existsSync(path.join(bare.artifacts, 'review'))).toBe(false);
  });

  it('review of an older commit, run after the merge request moved on: its note says at the top that it is out of date', async () => {
    const newer = 'eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee';
    const r = await runGitlabJob({ job: 'review', service: gl, base, predefined: mergeRequestPipeline(9, head3, undefined, newer), override });
    expect({ ok: r.ok, log: r.ok ? '' : r.log }).toEqual({ ok: true, log: '' });
    const note = new URLSearchParams(forge.posted.filter((p) => p.call === 'POST /api/v4/projects/7/merge_requests/9/notes').at(-1)!.body).get('body')!;
    expect(note).toContain(`_The plan of ${head3} ([job](`);
    expect(note).toContain(`**Out of date:** the merge request is now at ${newer}; this is the review of an earlier commit.`);
    expect(note.indexOf('Out of date')).toBeLessThan(note.indexOf('203.0.113.10'));
  });

  it('apply on main refuses a plan reviewed at an older commit than the merged head, and applies nothing', async () => {
    const newer = 'ffffffffffffffffffffffffffffffffffffffff';
    merged(3, newer, merge3);
    const r = await applyOn(merge3);
    expect(r.ok).toBe(false);
    expect(r.log.replace(/\s+/g, ' ')).toContain(
      `Not applied: !3 was merged at ${newer}, but no successful review of !3 planned that commit (refs/merge-requests/3/head: a review of ${head3}; refs/merge-requests/3/merge: no successful review; refs/merge-requests/3/train: no successful review). Retry the review job`,
    );
    expect(r.log).not.toMatch(/Apply complete!/);
    expect(forge.states.get(STATE)).toBeUndefined();
  });

  it('apply on main refuses, naming the refs it looked on, when the merge request has no successful review', async () => {
    merged(6, head3, root);
    const r = await applyOn(root);
    expect(r.ok).toBe(false);
    expect(r.log.replace(/\s+/g, ' ')).toContain(
      'no successful review of !6 planned that commit (refs/merge-requests/6/head: no successful review; refs/merge-requests/6/merge: no successful review; refs/merge-requests/6/train: no successful review)',
    );
    expect(r.log).not.toMatch(/curl: \(22\)/);
    expect(forge.states.get(STATE)).toBeUndefined();
  });

  it('apply on main: the plan reviewed at the merged head, downloaded (never the committed file), into GitLab-managed state; then drift finds none', async () => {
    merged(3, head3, merge3);
    const calls = forge.calls.length;
    const r = await applyOn(merge3);
    expect({ ok: r.ok, log: r.ok ? '' : r.log }).toEqual({ ok: true, log: '' });
    expect(forge.calls.slice(calls)).toContain('GET /api/v4/projects/7/jobs/artifacts/refs%2Fmerge-requests%2F3%2Fhead/download');
    expect(r.log).toMatch(/Apply complete! Resources: 2 added/);
    expect(r.log).toMatch(/The account matches the merged code\./);
    expect(forge.states.get(STATE)).toBeDefined();
    const d = await runGitlabJob({ job: 'drift', service: gl, base, predefined: { ...predefined, CI_COMMIT_SHA: merge3 }, override });
    expect({ ok: d.ok, log: d.ok ? '' : d.log }).toEqual({ ok: true, log: '' });
    expect(forge.calls).not.toContain('POST /api/v4/projects/7/issues');
  });

  it('merged results pipeline: the review on the merge ref is found and applied, and a usage output changed since fails nothing', async () => {
    const r = await runGitlabJob({ job: 'review', service: gl, base, predefined: mergeRequestPipeline(4, result4, head4), override });
    expect({ ok: r.ok, log: r.ok ? '' : r.log }).toEqual({ ok: true, log: '' });
    expect(fs.readFileSync(path.join(gl.artifacts, 'review', 'infra', 'reviewed-commit'), 'utf8').trim()).toBe(head4);
    await serveReview(4, 'merge');
    // Traffic between review and merge: the usage output is no longer the reviewed plan's.
    await em.control.usage('analytics-team', 3);
    merged(4, head4, merge4);
    const a = await applyOn(merge4);
    expect({ ok: a.ok, log: a.ok ? '' : a.log }).toEqual({ ok: true, log: '' });
    expect(a.log).toContain(`Applying the plan reviewed on !4 at ${head4} (refs/merge-requests/4/merge).`);
    expect(a.log).toMatch(/Apply complete! Resources: 1 added/);
    expect(a.log).toMatch(/Changes to Outputs:/);
    expect(a.log).toMatch(/The account matches the merged code\./);
    expect(await liveIps()).toContain('203.0.113.11');
  });

  it('a merge request reviewed without what main merged since is refused before anything is applied', async () => {
    // !5's plan, made after !4's apply from a branch without the lab IP, would delete it.
    const r = await runGitlabJob({ job: 'review', service: gl, base, predefined: mergeRequestPipeline(5, head5), override });
    expect({ ok: r.ok, log: r.ok ? '' : r.log }).toEqual({ ok: true, log: '' });
    expect(fs.readFileSync(path.join(gl.artifacts, 'review', 'infra', 'review.md'), 'utf8')).toContain('203.0.113.11');
    await serveReview(5, 'head');
    merged(5, head5, merge5);
    const state = forge.states.get(STATE);
    const a = await applyOn(merge5);
    expect(a.ok).toBe(false);
    expect(a.log.replace(/\s+/g, ' ')).toContain(
      `Not applied: the plan reviewed on !5 was made from other code than ${merge5} holds: main changed after !5 was reviewed, and that plan lacks those changes (applying it could undo them). Nothing was applied.`,
    );
    expect(a.log).not.toMatch(/Apply complete!/);
    expect(forge.states.get(STATE)).toBe(state);
    const live = await liveIps();
    expect(live).toContain('203.0.113.11');
    expect(live).not.toContain('203.0.113.12');
  });

  it('drift with a wrong password on fresh runners: the cache is saved on failure, one request in all', async () => {
    const wrong = service('gitlab-wrong', {}, { protectedSecrets: { ...GITLAB_CREDENTIALS(), PROXYACCOUNT_PASSWORD: 'gitlab-wrong-password' } });
    take();
    const results = [];
    for (let i = 0; i < 3; i++) results.push(await runGitlabJob({ job: 'drift', service: wrong, base, predefined, override }));
    const lines = take();
    for (const r of results) expect(r.ok).toBe(false);
    expect(lines.filter((l) => / 401 /.test(l))).toHaveLength(1);
    await expectNotBanned();
  });
});
