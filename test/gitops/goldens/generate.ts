// Regenerates the review goldens from REAL `terraform show -json` output of plans against the
// emulator. Needs `npm run build` and terraform on PATH. Not part of the suite (its name does
// not match *.test.ts); run it through ts-jest:
//   npx jest --maxWorkers=1 --testMatch '**/goldens/generate.ts' test/gitops/goldens
// then review the diff of test/gitops/goldens/ before committing it.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parsePlanJson } from '../../../src/gitops/plan-json';
import { reviewPlan } from '../../../src/gitops/review';
import { reviewJson, reviewMarkdown } from '../../../src/gitops/review-render';
import { startAccount } from '../../e2e/helpers/account';

const OUT = path.resolve(__dirname);

/** The review goldens of one saved plan (also used to refresh them without terraform: see review-goldens.test.ts). */
export function writeGoldens(name: string, json: unknown): void {
  const review = reviewPlan(parsePlanJson(json));
  fs.writeFileSync(path.join(OUT, `${name}.review.json`), reviewJson(review));
  fs.writeFileSync(path.join(OUT, `${name}.review.md`), reviewMarkdown(review));
}

const BASE = `
resource "proxyaccount_sub_account" "alice" {
  username      = "gg-alice"
  password      = "golden-secret-pw-1"
  monthly_limit = 50
}

resource "proxyaccount_sub_account" "bob" {
  username            = "gg-bob"
  password_wo         = "golden-wo-secret-2"
  password_wo_version = 1
}

resource "proxyaccount_authorized_ip" "office" {
  username = proxyaccount_sub_account.alice.username
  ip       = "203.0.113.7"
  label    = "office"
}

resource "proxyaccount_authorized_hostname" "ci" {
  username = proxyaccount_sub_account.alice.username
  domain   = "ci.example.com"
}

resource "proxyaccount_bearer_token" "deploy" {
  username = proxyaccount_sub_account.alice.username
  label    = "deploy"
}

resource "proxyaccount_authorized_ips" "bob" {
  username = proxyaccount_sub_account.bob.username
  entries  = [{ ip = "198.51.100.1", label = "vpn" }]
}
`;

async function main(): Promise<void> {
  const account = await startAccount();
  try {
    const ws = await account.workspace();
    const save = async (name: string): Promise<void> => {
      await ws.expect(['plan', '-no-color', '-input=false', '-out=p.tfplan']);
      const json = JSON.parse((await ws.expect(['show', '-json', 'p.tfplan'])).stdout) as unknown;
      fs.writeFileSync(path.join(OUT, `${name}.plan.json`), `${JSON.stringify(json, null, 2)}\n`);
      writeGoldens(name, json);
    };
    const apply = (): Promise<unknown> => ws.expect(['apply', '-no-color', '-input=false', '-auto-approve']);
    // create, with another provider's resource in the same plan
    ws.config(BASE, 'resource "terraform_data" "marker" {\n  input = "x"\n}\n');
    await save('create');
    await apply();
    // update: a limit, a parent IP (access opened), a deactivation
    ws.config(
      BASE.replace('monthly_limit = 50', 'monthly_limit = 100'),
      'resource "terraform_data" "marker" {\n  input = "x"\n}\n',
      'resource "proxyaccount_authorized_ip" "parent_vpn" {\n  ip = "192.0.2.99"\n}\n',
    );
    await save('update');
    await apply();
    // replace: a token's label, a sub-account's username
    ws.config(
      BASE.replace('monthly_limit = 50', 'monthly_limit = 100').replace('label    = "deploy"', 'label    = "deploy-2"').replace('"gg-bob"', '"gg-bobby"'),
      'resource "terraform_data" "marker" {\n  input = "x"\n}\n',
      'resource "proxyaccount_authorized_ip" "parent_vpn" {\n  ip = "192.0.2.99"\n}\n',
    );
    await save('replace');
    // authoritative list with entries added out of band: removed_entries
    await account.client.ips.add({ ip: '198.51.100.77', label: 'someone', username: 'gg-bob' });
    ws.config(
      BASE.replace('monthly_limit = 50', 'monthly_limit = 100'),
      'resource "terraform_data" "marker" {\n  input = "x"\n}\n',
      'resource "proxyaccount_authorized_ip" "parent_vpn" {\n  ip = "192.0.2.99"\n}\n',
    );
    await save('authoritative');
    await apply();
    // import: an IP added out of band, adopted with an import block
    await account.client.ips.add({ ip: '203.0.113.50', label: 'adopted', username: 'gg-alice' });
    ws.config(
      BASE.replace('monthly_limit = 50', 'monthly_limit = 100'),
      'resource "proxyaccount_authorized_ip" "parent_vpn" {\n  ip = "192.0.2.99"\n}\n',
      'import {\n  to = proxyaccount_authorized_ip.adopted\n  id = "gg-alice/203.0.113.50"\n}\n',
      'resource "proxyaccount_authorized_ip" "adopted" {\n  username = "gg-alice"\n  ip       = "203.0.113.50"\n  label    = "adopted"\n}\n',
    );
    await save('import');
    await apply();
    // delete everything
    ws.config();
    await save('delete');
  } finally {
    await account.stop();
  }
}

if (require.main === undefined || process.env.PROXYACCOUNT_REGENERATE_GOLDENS === '1') it('regenerates the review plans and goldens', main, 300_000);
