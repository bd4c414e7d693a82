// `proxyaccount drift` with the real terraform, where the plan's own JSON decides: a provider alias
// for a second account (directly and through a module's `providers` map) is not merged into the
// scanned account, and its account not scanned leaves the check incomplete until --provider says
// it is checked elsewhere; a provider block naming another account is refused; a username that is
// exactly one variable is resolved, and one with text around the variable (the same references in
// the plan's JSON) is not; changes of the code not applied yet (drift "accepted" with
// `apply -refresh-only`) are drift, a plan that did not refresh (TF_CLI_ARGS_plan, or given) does
// not hide an object deleted outside Terraform, and an account whose plan has no bearer tokens
// gets the rest of its scan and exit 3, never a clean 0.
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ProxyAccountClient } from '../../src/sdk';
import { type RunningEmulator, startEmulator } from '../helpers/emulator';
import { Workspace } from './helpers/terraform';

jest.setTimeout(240_000);

const CLI = path.resolve(__dirname, '..', '..', 'bin', 'proxyaccount.js');
const ACME = { username: 'e2e-acme', password: 'e2e-acme-password' } as const;
const OTHER = { username: 'e2e-other', password: 'e2e-other-password' } as const;
const TRIAL = { username: 'e2e-trial', password: 'e2e-trial-password' } as const;
/** An account of its own for a workspace of its own: one state per account. */
const TEAM = { username: 'e2e-team', password: 'e2e-team-password' } as const;

let em: RunningEmulator;
let acme: ProxyAccountClient;
let ws: Workspace;

/** Runs the proxyaccount CLI; never throws on exit codes. */
function cli(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { env: { ...env, CI: '1' }, maxBuffer: 64 << 20 }, (err, stdout, stderr) => {
      resolve({ code: err === null ? 0 : Number((err as { code?: number }).code ?? 1), stdout: String(stdout), stderr: String(stderr) });
    });
  });
}

const ALIAS = `
provider "proxyaccount" {}
provider "proxyaccount" {
  alias    = "other"
  username = "${OTHER.username}"
  password = "${OTHER.password}"
}
resource "proxyaccount_authorized_ips" "acme" {
  entries = [{ ip = "203.0.113.60" }]
}
resource "proxyaccount_authorized_ip" "other_office" {
  provider = proxyaccount.other
  ip       = "198.51.100.77"
}
module "viaother" {
  source    = "./mod"
  providers = { proxyaccount = proxyaccount.other }
}
`;

const MODULE = `
terraform {
  required_providers {
    proxyaccount = { source = "proxyaccount/proxyaccount" }
  }
}
resource "proxyaccount_authorized_hostname" "h" {
  domain = "other.example.com"
}
`;

beforeAll(async () => {
  em = await startEmulator({
    accounts: {
      accounts: [
        { ...ACME, plan: 'plan50' },
        { ...OTHER, plan: 'plan50' },
        { ...TRIAL, plan: 'trial' },
        { ...TEAM, plan: 'plan50' },
      ],
    },
  });
  acme = new ProxyAccountClient({ baseUrl: em.url, auth: { ...ACME }, dispatcher: em.dispatcher, maxRetries: 0 });
  ws = new Workspace({ env: { PROXYACCOUNT_BASE_URL: em.url, PROXYACCOUNT_CA_CERT_FILE: em.caFile, ...envOf(ACME) } });
  fs.mkdirSync(path.join(ws.dir, 'mod'));
  ws.write('mod/main.tf', MODULE);
  ws.config(ALIAS);
  await ws.init();
  await ws.apply();
});

afterAll(async () => {
  ws?.dispose();
  await acme?.close();
  await em?.stop();
});

function envOf(account: { username: string; password: string }): NodeJS.ProcessEnv {
  return { PROXYACCOUNT_USERNAME: account.username, PROXYACCOUNT_PASSWORD: account.password };
}

