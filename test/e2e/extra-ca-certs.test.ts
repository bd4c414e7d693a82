// NODE_EXTRA_CA_CERTS under the real terraform binary. The provider executable keeps Node from
// loading the variable at each of its starts (scripts/bundle-provider.js) and trusts the file
// itself when it reaches the API (src/provider/deferred-ca.ts): with no ca_cert_file, the
// emulator's certificate named by NODE_EXTRA_CA_CERTS must be trusted as Node would trust it, a
// file that cannot be read must be reported, and without the variable the same plan must fail.
import * as path from 'node:path';
import { startAccount, type E2eAccount } from './helpers/account';
import { REQUIRED_PROVIDERS, Workspace } from './helpers/terraform';

jest.setTimeout(120_000);

let account: E2eAccount;
let ws: Workspace;

beforeAll(async () => {
  account = await startAccount();
  // Everything the account's workspaces get, except ca_cert_file: the default trust is in force.
  const { PROXYACCOUNT_CA_CERT_FILE: _caFile, ...env } = account.env;
  ws = new Workspace({ env });
  ws.write(
    'main.tf',
    `${REQUIRED_PROVIDERS}\ndata "proxyaccount_proxies" "all" {}\n\noutput "proxies" {\n  value = data.proxyaccount_proxies.all.proxies\n}\n`,
  );
  await ws.init();
});

afterAll(async () => {
  ws?.dispose();
  await account?.stop();
});

const plan = (extraCa: string | undefined) => ws.run(['plan', '-no-color', '-input=false'], { NODE_EXTRA_CA_CERTS: extraCa ?? '', NODE_OPTIONS: '' });

describe('NODE_EXTRA_CA_CERTS and the provider', () => {
  it("trusts the file's certificates for the API, as Node would", async () => {
    const res = await plan(account.em.caFile);
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    expect(res.stdout).toContain('proxies = [');
  });

  it('fails on the certificate without it (the trust above came from the variable)', async () => {
    const res = await plan(undefined);
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/certificate/i);
  });

  it('warns that a file it cannot read adds nothing, and checks against the bundled roots alone', async () => {
    const missing = path.join(path.dirname(account.em.caFile), 'missing-extra-ca.pem');
    const res = await plan(missing);
    expect(res.code).toBe(1);
    // Terraform prints warnings with the plan (stdout) and errors on stderr.
    const output = `${res.stdout}\n${res.stderr}`.replace(/\s+/g, ' ');
    expect(output).toContain('Warning: Extra CA certificates ignored');
    expect(output).toContain(`NODE_EXTRA_CA_CERTS names "${missing}", which cannot be read (ENOENT)`);
    expect(res.stderr).toMatch(/certificate/i);
  });
});
