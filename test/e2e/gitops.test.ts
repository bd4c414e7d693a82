// The GitOps commands with the real terraform against the emulator: `review` of a saved plan
// (per account, attention first, other providers counted, never a secret, exit codes), `drift`
// (attribute drift, out-of-band delete, unmanaged objects; none; bad credentials) and `export`
// round trips in both formats (HCL, and a roster file through the CDKTF example app) and both list
// styles (the plan shows only imports; after apply it is empty; renaming an adopted sub-account
// replaces its objects into the renamed one).
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { startAccount, requestLogOf, type E2eAccount } from './helpers/account';
import { expectNoChanges, planCounts } from './helpers/steps';
import type { Workspace } from './helpers/terraform';

jest.setTimeout(240_000);

const CLI = path.resolve(__dirname, '..', '..', 'bin', 'proxyaccount.js');
const EXAMPLE_APP = path.resolve(__dirname, '..', '..', 'examples', 'cdktf-roster', 'run.js');
const ALICE_PASSWORD = 'alice-secret-password-e2e';
let account: E2eAccount;
let ws: Workspace;

/** Runs the proxyaccount CLI; never throws on exit codes. */
function cli(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { env: { ...env, CI: '1' }, maxBuffer: 64 << 20 }, (err, stdout, stderr) => {
      resolve({ code: err === null ? 0 : Number((err as { code?: number }).code ?? 1), stdout: String(stdout), stderr: String(stderr) });
    });
  });
}

function configV1(): string {
  return `
resource "proxyaccount_sub_account" "alice" {
  username      = "gitops-alice"
  password      = "${ALICE_PASSWORD}"
  monthly_limit = 50
}

resource "proxyaccount_sub_account" "bob" {
  username = "gitops-bob"
}

resource "proxyaccount_authorized_ip" "alice_office" {
  ip       = "203.0.113.7"
  label    = "office"
  username = proxyaccount_sub_account.alice.username
}

resource "proxyaccount_authorized_hostnames" "bob" {
  username = proxyaccount_sub_account.bob.username
  domains  = ["ci.example.com", "build.example.com"]
}

resource "proxyaccount_bearer_token" "deploy" {
  label    = "deploy"
  username = proxyaccount_sub_account.alice.username
}

resource "terraform_data" "other" {
  input = "v1"
}
`;
}

beforeAll(async () => {
  account = await startAccount();
  ws = await account.workspace();
  ws.config(configV1());
  await ws.apply();
});

afterAll(async () => {
  await account?.stop();
});

