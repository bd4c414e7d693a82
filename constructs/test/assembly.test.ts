// Checks the jsii assembly that `npm run build` (cdktn: `npm run build:cdktn`) writes (npm test
// builds both first): the contract the Python, Java, C# and Go bindings are generated from.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { FLAVOR } from './flavor';

interface JsiiProperty { name: string; optional?: boolean; docs?: { summary?: string; default?: string } }
interface JsiiType { kind: string; base?: string; properties?: JsiiProperty[]; methods?: { name: string; static?: boolean }[]; members?: { name: string }[] }
interface Assembly {
  name: string;
  version: string;
  dependencies: Record<string, string>;
  types: Record<string, JsiiType>;
  submodules: Record<string, unknown>;
  targets: Record<string, unknown>;
}

const ASSEMBLY = path.join(FLAVOR.dir, '.jsii');
const fqn = (name: string): string => `${FLAVOR.packageName}.${name}`;

function load(): Assembly {
  if (!fs.existsSync(ASSEMBLY)) throw new Error(`${ASSEMBLY} does not exist: run \`npm run build\` (and \`npm run build:cdktn\`) in constructs/ first`);
  return JSON.parse(fs.readFileSync(ASSEMBLY, 'utf8')) as Assembly;
}

describe('jsii assembly (.jsii)', () => {
  test('names the package, its peer dependencies and every language target', () => {
    const assembly = load();
    const pkg = JSON.parse(fs.readFileSync(path.join(FLAVOR.dir, 'package.json'), 'utf8')) as { version: string };
    expect(assembly.name).toBe(FLAVOR.packageName);
    expect(assembly.version).toBe(pkg.version);
    expect(Object.keys(assembly.dependencies).sort()).toEqual([FLAVOR.lib, 'constructs']);
    expect(Object.keys(assembly.targets).sort()).toEqual(['dotnet', 'go', 'java', 'js', 'python']);
  });

  test('declares the L2 constructs as Construct subclasses with their helpers', () => {
    const { types } = load();
    // SubAccount and ParentAccess share one access-list base (allowIp, allowHostname), a Construct.
    expect(types[fqn('AccessListOwner')]).toMatchObject({ kind: 'class', abstract: true, base: 'constructs.Construct' });
    for (const name of ['SubAccount', 'ParentAccess']) expect(types[fqn(name)]).toMatchObject({ kind: 'class', base: fqn('AccessListOwner') });
    expect(types[fqn('AccountRoster')]).toMatchObject({ kind: 'class', base: 'constructs.Construct' });
    const methods = (name: string): string[] => (types[fqn(name)].methods ?? []).map((m) => m.name).sort();
    const inherited = methods('AccessListOwner');
    expect(inherited).toEqual(expect.arrayContaining(['allowHostname', 'allowIp']));
    expect([...methods('SubAccount'), ...inherited]).toEqual(expect.arrayContaining(['addToken', 'allowHostname', 'allowIp']));
    expect([...methods('ParentAccess'), ...inherited]).toEqual(expect.arrayContaining(['allowHostname', 'allowIp', 'allowProxy']));
    expect(types[fqn('AccountRoster')].methods).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'validate', static: true })]));
    expect(types[fqn('AccessListMode')]).toMatchObject({ kind: 'enum', members: [{ name: 'ADDITIVE' }, { name: 'AUTHORITATIVE' }] });
  });

  test('every optional prop of every struct documents its default', () => {
    const { types } = load();
    const structs = Object.entries(types).filter(([name, t]) => t.kind === 'interface' && !name.includes('.l1.'));
    expect(structs.map(([name]) => name)).toEqual(expect.arrayContaining([fqn('SubAccountProps'), fqn('RosterDefinition')]));
    const undocumented = structs.flatMap(([name, t]) => (t.properties ?? [])
      .filter((p) => !p.docs?.summary || (p.optional && p.docs.default === undefined))
      .map((p) => `${name}.${p.name}`));
    expect(undocumented).toEqual([]);
  });

  test('exposes the generated L1 bindings as submodules under l1', () => {
    const { submodules, types } = load();
    for (const ns of ['subAccount', 'authorizedIp', 'authorizedIps', 'authorizedHostname', 'authorizedHostnames',
      'authorizedProxy', 'authorizedProxies', 'bearerToken', 'provider', 'dataProxyaccountSubAccount']) {
      expect(submodules).toHaveProperty([fqn(`l1.${ns}`)]);
    }
    expect(types[fqn('l1.provider.ProxyaccountProvider')]).toMatchObject({ kind: 'class', base: `${FLAVOR.lib}.TerraformProvider` });
    expect(types[fqn('l1.subAccount.SubAccount')]).toMatchObject({ kind: 'class', base: `${FLAVOR.lib}.TerraformResource` });
  });
});
