// proxyaccount_authorized_hostnames (authoritative list resource) and its data source against a
// real emulator: create, second plan empty, add/remove, drift both ways, import, idempotent
// delete, a partial failure that leaves a true state, and validation.
import { authorizedHostnamesDataSource } from '../../src/provider/data-sources/authorized-hostnames';
import { authorizedHostnamesResource } from '../../src/provider/resources/authorized-hostnames';
import { UNKNOWN } from '../../src/protocol/cty';
import { dv, errors, obj, paths } from './harness';
import { normalized, sorted, startListSuite, type ListSuite } from './list-harness';
import { ResourceDriver, type Obj } from './terraform-sim';

const schema = authorizedHostnamesResource.schema;
let suite: ListSuite;
let driver: ResourceDriver;

beforeAll(async () => {
  suite = await startListSuite();
  driver = new ResourceDriver(() => suite.newServer(), 'proxyaccount_authorized_hostnames', schema);
});

afterAll(async () => {
  await suite?.stop();
});

async function remote(username?: string): Promise<string[]> {
  return sorted(await suite.admin.hostnames.list(username === undefined ? {} : { username }));
}

async function subAccount(username: string, domains: string[] = []): Promise<void> {
  await suite.admin.subAccounts.create({ username });
  for (const domain of domains) await suite.admin.hostnames.add({ domain, username });
}

async function expectNoChanges(state: Obj, config: Record<string, unknown>): Promise<void> {
  const refreshed = (await driver.read(state))!;
  expect(normalized(refreshed, 'domains')).toEqual(normalized(state, 'domains'));
  const { planned, requiresReplace } = await driver.plan(refreshed, config as Obj);
  expect(normalized(planned, 'domains')).toEqual(normalized(refreshed, 'domains'));
  expect(requiresReplace).toEqual([]);
}

