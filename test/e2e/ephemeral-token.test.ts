// The ephemeral bearer token with the real Terraform (>= 1.10): it feeds a second provider alias
// that adds an IP; after apply (and after a plan alone) neither the state file nor
// `terraform show -json` holds a token value, and no ephemeral token is left in the account. A
// plan that fails after the open (Terraform then skips close) leaves none either: the provider
// deletes it when Terraform shuts it down. A token left behind by a killed provider is removed
// by `proxyaccount tokens prune`.
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { EPHEMERAL_TOKEN_PREFIX } from '../../src/account';
import { PARENT, startAccount, type E2eAccount } from './helpers/account';
import { expectNoChanges } from './helpers/steps';
import { REQUIRED_PROVIDERS, type Workspace } from './helpers/terraform';

jest.setTimeout(180_000);

const CLI = path.resolve(__dirname, '..', '..', 'bin', 'proxyaccount.js');
const EXAMPLE = path.resolve(__dirname, '..', '..', 'examples', 'ephemeral-resources', 'proxyaccount_bearer_token', 'ephemeral-resource.tf');
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
      `${REQUIRED_PROVIDERS}
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
  label = "failing-run"
}
provider "proxyaccount" {
  alias = "scoped"
  token = ephemeral.proxyaccount_bearer_token.ci.token
}
# Fails after the open: listing tokens needs username and password, not a token.
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