describe('proxyaccount review', () => {
  let planFile: string;
  let tokenValue: string;

  beforeAll(async () => {
    const state = JSON.parse(ws.read('terraform.tfstate')) as { resources: Array<{ type: string; instances: Array<{ attributes: { token?: string } }> }> };
    tokenValue = state.resources.find((r) => r.type === 'proxyaccount_bearer_token')!.instances[0]!.attributes.token!;
    expect(tokenValue).toMatch(/^pxa_/);
    const v2 = configV1()
      .replace('monthly_limit = 50', 'monthly_limit = 100')
      .replace(/resource "proxyaccount_sub_account" "bob" \{[^}]*\}/, '')
      .replace(/resource "proxyaccount_authorized_hostnames" "bob" \{[^}]*\}/, '')
      .replace('label    = "deploy"', 'label    = "deploy-v2"')
      .replace('input = "v1"', 'input = "v2"');
    ws.config(`${v2}\nresource "proxyaccount_authorized_ip" "parent_vpn" {\n  ip = "198.51.100.20"\n}\n`);
    planFile = path.join(ws.dir, 'review.tfplan');
    await ws.expect(['plan', '-no-color', '-input=false', `-out=${planFile}`]);
  });

  it('groups by account in domain words, puts risky changes first, counts other providers, and exits 2', async () => {
    const res = await cli(['review', planFile, '--format', 'json', '--dir', ws.dir], ws.env);
    expect(res.code).toBe(2);
    const review = JSON.parse(res.stdout) as {
      summary: Record<string, number>;
      accounts: Array<{ account: string; changes: Array<{ address: string; action: string; description: string }> }>;
      attention: Array<{ kind: string; address: string }>;
      other_resources: string[];
    };
    expect(review.summary).toEqual({ add: 2, change: 2, destroy: 3, replace: 1, import: 0, forget: 0 });
    expect(review.accounts.map((a) => a.account)).toEqual(['(parent)', 'gitops-alice', 'gitops-bob']);
    const alice = review.accounts.find((a) => a.account === 'gitops-alice')!.changes.map((c) => c.description);
    expect(alice).toEqual(expect.arrayContaining(['monthly limit 50 GB → 100 GB', "token 'deploy' → 'deploy-v2' replaced, forced by a change of label"]));
    expect(review.attention.map((a) => a.kind).sort()).toEqual(['list_removes_entries', 'parent_access_opened', 'sub_account_deleted', 'token_replaced']);
    expect(review.other_resources).toEqual(['terraform_data.other']);
  });

  it('never shows a secret in any format, and --fail-on attention exits 3', async () => {
    for (const format of ['markdown', 'json']) {
      const res = await cli(['review', planFile, '--format', format, '--dir', ws.dir, '--fail-on', 'attention'], ws.env);
      expect(res.code).toBe(3);
      expect(res.stdout).not.toContain(ALICE_PASSWORD);
      expect(res.stdout).not.toContain(tokenValue);
      expect(res.stdout).not.toContain(account.env.PROXYACCOUNT_PASSWORD!);
    }
    const md = await cli(['review', planFile, '--dir', ws.dir], ws.env);
    expect(md.stdout).toMatch(/### ⚠️ Needs attention[\s\S]*sub_account_deleted[\s\S]*### gitops-alice/);
    // The plan's own JSON carries the secrets in clear: the review is what keeps them out.
    const show = await ws.expect(['show', '-json', planFile]);
    expect(show.stdout).toContain(ALICE_PASSWORD);
    fs.writeFileSync(path.join(ws.dir, 'plan.json'), show.stdout);
    const fromJson = await cli(['review', path.join(ws.dir, 'plan.json'), '--format', 'json'], ws.env);
    expect(fromJson.stdout).not.toContain(ALICE_PASSWORD);
  });

  it('refuses a plan whose planning failed (terraform saves it all the same) with exit 1; drift --plan reports it incomplete (exit 3)', async () => {
    // The only change fails its precondition: the saved plan holds no-ops alone, which read whole was "No changes".
    const failing =
      'resource "proxyaccount_authorized_ip" "gated" {\n  ip = "203.0.113.99"\n  lifecycle {\n    precondition {\n' +
      '      condition     = proxyaccount_sub_account.alice.monthly_limit > 1000\n      error_message = "gated"\n    }\n  }\n}\n';
    ws.config(configV1(), failing);
    const erroredPlan = path.join(ws.dir, 'errored.tfplan');
    const planned = await ws.expect(['plan', '-no-color', '-input=false', `-out=${erroredPlan}`], [1]);
    expect(planned.stderr).toContain('Resource precondition failed');
    expect(fs.existsSync(erroredPlan)).toBe(true);
    const review = await cli(['review', erroredPlan, '--dir', ws.dir], ws.env);
    expect(review.code).toBe(1);
    expect(review.stdout).toBe('');
    expect(review.stderr).toMatch(
      /^proxyaccount: the plan is incomplete because planning failed: .*Fix the errors `terraform plan` reported, then plan again\n$/,
    );
    const drift = await cli(['drift', '--dir', ws.dir, '--plan', erroredPlan, '--no-scan', '--format', 'json'], ws.env);
    expect(drift.code).toBe(3);
    const report = JSON.parse(drift.stdout) as { drifted: boolean; complete: boolean; incomplete: string[] };
    expect(report).toEqual(expect.objectContaining({ drifted: false, complete: false }));
    expect(report.incomplete).toEqual([expect.stringMatching(/^the plan is incomplete because planning failed/)]);
  });
});

