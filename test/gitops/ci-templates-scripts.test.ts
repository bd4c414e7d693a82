// What the GitHub templates' scripts do with GitHub, run against a stand-in API
// (github-runner.ts, `runGithubScript`): the sticky review comment is only ever the bot's own, a
// failed review marks it out of date, every body they post fits GitHub's 65,536 characters with
// a count of what was cut and where the whole is (one cut per workflow file), the drift issue
// holds drift's report and only the review's attention items, and says when the check was
// incomplete, the attention gate is a check of its own, and apply takes the review run that kept
// its plan, whatever the gate said. No network, no emulator.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parse } from 'yaml';
import type { Service } from './ci-runner';
import { type GithubAnswers, type GithubCall, runGithubJob, runGithubScript, type Step } from './github-runner';

const ROOT = path.resolve(__dirname, '..', '..');
const GH = 'examples/ci/github-actions';
const LIMIT = 65_536;
const MARKER = '<!-- proxyaccount-review -->';
const SHA = '4d3c2b1a0f9e8d7c6b5a4d3c2b1a0f9e8d7c6b5a';
const EVENT = { pull_request: { number: 7, head: { sha: SHA, repo: { full_name: 'owner/repo' } } } };
const BOT = 'github-actions[bot]';

interface Workflow {
  readonly jobs: Record<string, { readonly env?: Record<string, string>; readonly steps: Step[] }>;
}

function step(file: string, job: string, name: string): Step {
  const wf = parse(fs.readFileSync(path.join(ROOT, GH, file), 'utf8')) as Workflow;
  const found = wf.jobs[job]?.steps.find((s) => s.name === name);
  if (found === undefined) throw new Error(`${file} has no step "${name}" in job ${job}`);
  return found;
}

let base: string;
beforeAll(() => {
  base = fs.mkdtempSync(path.join(os.tmpdir(), 'proxyaccount-ci-scripts-'));
});
afterAll(() => fs.rmSync(base, { recursive: true, force: true }));

let counter = 0;
/** A workspace holding `files`, as the step finds it. */
function workspace(files: Record<string, string> = {}): string {
  const dir = path.join(base, `ws-${++counter}`, 'work');
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), text);
  }
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

/** Runs one github-script step of a template in `cwd` with `env` against `answers`. */
async function run(
  file: string,
  job: string,
  name: string,
  o: { cwd: string; env?: Record<string, string>; answers?: GithubAnswers; event?: Record<string, unknown> },
) {
  const s = step(file, job, name);
  return runGithubScript(String(s.with?.script), {
    cwd: o.cwd,
    env: { PATH: process.env.PATH ?? '', ...o.env },
    event: o.event ?? EVENT,
    runId: '42',
    answers: o.answers ?? [],
  });
}

/** The stand-in API's comments of the pull request, which is at `head` (by default the run's commit). */
function comments(list: Array<{ id: number; login: string; body: string }>, head = SHA): GithubAnswers {
  return [
    { method: 'rest.issues.listComments', data: list.map((c) => ({ id: c.id, user: { login: c.login }, body: c.body })) },
    { method: 'rest.pulls.get', data: { head: { sha: head } } },
  ];
}

const written = (calls: GithubCall[]) =>
  calls.filter((c) => /Comment$/.test(c.method)).map((c) => ({ method: c.method, id: c.args.comment_id, body: String(c.args.body) }));

/** A review.md of exactly `size` characters, as proxyaccount review writes one (its marker first). */
function reviewOf(size: number): string {
  const lines = [MARKER, '## proxyaccount plan review', '', '**Plan:** 9999 to add, 0 to change, 0 to destroy.', '', '### ⚠️ Needs attention', ''];
  let length = lines.join('\n').length;
  for (let i = 0; length < size; i++) {
    lines.push(`- **parent_access_opened** \`proxyaccount_authorized_ip.ip${i}\`: IP 10.0.${i >> 8}.${i & 255} may use the parent account's proxies`);
    length += lines.at(-1)!.length + 1;
  }
  return `${lines.join('\n').slice(0, size - 1)}\n`;
}

