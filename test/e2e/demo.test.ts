// `proxyaccount demo` (what `npm start` runs) as a user runs it: the built CLI in a child process.
// Every run gets its own TMPDIR and a marker in its environment, which every process it starts
// inherits: afterwards no process may still carry the marker, and the TMPDIR must be empty.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { accountSnapshot, PARENT, startAccount, type E2eAccount } from './helpers/account';
import { requireTerraform } from './helpers/terraform';

jest.setTimeout(180_000);

const REPO = path.resolve(__dirname, '..', '..');
const BIN = path.join(REPO, 'bin', 'proxyaccount.js');
/** Inherited by every process a run starts (the demo passes its environment on, minus TF_* and PROXYACCOUNT_*). */
const MARKER_PREFIX = 'proxyaccount-demo-test-';

interface DemoRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** Processes still carrying the run's marker after it ended. */
  leftovers: string[];
  /** What the run left in its TMPDIR (besides `keepInTmp`). */
  tmpLeft: string[];
}

interface RunOptions {
  /** Environment on top of a clean one (no PROXYACCOUNT_*, TF_*, CDKTF_*, ROSTER_*). */
  env?: NodeJS.ProcessEnv;
  /** Called with the stdout seen so far on every chunk; may signal the child. */
  onStdout?: (stdoutSoFar: string, signal: (s: NodeJS.Signals) => void) => void;
  /** Names in the TMPDIR the run is expected to leave (a --work-dir inside it). */
  keepInTmp?: string[];
  /** Called before the TMPDIR is removed. */
  inspectTmp?: (tmp: string) => void;
}

function cleanEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (!/^(PROXYACCOUNT_|TF_|CDKTF_|ROSTER_)/.test(k)) env[k] = v;
  }
  return env;
}

/** Processes (other than this one) whose environment holds `marker`. Linux: reads /proc. */
function processesWithMarker(marker: string): string[] {
  const found: string[] = [];
  for (const pid of fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    if (Number(pid) === process.pid) continue;
    try {
      if (!fs.readFileSync(`/proc/${pid}/environ`, 'latin1').includes(marker)) continue;
      found.push(`${pid}: ${fs.readFileSync(`/proc/${pid}/cmdline`, 'latin1').replace(/\0/g, ' ').trim()}`);
    } catch {
      // Gone meanwhile, or not ours to read.
    }
  }
  return found;
}

/** Runs `node bin/proxyaccount.js demo ARGS` to its end; `args` may depend on the run's TMPDIR. */
function runDemo(args: string[] | ((tmp: string) => string[]), opts: RunOptions = {}): Promise<DemoRun> {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'proxyaccount-demo-test-'));
  const marker = `${MARKER_PREFIX}${randomBytes(8).toString('hex')}`;
  const child = spawn(process.execPath, [BIN, 'demo', ...(typeof args === 'function' ? args(tmp) : args)], {
    cwd: REPO,
    env: { ...cleanEnv(), ...opts.env, TMPDIR: tmp, DEMO_TEST_MARKER: marker },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8');
  child.stderr.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    stdout += chunk;
    opts.onStdout?.(stdout, (s) => child.kill(s));
  });
  child.stderr.on('data', (chunk: string) => {
    stderr += chunk;
  });
  const guard = setTimeout(() => child.kill('SIGKILL'), 150_000);
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(guard);
      const leftovers = processesWithMarker(marker);
      for (const p of leftovers) {
        try {
          process.kill(Number(p.split(':')[0]), 'SIGKILL');
        } catch {
          // Already gone.
        }
      }
      opts.inspectTmp?.(tmp);
      const tmpLeft = fs.readdirSync(tmp).filter((f) => !(opts.keepInTmp ?? []).includes(f));
      fs.rmSync(tmp, { recursive: true, force: true });
      resolve({ code, stdout, stderr, leftovers, tmpLeft });
    });
  });
}

/** The run left nothing behind; on failure, shows its output. */
function expectClean(run: DemoRun): void {
  expect({ leftovers: run.leftovers, tmpLeft: run.tmpLeft }).toEqual({ leftovers: [], tmpLeft: [] });
}

function output(run: DemoRun): string {
  return `--- exit ${run.code}\n--- stdout\n${run.stdout}\n--- stderr\n${run.stderr}`;
}

/** Raw bearer tokens of the emulator (`pxa_` and 43 random characters). */
const RAW_TOKEN = /pxa_[A-Za-z0-9_-]{20,}/;

beforeAll(() => {
  requireTerraform();
  if (!fs.existsSync('/proc/self/environ')) throw new Error('demo.test.ts finds left-over processes through /proc: run it on Linux');
});

