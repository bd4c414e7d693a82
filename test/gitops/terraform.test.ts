// What the one terraform runner keeps of a failure: terraform's diagnostics whole, from the first
// "Error:" line, whichever stream carries it; without one, the end of the output; past the limit,
// the beginning (which names the cause), with a count of what was left out. And what it never
// keeps: the standard output of `terraform show -json`, which holds the plan's secrets.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadPlan } from '../../src/gitops/plan-input';
import { diagnosticsOf, Terraform, TerraformError } from '../../src/gitops/terraform';
import { runDrift } from '../../src/gitops/use-cases';

describe('diagnosticsOf', () => {
  it('keeps everything from the first Error: line, boxed or not, and drops the progress before it', () => {
    const stdout = 'proxyaccount_sub_account.a: Refreshing state... [id=a]\n\nPlanning failed.\n';
    const stderr = '╷\n│ Error: Authentication failed\n│\n│ GET /api/sub/get/ failed\n│ with 401 Unauthorized\n╵\n';
    expect(diagnosticsOf({ stdout, stderr })).toBe('│ Error: Authentication failed\n│\n│ GET /api/sub/get/ failed\n│ with 401 Unauthorized\n╵');
    expect(diagnosticsOf({ stdout: '', stderr: 'Error: Invalid provider configuration\n\nbase_url is not set\n' })).toBe(
      'Error: Invalid provider configuration\n\nbase_url is not set',
    );
  });

  it('without an Error: line keeps the last 40 non-empty lines', () => {
    const stdout = Array.from({ length: 50 }, (_, i) => `line ${i + 1}`).join('\n');
    const kept = diagnosticsOf({ stdout, stderr: '' }).split('\n');
    expect(kept).toHaveLength(40);
    expect(kept[0]).toBe('line 11');
  });

  it('cuts a very long diagnostic at a line end, keeping its beginning and saying how much is left out', () => {
    const stderr = `Error: Unable to read sub-account\n\nGET failed with 401\n${Array.from({ length: 400 }, (_, i) => `repeated line ${i}`).join('\n')}`;
    const kept = diagnosticsOf({ stdout: '', stderr });
    expect(kept.startsWith('Error: Unable to read sub-account\n\nGET failed with 401\n')).toBe(true);
    expect(kept.length).toBeLessThan(6200);
    const left = /\n… \((\d+) more lines of terraform's output\)$/.exec(kept);
    expect(left).not.toBeNull();
    // The lines shown and the lines counted as left out are all 403 of them.
    expect(kept.split('\n').length - 1 + Number(left![1])).toBe(403);
  });
});

// `terraform show -json` prints the plan's values, passwords in clear: no failure message may
// carry any of it. The fake terraform below stands in for one killed while writing (the OOM
// killer on a large plan, a CI timeout): it prints the start of a plan, then gets SIGKILL.
describe('the plan JSON never reaches a message', () => {
  const PASSWORD = 'Hunter2-SuperSecret';
  const PARTIAL = `{"format_version":"1.2","resource_changes":[{"address":"proxyaccount_sub_account.a","type":"proxyaccount_sub_account","change":{"actions":["create"],"after":{"username":"a","password":"${PASSWORD}"`;
  let dir: string;

  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'proxyaccount-show-'));
    fs.writeFileSync(path.join(dir, 'plan.tfplan'), 'PK\u0003\u0004 a binary plan');
    fs.writeFileSync(path.join(dir, 'killed.sh'), `#!/bin/sh\nprintf '%s' '${PARTIAL}'\necho 'terraform: writing the plan' >&2\nkill -9 $$\n`, { mode: 0o755 });
    fs.writeFileSync(path.join(dir, 'cut.sh'), `#!/bin/sh\nprintf '%s' '${PARTIAL}'\n`, { mode: 0o755 });
    fs.writeFileSync(path.join(dir, 'garbled.sh'), `#!/bin/sh\nprintf '%s' '{"password": ${PASSWORD}}'\n`, { mode: 0o755 });
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  async function failure(run: Promise<unknown>): Promise<Error> {
    const err = await run.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(Error);
    return err as Error;
  }

  it("killed while printing it: the message says so, with terraform's standard error only", async () => {
    const err = await failure(loadPlan(path.join(dir, 'plan.tfplan'), { terraform: path.join(dir, 'killed.sh') }));
    expect(err.message).not.toContain(PASSWORD);
    expect(err.message).not.toContain('format_version');
    expect(err.message).toMatch(/^`terraform show -json -no-color .*plan\.tfplan` in .* was stopped by SIGKILL:\n/);
    expect(err.message).toContain('terraform: writing the plan');
    expect(err.message).toContain("terraform's standard output is not shown: it holds the plan's values, secrets included");
  });

  it('the runner keeps none of it in the error either', async () => {
    const err = await failure(new Terraform({ cwd: dir, bin: path.join(dir, 'killed.sh') }).showPlan(path.join(dir, 'plan.tfplan')));
    expect(err).toBeInstanceOf(TerraformError);
    const tf = err as TerraformError;
    expect(tf.result.stdout).toBe('');
    expect(tf.stdoutWithheld).toBe(true);
    expect(`${tf.message}\n${tf.outputTail}\n${JSON.stringify(tf)}`).not.toContain(PASSWORD);
  });

  it('output cut short or garbled: the parse error says what is wrong, never quoting it', async () => {
    const cut = await failure(loadPlan(path.join(dir, 'plan.tfplan'), { terraform: path.join(dir, 'cut.sh') }));
    // V8 quotes the text around such a fault ("assword": Hunter2-Su"…): the message must not.
    const garbled = await failure(loadPlan(path.join(dir, 'plan.tfplan'), { terraform: path.join(dir, 'garbled.sh') }));
    for (const err of [cut, garbled]) expect(err.message).not.toMatch(/Hunter2|assword/);
    expect(cut.message).toMatch(/printed output that is not JSON \(it ends early\); terraform's standard output is not shown/);
    expect(garbled.message).toMatch(/printed output that is not JSON \(somewhere in its 33 characters\)/);
  });

  it('a file of plan JSON that does not parse: the same', async () => {
    const file = path.join(dir, 'plan.json');
    fs.writeFileSync(file, `{"password": ${PASSWORD}}`);
    const err = await failure(loadPlan(file));
    expect(err.message).not.toMatch(/Hunter2|assword/);
    expect(err.message).toMatch(/plan\.json is not plan JSON \(somewhere in its 33 characters\); give a saved plan file/);
  });

  it('drift --plan reads the plan the same way', async () => {
    const err = await failure(runDrift({ dir, plan: path.join(dir, 'plan.tfplan'), scan: false, terraform: path.join(dir, 'killed.sh') }));
    expect(err.message).toMatch(/was stopped by SIGKILL/);
    expect(err.message).not.toContain(PASSWORD);
  });
});

describe('a working directory that cannot be used', () => {
  // spawn reports a missing working directory as ENOENT, as it does a missing executable.
  it('is named as such, not taken for a missing terraform', async () => {
    const bin = process.execPath; // an executable that exists
    await expect(new Terraform({ cwd: '/nonexistent/workspace', bin }).run(['version'])).rejects.toThrow('the directory /nonexistent/workspace does not exist');
    const file = path.join(os.tmpdir(), `proxyaccount-not-a-dir-${process.pid}`);
    fs.writeFileSync(file, '');
    try {
      await expect(new Terraform({ cwd: file, bin }).run(['version'])).rejects.toThrow(`${file} is not a directory`);
    } finally {
      fs.rmSync(file, { force: true });
    }
  });

  it('a missing executable in a directory that exists still says what to install', async () => {
    await expect(new Terraform({ cwd: os.tmpdir(), bin: '/nonexistent/terraform' }).run(['version'])).rejects.toThrow(
      '/nonexistent/terraform was not found: install Terraform',
    );
  });
});
