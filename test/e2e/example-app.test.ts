// The CDKTF example app (examples/cdktf-roster) end to end, short of apply: synthesized by the
// `app` of the root cdktf.json, `terraform init` offline from a filesystem mirror, and a real
// `terraform plan` against the emulator that plans exactly what roster.yaml declares (expected
// names, limits, lists and tokens are derived from the file here, independently of the
// constructs). Also: `cdktf synth` with the repository's cdktf CLI and cdktf.json, offline; the
// same app on CDK Terrain (`run.js --cdktn`, the cdktn build of the constructs); and the offline
// CLI loop of the README (`npm run cdktf:diff`, `cdktf:deploy`, `cdktf:destroy`: no provider lock,
// state outside cdktf.out).
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { accountSnapshot, startAccount, type E2eAccount } from './helpers/account';
import { requireTerraform, Workspace } from './helpers/terraform';

jest.setTimeout(180_000);

const REPO = path.resolve(__dirname, '..', '..');
const ROSTER_FILE = path.join(REPO, 'examples', 'cdktf-roster', 'roster.yaml');
const CDKTF_CLI = path.join(REPO, 'node_modules', '.bin', 'cdktf');
const CDKTN_BUILD = path.join(REPO, 'constructs', 'cdktn', 'lib', 'index.js');
const DEFAULT_STATE = path.join(REPO, 'examples', 'cdktf-roster', '.state', 'terraform.tfstate');

// ---- what the roster declares, read straight from the YAML ----

interface IpEntry {
  ip: string;
  label?: string;
}
interface Settings {
  monthlyLimitGb?: number;
  totalLimitGb?: number;
  active?: boolean;
  accessList?: string;
  ips?: IpEntry[];
  hostnames?: string[];
}
interface Member extends Settings {
  username: string;
  tokens?: Array<{ label: string; expiresAt?: string; active?: boolean }>;
}
interface Roster {
  accessList?: string;
  teams: Array<{ name: string; defaults?: Settings; members: Member[] }>;
}

/** One sub-account as the roster file describes it, team defaults applied. */
interface Expected {
  username: string;
  monthlyLimit: number;
  totalLimit: number;
  active: boolean;
  authoritative: boolean;
  ips: Record<string, string | null>;
  hostnames: string[];
  tokens: Array<{ label: string; expiresAt: string | null; active: boolean }>;
}

function expectedSubAccounts(file: string): Expected[] {
  const roster = parseYaml(fs.readFileSync(file, 'utf8')) as Roster;
  const out: Expected[] = [];
  for (const team of roster.teams) {
    const d = team.defaults ?? {};
    for (const m of team.members) {
      const ips: Record<string, string | null> = {};
      for (const e of [...(d.ips ?? []), ...(m.ips ?? [])]) ips[e.ip] = e.label ?? null;
      out.push({
        username: m.username,
        monthlyLimit: m.monthlyLimitGb ?? d.monthlyLimitGb ?? 0,
        totalLimit: m.totalLimitGb ?? d.totalLimitGb ?? 0,
        active: m.active ?? d.active ?? true,
        authoritative: (m.accessList ?? d.accessList ?? roster.accessList ?? 'additive') === 'authoritative',
        ips,
        hostnames: [...new Set([...(d.hostnames ?? []), ...(m.hostnames ?? [])])].sort(),
        tokens: (m.tokens ?? []).map((t) => ({ label: t.label, expiresAt: t.expiresAt ?? null, active: t.active ?? true })),
      });
    }
  }
  return out;
}

// ---- running things ----

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function run(command: string, args: string[], opts: { cwd: string; env: NodeJS.ProcessEnv; shell?: boolean }): Promise<Run> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { ...opts, maxBuffer: 64 * 1024 * 1024, timeout: 120_000 }, (err, stdout, stderr) => {
      if (err && typeof (err as NodeJS.ErrnoException).code === 'string') return reject(err);
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout: String(stdout), stderr: String(stderr) });
    });
  });
}

/** process.env without anything that would point a child at a real account or a user's Terraform setup. */
function cleanEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (!k.startsWith('PROXYACCOUNT_') && !k.startsWith('TF_') && !k.startsWith('CDKTF_') && !k.startsWith('ROSTER_')) env[k] = v;
  }
  return { ...env, ...extra };
}