describe("pull-request.yml: the sticky comment is the bot's own", () => {
  const POST = 'Post or update the sticky comment';
  const review = `${MARKER}\n## proxyaccount plan review\n\n**Plan:** 1 to add, 0 to change, 0 to destroy.\n`;
  const env = { REVIEW_COMMENT_AUTHOR: BOT };

  it("a comment of the pull request's author holding the marker is never updated: the bot's own is", async () => {
    // The review's scenario (sticky/run.js): the author's comment first, the bot's older review second.
    const r = await run('pull-request.yml', 'review', POST, {
      cwd: workspace({ 'infra/review.md': review }),
      env,
      answers: comments([
        { id: 101, login: 'pr-author', body: `LGTM, nothing to see ${MARKER}` },
        { id: 102, login: BOT, body: `${MARKER}\n## proxyaccount plan review\n(older review)` },
      ]),
    });
    expect({ code: r.code, output: r.output }).toEqual({ code: 0, output: '' });
    const w = written(r.calls);
    expect(w.map((c) => [c.method, c.id])).toEqual([['rest.issues.updateComment', 102]]);
    expect(w[0]!.body).toBe(`${MARKER}\n_The plan of ${SHA} ([run](https://github.com/owner/repo/actions/runs/42))._\n${review.slice(MARKER.length + 1)}`);
  });

  it('a review of a commit that is no longer the head says so on top (finding: a re-run of an older run posted its plan as current)', async () => {
    const newer = 'eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee';
    const r = await run('pull-request.yml', 'review', POST, {
      cwd: workspace({ 'infra/review.md': review }),
      env,
      answers: comments([{ id: 102, login: BOT, body: `${MARKER}\n_The plan of ${newer} ([run](u))._\n## proxyaccount plan review\n(newer review)` }], newer),
    });
    expect({ code: r.code, output: r.output }).toEqual({ code: 0, output: '' });
    expect(r.calls.find((c) => c.method === 'rest.pulls.get')?.args).toEqual({ owner: 'owner', repo: 'repo', pull_number: EVENT.pull_request.number });
    const w = written(r.calls);
    expect(w[0]!.body).toBe(
      `${MARKER}\n_The plan of ${SHA} ([run](https://github.com/owner/repo/actions/runs/42))._\n` +
        `**Out of date:** the pull request is now at ${newer}; this is the review of an earlier commit. Its own review is on its way, or run it.\n` +
        review.slice(MARKER.length + 1),
    );
  });

  it("with only the author's comment (the marker at its start, even) a new comment is made", async () => {
    const r = await run('pull-request.yml', 'review', POST, {
      cwd: workspace({ 'infra/review.md': review }),
      env,
      answers: comments([{ id: 101, login: 'pr-author', body: `${MARKER}\nNo changes.` }]),
    });
    expect(written(r.calls).map((c) => [c.method, c.id])).toEqual([['rest.issues.createComment', undefined]]);
  });

  it('the author is the configured login, for a token of your own', async () => {
    const r = await run('pull-request.yml', 'review', POST, {
      cwd: workspace({ 'infra/review.md': review }),
      env: { REVIEW_COMMENT_AUTHOR: 'infra-bot[bot]' },
      answers: comments([
        { id: 102, login: BOT, body: `${MARKER}\nold` },
        { id: 103, login: 'infra-bot[bot]', body: `${MARKER}\nold` },
      ]),
    });
    expect(written(r.calls).map((c) => [c.method, c.id])).toEqual([['rest.issues.updateComment', 103]]);
  });

  it('the job says which login that is, github-actions[bot] as written', () => {
    const wf = parse(fs.readFileSync(path.join(ROOT, GH, 'pull-request.yml'), 'utf8')) as Workflow;
    expect(wf.jobs.review?.env?.REVIEW_COMMENT_AUTHOR).toBe(BOT);
  });

  it.each([POST, 'Mark the last review out of date'])('%s: an empty REVIEW_COMMENT_AUTHOR is refused, naming it, and nothing is written', async (name) => {
    const r = await run('pull-request.yml', 'review', name, {
      cwd: workspace({ 'infra/review.md': review }),
      env: { REVIEW_COMMENT_AUTHOR: '' },
      answers: comments([]),
    });
    expect(r.code).toBe(1);
    expect(r.output).toContain('REVIEW_COMMENT_AUTHOR is empty');
    expect(written(r.calls)).toEqual([]);
  });

  it("a review.md of GitHub's full size still fits with the commit line, cut with a count and a pointer to the artifact", async () => {
    const full = reviewOf(LIMIT);
    expect(full.length).toBe(LIMIT);
    const r = await run('pull-request.yml', 'review', POST, { cwd: workspace({ 'infra/review.md': full }), env, answers: comments([]) });
    const body = written(r.calls)[0]!.body;
    expect(body.length).toBeLessThanOrEqual(LIMIT);
    expect(body).toMatch(
      /_Cut to GitHub's limit: \d+ more lines \(\d+ characters\) are not shown here\. The whole text: `review\.md` in the `proxyaccount-plan` artifact of \[this run\]\(https:\/\/github\.com\/owner\/repo\/actions\/runs\/42\)\._\n$/,
    );
    expect(body.startsWith(`${MARKER}\n_The plan of ${SHA} `)).toBe(true);
  });

  it('a cut inside a collapsed section closes it, so that the count is not hidden in it', async () => {
    const collapsed = `${MARKER}\n## proxyaccount plan review\n\n<details><summary><b>gg-alice — 3000 changes</b></summary>\n\n${reviewOf(LIMIT).slice(MARKER.length + 1)}`;
    const r = await run('pull-request.yml', 'review', POST, { cwd: workspace({ 'infra/review.md': collapsed }), env, answers: comments([]) });
    const body = written(r.calls)[0]!.body;
    expect(body.length).toBeLessThanOrEqual(LIMIT);
    expect(body).toMatch(/\n<\/details>\n\n_Cut to GitHub's limit/);
  });
});

describe('pull-request.yml: a failed review marks the last one out of date', () => {
  const STALE = 'Mark the last review out of date';
  const env = { REVIEW_COMMENT_AUTHOR: BOT };
  const last = `${MARKER}\n_The plan of 0ld ([run](https://github.com/owner/repo/actions/runs/1))._\n## proxyaccount plan review\n\n**Plan:** 1 to add.\n`;

  it('runs only when something before it failed, last in the job', () => {
    const wf = parse(fs.readFileSync(path.join(ROOT, GH, 'pull-request.yml'), 'utf8')) as Workflow;
    const steps = wf.jobs.review!.steps;
    expect(steps.at(-1)?.name).toBe(STALE);
    expect(steps.at(-1)?.if).toBe('failure()');
  });

  it("the bot's comment says the review failed for this commit, and keeps the last review below, never another's comment", async () => {
    const r = await run('pull-request.yml', 'review', STALE, {
      cwd: workspace(),
      env,
      answers: comments([
        { id: 101, login: 'pr-author', body: `${MARKER} mine` },
        { id: 102, login: BOT, body: last },
      ]),
    });
    expect({ code: r.code, output: r.output }).toEqual({ code: 0, output: '' });
    const w = written(r.calls);
    expect(w.map((c) => [c.method, c.id])).toEqual([['rest.issues.updateComment', 102]]);
    expect(w[0]!.body).toBe(
      `${MARKER}\n<!-- proxyaccount-review-stale -->**The review failed for ${SHA}** ([run](https://github.com/owner/repo/actions/runs/42)): this review is out of date; what follows is the review of an earlier commit.\n\n${last.slice(MARKER.length + 1)}`,
    );
  });

  it("a second failure replaces the first one's banner rather than piling them up", async () => {
    const once = `${MARKER}\n<!-- proxyaccount-review-stale -->**The review failed for aaa** ([run](x)): this review is out of date; what follows is the review of an earlier commit.\n\n${last.slice(MARKER.length + 1)}`;
    const r = await run('pull-request.yml', 'review', STALE, { cwd: workspace(), env, answers: comments([{ id: 102, login: BOT, body: once }]) });
    const body = written(r.calls)[0]!.body;
    expect(body.match(/The review failed for/g)).toHaveLength(1);
    expect(body).toContain(`The review failed for ${SHA}`);
    expect(body).toContain('_The plan of 0ld');
  });

  it('with no review yet, the comment made says that no commit has one', async () => {
    const r = await run('pull-request.yml', 'review', STALE, { cwd: workspace(), env, answers: comments([{ id: 101, login: 'pr-author', body: MARKER }]) });
    const w = written(r.calls);
    expect(w.map((c) => c.method)).toEqual(['rest.issues.createComment']);
    expect(w[0]!.body).toContain(`**The review failed for ${SHA}**`);
    expect(w[0]!.body).toContain('no commit of this pull request has a review yet.');
  });

  it('the largest review the sticky comment step posts is kept whole under the banner: that step left room for it', async () => {
    const posted = await run('pull-request.yml', 'review', 'Post or update the sticky comment', {
      cwd: workspace({ 'infra/review.md': reviewOf(LIMIT) }),
      env,
      answers: comments([]),
    });
    const last = written(posted.calls)[0]!.body;
    expect(last).toMatch(/_Cut to GitHub's limit: \d+ more lines/);
    const r = await run('pull-request.yml', 'review', STALE, { cwd: workspace(), env, answers: comments([{ id: 102, login: BOT, body: last }]) });
    const body = written(r.calls)[0]!.body;
    expect(body.length).toBeLessThanOrEqual(LIMIT);
    expect(body.endsWith(last.slice(MARKER.length + 1))).toBe(true);
  });

  it("a last review of GitHub's full size (an earlier workflow's) keeps its first line under the banner, and says where the rest is", async () => {
    const full = `${MARKER}\n_The plan of 0ld ([run](https://github.com/owner/repo/actions/runs/1))._\n${reviewOf(LIMIT).slice(MARKER.length + 1)}`.slice(
      0,
      LIMIT,
    );
    const r = await run('pull-request.yml', 'review', STALE, { cwd: workspace(), env, answers: comments([{ id: 102, login: BOT, body: full }]) });
    const body = written(r.calls)[0]!.body;
    expect(body.length).toBeLessThanOrEqual(LIMIT);
    expect(body).toContain(`**The review failed for ${SHA}**`);
    expect(body).toMatch(
      /\n\n_The plan of 0ld \(\[run\]\(https:\/\/github\.com\/owner\/repo\/actions\/runs\/1\)\)\._\n\n_The rest of this review is too long to keep under this banner: it is `review\.md` in the `proxyaccount-plan` artifact of the run named above\._\n$/,
    );
  });
});

describe("drift.yml: the drift issue holds drift's report, then only the review's attention items", () => {
  const ISSUE = 'Open or update the drift issue';
  const runUrl = 'https://github.com/owner/repo/actions/runs/42';
  const REVIEW = fs.readFileSync(path.join(ROOT, 'test', 'gitops', 'goldens', 'update.review.md'), 'utf8');
  const HEADING = '\n## Before the pending changes are applied\n\n';
  const FROM =
    '_What `proxyaccount review` of a plan of the code, made after the drift report above, says needs attention. The changes themselves are listed once, in the report\'s "Not applied"._\n\n';
  /** The env of the drift issue step after drift exited `drift` and the attention step ended `outcome` with `code`. */
  const stepsEnded = (drift: string, outcome = 'skipped', code = '') => ({ DRIFT: drift, ATTENTION_OUTCOME: outcome, ATTENTION: code });

  /** drift.md of `lines` unmanaged IPs, as drift writes it (its marker first). */
  function driftOf(lines: number): string {
    const out = [
      '<!-- proxyaccount-drift -->',
      '## proxyaccount drift report',
      '',
      '**The account differs from the code.**',
      '',
      `### Not managed by any resource (${lines})`,
      '',
    ];
    for (let i = 0; i < lines; i++) out.push(`- (parent): IP \`198.51.100.${i % 250}\` (label \`added-by-hand-${String(i).padStart(4, '0')}\`)`);
    return `${out.join('\n')}\n`;
  }

  /** The --max-chars the Drift step gives drift. */
  function maxChars(): number {
    const m = /proxyaccount drift [^\n]*--max-chars (\d+)/.exec(step('drift.yml', 'drift', 'Drift').run ?? '');
    if (m === null) throw new Error('the Drift step gives drift no --max-chars');
    return Number(m[1]);
  }

  const issue = (calls: GithubCall[]) => calls.find((c) => c.method === 'rest.issues.create' || c.method === 'rest.issues.update');

  it("drift found and pending changes that need attention: drift's report whole, then the review's attention section alone, under a heading of its own", async () => {
    const drift = driftOf(3);
    const r = await run('drift.yml', 'drift', ISSUE, {
      cwd: workspace({ 'drift.md': drift, 'review.md': REVIEW }),
      env: stepsEnded('2', 'success', '2'),
      event: {},
    });
    expect({ code: r.code, output: r.output }).toEqual({ code: 0, output: '' });
    const call = issue(r.calls);
    const attention = REVIEW.slice(REVIEW.indexOf('### ⚠️ Needs attention'), REVIEW.indexOf('\n\n###', REVIEW.indexOf('### ⚠️ Needs attention') + 1) + 1);
    expect(attention).toMatch(/^### ⚠️ Needs attention\n\n- \*\*parent_access_opened\*\* [^\n]+\n$/);
    expect(call?.args).toEqual({
      owner: 'owner',
      repo: 'repo',
      title: 'proxyaccount: the account differs from the code',
      body: drift + HEADING + FROM + attention,
      labels: ['proxyaccount-drift'],
    });
    // The review's own list of changes repeats drift's "Not applied": never in the drift issue.
    expect(String(call?.args.body)).not.toContain('### (parent)');
  });

  it('pending changes none of which needs attention: the drift issue says so', async () => {
    const review =
      '<!-- proxyaccount-review -->\n## proxyaccount plan review\n\n**Plan:** 1 to add.\n\nNo change needs particular attention.\n\n### gg-alice — 1 change\n\n- +IP 192.0.2.1\n';
    const r = await run('drift.yml', 'drift', ISSUE, {
      cwd: workspace({ 'drift.md': driftOf(1), 'review.md': review }),
      env: stepsEnded('2', 'success', '2'),
      event: {},
    });
    expect(String(issue(r.calls)?.args.body)).toBe(`${driftOf(1)}${HEADING}${FROM}No pending change needs particular attention.\n`);
  });

  it("drift found and nothing pending (the review's plan has no change): drift's report alone, as it is", async () => {
    const r = await run('drift.yml', 'drift', ISSUE, {
      cwd: workspace({ 'drift.md': driftOf(11), 'review.md': REVIEW }),
      env: stepsEnded('2', 'success', '0'),
      event: {},
    });
    expect(String(issue(r.calls)?.args.body)).toBe(driftOf(11));
  });

  it('a review that failed: the drift issue says what is not known, below the report', async () => {
    const r = await run('drift.yml', 'drift', ISSUE, { cwd: workspace({ 'drift.md': driftOf(1) }), env: stepsEnded('2', 'failure'), event: {} });
    expect(String(issue(r.calls)?.args.body)).toBe(
      `${driftOf(1)}${HEADING}Not known: the review of a plan of the code ended \`failure\` in this run ([run](${runUrl})), so what needs attention among the pending changes is not said here. The report above still lists them.\n`,
    );
  });

  it('an incomplete check (exit 3): the drift issue is titled so, says it first, and holds the report; the open one is updated, title and all', async () => {
    const drift =
      '<!-- proxyaccount-drift -->\n## proxyaccount drift report\n\n**No drift found, but the check is incomplete (see "Not checked"): this is not a clean report.**\n\n### Not checked (1)\n\n- the tokens of the parent account could not be listed (402 Payment Required)\n';
    const r = await run('drift.yml', 'drift', ISSUE, {
      cwd: workspace({ 'drift.md': drift }),
      env: stepsEnded('3'),
      event: {},
      answers: [{ method: 'rest.issues.listForRepo', where: { labels: 'proxyaccount-drift' }, data: [{ number: 12 }] }],
    });
    expect({ code: r.code, output: r.output }).toEqual({ code: 0, output: '' });
    expect(issue(r.calls)?.args).toEqual({
      owner: 'owner',
      repo: 'repo',
      issue_number: 12,
      title: 'proxyaccount: the drift check was incomplete',
      body: `**The drift check was incomplete** ([run](${runUrl})): no drift was found in what could be checked, but "Not checked" below says what could not be, and why. The run failed: this is not a clean report.\n\n${drift}`,
    });
  });

  it("drift's report at its --max-chars and a review of GitHub's full size: the report is kept whole, the attention items cut with a count and the artifact named", async () => {
    const room = maxChars();
    expect(room).toBeLessThan(LIMIT);
    const drift = driftOf(1_000)
      .slice(0, room - 1)
      .concat('\n');
    expect(drift.length).toBe(room);
    const review = reviewOf(LIMIT);
    const r = await run('drift.yml', 'drift', ISSUE, { cwd: workspace({ 'drift.md': drift, 'review.md': review }), env: stepsEnded('3'), event: {} });
    const incomplete = String(issue(r.calls)?.args.body);
    expect(incomplete.length).toBeLessThanOrEqual(LIMIT);
    expect(incomplete.endsWith(drift)).toBe(true);
    const withAttention = await run('drift.yml', 'drift', ISSUE, {
      cwd: workspace({ 'drift.md': drift, 'review.md': review }),
      env: stepsEnded('2', 'success', '2'),
      event: {},
    });
    const body = String(issue(withAttention.calls)?.args.body);
    expect(body.length).toBeLessThanOrEqual(LIMIT);
    expect(body.startsWith(`${drift}${HEADING}${FROM}### ⚠️ Needs attention\n\n- **parent_access_opened**`)).toBe(true);
    const cut =
      /_Cut to GitHub's limit: (\d+) more lines \((\d+) characters\) are not shown here\. The whole text: `drift\.md` \(its whole lists in `drift\.json`\) and `review\.md` in the `proxyaccount-drift` artifact of \[this run\]\((.*?)\)\._\n$/.exec(
        body,
      );
    expect(cut?.[3]).toBe(runUrl);
    // The count is of what the drift issue leaves out.
    const whole = `${drift}${HEADING}${FROM}${review.slice(review.indexOf('### ⚠️ Needs attention'), -1)}\n`;
    const shown = body.slice(0, body.indexOf('\n\n_Cut to'));
    expect(Number(cut?.[2])).toBe(whole.length - shown.length);
    expect(Number(cut?.[1])).toBe(whole.split('\n').length - shown.split('\n').length);
  });
});

describe('every body the GitHub templates post is cut the same way', () => {
  it('one cut per workflow file that posts a body it reads, the same in each', () => {
    const cuts = ['pull-request.yml', 'drift.yml', 'apply.yml'].map((file) => {
      const text = fs.readFileSync(path.join(ROOT, GH, file), 'utf8');
      return [...text.matchAll(/^( *)function fit\(.*?\n\1\}\n/gms)].map((m) => m[0].replace(new RegExp(`^${m[1]}`, 'gm'), ''));
    });
    expect(cuts.map((c) => c.length)).toEqual([1, 1, 0]);
    expect(cuts[1]).toEqual(cuts[0]);
  });

  it('what apply.yml posts is short by construction: a fixed message and a link', () => {
    const script = String(step('apply.yml', 'not-applied', 'Say so on the pull request').with?.script);
    expect(script).not.toMatch(/readFileSync/);
  });
});

describe('FAIL_ON_ATTENTION: the gate is a check of its own, and the reviewed plan is applied after a merge', () => {
  function service(): Service {
    const dir = fs.mkdtempSync(path.join(base, 'service-'));
    for (const d of ['caches', 'artifacts', 'shims', 'repository']) fs.mkdirSync(path.join(dir, d));
    return {
      caches: path.join(dir, 'caches'),
      artifacts: path.join(dir, 'artifacts'),
      installLog: path.join(dir, 'installs.jsonl'),
      shims: path.join(dir, 'shims'),
      repository: path.join(dir, 'repository'),
      secrets: {},
      runnerEnv: {},
    };
  }

  const gate = (result: string, code: string | undefined, vars: Record<string, string> = { FAIL_ON_ATTENTION: 'true' }) =>
    runGithubJob({
      file: `${GH}/pull-request.yml`,
      job: 'attention',
      service: service(),
      base,
      event: EVENT,
      vars,
      needs: { review: result },
      needsOutputs: code === undefined ? {} : { review: { code } },
    });

  it("the review job passes its review's exit code on, and no step of it fails on code 3", () => {
    const wf = parse(fs.readFileSync(path.join(ROOT, GH, 'pull-request.yml'), 'utf8')) as Workflow & {
      jobs: Record<string, { outputs?: Record<string, string> }>;
    };
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a GitHub Actions expression, not a JavaScript template
    expect(wf.jobs.review?.outputs).toEqual({ code: '${{ steps.review.outputs.code }}' });
    for (const s of wf.jobs.review!.steps)
      expect({ step: s.name, if: s.if ?? '' }).not.toEqual({ step: s.name, if: expect.stringMatching(/outputs\.code == '3'/) });
  });

  it('changes that need attention fail the gate, saying so and what merging then does', async () => {
    const r = await gate('success', '3');
    expect(r.ok).toBe(false);
    expect(r.log).toContain('::error::The plan holds changes that need attention: read them in the review comment.');
    expect(r.log).toContain('applies the reviewed plan as usual');
  });

  it.each(['0', '2'])('review exit %s: the gate passes', async (code) => {
    const r = await gate('success', code);
    expect({ ok: r.ok, log: r.log }).toEqual({ ok: true, log: expect.stringContaining('No change needs attention.') });
  });

  it.each(['failure', 'skipped', 'cancelled'])('a review that ended %s: the gate fails, since nothing is known of the changes', async (result) => {
    const r = await gate(result, undefined);
    expect(r.ok).toBe(false);
    expect(r.log).toContain(`::error::This commit has no review (the review job ended '${result}')`);
  });

  it('without FAIL_ON_ATTENTION=true there is no gate', async () => {
    const r = await gate('success', '3', {});
    expect(r).toMatchObject({ ok: true, log: '-- job skipped: attention\n' });
  });

  describe("apply.yml finds the review run by the plan it kept, not by the run's conclusion", () => {
    const FIND = "Find the pull request's last plan run";
    const merged = { pull_request: { number: 7, merged: true, head: { sha: SHA } } };
    /** Review runs of the merged head, newest last here (the script orders them itself), and which kept the plan. */
    function answers(runs: Array<{ id: number; conclusion: string; at: string; kept: boolean }>): GithubAnswers {
      return [
        // What the same query with status: 'success' would give: only the runs that succeeded.
        {
          method: 'rest.actions.listWorkflowRuns',
          where: { status: 'success' },
          data: {
            total_count: 0,
            workflow_runs: runs.filter((r) => r.conclusion === 'success').map((r) => ({ id: r.id, conclusion: r.conclusion, created_at: r.at })),
          },
        },
        {
          method: 'rest.actions.listWorkflowRuns',
          where: { head_sha: SHA, workflow_id: 'pull-request.yml' },
          data: runs.map((r) => ({ id: r.id, conclusion: r.conclusion, created_at: r.at })),
        },
        ...runs.map((r) => ({
          method: 'rest.actions.listWorkflowRunArtifacts',
          where: { run_id: r.id },
          data: { total_count: r.kept ? 1 : 0, artifacts: r.kept ? [{ name: 'proxyaccount-plan', expired: false }] : [] },
        })),
      ];
    }

    it('the only review of the merged head failed its attention gate: its plan is the one applied', async () => {
      const r = await run('apply.yml', 'apply', FIND, {
        cwd: workspace(),
        event: merged,
        answers: answers([{ id: 11, conclusion: 'failure', at: '2030-01-01T10:00:00Z', kept: true }]),
      });
      expect({ code: r.code, output: r.output, outputs: r.outputs }).toEqual({ code: 0, output: '', outputs: { run_id: '11' } });
    });

    it('the newest run that kept a plan, past newer runs that kept none (a plan that failed, a run still waiting for approval)', async () => {
      const r = await run('apply.yml', 'apply', FIND, {
        cwd: workspace(),
        event: merged,
        answers: answers([
          { id: 10, conclusion: 'success', at: '2030-01-01T09:00:00Z', kept: true },
          { id: 12, conclusion: 'failure', at: '2030-01-01T11:00:00Z', kept: true },
          { id: 13, conclusion: 'failure', at: '2030-01-01T12:00:00Z', kept: false },
          { id: 14, conclusion: '', at: '2030-01-01T13:00:00Z', kept: false },
        ]),
      });
      expect(r.outputs).toEqual({ run_id: '12' });
    });

    it('no run of the merged head kept a plan: the step fails, naming the commit and what to do', async () => {
      const r = await run('apply.yml', 'apply', FIND, {
        cwd: workspace(),
        event: merged,
        answers: answers([{ id: 13, conclusion: 'failure', at: '2030-01-01T12:00:00Z', kept: false }]),
      });
      expect(r.code).toBe(1);
      expect(r.output).toContain(`No review of the merged head commit ${SHA} kept its plan (1 review runs of it).`);
      expect(r.output).toContain('run (or approve) the review of that commit, then re-run this job');
      expect(r.outputs).toEqual({});
    });
  });
});
