// A real `App.synth()` (not Testing.synthScope, which skips the app's validations) with the
// setting constructs/README.md documents for write-only attributes and ephemeral resources: CDK
// Terrain checks each feature a stack uses against the Terraform versions the app targets.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { App, TerraformStack } from 'cdktf';
import { SubAccount, l1 } from '../src';
import { FLAVOR } from './flavor';
import { thrown } from './helpers';

/** What README.md tells apps to set: write-only attributes need Terraform 1.11, ephemeral resources 1.10. */
const TARGET_VERSIONS = { targetVersions: { terraform: '>=1.11.0' } };

type EphemeralClass = new (scope: TerraformStack, id: string, config: object) => unknown;

/** Synthesizes a stack with a write-only password (and, on cdktn, an ephemeral token) through App.synth(); returns its JSON. */
function synthApp(context: Record<string, unknown> | undefined): Record<string, unknown> {
  const outdir = fs.mkdtempSync(path.join(os.tmpdir(), 'app-synth-'));
  try {
    const app = new App({ outdir, context });
    const stack = new TerraformStack(app, 'account');
    new l1.provider.ProxyaccountProvider(stack, 'proxyaccount', {});
    new SubAccount(stack, 'Bot', { username: 'bot', password: 'wo-secret', passwordVersion: 1 });
    if (FLAVOR.lib === 'cdktn') {
      // Only the cdktn package has the binding, so it is loaded untyped from the build under test.
      const { l1: bindings } = require(path.join(FLAVOR.dir, 'lib')) as { l1: Record<string, Record<string, EphemeralClass>> };
      new bindings.ephemeralProxyaccountBearerToken.EphemeralProxyaccountBearerToken(stack, 'Run', { label: 'ci-run' });
    }
    app.synth();
    return JSON.parse(fs.readFileSync(path.join(outdir, 'stacks', 'account', 'cdk.tf.json'), 'utf8')) as Record<string, unknown>;
  } finally {
    fs.rmSync(outdir, { recursive: true, force: true });
  }
}

describe(`App.synth() (${FLAVOR.lib})`, () => {
  test('with the documented targetVersions, a write-only password (and on cdktn an ephemeral token) synthesizes', () => {
    const json = synthApp(TARGET_VERSIONS);
    const subAccounts = Object.values((json.resource as Record<string, Record<string, Record<string, unknown>>>).proxyaccount_sub_account);
    expect(subAccounts).toEqual([expect.objectContaining({ username: 'bot', password_wo: 'wo-secret', password_wo_version: 1 })]);
    if (FLAVOR.lib === 'cdktn') expect(json).toMatchObject({ ephemeral: { proxyaccount_bearer_token: { Run: { label: 'ci-run' } } } });
  });

  (FLAVOR.lib === 'cdktn' ? test : test.skip)('cdktn only: without it the synth fails, since cdktn assumes Terraform 1.5.7 and OpenTofu 1.6 (why the setting is documented)', () => {
    const message = thrown(() => synthApp(undefined)).message;
    expect(message).toMatch(/requires terraform >=1\.11\.0, but the project targets terraform >=1\.5\.7/);
    expect(message).toMatch(/requires terraform >=1\.10\.0/);
  });
});
