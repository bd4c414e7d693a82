// The ephemeral bearer token with the real Terraform (>= 1.10): it feeds a second provider alias
// that adds an IP; after apply (and after a plan alone) neither the state file nor
// `terraform show -json` holds a token value, and no ephemeral token is left in the account. A
// plan that fails after the open (Terraform then skips close) leaves none either: the provider
// deletes it when Terraform shuts it down. Signals as a CI runner's cancel sends them: SIGTERM to
// the whole process group leaves the token working until Terraform's graceful stop is done (the
// scoped provider's writes in flight read back with it), a token being created then is deleted
// too, and a SIGKILLed Terraform leaves no provider process behind holding one. A token left
// behind by a killed provider is removed by `proxyaccount tokens prune`.
import { type ChildProcessWithoutNullStreams, execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { EPHEMERAL_TOKEN_PREFIX } from '../../src/account';
import { PARENT, startAccount, type E2eAccount } from './helpers/account';
import { expectNoChanges } from './helpers/steps';
import { REQUIRED_PROVIDERS, type Workspace } from './helpers/terraform';

jest.setTimeout(180_000);

const CLI = path.resolve(__dirname, '..', '..', 'bin', 'proxyaccount.js');
const EXAMPLE = path.resolve(__dirname, '..', '..', 'examples', 'ephemeral-resources', 'proxyaccount_bearer_token', 'ephemeral-resource.tf');

/**
 * Configuration of an ephemeral token (`label`) opened with the account's credentials and a
 * provider alias `scoped` that authenticates with it; what uses `scoped` follows.
 */
function scopedByToken(label: string): string {
  return `${REQUIRED_PROVIDERS}
variable "username" {
  type = string
}
variable "password" {
  type      = string
  sensitive = true
}
provider "proxyaccount" {
  username = var.username
  password = var.password
}
ephemeral "proxyaccount_bearer_token" "ci" {
  label = "${label}"
}
provider "proxyaccount" {
  alias = "scoped"
  token = ephemeral.proxyaccount_bearer_token.ci.token
}
`;
}
let account: E2eAccount;
let ws: Workspace;
/** The provider's credentials come from variables here, so the token alias has no conflicting environment. */
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  account = await startAccount();
  env = { PROXYACCOUNT_USERNAME: '', PROXYACCOUNT_PASSWORD: '', TF_VAR_username: PARENT.username, TF_VAR_password: PARENT.password };
  ws = await account.workspace({ env });
  ws.config(fs.readFileSync(EXAMPLE, 'utf8'));
});

afterAll(async () => {
  await account?.stop();
});

async function ephemeralTokens(): Promise<string[]> {
  return (await account.client.tokens.list()).filter((t) => t.label.startsWith(EPHEMERAL_TOKEN_PREFIX)).map((t) => t.label);
}

/** Every raw token the account issued in this test's window would start with the service prefix. */
function holdsNoToken(text: string): void {
  expect(text).not.toMatch(/pxa_[A-Za-z0-9_-]{8,}/);
}

describe('ephemeral "proxyaccount_bearer_token"', () => {
  it('plan alone opens and closes it: no token remains, nothing is stored', async () => {
    const res = await ws.expect(['plan', '-no-color', '-input=false'], [0]);
    expect(res.stdout).toMatch(/ephemeral\.proxyaccount_bearer_token\.ci: (Opening|Opened)/);
    expect(await ephemeralTokens()).toEqual([]);
    holdsNoToken(res.stdout);
  });

  it('apply uses it to configure a second provider that adds an IP; the token is gone afterwards and never stored', async () => {
    const res = await ws.apply();
    expect(res.stdout).toMatch(/Closing|Closed/);
    expect((await account.client.ips.listWithLabels()).map((e) => `${e.ip} ${e.label}`)).toContain('203.0.113.50 ci runner');
    expect(await ephemeralTokens()).toEqual([]);
    holdsNoToken(ws.read('terraform.tfstate'));
    holdsNoToken((await ws.expect(['show', '-json', '-no-color'])).stdout);
    await expectNoChanges(ws);
  });

  it('a plan that fails after the open (Terraform skips close) leaves no token: the provider deletes it at shutdown', async () => {
    const failing = await account.workspace({ env });
    failing.write(
      'main.tf',
      `${scopedByToken('failing-run')}# Fails after the open: listing tokens needs username and password, not a token.
data "proxyaccount_bearer_tokens" "scoped" {
  provider = proxyaccount.scoped
}
`,
    );
    const res = await failing.run(['plan', '-no-color', '-input=false']);
    expect(res.code).toBe(1);
    expect(res.stdout).toMatch(/ephemeral\.proxyaccount_bearer_token\.ci: (Opening|Opened)/);
    expect(res.stdout).not.toMatch(/Closing|Closed/);
    expect(await ephemeralTokens()).toEqual([]);
  });

  it('a token whose close never ran (a killed provider) expires on its own and is deleted by tokens prune', async () => {
    const leftover = await account.client.tokens.create({
      label: `${EPHEMERAL_TOKEN_PREFIX}killed-run`,
      expiresAt: new Date(Date.now() + 86_400_000).toISOString().slice(0, 10),
    });
    expect(await ephemeralTokens()).toEqual([`${EPHEMERAL_TOKEN_PREFIX}killed-run`]);
    const res = await new Promise<{ code: number; stdout: string }>((resolve) =>
      execFile(
        process.execPath,
        [CLI, 'tokens', 'prune', '--older-than', '0s'],
        { env: { ...process.env, ...account.env, PROXYACCOUNT_AUTH_FAILURE_CACHE: 'off' } },
        (err, stdout) => resolve({ code: err === null ? 0 : 1, stdout: String(stdout) }),
      ),
    );
    expect(res.code).toBe(0);
    expect(res.stdout).toContain(`deleted token ${leftover.id}`);
    expect(await ephemeralTokens()).toEqual([]);
  });

  it('refuses an expires_at that is not in the future when the plan opens it (on the API clock), creating nothing', async () => {
    const bad = await account.workspace();
    bad.write('main.tf', `${REQUIRED_PROVIDERS}\nephemeral "proxyaccount_bearer_token" "x" {\n  label      = "x"\n  expires_at = "2020-01-01"\n}\n`);
    const res = await bad.run(['plan', '-no-color', '-input=false']);
    expect(res.code).toBe(1);
    expect(`${res.stdout}${res.stderr}`).toMatch(/Expiry date not in the future/);
    expect(await ephemeralTokens()).toEqual([]);
  });

  it('destroys what the scoped provider made', async () => {
    await ws.destroy();
    expect((await account.client.ips.list()).includes('203.0.113.50')).toBe(false);
    expect(await ephemeralTokens()).toEqual([]);
  });
});