describe('proxyaccount drift', () => {
  beforeAll(async () => {
    // Back to v1, then a colleague changes things in the dashboard.
    ws.config(configV1());
    await ws.apply();
    await account.client.subAccounts.edit({ username: 'gitops-alice', monthlyLimit: 75 });
    await account.client.ips.delete({ ip: '203.0.113.7', username: 'gitops-alice' });
    await account.client.ips.add({ ip: '192.0.2.99', label: 'who added this?', username: 'gitops-alice' });
    await account.client.hostnames.add({ domain: 'extra.example.com', username: 'gitops-bob' });
  });

  it('reports attribute drift, the out-of-band delete and the unmanaged IP, and exits 2', async () => {
    const res = await cli(['drift', '--dir', ws.dir, '--format', 'json'], ws.env);
    expect(res.code).toBe(2);
    const report = JSON.parse(res.stdout) as {
      drifted: boolean;
      changed: Array<{ address: string; attribute: string; recorded: unknown; live: unknown }>;
      deleted: Array<{ address: string }>;
      unmanaged: Array<{ account: string; kind: string; value: string; label: string }>;
      limits: string[];
    };
    expect(report.drifted).toBe(true);
    expect(report.changed).toEqual(expect.arrayContaining([{ address: 'proxyaccount_sub_account.alice', attribute: 'monthly_limit', recorded: 50, live: 75 }]));
    expect(report.changed.some((c) => c.address === 'proxyaccount_authorized_hostnames.bob' && c.attribute === 'domains')).toBe(true);
    expect(report.deleted).toEqual([expect.objectContaining({ address: 'proxyaccount_authorized_ip.alice_office' })]);
    expect(report.unmanaged).toEqual([{ account: 'gitops-alice', kind: 'ip', value: '192.0.2.99', label: 'who added this?' }]);
    expect(report.limits.join(' ')).toMatch(/cannot list sub-accounts/);
    expect(res.stdout).not.toContain(ALICE_PASSWORD);
    expect(res.stderr).toMatch(/scanning IPs of gitops-alice/);
  });

  it('exits 0 once the account matches the code again', async () => {
    await account.client.ips.delete({ ip: '192.0.2.99', username: 'gitops-alice' });
    await ws.apply();
    const res = await cli(['drift', '--dir', ws.dir], ws.env);
    expect(res.stdout).toMatch(/No drift/);
    expect(res.code).toBe(0);
  });

  it('with a wrong password sends one request, gets one 401 and fails clearly', async () => {
    const { result: res, lines } = await requestLogOf(account, () =>
      cli(['drift', '--dir', ws.dir, '--plan', path.join(ws.dir, 'plan.json')], { ...ws.env, PROXYACCOUNT_PASSWORD: 'wrong-password-e2e' }),
    );
    expect(res.code).toBe(1);
    expect(lines.filter((l) => / 401 /.test(l))).toHaveLength(1);
    expect(lines).toHaveLength(1);
    expect(res.stderr).toMatch(/401/);
    expect(res.stderr).not.toContain('wrong-password-e2e');
  });
});

describe('proxyaccount export', () => {
  it.each(['per-entry', 'authoritative'])(
    'writes configuration that %s adoption plans as imports only, then applies to an empty plan; a renamed sub-account takes its objects along',
    async (lists) => {
      // A sub-account of this case alone, renamed below: its IP, hostname and token must follow it.
      const renamed = `gitops-ren-${lists === 'per-entry' ? 'pe' : 'au'}`;
      await account.client.subAccounts.create({ username: renamed });
      await account.client.ips.add({ ip: '198.51.100.40', label: 'laptop', username: renamed });
      await account.client.hostnames.add({ domain: 'ren.example.com', username: renamed });
      await account.client.tokens.create({ label: 'ci', username: renamed });
      const out = await account.workspace();
      const res = await cli(
        ['export', '--out', out.dir, '--sub-account', 'gitops-alice', '--sub-account', 'gitops-bob', '--sub-account', renamed, '--lists', lists],
        out.env,
      );
      expect(res.code).toBe(0);
      expect((await out.run(['fmt', '-check', '-no-color'])).code).toBe(0);
      const plan = await out.expect(['plan', '-no-color', '-input=false']);
      expect(plan.stdout).toMatch(/Plan: \d+ to import, 0 to add, 0 to change, 0 to destroy/);
      await out.apply();
      await expectNoChanges(out);
      // The import blocks have done their job: the docs say to delete them, and the plan stays empty.
      fs.rmSync(path.join(out.dir, 'imports.tf'));
      await expectNoChanges(out);

      // Renamed in its own block only, as a user would: each child names it by reference, so the
      // plan replaces the IP, hostname and token into the renamed account (the API deletes them with
      // the old one), and applying it leaves them there.
      const tf = out.read('account.tf');
      const literal = new RegExp(`(username\\s+= )"${renamed}"`, 'g');
      expect(tf.match(literal)).toHaveLength(1);
      out.write('account.tf', tf.replace(literal, `$1"${renamed}2"`));
      const rename = await out.expect(['plan', '-no-color', '-input=false']);
      expect(planCounts(rename.stdout)).toEqual({ import: 0, add: 4, change: 0, destroy: 4 });
      await out.apply();
      await expectNoChanges(out);
      const moved = { username: `${renamed}2` };
      expect(await account.client.ips.list(moved)).toEqual(['198.51.100.40']);
      expect(await account.client.hostnames.list(moved)).toEqual(['ren.example.com']);
      expect((await account.client.tokens.list(moved)).map((t) => t.label)).toEqual(['ci']);
    },
  );
});