interface StackJson {
  '//'?: { metadata?: { version?: string } };
  terraform?: { required_providers?: Record<string, { source?: string; version?: string }>; backend?: { local?: { path?: string } } };
  provider?: Record<string, unknown>;
  resource?: Record<string, Record<string, unknown>>;
}

interface PlannedResource {
  type: string;
  change: { actions: string[]; after: Record<string, unknown> };
}

let tmp: string;
let account: E2eAccount;

beforeAll(async () => {
  requireTerraform();
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'proxyaccount-example-app-'));
  account = await startAccount();
});

afterAll(async () => {
  await account?.stop();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

/** Runs the `app` of the root cdktf.json (plus `args`) as `cdktf synth` does, into `outDir`; returns the roster stack. */
async function synthWithApp(outDir: string, args: string[] = []): Promise<StackJson> {
  const { app } = JSON.parse(fs.readFileSync(path.join(REPO, 'cdktf.json'), 'utf8')) as { app: string };
  const res = await run([app, ...args].join(' '), [], { cwd: REPO, env: cleanEnv({ CDKTF_OUTDIR: outDir }), shell: true });
  if (res.code !== 0) throw new Error(`the app (${app}) exited ${res.code}:\n${res.stdout}\n${res.stderr}`);
  return JSON.parse(fs.readFileSync(path.join(outDir, 'stacks', 'roster', 'cdk.tf.json'), 'utf8')) as StackJson;
}

describe('the CDKTF example app', () => {
  it('synthesizes, inits offline and plans exactly what roster.yaml declares', async () => {
    const expected = expectedSubAccounts(ROSTER_FILE);
    expect(expected.length).toBeGreaterThan(0);
    const stack = await synthWithApp(path.join(tmp, 'app.out'));
    expect(stack.terraform?.required_providers?.proxyaccount?.source).toBe('proxyaccount/proxyaccount');

    const ws = new Workspace({ env: account.env });
    try {
      ws.write('cdk.tf.json', JSON.stringify(stack));
      const init = await ws.init();
      expect(init.stdout).toMatch(/Installed proxyaccount\/proxyaccount v\d+\.\d+\.\d+/);
      expect(fs.existsSync(path.join(ws.dir, '.terraform.lock.hcl'))).toBe(true);

      const before = await accountSnapshot(account.em);
      const plan = await ws.expect(['plan', '-no-color', '-input=false', '-out=plan.tfplan']);
      expect(await accountSnapshot(account.em)).toEqual(before); // planning changes nothing

      const show = JSON.parse((await ws.expect(['show', '-json', '-no-color', 'plan.tfplan'])).stdout) as { resource_changes: PlannedResource[] };
      const changes = show.resource_changes;
      for (const c of changes) expect([c.type, c.change.actions]).toEqual([c.type, ['create']]);
      const of = (type: string): Array<Record<string, unknown>> => changes.filter((c) => c.type === type).map((c) => c.change.after);

      const authoritative = expected.filter((e) => e.authoritative);
      const tokens = expected.flatMap((e) => e.tokens.map((t) => ({ username: e.username, ...t })));
      const total = plannedTotal(expected);
      expect(changes).toHaveLength(total);
      expect(plan.stdout).toContain(`Plan: ${total} to add, 0 to change, 0 to destroy.`);

      const subAccounts = of('proxyaccount_sub_account').map((a) => ({
        username: a.username,
        monthlyLimit: a.monthly_limit,
        totalLimit: a.total_limit,
        active: a.active,
      }));
      expect(subAccounts.sort(byUsername)).toEqual(
        expected.map((e) => ({ username: e.username, monthlyLimit: e.monthlyLimit, totalLimit: e.totalLimit, active: e.active })).sort(byUsername),
      );

      const ipLists = of('proxyaccount_authorized_ips').map((a) => ({
        username: a.username,
        ips: Object.fromEntries((a.entries as Array<{ ip: string; label: string | null }>).map((e) => [e.ip, e.label])),
      }));
      expect(ipLists.sort(byUsername)).toEqual(authoritative.map((e) => ({ username: e.username, ips: e.ips })).sort(byUsername));

      const hostnameLists = of('proxyaccount_authorized_hostnames').map((a) => ({ username: a.username, hostnames: [...(a.domains as string[])].sort() }));
      expect(hostnameLists.sort(byUsername)).toEqual(authoritative.map((e) => ({ username: e.username, hostnames: e.hostnames })).sort(byUsername));

      const plannedTokens = of('proxyaccount_bearer_token').map((a) => ({ username: a.username, label: a.label, expiresAt: a.expires_at, active: a.active }));
      const key = (t: { username: unknown; label: unknown }): string => `${String(t.username)}/${String(t.label)}`;
      expect(plannedTokens.sort((a, b) => key(a).localeCompare(key(b)))).toEqual(tokens.sort((a, b) => key(a).localeCompare(key(b))));
    } finally {
      ws.dispose();
    }
  });

  it('`cdktf synth` with the root cdktf.json writes the same stack, with the provider block', async () => {
    const outDir = path.join(tmp, 'cli.out');
    // Offline: CHECKPOINT_DISABLE turns off cdktf's telemetry and Terraform's checkpoint calls,
    // DISABLE_VERSION_CHECK the CLI's npm version check; CDKTF_HOME keeps it out of ~/.cdktf.
    const res = await run(CDKTF_CLI, ['synth', '--output', outDir], {
      cwd: REPO,
      env: cleanEnv({ CHECKPOINT_DISABLE: '1', DISABLE_VERSION_CHECK: 'true', CDKTF_HOME: path.join(tmp, 'cdktf-home') }),
    });
    if (res.code !== 0) throw new Error(`cdktf synth exited ${res.code}:\n${res.stdout}\n${res.stderr}`);
    expect(res.stdout).toMatch(/Generated Terraform code for the stacks: roster/);

    const stackFile = path.join(outDir, 'stacks', 'roster', 'cdk.tf.json');
    expect(fs.existsSync(stackFile)).toBe(true);
    const stack = JSON.parse(fs.readFileSync(stackFile, 'utf8')) as StackJson;
    expect(stack.terraform?.required_providers?.proxyaccount?.source).toBe('proxyaccount/proxyaccount');
    expect(stack.terraform?.required_providers?.proxyaccount?.version).toEqual(expect.any(String));
    expect(stack.provider).toHaveProperty('proxyaccount');
    expect(Object.keys(stack.resource ?? {})).toContain('proxyaccount_sub_account');

    // The CLI runs the same app as the demo and `npm run synth`: the same stack.
    const direct = await synthWithApp(path.join(tmp, 'direct.out'));
    expect(stack).toEqual(direct);
  });

  /** Runs the app of the root cdktf.json on a roster file `name` holding `text`. */
  async function runWith(name: string, text: string): Promise<Run> {
    const { app } = JSON.parse(fs.readFileSync(path.join(REPO, 'cdktf.json'), 'utf8')) as { app: string };
    const file = path.join(tmp, name);
    fs.writeFileSync(file, text);
    return run(app, [], { cwd: REPO, env: cleanEnv({ CDKTF_OUTDIR: path.join(tmp, `${name}.out`), ROSTER_FILE: file }), shell: true });
  }

  /** What the app says when it refuses the roster file `name` holding `text` (after checking that it exits 1). */
  async function refusal(name: string, text: string): Promise<string> {
    const res = await runWith(name, text);
    expect(res.code).toBe(1);
    return res.stderr.trim();
  }

  it('refuses a roster file with a key written twice, naming it: JSON.parse alone would keep the last value silently', async () => {
    const json =
      '{ "teams": [ { "name": "ops", "members": [\n' +
      '  { "username": "ada", "tokens": [ { "label": "ci" } ] },\n' +
      '  { "username": "bob", "active": true, "note\\"s": 1, "active" : false } ] } ] }\n';
    expect(await refusal('twice.json', json)).toBe(
      `${path.relative(REPO, path.join(tmp, 'twice.json'))} is not a valid roster: ` +
        'the key "active" is written twice in teams[0].members[1], and only the last would count: keep one',
    );
    expect(await refusal('top.json', '{ "teams": [], "accessList": "additive", "teams": [] }')).toMatch(
      /the key "teams" is written twice in the top-level object/,
    );
    // The same key in different objects is no repetition.
    const apart = await runWith(
      'apart.json',
      '{ "teams": [ { "name": "a", "members": [ { "username": "ada", "active": true } ] },' +
        ' { "name": "b", "members": [ { "username": "bob", "active": false, "tokens": [ { "label": "a", "active": true } ] } ] } ] }',
    );
    expect(apart).toMatchObject({ code: 0, stderr: '' });
    expect(await refusal('twice.yaml', 'teams:\n  - name: ops\n    members:\n      - username: ada\n        active: true\n        active: false\n')).toMatch(
      /twice\.yaml is not valid YAML: Map keys must be unique/,
    );
  });

  it("refuses a roster file spelling a token marker, naming where: the synth would replace it by another resource's value", async () => {
    // `${TfToken[TOKEN.4]}` and the number are what cdktf makes of references (the number: a
    // variable's numberValue); in a file they are text, and the app must never take them for references.
    const json = JSON.stringify({
      accessList: 'authoritative',
      teams: [
        {
          name: 'ops',
          members: [
            { username: 'ada', tokens: [{ label: 'laptop' }] },
            // biome-ignore lint/suspicious/noTemplateCurlyInString: cdktf's token marker, written as text in a file
            { username: 'eve', ips: [{ ip: '203.0.113.9', label: '${TfToken[TOKEN.4]}' }] },
          ],
        },
      ],
    });
    const why =
      "which the synth would replace by another resource's value (a bearer token's, say): roster data is literal, " +
      'so references must come from code, with the AccountRoster prop allowReferences, or be declared in code';
    expect(await refusal('forged.json', json)).toBe(
      `${path.relative(REPO, path.join(tmp, 'forged.json'))} is not a valid roster (1 problem):\n` +
        `  - teams[0].members[1].ips[0].label: holds a token marker (got "\${TfToken[TOKEN.4]}"), ${why}`,
    );
    expect(fs.existsSync(path.join(tmp, 'forged.json.out', 'stacks'))).toBe(false);
    const yaml = 'teams:\n  - name: ops\n    members:\n      - username: eve\n        monthlyLimitGb: -8.1095622125914335e+298\n';
    expect(await refusal('forged.yaml', yaml)).toMatch(
      /^\S*forged\.yaml is not a valid roster \(1 problem\):\n {2}- teams\[0\]\.members\[0\]\.monthlyLimitGb: holds a token marker \(got -8\.1095622125914335e\+298\), /,
    );
  });

  it('keeps the state outside cdktf.out: the local backend path leads to examples/cdktf-roster/.state', async () => {
    const outDir = path.join(tmp, 'state.out');
    const stack = await synthWithApp(outDir);
    const backendPath = stack.terraform?.backend?.local?.path ?? '';
    expect(path.isAbsolute(backendPath)).toBe(false); // the synthesized JSON holds no machine's absolute path
    const resolved = path.resolve(outDir, 'stacks', 'roster', backendPath);
    expect(resolved).toBe(DEFAULT_STATE);
    expect(path.relative(outDir, resolved).startsWith('..')).toBe(true);
  });

  it('the same app on CDK Terrain (`run.js --cdktn`) synthesizes the same stack and plans it offline', async () => {
    if (!fs.existsSync(CDKTN_BUILD)) {
      throw new Error(
        `This test needs the cdktn build of the constructs (${path.relative(REPO, CDKTN_BUILD)}): run \`npm run test:constructs\` ` +
          '(or `npm ci --prefix constructs/cdktn && npm run build:cdktn --prefix constructs`) first.',
      );
    }
    const [cdktf, cdktn] = await Promise.all([synthWithApp(path.join(tmp, 'tf.out')), synthWithApp(path.join(tmp, 'tn.out'), ['--cdktn'])]);
    expect(cdktf['//']?.metadata?.version).toMatch(/^0\.21\./);
    expect(cdktn['//']?.metadata?.version).toMatch(/^0\.24\./); // cdktn's own version: the stack really came from cdktn
    expect(withoutMetadata(cdktn)).toEqual(withoutMetadata(cdktf));

    const ws = new Workspace({ env: account.env });
    try {
      ws.write('cdk.tf.json', JSON.stringify({ ...cdktn, terraform: { ...cdktn.terraform, backend: undefined } }));
      await ws.init();
      const plan = await ws.expect(['plan', '-no-color', '-input=false']);
      const total = plannedTotal(expectedSubAccounts(ROSTER_FILE));
      expect(plan.stdout).toContain(`Plan: ${total} to add, 0 to change, 0 to destroy.`);
    } finally {
      ws.dispose();
    }
  });

  it('the offline CLI loop: `npm run cdktf:diff`, `cdktf:deploy`, `cdktf:destroy` from a filesystem mirror, state outside cdktf.out', async () => {
    const expected = expectedSubAccounts(ROSTER_FILE);
    const outDir = path.join(tmp, 'loop.out');
    const stateFile = path.join(tmp, 'loop-state', 'terraform.tfstate');
    // The mirror and its CLI configuration come from a Workspace; the CLI runs in the repository.
    const ws = new Workspace({ env: account.env });
    try {
      const env = {
        ...Object.fromEntries(Object.entries(ws.env).filter(([k]) => !k.startsWith('CDKTF_') && !k.startsWith('ROSTER_'))),
        DISABLE_VERSION_CHECK: 'true',
        CDKTF_HOME: path.join(tmp, 'cdktf-home'),
        ROSTER_STATE_FILE: stateFile,
        // npm and the cdktf CLI run on Node, whichever provider build the suite tests (the
        // single-executable run takes Node off the workspace's PATH).
        PATH: process.env.PATH,
      };
      const npm = async (script: string, ...args: string[]): Promise<Run> => {
        const res = await run('npm', ['run', '--silent', script, '--', '--output', outDir, ...args], { cwd: REPO, env });
        if (res.code !== 0) throw new Error(`npm run ${script} exited ${res.code}:\n${res.stdout}\n${res.stderr}`);
        // cdktf passes Terraform's colours through.
        return { ...res, stdout: res.stdout.replace(/\x1b\[[0-9;]*[A-Za-z]/g, '') };
      };
      const before = await accountSnapshot(account.em);

      // Why the scripts pass --skip-provider-lock: without it cdktf runs `terraform providers lock`,
      // which asks registry.terraform.io for the provider (unreachable offline, unpublished online).
      const locked = await run(CDKTF_CLI, ['diff', '--output', path.join(tmp, 'lock.out')], { cwd: REPO, env });
      expect(locked.code).not.toBe(0);
      expect(`${locked.stdout}${locked.stderr}`).toContain('Could not retrieve providers for locking');

      const diff = await npm('cdktf:diff');
      expect(diff.stdout).toContain(`Plan: ${plannedTotal(expected)} to add, 0 to change, 0 to destroy.`);
      expect(await accountSnapshot(account.em)).toEqual(before);
      // cdktf saved its plan there (it holds the state's secrets in clear); the loop removed it.
      expect(diff.stderr).toContain('removed the saved plan');
      expect(fs.existsSync(path.join(outDir, 'stacks', 'roster', 'plan'))).toBe(false);

      await npm('cdktf:deploy', '--auto-approve');
      const state = JSON.parse(fs.readFileSync(stateFile, 'utf8')) as { resources: Array<{ type: string }> };
      expect(state.resources.filter((r) => r.type === 'proxyaccount_sub_account')).toHaveLength(expected.length);
      expect(fs.existsSync(path.join(outDir, 'stacks', 'roster', 'terraform.tfstate'))).toBe(false);
      const made = await Promise.all(expected.map((e) => account.client.subAccounts.get(e.username)));
      expect(made.map((s) => s.username)).toEqual(expected.map((e) => e.username));

      const again = await npm('cdktf:diff');
      expect(again.stdout).toMatch(/No changes/);
      // After a deploy the saved plan holds the new tokens' values: removed too.
      expect(fs.existsSync(path.join(outDir, 'stacks', 'roster', 'plan'))).toBe(false);

      await npm('cdktf:destroy', '--auto-approve');
      expect(await accountSnapshot(account.em)).toEqual(before);
    } finally {
      ws.dispose();
    }
  }, 300_000);
});

/** How many resources the roster makes: sub-accounts, their lists or entries, and tokens. */
function plannedTotal(expected: Expected[]): number {
  const authoritative = expected.filter((e) => e.authoritative);
  const additive = expected.filter((e) => !e.authoritative);
  const additiveIps = additive.reduce((n, e) => n + Object.keys(e.ips).length, 0);
  const additiveHostnames = additive.reduce((n, e) => n + e.hostnames.length, 0);
  const tokens = expected.reduce((n, e) => n + e.tokens.length, 0);
  return expected.length + 2 * authoritative.length + additiveIps + additiveHostnames + tokens;
}

/** The stack without its `//` metadata block, which names the library and its version. */
function withoutMetadata(stack: StackJson): StackJson {
  const { '//': _metadata, ...rest } = stack;
  return rest;
}

function byUsername(a: { username: unknown }, b: { username: unknown }): number {
  return String(a.username).localeCompare(String(b.username));
}