describe('proxyaccount demo on the embedded emulator', () => {
  it('plans, applies, reads back, detects drift, converges and leaves nothing behind', async () => {
    const run = await runDemo([]);
    if (run.code !== 0) throw new Error(`the demo failed\n${output(run)}`);

    const headers = [...run.stdout.matchAll(/^\[(\d)\/8\] /gm)].map((m) => Number(m[1]));
    expect(headers).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(run.stdout).toMatch(/installed proxyaccount\/proxyaccount v\d+\.\d+\.\d+ from the mirror/);
    expect(run.stdout).toMatch(/Plan: [1-9]\d* to add, 0 to change, 0 to destroy\./);
    expect(run.stdout).toMatch(/Apply complete! Resources: [1-9]\d* added, 0 changed, 0 destroyed\./);

    // Step 7 names each out-of-band change, and the drift plan shows as many changed objects.
    const step7 = run.stdout.slice(run.stdout.indexOf('[7/8]'), run.stdout.indexOf('[8/8]'));
    const changes = step7.split('\n').filter((l) => l.includes('a colleague, in the dashboard:'));
    expect(changes.length).toBeGreaterThan(0);
    expect(step7).toContain('exit code 2: drift detected');
    const drifted = step7
      .slice(step7.indexOf('Changed outside Terraform:'), step7.indexOf('To put back:'))
      .split('\n')
      .filter((l) => /^\s+~ /.test(l));
    expect(drifted).toHaveLength(changes.length);
    expect(step7).toMatch(new RegExp(`Plan: 0 to add, ${changes.length} to change, 0 to destroy\\.`));
    // The scheduled job's view of it: drift reads the plan's JSON too, so the account it scanned is
    // the provider configuration's (no limit saying it could not be confirmed), and the changes that
    // put the account back are listed as not applied.
    const report = step7.slice(step7.indexOf('$ proxyaccount drift --plan drift.tfplan'));
    expect(report).toContain('**The account differs from the code.**');
    expect(report).toMatch(new RegExp(`### Not applied: the code differs from the account \\(${changes.length} changes?\\)`));
    expect(report).not.toContain('could not be confirmed');

    expect(run.stdout).toMatch(/Apply complete! Resources: 0 added, [1-9]\d* changed, 0 destroyed\./);
    expect(run.stdout).toContain('exit code 0: converged');
    // The proxy story: the declared token passes, the sub-account over its limit gets 509, the
    // token the changed roster drops is refused.
    expect(run.stdout).toMatch(/via us-ny with [^\n]*: 200, "hello from the target site" from exit IP 2001:db8:/);
    expect(run.stdout).toMatch(/via us-ny with [^\n]*: 509 \(refused by the proxy/);
    expect(run.stdout).toMatch(/Apply complete! Resources: 0 added, 0 changed, 1 destroyed\.\n[^\n]*via us-ny with [^\n]*: 407 \(refused by the proxy\)/);
    expect(run.stdout).toMatch(/Destroy complete! Resources: [1-9]\d* destroyed\./);
    expect(run.stdout).toContain('emulator stopped');
    expect(run.stdout).toContain('work dir removed');
    expect(run.stdout).toMatch(/Done in \d+\.\d s/);
    expect(`${run.stdout}${run.stderr}`).not.toMatch(RAW_TOKEN);
    expectClean(run);
  });

  it('with --work-dir keeps the stack and its state (emptied by the destroy) there', async () => {
    let stateResources: unknown[] | undefined;
    let stackFound = false;
    const run = await runDemo((tmp) => ['--work-dir', path.join(tmp, 'kept')], {
      keepInTmp: ['kept'],
      inspectTmp: (tmp) => {
        const stackDir = path.join(tmp, 'kept', 'cdktf.out', 'stacks', 'roster');
        stackFound = fs.existsSync(path.join(stackDir, 'cdk.tf.json'));
        const state = JSON.parse(fs.readFileSync(path.join(stackDir, 'terraform.tfstate'), 'utf8')) as { resources?: unknown[] };
        stateResources = state.resources;
      },
    });
    if (run.code !== 0) throw new Error(`the demo failed\n${output(run)}`);
    expect(run.stdout).toMatch(/work dir kept \(it was given with --work-dir\): \S+kept/);
    expect(stackFound).toBe(true);
    expect(stateResources).toEqual([]);
    expectClean(run);
  });

  it('stops terraform, cleans up and exits 130 on Ctrl-C (SIGINT) during the apply', async () => {
    let sent = false;
    const run = await runDemo([], {
      onStdout: (soFar, signal) => {
        if (!sent && soFar.includes('$ terraform apply plan.tfplan')) {
          sent = true;
          signal('SIGINT');
        }
      },
    });
    expect(sent).toBe(true);
    if (run.code !== 130) throw new Error(`expected exit 130\n${output(run)}`);
    expect(run.stderr).toMatch(/proxyaccount demo: interrupted during step [5-8]\/8/);
    expect(run.stdout).toContain('emulator stopped');
    expect(run.stdout).toContain('work dir removed');
    expectClean(run);
  });

  it('fails at step 2 naming every problem of a bad roster, and cleans up', async () => {
    const bad = path.join(os.tmpdir(), `proxyaccount-bad-roster-${process.pid}.yaml`);
    fs.writeFileSync(bad, 'teams:\n  - name: ops\n    members:\n      - username: "no spaces allowed"\n        monthlyLimitGb: -1\n');
    try {
      const run = await runDemo(['--roster', bad]);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain('proxyaccount demo: failed at step 2/8 (Synthesize the example app)');
      expect(run.stderr).toContain('teams[0].members[0].username');
      expect(run.stderr).toContain('teams[0].members[0].monthlyLimitGb');
      expect(run.stdout).not.toContain('[3/8]');
      expectClean(run);
    } finally {
      fs.rmSync(bad, { force: true });
    }
  });

  it('fails before starting anything when terraform is missing or older than 1.5', async () => {
    const fakeBin = fs.mkdtempSync(path.join(os.tmpdir(), 'proxyaccount-fake-terraform-'));
    try {
      // Only node's directory on PATH: no terraform.
      const nodeOnly = await runDemo([], { env: { PATH: path.dirname(process.execPath) } });
      expect(nodeOnly.code).toBe(1);
      expect(nodeOnly.stderr).toMatch(/failed at the prerequisites check: terraform was not found on PATH: install Terraform 1\.5 or later/);
      expect(nodeOnly.stdout).toBe('');
      expectClean(nodeOnly);

      fs.writeFileSync(path.join(fakeBin, 'terraform'), '#!/bin/sh\necho \'{"terraform_version":"1.4.7"}\'\n', { mode: 0o755 });
      const old = await runDemo([], { env: { PATH: `${fakeBin}${path.delimiter}${process.env.PATH ?? ''}` } });
      expect(old.code).toBe(1);
      expect(old.stderr).toMatch(/version 1\.4\.7, too old: the demo needs Terraform 1\.5 or later/);
      expectClean(old);
    } finally {
      fs.rmSync(fakeBin, { recursive: true, force: true });
    }
  });
});

describe('proxyaccount demo on an account named by PROXYACCOUNT_* (an emulator standing in for the real API)', () => {
  let account: E2eAccount;

  beforeAll(async () => {
    account = await startAccount();
  });

  afterAll(async () => {
    await account?.stop();
  });

  beforeEach(async () => {
    await account.reset();
  });

  it('only plans by default: the account is left exactly as it was', async () => {
    const before = await accountSnapshot(account.em);
    const run = await runDemo([], { env: account.env });
    if (run.code !== 0) throw new Error(`the demo failed\n${output(run)}`);
    expect(run.stdout).toContain('[1/8] Connect to the account');
    expect(run.stdout).toContain('Plan only');
    expect(run.stdout).toMatch(/Plan: [1-9]\d* to add, 0 to change, 0 to destroy\./);
    for (const step of [5, 7, 8]) expect(run.stdout).toMatch(new RegExp(`\\[${step}/8\\][^\\n]*\\n\\s+skipped: it changes the real account`));
    expect(run.stdout).not.toContain('Apply complete!');
    expect(await accountSnapshot(account.em)).toEqual(before);
    expect(`${run.stdout}${run.stderr}`).not.toContain(PARENT.password);
    expectClean(run);
  });

  it('with --allow-destructive, destroys what it created when a later step fails', async () => {
    const before = await accountSnapshot(account.em);
    // The out-of-band change edits a sub-account's limit; make that one request fail.
    await account.em.control.fault({ path: '/api/sub/edit/', status: 400, count: 1 });
    const run = await runDemo(['--allow-destructive'], { env: account.env });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/proxyaccount demo: failed at step \d\/8/);
    expect(run.stdout).toMatch(/Apply complete! Resources: [1-9]\d* added/);
    expect(run.stdout).toMatch(/Destroy complete! Resources: [1-9]\d* destroyed\./);
    expect(run.stdout).toContain('work dir removed');
    expect(await accountSnapshot(account.em)).toEqual(before);
    expect(`${run.stdout}${run.stderr}`).not.toContain(PARENT.password);
    expect(`${run.stdout}${run.stderr}`).not.toMatch(RAW_TOKEN);
    expectClean(run);
  });
});