/** Synthesizes the CDKTF example app (examples/cdktf-roster) for `rosterFile`; returns its stack JSON. */
function synthRoster(rosterFile: string, outDir: string): Promise<string> {
  return new Promise((resolve, reject) => {
    // The state stays in the workspace the stack is copied to (the app's default is beside its sources).
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      ROSTER_FILE: rosterFile,
      CDKTF_OUTDIR: outDir,
      ROSTER_STATE_FILE: 'terraform.tfstate',
    };
    execFile(process.execPath, [EXAMPLE_APP], { env, maxBuffer: 64 << 20 }, (err, _stdout, stderr) => {
      if (err) return reject(new Error(`the example app failed on ${rosterFile}:\n${String(stderr)}`));
      resolve(fs.readFileSync(path.join(outDir, 'stacks', 'roster', 'cdk.tf.json'), 'utf8'));
    });
  });
}

describe('proxyaccount export --format roster', () => {
  beforeAll(async () => {
    // The parent's own lists and a labelled token go into the roster's parent section.
    await account.client.ips.add({ ip: '198.51.100.9', label: 'vpn' });
    await account.client.hostnames.add({ domain: 'parent.example.com' });
    await account.client.proxies.add('us-ny');
    await account.client.tokens.create({ label: 'parent-ci' });
  });

  it.each(['per-entry', 'authoritative'])('writes a roster whose CDKTF stack (%s lists) plans imports only, then applies to an empty plan', async (lists) => {
    // Things a roster cannot hold must be told, not dropped: a parent token without a label.
    const unlabelled = await account.client.tokens.create({});
    const out = await account.workspace();
    const res = await cli(
      ['export', '--format', 'roster', '--out', path.join(out.dir, 'export'), '--sub-account', 'gitops-alice', '--sub-account', 'gitops-bob', '--lists', lists],
      out.env,
    );
    await account.client.tokens.delete({ id: unlabelled.id });
    expect(res.code).toBe(0);
    expect(res.stderr).toContain(`not in the roster: token ${unlabelled.id} of the parent account: it has no label`);
    const rosterFile = path.join(out.dir, 'export', 'roster.yaml');
    const text = fs.readFileSync(rosterFile, 'utf8');
    expect(text).not.toContain(ALICE_PASSWORD);
    expect(text).toContain(`token ${unlabelled.id} of the parent account`);

    // The roster replaces main.tf: the stack brings its own required_providers and backend.
    out.remove('main.tf');
    out.write('cdk.tf.json', await synthRoster(rosterFile, path.join(out.dir, 'cdktf.out')));
    await out.init();
    const plan = await out.expect(['plan', '-no-color', '-input=false']);
    const counts = /Plan: (\d+) to import, 0 to add, 0 to change, 0 to destroy/.exec(plan.stdout);
    if (counts === null) throw new Error(`expected a plan of imports only, got:\n${plan.stdout}`);
    // Both sub-accounts, their lists or entries, alice's token; nothing of the account left out.
    const imports = (plan.stdout.match(/will be imported/g) ?? []).length;
    expect(imports).toBe(Number(counts?.[1]));
    expect(plan.stdout).toMatch(/proxyaccount_sub_account\.Roster_gitops-alice_\w+ will be imported/);
    expect(plan.stdout).toMatch(/proxyaccount_bearer_token\.Roster_gitops-alice_Token-deploy_\w+ will be imported/);
    expect(plan.stdout).toMatch(/proxyaccount_bearer_token\.Roster__Parent_Token-parent-ci_\w+ will be imported/);
    const parentLists =
      lists === 'authoritative'
        ? ['authorized_ips', 'authorized_hostnames', 'authorized_proxies']
        : ['authorized_ip', 'authorized_hostname', 'authorized_proxy'];
    for (const type of parentLists) expect(plan.stdout).toMatch(new RegExp(`proxyaccount_${type}\\.Roster__Parent_\\S+ will be imported`));
    await out.apply();
    await expectNoChanges(out);
  });
});
