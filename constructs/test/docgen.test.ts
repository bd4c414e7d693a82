// API.md is the jsii-docgen reference of the built assembly: committed, and never stale.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { FLAVOR } from './flavor';

const ROOT = path.join(__dirname, '..');
const DOCGEN = path.join(ROOT, 'scripts', 'docgen.js');

(FLAVOR.lib === 'cdktf' ? describe : describe.skip)('API.md (checked once, in the cdktf run: the cdktn package ships the same API)', () => {
  test('equals what `npm run docgen` makes from the built .jsii', () => {
    expect(execFileSync(process.execPath, [DOCGEN, '--check'], { cwd: ROOT, encoding: 'utf8' })).toBe('docgen: API.md is up to date\n');
  });

  test('documents the L2 constructs with their props and defaults', () => {
    const api = fs.readFileSync(path.join(ROOT, 'API.md'), 'utf8');
    for (const name of ['SubAccount', 'ParentAccess', 'AccountRoster', 'SubAccountProps', 'AccessListMode']) {
      expect(api).toContain(`id="cdktf-provider-proxyaccount.${name}"`);
    }
    expect(api).toContain('id="cdktf-provider-proxyaccount.l1.subAccount.SubAccount"');
  });

  test('--check fails, saying what to run, when API.md differs', () => {
    const file = path.join(ROOT, 'API.md');
    const saved = fs.readFileSync(file, 'utf8');
    fs.writeFileSync(file, `${saved}\nedited by hand\n`);
    try {
      let stderr = '';
      try {
        execFileSync(process.execPath, [DOCGEN, '--check'], { cwd: ROOT, stdio: 'pipe' });
      } catch (err) {
        stderr = String((err as { stderr?: Buffer }).stderr);
      }
      expect(stderr).toContain('API.md is stale: run `npm run build && npm run docgen`');
    } finally {
      fs.writeFileSync(file, saved);
    }
  });
});