describe('ephemeral "proxyaccount_bearer_token" when the run is signalled', () => {
  const SCOPED_IPS = ['198.51.100.60', '198.51.100.61'];
  /** The token feeds a scoped provider that adds two IPs. */
  const signalled = async (): Promise<Workspace> => {
    const w = await account.workspace({ env });
    w.write(
      'main.tf',
      `${scopedByToken('signalled')}${SCOPED_IPS.map((ip, i) => `resource "proxyaccount_authorized_ip" "ip${i}" {\n  provider = proxyaccount.scoped\n  ip       = "${ip}"\n}\n`).join('')}`,
    );
    return w;
  };

  /** Runs terraform in its own process group; `whenReady` sends the signals. */
  const runSignalled = async (
    w: Workspace,
    args: string[],
    whenReady: (child: ChildProcessWithoutNullStreams, output: () => string) => Promise<void>,
  ): Promise<{ code: number | null; output: string; pid: number }> => {
    const child = w.spawnDetached([...args, '-no-color', '-input=false']);
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    await whenReady(child, () => output);
    return { code: await exited, output, pid: child.pid! };
  };

  /** Resolves once the emulator has answered `count` more requests whose line matches `line`. */
  const requestsSeen = (line: RegExp, count: number): Promise<void> =>
    new Promise((resolve) => {
      let seen = 0;
      const stop = account.em.onStderrLine((l) => {
        if (line.test(l) && ++seen === count) {
          stop();
          resolve();
        }
      });
    });

  const until = async (done: () => boolean | Promise<boolean>): Promise<void> => {
    while (!(await done())) await new Promise((r) => setTimeout(r, 100));
  };

  /** Whether any process of the group (terraform, its providers) is still running. */
  const groupRunning = (pgid: number): boolean => {
    try {
      process.kill(-pgid, 0);
      return true;
    } catch {
      return false;
    }
  };

  afterEach(async () => {
    await account.reset();
  });

  it('SIGTERM to the process group mid-apply: the scoped writes in flight settle with the token, which is deleted at Shutdown', async () => {
    const w = await signalled();
    // The adds are made but their answers lost: only reading the account back (with the token) settles them.
    await account.em.control.fault({ path: '/api/ip/add/', method: 'POST', delayAfterMs: 1500, dropResponse: true, count: 2 });
    const res = await runSignalled(w, ['apply', '-auto-approve'], async (child, output) => {
      await until(() => SCOPED_IPS.every((_ip, i) => output().includes(`proxyaccount_authorized_ip.ip${i}: Creating...`)));
      // As timeout(1) or a CI runner's cancel does: terraform and both providers get SIGTERM.
      await new Promise((r) => setTimeout(r, 300));
      process.kill(-child.pid!, 'SIGTERM');
    });
    expect(res.output).not.toMatch(/401|invalid bearer token/);
    expect((await account.client.ips.list()).filter((ip) => SCOPED_IPS.includes(ip)).sort()).toEqual(SCOPED_IPS);
    expect(await ephemeralTokens()).toEqual([]);
  });

  it('SIGTERM to the process group while the token is being created: it is deleted once created', async () => {
    const w = await signalled();
    await account.em.control.fault({ path: '/api/token/create/', method: 'POST', delayMs: 1500, count: 1 });
    // The open lists the tokens (the credential check, the API's clock), then creates.
    const listed = requestsSeen(/^GET \/api\/tokens\/ 200/, 2);
    const created = requestsSeen(/^POST \/api\/token\/create\/ 200/, 1);
    const res = await runSignalled(w, ['plan'], async (child) => {
      await listed;
      await new Promise((r) => setTimeout(r, 300));
      process.kill(-child.pid!, 'SIGTERM');
    });
    await created;
    expect(res.output).toMatch(/ephemeral\.proxyaccount_bearer_token\.ci: Opening/);
    expect(await ephemeralTokens()).toEqual([]);
  });

  it('terraform SIGKILLed mid-apply: its provider processes delete the token and exit on their own', async () => {
    const w = await signalled();
    await account.em.control.fault({ path: '/api/ip/add/', method: 'POST', delayMs: 1500, count: 2 });
    const res = await runSignalled(w, ['apply', '-auto-approve'], async (child, output) => {
      await until(() => output().includes('proxyaccount_authorized_ip.ip0: Creating...'));
      process.kill(child.pid!, 'SIGKILL');
    });
    expect(res.code).toBeNull();
    // Until every provider process has gone (without the parent watch they live on, and the test times out).
    await until(() => !groupRunning(res.pid));
    expect(await ephemeralTokens()).toEqual([]);
  });
});
