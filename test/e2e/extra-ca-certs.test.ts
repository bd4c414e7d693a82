// Node's default trust under the real terraform binary. The provider executable keeps Node from
// loading NODE_EXTRA_CA_CERTS at each of its starts and leaves Node's own default store empty
// (scripts/bundle-provider.js); the provider gives the API client Node's bundled roots and the
// file itself (src/provider/deferred-ca.ts). With no ca_cert_file, the emulator's certificate
// named by NODE_EXTRA_CA_CERTS must be trusted as Node would trust it, a file that cannot be read
// must be reported, and without the variable the same plan must fail: OpenSSL's own variables
// add nothing, unless NODE_OPTIONS asks for OpenSSL's store, as with Node itself.
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

const plan = (extraCa: string | undefined, env: NodeJS.ProcessEnv = {}) =>
  ws.run(['plan', '-no-color', '-input=false'], { NODE_EXTRA_CA_CERTS: extraCa ?? '', NODE_OPTIONS: '', SSL_CERT_FILE: '', SSL_CERT_DIR: '', ...env });

describe("Node's default trust and the provider", () => {
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

  it("does not trust OpenSSL's SSL_CERT_FILE, as Node does not by default", async () => {
    const res = await plan(undefined, { SSL_CERT_FILE: account.em.caFile });
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/certificate/i);
  });

  it("leaves the trust to Node's OpenSSL store when NODE_OPTIONS asks for it", async () => {
    const res = await plan(undefined, { NODE_OPTIONS: '--use-openssl-ca', SSL_CERT_FILE: account.em.caFile });
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    expect(res.stdout).toContain('proxies = [');
  });
});