describe('proxyaccount_authorized_hostnames', () => {
  it('creates a sub-account list (removing what was not declared), and a second plan is empty', async () => {
    await subAccount('hn-create', ['old.example.org']);
    const config = { username: 'hn-create', domains: ['app.example.com', 'ci.example.com'] };
    const { planned } = await driver.plan(null, config);
    expect(planned['id']).toBe('hn-create');
    const state = await driver.create(config);
    expect(normalized(state, 'domains')).toEqual(normalized(obj(schema, { ...config, id: 'hn-create', removed_entries: ['old.example.org'] }), 'domains'));
    expect(await remote('hn-create')).toEqual(sorted(config.domains));
    await expectNoChanges(state, config);
  });

  it("manages the provider's own list with id _self", async () => {
    const config = { domains: ['self.example.com'] };
    const state = await driver.create(config);
    expect(state['id']).toBe('_self');
    expect(await remote()).toEqual(['self.example.com']);
    await expectNoChanges(state, config);
    expect(errors(await driver.destroy(state))).toEqual([]);
    expect(await remote()).toEqual([]);
  });

  it('adds and removes in place', async () => {
    await subAccount('hn-update');
    const state = await driver.create({ username: 'hn-update', domains: ['a.example.com', 'b.example.com'] });
    const config = { username: 'hn-update', domains: ['b.example.com', 'c.example.com'] };
    const updated = await driver.update(state, config);
    expect(sorted(updated['domains'])).toEqual(sorted(config.domains));
    expect(await remote('hn-update')).toEqual(sorted(config.domains));
    await expectNoChanges(updated, config);
    const emptied = await driver.update(updated, { username: 'hn-update', domains: [] });
    expect(emptied['domains']).toEqual([]);
    expect(await remote('hn-update')).toEqual([]);
  });

  it('shows hostnames added and removed outside Terraform as drift, and puts them back', async () => {
    await subAccount('hn-drift');
    const config = { username: 'hn-drift', domains: ['keep.example.com', 'gone.example.com'] };
    const state = await driver.create(config);
    await suite.admin.hostnames.add({ domain: 'rogue.example.net', username: 'hn-drift' });
    await suite.admin.hostnames.delete({ domain: 'gone.example.com', username: 'hn-drift' });
    const drifted = (await driver.read(state))!;
    expect(sorted(drifted['domains'])).toEqual(['keep.example.com', 'rogue.example.net']);
    const fixed = await driver.update(drifted, config);
    expect(await remote('hn-drift')).toEqual(sorted(config.domains));
    await expectNoChanges(fixed, config);
  });

  it('keeps the declared spelling when the API lists a name in another case, and shows a same-name extra as drift', async () => {
    await subAccount('hn-case', ['app.example.com']);
    const config = { username: 'hn-case', domains: ['App.Example.com'] };
    const imported = (await driver.import('hn-case')).state!;
    // No request needed: the listed name is the declared one (host names ignore case).
    const updated = await driver.update(imported, config);
    expect(updated['domains']).toEqual(['App.Example.com']);
    expect(await remote('hn-case')).toEqual(['app.example.com']);
    await expectNoChanges(updated, config);
    await suite.admin.hostnames.add({ domain: 'APP.example.com', username: 'hn-case' });
    const drifted = (await driver.read(updated))!;
    expect(sorted(drifted['domains'])).toEqual(['APP.example.com', 'App.Example.com']);
  });

  it('imports by username and by _self, and rejects a malformed ID', async () => {
    await subAccount('hn-import', ['x.example.com']);
    const { state, diagnostics } = await driver.import('hn-import');
    expect(diagnostics).toEqual([]);
    expect(state).toEqual({ id: 'hn-import', username: 'hn-import', domains: ['x.example.com'], removed_entries: [] });
    await expectNoChanges(state!, { username: 'hn-import', domains: ['x.example.com'] });
    const self = await driver.import('_self');
    expect(self.state).toEqual({ id: '_self', username: null, domains: [], removed_entries: [] });
    const bad = await driver.import('a b');
    expect(bad.state).toBeNull();
    expect(bad.diagnostics[0]).toMatchObject({ summary: 'Invalid import ID' });
  });

  it('deletes every hostname, and deleting again (or after the sub-account is gone) succeeds', async () => {
    await subAccount('hn-delete');
    const state = await driver.create({ username: 'hn-delete', domains: ['d.example.com'] });
    await suite.admin.hostnames.add({ domain: 'extra.example.com', username: 'hn-delete' });
    expect(errors(await driver.destroy(state))).toEqual([]);
    expect(await remote('hn-delete')).toEqual([]);
    expect(errors(await driver.destroy(state))).toEqual([]);
    await suite.admin.subAccounts.delete('hn-delete');
    expect(errors(await driver.destroy(state))).toEqual([]);
    expect(await driver.read(state)).toBeNull();
  });

  it('records what happened when a removal fails, and the next apply finishes the job', async () => {
    await subAccount('hn-partial', ['r1.example.com', 'r2.example.com']);
    const state = (await driver.import('hn-partial')).state!;
    const config = { username: 'hn-partial', domains: ['n1.example.com'] };
    const { planned } = await driver.plan(state, config);
    await suite.emu.control.fault({ path: '/api/hostname/delete/', status: 500, count: 1 });
    const { state: after, diagnostics } = await driver.apply(state, planned, config);
    expect(errors(diagnostics)).toEqual([expect.objectContaining({ summary: 'Unable to update authorized hostname list' })]);
    expect(errors(diagnostics)[0]!.detail).toMatch(/remove hostname 'r[12]\.example\.com'.*500/s);
    const truth = await remote('hn-partial');
    expect(truth).toHaveLength(2); // one removal failed; the add went through
    expect(truth).toContain('n1.example.com');
    expect(sorted(after!['domains'])).toEqual(truth);
    const done = await driver.update(after!, config);
    expect(await remote('hn-partial')).toEqual(['n1.example.com']);
    await expectNoChanges(done, config);
  });

  it('refuses each domain the resolver reads as an IP address, saying why', async () => {
    const diags = errors(await driver.validate({ domains: ['ok.example.com', '0x7f000001', 'ci.0x1f', '0x7f.example.com'] }));
    expect(diags.map((d) => d.detail)).toEqual([
      expect.stringMatching(/^Attribute domains must be a host name .*not an IP address: a numeric last label such as 7 or 0x1f makes one\), got "0x7f000001"/),
      expect.stringMatching(/^Attribute domains must be a host name .*not an IP address: a numeric last label such as 7 or 0x1f makes one\), got "ci\.0x1f"/),
    ]);
  });

  it('says to drop the trailing dot of a fully qualified name, naming the name to write', async () => {
    expect(errors(await driver.validate({ domains: ['vpn.example.com.'] })).map((d) => d.detail)).toEqual([
      'Attribute domains must be a host name such as app.example.com, got "vpn.example.com.": drop the trailing dot and write "vpn.example.com".',
    ]);
  });

  it('validates host names and duplicates that differ only in case', async () => {
    const diags = await driver.validate({ username: 'bad name', domains: ['ok.example.com', 'not a host', '-bad.example.com', '203.0.113.7'] });
    expect(paths(errors(diags)).sort()).toEqual(['domains', 'domains', 'domains', 'username']);
    expect(
      errors(diags)
        .map((d) => d.detail)
        .join('\n'),
    ).toContain('"not a host"');
    const dup = await driver.validate({ domains: ['a.example.com', 'A.example.com'] });
    expect(errors(dup)).toEqual([expect.objectContaining({ attribute: [{ attributeName: 'domains' }], detail: expect.stringContaining('case-insensitive') })]);
    expect(await driver.validate({ domains: ['localhost', 'x-1.example.co.uk'] })).toEqual([]);
  });

  it('refuses a null hostname (`domains = ["a.example.org", var.n]`) at validation, and waits for an unknown one', async () => {
    const diags = await driver.validate({ domains: ['a.example.org', null] });
    expect(errors(diags)).toEqual([
      expect.objectContaining({
        summary: 'Null element',
        detail: 'An element of domains is null (for example a variable that is null, or a conditional that gives null); remove it or set it to a value.',
        attribute: [{ attributeName: 'domains' }],
      }),
    ]);
    expect(await driver.validate({ domains: ['a.example.org', UNKNOWN] })).toEqual([]);
  });

  it("keeps domains' own rules from failing on a null hostname, should one reach them", () => {
    const ctx = { path: [{ attributeName: 'domains' }], attributeName: 'domains', sensitive: false, siblings: {} };
    const check = (v: Array<string | null>) => schema.attributes.domains.validators.flatMap((r) => r.validate(v as string[], ctx));
    expect(check(['a.example.org', null])).toEqual([]);
    expect(check([null, 'a.example.org', 'A.example.org'])).toEqual([expect.objectContaining({ detail: expect.stringContaining('case-insensitive') })]);
  });
});

