// Both packages' published metadata comes from metadata.json through scripts/manifest.js: the
// committed package.json files are what it writes, the `cdktf` provider block follows the
// @cdktf/provider-* convention, and no placeholder address is left.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { FLAVOR } from './flavor';

const ROOT = path.join(__dirname, '..');
const read = (file: string): Record<string, any> => JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, any>;

describe(`package.json of ${FLAVOR.packageName}`, () => {
  const pkg = read(path.join(FLAVOR.dir, 'package.json'));
  const meta = read(path.join(ROOT, 'metadata.json'));
  const providerVersion = read(path.join(ROOT, '..', 'package.json')).version as string;

  test('is what `npm run manifest` writes from metadata.json', () => {
    expect(execFileSync(process.execPath, [path.join(ROOT, 'scripts', 'manifest.js'), '--check'], { encoding: 'utf8' })).toBe('manifest: up to date\n');
  });

  test('carries repository, homepage, bugs and author from metadata.json, and no placeholder', () => {
    expect(pkg.repository).toEqual({ type: 'git', url: `git+${meta.repository}.git`, directory: path.relative(path.join(ROOT, '..'), FLAVOR.dir) });
    expect(pkg.homepage).toMatch(new RegExp(`^${meta.repository}/`));
    expect(pkg.bugs).toEqual({ url: `${meta.repository}/issues` });
    expect(pkg.author).toEqual(meta.author);
    expect(pkg.jsii.targets.go.moduleName).toBe(`${meta.goModulePrefix}/${FLAVOR.packageName}-go`);
    expect(JSON.stringify(pkg)).not.toMatch(/example\.(invalid|com)/);
  });

  test(`names the provider it binds in a \`cdktf\` block${FLAVOR.lib === 'cdktn' ? ' and a `cdktn` block' : ''}, with its peer dependency`, () => {
    const block = { isDeprecated: false, provider: { name: 'registry.terraform.io/proxyaccount/proxyaccount', version: providerVersion } };
    expect(pkg.cdktf).toEqual(block);
    if (FLAVOR.lib === 'cdktn') expect(pkg.cdktn).toEqual(block);
    else expect(pkg.cdktn).toBeUndefined();
    expect(Object.keys(pkg.peerDependencies).sort()).toEqual([FLAVOR.lib, 'constructs']);
  });
});
