// The script form of the provider (dist/provider/terraform-provider-proxyaccount, a /bin/sh line
// that starts node) on a PATH without node: Terraform shows a plugin's first line of stdout when
// the handshake fails, and nothing of its stderr, so that line must say what is wrong.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ROOT } from './helpers/release';

const SCRIPT = path.join(ROOT, 'dist', 'provider', 'terraform-provider-proxyaccount');

it('prints one clear first line on stdout and exits 1 when node is not on PATH', () => {
  if (!fs.existsSync(SCRIPT)) throw new Error('dist/provider is missing: run `npm run build` before this test');
  const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'proxyaccount-script-no-node-'));
  try {
    const r = spawnSync(SCRIPT, [], { env: { PATH: empty, TF_PLUGIN_MAGIC_COOKIE: 'x' }, encoding: 'utf8' });
    expect(r.status).toBe(1);
    expect(r.stdout.split('\n')[0]).toBe(
      'terraform-provider-proxyaccount needs Node.js 20 on PATH (this is the script form of the provider); on runners without Node use the single executable (docs/release.md)',
    );
  } finally {
    fs.rmSync(empty, { recursive: true, force: true });
  }
});
