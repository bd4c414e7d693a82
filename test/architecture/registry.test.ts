// What adding a type requires, checked instead of remembered: every registered resource, data
// source and ephemeral resource has its registry examples, a provider test and an end-to-end
// test; the version strings agree; and the CDKTF schema the bindings are generated from is the
// schema the built provider reports (dumped by the real terraform).
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createProvider, PROVIDER_VERSION } from '../../src/provider/provider';
import { RESOURCE_TYPES } from '../../src/resource-types';
import { SDK_VERSION } from '../../src/sdk';
import { requireTerraform } from '../e2e/helpers/terraform';

const ROOT = path.resolve(__dirname, '..', '..');

/** The generator reads the compiled catalogue: fail clearly when it is not built. */
function requireBuild(): void {
  if (!fs.existsSync(path.join(ROOT, 'dist', 'resource-types', 'index.js'))) throw new Error('dist/resource-types is missing: run `npm run build` first');
}
const provider = createProvider() as unknown as {
  resources: ReadonlyArray<{ typeName: string }>;
  dataSources: ReadonlyArray<{ typeName: string }>;
  ephemeralResources?: ReadonlyArray<{ typeName: string }>;
};

/** Every test file's text under `dir`, by path. */
function testsIn(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string): void => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.test.ts')) out.set(path.relative(ROOT, p), fs.readFileSync(p, 'utf8'));
    }
  };
  walk(path.join(ROOT, dir));
  return out;
}

/** The module file name a type's definition lives in, e.g. proxyaccount_authorized_ip → authorized-ip. */
const moduleOf = (typeName: string): string => typeName.replace(/^proxyaccount_/, '').replace(/_/g, '-');

const KINDS = [
  { kind: 'resource', types: provider.resources, examples: 'resources', files: ['resource.tf', 'import.sh'] },
  { kind: 'data source', types: provider.dataSources, examples: 'data-sources', files: ['data-source.tf'] },
  { kind: 'ephemeral resource', types: provider.ephemeralResources ?? [], examples: 'ephemeral-resources', files: ['ephemeral-resource.tf'] },
] as const;

describe('every registered type', () => {
  const providerTests = testsIn('test/provider');
  const e2eTests = testsIn('test/e2e');

  it.each(KINDS.map((k) => [k.kind, k] as const))('of kind %s has its examples, a provider test and an e2e test', (_kind, k) => {
    const missing: string[] = [];
    for (const { typeName } of k.types) {
      for (const f of k.files) {
        const example = path.join('examples', k.examples, typeName, f);
        if (!fs.existsSync(path.join(ROOT, example))) missing.push(`${typeName}: no ${example}`);
      }
      const mentions = (text: string): boolean =>
        text.includes(`'${typeName}'`) || text.includes(`"${typeName}"`) || text.includes(`${typeName}.`) || text.includes(`/${moduleOf(typeName)}'`);
      if (![...providerTests.values()].some(mentions)) missing.push(`${typeName}: no test under test/provider/ uses it`);
      if (![...e2eTests.values()].some((t) => t.includes(typeName))) missing.push(`${typeName}: no test under test/e2e/ uses it`);
    }
    expect(missing).toEqual([]);
  });
});

describe('the resource-type catalogue', () => {
  it('has a descriptor for every registered resource, and none for a type the provider does not register', () => {
    const registered = provider.resources.map((r) => r.typeName).sort();
    const missing = registered.filter((t) => !RESOURCE_TYPES.has(t)).map((t) => `${t}: no descriptor in src/resource-types`);
    const extra = [...RESOURCE_TYPES.keys()].filter((t) => !registered.includes(t)).map((t) => `${t}: described but not registered`);
    expect([...missing, ...extra]).toEqual([]);
  });

  it("parses every type's own import-ID examples back to what it formats", () => {
    const problems: string[] = [];
    for (const d of RESOURCE_TYPES.values()) {
      for (const id of d.importId.examples) {
        const parsed = d.importId.parse(id);
        if (typeof parsed === 'string') problems.push(`${d.typeName}: ${id}: ${parsed}`);
        else if (d.importId.format(parsed.username, parsed.key) !== id)
          problems.push(`${d.typeName}: ${id} formats back as ${d.importId.format(parsed.username, parsed.key)}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('constructs/src/import-ids.ts is what scripts/generate-import-ids.js writes from it', () => {
    requireBuild();
    const check = spawnSync(process.execPath, [path.join(ROOT, 'scripts', 'generate-import-ids.js'), '--check'], { cwd: ROOT, encoding: 'utf8' });
    expect({ status: check.status, stderr: check.stderr }).toEqual({ status: 0, stderr: '' });
    expect(fs.readFileSync(path.join(ROOT, 'constructs', 'src', 'import-ids.ts'), 'utf8').split('\n')[0]).toMatch(
      /^\/\/ Generated by scripts\/generate-import-ids\.js/,
    );
  });
});

describe('version strings', () => {
  it('agree: package.json, the provider, the SDK and the constructs package', () => {
    const version = (file: string): string => (JSON.parse(fs.readFileSync(path.join(ROOT, file), 'utf8')) as { version: string }).version;
    const root = version('package.json');
    expect({ provider: PROVIDER_VERSION, sdk: SDK_VERSION, constructs: version('constructs/package.json') }).toEqual({
      provider: root,
      sdk: root,
      constructs: root,
    });
  });
});

describe('the CDKTF schema', () => {
  it('constructs/schema/proxyaccount.json is what the built provider reports (regenerate: npm run generate:bindings)', () => {
    requireTerraform();
    const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'proxyaccount-schema-check-')), 'schema.json');
    try {
      execFileSync(process.execPath, [path.join(ROOT, 'scripts', 'dump-provider-schema.js'), out], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
      const committed: unknown = JSON.parse(fs.readFileSync(path.join(ROOT, 'constructs', 'schema', 'proxyaccount.json'), 'utf8'));
      expect(JSON.parse(fs.readFileSync(out, 'utf8'))).toEqual(committed);
    } finally {
      fs.rmSync(path.dirname(out), { recursive: true, force: true });
    }
  }, 60_000);
});
