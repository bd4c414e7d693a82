// The resource-type catalogue is the one place a type is described outside the provider: no
// source outside src/provider and src/resource-types spells a type name (generated code aside),
// and a toy type added to a catalogue is handled by drift, review and export with no other change.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { FakeAccount } from '../gitops/fake-account';
import { toHcl } from '../../src/gitops/export';
import { parsePlanJson, type StateResource } from '../../src/gitops/plan-json';
import { reviewPlan } from '../../src/gitops/review';
import { scanUnmanaged } from '../../src/gitops/drift-scan';
import { SILENT_PROGRESS } from '../../src/gitops/use-cases';
import { catalogueOf, entryIdFormat, RESOURCE_TYPES, type ResourceTypeDescriptor } from '../../src/resource-types';

const ROOT = path.resolve(__dirname, '..', '..');

/** Source files under `dir` (relative to the root), generated bindings left out. */
function sources(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const e of fs.readdirSync(path.join(ROOT, d), { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) {
        if (e.name !== 'gen' && e.name !== 'node_modules') walk(p);
      } else if (/\.(ts|js)$/.test(e.name) && !e.name.endsWith('.d.ts')) out.push(p);
    }
  };
  walk(dir);
  return out;
}

/** The code of a file without its comments (documentation may name types). */
function code(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
}

describe('type names', () => {
  it("appear as literals only in src/provider and src/resource-types (the constructs' generated bindings aside)", () => {
    const files = [...sources('src'), ...sources(path.join('constructs', 'src'))].filter(
      (f) => !f.startsWith(`src${path.sep}provider${path.sep}`) && !f.startsWith(`src${path.sep}resource-types${path.sep}`),
    );
    expect(files.length).toBeGreaterThan(50);
    const found = files.flatMap((f) => (/['"`]proxyaccount_/.test(code(fs.readFileSync(path.join(ROOT, f), 'utf8'))) ? [f] : []));
    expect(found).toEqual([]);
  });
});

describe('a toy type added to the catalogue', () => {
  // A per-entry type over the hostnames collection, with its own words and import ID.
  const hostname = RESOURCE_TYPES.get('proxyaccount_authorized_hostname')!;
  const toy: ResourceTypeDescriptor = {
    ...hostname,
    typeName: 'proxyaccount_toy_hostname',
    noun: { one: 'toy host', many: 'toy hosts' },
    importId: entryIdFormat('TOY', 'toy.example.com'),
    describeChange: (c) => `toy host ${String((c.kind === 'delete' ? c.before : c.after).domain)} ${c.kind}d`,
    risks: (c, owner) => (c.kind === 'create' ? [{ kind: 'parent_access_opened', message: `a toy host for ${owner.phrase}` }] : []),
  };
  // The real hostname type stays out, so what export writes for hostnames comes from the toy alone.
  const catalogue = catalogueOf([...[...RESOURCE_TYPES.values()].filter((d) => d !== hostname), toy]);

  it('drift counts the objects it manages as managed', async () => {
    const fake = new FakeAccount().sub('alice', { hostnames: ['toy.example.com', 'stray.example.com'] });
    const state: StateResource[] = [
      { address: 'proxyaccount_sub_account.alice', type: 'proxyaccount_sub_account', mode: 'managed', values: { username: 'alice' }, sensitive: new Set() },
      {
        address: 'proxyaccount_toy_hostname.t',
        type: 'proxyaccount_toy_hostname',
        mode: 'managed',
        values: { username: 'alice', domain: 'toy.example.com' },
        sensitive: new Set(),
      },
    ];
    const scan = await scanUnmanaged(fake.store(), state, SILENT_PROGRESS, Date.now(), catalogue);
    expect(scan.unmanaged).toEqual([{ account: 'alice', kind: 'hostname', value: 'stray.example.com', label: '' }]);
    // Without its descriptor, drift refuses it rather than calling its object unmanaged.
    await expect(scanUnmanaged(fake.store(), state, SILENT_PROGRESS, Date.now())).rejects.toThrow(/proxyaccount_toy_hostname has no descriptor/);
  });

  it('review describes its change in its own words, under its account, with its risks', () => {
    const plan = parsePlanJson({
      resource_changes: [
        {
          address: 'proxyaccount_toy_hostname.t',
          type: 'proxyaccount_toy_hostname',
          mode: 'managed',
          change: { actions: ['create'], before: null, after: { username: 'alice', domain: 'toy.example.com' } },
        },
      ],
    });
    const review = reviewPlan(plan, catalogue);
    expect(review.accounts).toEqual([
      {
        account: 'alice',
        changes: [
          { address: 'proxyaccount_toy_hostname.t', type: 'proxyaccount_toy_hostname', action: 'create', description: 'toy host toy.example.com created' },
        ],
      },
    ]);
    expect(review.attention).toEqual([{ kind: 'parent_access_opened', address: 'proxyaccount_toy_hostname.t', message: "a toy host for sub-account 'alice'" }]);
    expect(review.other_resources).toEqual([]);
  });

  it('export writes its resources with its import IDs', () => {
    const files = toHcl(
      { accounts: [{ username: 'alice', details: undefined, ips: [], hostnames: ['toy.example.com'], tokens: [] }], proxies: [] },
      'per-entry',
      catalogue,
    );
    expect(files['account.tf']).toContain('resource "proxyaccount_toy_hostname" "alice_host_toy_example_com" {');
    expect(files['imports.tf']).toContain('id = "alice/toy.example.com"');
    expect(files['account.tf']).not.toContain('proxyaccount_authorized_hostname"');
  });
});
