// Every registry example applies cleanly against the emulator: each
// examples/resources/<type>/resource.tf and examples/data-sources/<type>/data-source.tf in a fresh
// workspace (provider configured by environment variables), then a second plan is empty, then
// destroy leaves the account as it was. Also: every type the provider registers has its
// example, resources an import.sh whose commands import what the example created, and the
// provider example is valid.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createProvider } from '../../src/provider/provider';
import { useAccount } from './helpers/account';
import { expectNoChanges } from './helpers/steps';
import { REQUIRED_PROVIDERS, resourceValues, type Workspace } from './helpers/terraform';

jest.setTimeout(120_000);

const EXAMPLES = path.resolve(__dirname, '..', '..', 'examples');
const provider = createProvider({ env: {} });

interface Example {
  readonly kind: 'resources' | 'data-sources';
  readonly type: string;
  readonly file: string;
}

function examplesOf(kind: Example['kind'], fileName: string): Example[] {
  const dir = path.join(EXAMPLES, kind);
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .filter((type) => fs.existsSync(path.join(dir, type, fileName)))
    .sort()
    .map((type) => ({ kind, type, file: path.join(dir, type, fileName) }));
}

const EXAMPLE_FILES = [...examplesOf('resources', 'resource.tf'), ...examplesOf('data-sources', 'data-source.tf')];

/**
 * What the runs that set a write-only password's version are given, as a real run would be: the
 * first apply, and the destroy after the imports (an import records no version, and destroy plans
 * the configuration first). The plan in between goes without, as the examples say it may.
 */
const PASSWORD_ENV: NodeJS.ProcessEnv = { TF_VAR_analytics_password: 'Example-Pass-1' };

/** `terraform import ADDRESS ID` lines of an import.sh. */
function importCommands(type: string): Array<{ address: string; id: string }> {
  const file = path.join(EXAMPLES, 'resources', type, 'import.sh');
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .map((l) => /^\s*terraform\s+import\s+(\S+)\s+(.+?)\s*$/.exec(l))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ address: m[1], id: m[2].replace(/^(['"])(.*)\1$/, '$2') }));
}

const account = useAccount({ resetEach: false });

describe('examples', () => {
  it('exist for every resource (resource.tf and import.sh), every data source, and the provider', () => {
    const missing: string[] = [];
    const need = (rel: string): void => {
      if (!fs.existsSync(path.join(EXAMPLES, rel))) missing.push(`examples/${rel}`);
    };
    need('provider/provider.tf');
    for (const r of provider.resources) {
      need(`resources/${r.typeName}/resource.tf`);
      need(`resources/${r.typeName}/import.sh`);
    }
    for (const d of provider.dataSources) need(`data-sources/${d.typeName}/data-source.tf`);
    expect(missing).toEqual([]);
  });

  it('import.sh files import their own type', () => {
    for (const r of provider.resources) {
      for (const { address } of importCommands(r.typeName)) expect([r.typeName, address.split('.')[0]]).toEqual([r.typeName, r.typeName]);
    }
  });

  it('the provider example is valid configuration', async () => {
    const ws = await account.workspace();
    ws.write('main.tf', withProviders(fs.readFileSync(path.join(EXAMPLES, 'provider', 'provider.tf'), 'utf8')));
    await ws.expect(['validate', '-no-color']);
  });

  // One test per example file found; the first test above fails when one is missing (and
  // it.each refuses an empty table, which would hide that message).
  if (EXAMPLE_FILES.length > 0)
    it.each(EXAMPLE_FILES.map((e) => [`${e.kind}/${e.type}`, e] as const))('%s applies, plans empty, and destroys cleanly', async (_name, example) => {
      await account.reset();
      const before = await account.snapshot();
      const ws = await account.workspace();
      ws.write('main.tf', withProviders(fs.readFileSync(example.file, 'utf8')));

      await ws.expect(['apply', '-no-color', '-input=false', '-auto-approve'], [0], PASSWORD_ENV);
      await expectNoChanges(ws);
      if (example.kind === 'resources') await checkImports(ws, example.type);
      await ws.expect(['destroy', '-no-color', '-input=false', '-auto-approve'], [0], PASSWORD_ENV);
      expect(await account.snapshot()).toEqual(before);
    });
});

/** The example with the required_providers block added, unless it has its own. */
function withProviders(example: string): string {
  return /required_providers/.test(example) ? example : `${REQUIRED_PROVIDERS}\n${example}`;
}

/**
 * Runs the import.sh commands against what the example created: each must import successfully.
 * Token IDs are assigned by the API, so for tokens the example's number is replaced by the one
 * the example's apply got, keeping the ID's form (`ID` or `USERNAME/ID`).
 */
async function checkImports(ws: Workspace, type: string): Promise<void> {
  for (const command of importCommands(type)) {
    const { address } = command;
    let { id } = command;
    if (type === 'proxyaccount_bearer_token') {
      const tokenId = resourceValues(await ws.state(), address)?.token_id;
      id = id.replace(/[0-9]+$/, String(tokenId));
    }
    await ws.stateRm(address);
    const res = await ws.importCli(address, id);
    expect(res.stdout).toContain('Import successful');
  }
}