describe('proxyaccount_authorized_hostnames data source', () => {
  const ds = authorizedHostnamesDataSource.schema;

  it('reads the hostnames, sorted', async () => {
    await subAccount('hnds', ['zeta.example.com', 'alpha.example.com']);
    const { state, diagnostics } = await suite.readData('proxyaccount_authorized_hostnames', ds, { username: 'hnds' });
    expect(diagnostics).toEqual([]);
    expect(state).toEqual({ username: 'hnds', id: 'hnds', domains: ['alpha.example.com', 'zeta.example.com'] });
    await suite.admin.hostnames.add({ domain: 'parent.example.com' });
    const self = await suite.readData('proxyaccount_authorized_hostnames', ds, {});
    expect(self.state).toEqual({ username: null, id: '_self', domains: await remote() });
    expect(self.state!['domains']).toContain('parent.example.com');
  });

  it('reports a missing sub-account on username, and validates username', async () => {
    const { state, diagnostics } = await suite.readData('proxyaccount_authorized_hostnames', ds, { username: 'hnds-nobody' });
    expect(state).toBeNull();
    expect(diagnostics).toEqual([expect.objectContaining({ summary: 'Sub-account not found', attribute: [{ attributeName: 'username' }] })]);
    const server = await suite.newServer();
    const res = await server.validateDataResourceConfig({
      typeName: 'proxyaccount_authorized_hostnames',
      config: dv(ds, obj(ds, { username: 'x'.repeat(31) })),
    });
    expect(paths(errors(res.diagnostics))).toEqual(['username']);
  });
});