describe('proxyaccount drift and provider configurations', () => {
  it("reports the alias's objects added to the scanned account as drift, and the alias's account as not scanned", async () => {
    await acme.ips.add({ ip: '198.51.100.77', label: 'backdoor' });
    await acme.hostnames.add({ domain: 'other.example.com' });
    try {
      const res = await cli(['drift', '--dir', ws.dir, '--format', 'json'], ws.env);
      expect({ code: res.code, stderr: res.code === 2 ? '' : res.stderr }).toEqual({ code: 2, stderr: '' });
      const report = JSON.parse(res.stdout) as { changed: unknown; unmanaged: Array<{ value: string }>; not_scanned: unknown };
      // The hostname the alias manages in the other account is not managed in this one; the IP is
      // an entry acme's authoritative list does not declare.
      expect(report.unmanaged.map((u) => u.value)).toEqual(['other.example.com']);
      expect(report.changed).toEqual([expect.objectContaining({ address: 'proxyaccount_authorized_ips.acme', attribute: 'entries' })]);
      expect(report.not_scanned).toEqual([{ provider: 'proxyaccount.other', resources: 2 }]);
      expect(res.stdout).not.toContain(OTHER.password);
    } finally {
      await acme.ips.delete({ ip: '198.51.100.77' });
      await acme.hostnames.delete({ domain: 'other.example.com' });
    }
  });

  it("a clean run exits 3 while the alias's account is not scanned, and 0 once --provider says it is checked elsewhere", async () => {
    const implicit = await cli(['drift', '--dir', ws.dir], ws.env);
    expect(implicit.code).toBe(3);
    expect(implicit.stdout).toMatch(/### Not checked \(1\)\n\n- 2 resources of provider configuration proxyaccount\.other: its account was not scanned/);
    const told = await cli(['drift', '--dir', ws.dir, '--provider', 'proxyaccount'], ws.env);
    expect(told.code).toBe(0);
    expect(told.stdout).toContain('**No drift: the account of provider configuration `proxyaccount` matches the code.**');
    expect(told.stdout).toContain('### Not checked here (1)\n\n- 2 resources of provider configuration `proxyaccount.other`');
  });

  it("refuses a provider block naming another account than the environment's, before scanning", async () => {
    // The environment names acme; --provider selects the alias, whose block names e2e-other.
    const res = await cli(['drift', '--dir', ws.dir, '--provider', 'proxyaccount.other'], ws.env);
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(
      /provider configuration proxyaccount\.other \(selected with --provider\): its username names another account than PROXYACCOUNT_USERNAME/,
    );
    expect(res.stderr).not.toMatch(/scanning/);
    expect(res.stderr).not.toContain(OTHER.password);
  });

  it('a plan that did not refresh does not hide an IP deleted outside Terraform: drift refreshes its own plan, and its scan checks a given one', async () => {
    await acme.ips.delete({ ip: '203.0.113.60' });
    try {
      // A CI's settings for its PR plans reach drift's own plan too (a speed-up, a destroy job's flag,
      // exit codes for a script); drift's own flags win (seen here without the scan).
      const own = await cli(['drift', '--dir', ws.dir, '--no-scan', '--format', 'json'], {
        ...ws.env,
        TF_CLI_ARGS_plan: '-refresh=false -destroy -detailed-exitcode',
      });
      expect({ code: own.code, stderr: own.code === 2 ? '' : own.stderr }).toEqual({ code: 2, stderr: '' });
      const ownReport = JSON.parse(own.stdout) as { changed: unknown[]; pending: Array<{ kind: string }> };
      expect(ownReport.changed).toEqual([expect.objectContaining({ address: 'proxyaccount_authorized_ips.acme', attribute: 'entries' })]);
      expect(ownReport.pending.map((p) => p.kind)).not.toContain('delete');
      // A plan made with -refresh=false, given with --plan: no drift in it, and the scan finds the entry gone.
      await ws.expect(['plan', '-refresh=false', '-input=false', '-no-color', '-out=norefresh.tfplan']);
      const given = await cli(
        ['drift', '--dir', ws.dir, '--plan', path.join(ws.dir, 'norefresh.tfplan'), '--provider', 'proxyaccount', '--format', 'json'],
        ws.env,
      );
      expect({ code: given.code, stderr: given.code === 2 ? '' : given.stderr }).toEqual({ code: 2, stderr: '' });
      const report = JSON.parse(given.stdout) as { changed: unknown[]; deleted: unknown[] };
      expect(report.changed).toEqual([]);
      expect(report.deleted).toEqual([
        expect.objectContaining({
          address: 'proxyaccount_authorized_ips.acme',
          value: '203.0.113.60',
          reason: expect.stringMatching(/^this entry of the list was not found/),
        }),
      ]);
    } finally {
      await acme.ips.add({ ip: '203.0.113.60' });
      ws.remove('norefresh.tfplan');
    }
  });

  it('reports a change of the code not applied yet, after `apply -refresh-only` took the drift into the state', async () => {
    await acme.ips.add({ ip: '192.0.2.77', label: 'contractor' });
    await ws.expect(['apply', '-refresh-only', '-auto-approve', '-no-color', '-input=false']);
    const res = await cli(['drift', '--dir', ws.dir], ws.env);
    expect(res.code).toBe(2);
    expect(res.stdout).toContain('**The account differs from the code.**');
    expect(res.stdout).toMatch(/### Not applied: the code differs from the account \(1 change\)\n\n- `proxyaccount_authorized_ips\.acme`: .*192\.0\.2\.77/);
  });
});

describe('proxyaccount drift and a provider username built from a variable', () => {
  it('resolves `username = var.user`, and leaves a username with text around the variable unconfirmed: not a clean run', async () => {
    const vws = new Workspace({ env: { PROXYACCOUNT_BASE_URL: em.url, PROXYACCOUNT_CA_CERT_FILE: em.caFile, ...envOf(TEAM) } });
    try {
      // The plan's JSON says `references: ["var.prefix"]` for both spellings below.
      const config = (username: string): string =>
        `variable "prefix" {\n  default = "e2e-"\n}\nvariable "user" {\n  default = "${TEAM.username}"\n}\n` +
        `provider "proxyaccount" {\n  username = ${username}\n}\nresource "proxyaccount_authorized_ip" "office" {\n  ip = "192.0.2.31"\n}\n`;
      vws.config(config(`"$\{var.prefix}team"`));
      await vws.init();
      await vws.apply();
      const built = await cli(['drift', '--dir', vws.dir, '--format', 'json'], vws.env);
      expect(built.code).toBe(3);
      const report = JSON.parse(built.stdout) as { account_confirmed: boolean; incomplete: string[] };
      expect(report.account_confirmed).toBe(false);
      expect(report.incomplete).toEqual([
        expect.stringMatching(/^the scanned account could not be confirmed .*its username is an expression drift does not resolve/),
      ]);
      vws.config(config('var.user'));
      const bare = await cli(['drift', '--dir', vws.dir], vws.env);
      expect({ code: bare.code, verdict: /\*\*No drift: the account matches the code\.\*\*/.test(bare.stdout) }).toEqual({ code: 0, verdict: true });
    } finally {
      vws.dispose();
    }
  });
});

describe('proxyaccount drift on an account whose plan has no bearer tokens', () => {
  it('scans the rest and exits 3 when nothing else is found: not a clean report', async () => {
    const dir = fs.mkdtempSync(path.join(ws.dir, '..', 'trial-'));
    // A plan of an empty configuration: nothing to run terraform for.
    fs.writeFileSync(path.join(dir, 'plan.json'), JSON.stringify({ format_version: '1.2', resource_changes: [], configuration: { root_module: {} } }));
    const res = await cli(['drift', '--dir', dir, '--plan', path.join(dir, 'plan.json')], { ...ws.env, ...envOf(TRIAL) });
    expect(res.code).toBe(3);
    expect(res.stdout).toContain('**No drift found, but the check is incomplete (see "Not checked"): this is not a clean report.**');
    expect(res.stdout).toMatch(/- the tokens of the parent account could not be listed \(.*402 Payment Required/);
    expect(res.stderr).toMatch(/scanning proxies of \(parent\)/);
  });
});
