// proxyaccount_authorized_ips (authoritative list resource) and its data source against a real
// emulator, driven the way Terraform drives them: create, second plan empty, add/remove/label
// change, drift both ways, import, idempotent delete, partial failures that leave a true state.
import { isUnknown, UNKNOWN } from '../../src/protocol/cty';
import { authorizedIpsDataSource } from '../../src/provider/data-sources/authorized-ips';
import { authorizedIpsResource } from '../../src/provider/resources/authorized-ips';
import { dv, errors, obj, paths } from './harness';
import { normalized, sorted, startListSuite, type ListSuite } from './list-harness';
import { ResourceDriver, type Obj } from './terraform-sim';

const schema = authorizedIpsResource.schema;
let suite: ListSuite;
let driver: ResourceDriver;

beforeAll(async () => {
  suite = await startListSuite();
  driver = new ResourceDriver(() => suite.newServer(), 'proxyaccount_authorized_ips', schema);
});

afterAll(async () => {
  await suite?.stop();
});

type Entry = { ip: string; label: string | null };
const e = (ip: string, label: string | null = null): Entry => ({ ip, label });

/** The remote list of an account as state would hold it. */
async function remote(username?: string): Promise<Entry[]> {
  const list = await suite.admin.ips.listWithLabels(username === undefined ? {} : { username });
  return sorted(list.map((x) => e(x.ip, x.label === '' ? null : x.label)));
}

async function subAccount(username: string, ips: Entry[] = []): Promise<void> {
  await suite.admin.subAccounts.create({ username });
  for (const x of ips) await suite.admin.ips.add({ ip: x.ip, username, ...(x.label === null ? {} : { label: x.label }) });
}

/** Asserts that a plan against the refreshed state changes nothing. */
async function expectNoChanges(state: Obj, config: Record<string, unknown>): Promise<void> {
  const refreshed = (await driver.read(state))!;
  expect(normalized(refreshed, 'entries')).toEqual(normalized(state, 'entries'));
  const { planned, requiresReplace } = await driver.plan(refreshed, config as Obj);
  expect(normalized(planned, 'entries')).toEqual(normalized(refreshed, 'entries'));
  expect(requiresReplace).toEqual([]);
}

describe('proxyaccount_authorized_ips', () => {
  it('creates a sub-account list (removing what was not declared), and a second plan is empty', async () => {
    await subAccount('ips-create', [e('198.51.100.1', 'old')]);
    const config = { username: 'ips-create', entries: [e('203.0.113.7', 'office'), e('203.0.113.8')] };
    const { planned } = await driver.plan(null, config);
    expect(planned['id']).toBe('ips-create'); // known at plan time

    const state = await driver.create(config);
    expect(normalized(state, 'entries')).toEqual(normalized(obj(schema, { ...config, id: 'ips-create', removed_entries: ['198.51.100.1 (old)'] }), 'entries'));
    expect(await remote('ips-create')).toEqual(sorted(config.entries));
    await expectNoChanges(state, config);
  });

  it("manages the provider's own list with id _self", async () => {
    const config = { entries: [e('192.0.2.10', 'ci')] };
    const state = await driver.create(config);
    expect(state['id']).toBe('_self');
    expect(await remote()).toEqual([e('192.0.2.10', 'ci')]);
    await expectNoChanges(state, config);
    expect(errors(await driver.destroy(state))).toEqual([]);
    expect(await remote()).toEqual([]);
  });

  it('updates in place: adds, removes, and changes a label by removing and re-adding the IP', async () => {
    await subAccount('ips-update');
    const first = { username: 'ips-update', entries: [e('203.0.113.1', 'a'), e('203.0.113.2', 'b'), e('203.0.113.3')] };
    const state = await driver.create(first);
    const second = { username: 'ips-update', entries: [e('203.0.113.1', 'a'), e('203.0.113.2', 'renamed'), e('203.0.113.4', 'new')] };
    const updated = await driver.update(state, second);
    expect(sorted(updated['entries'])).toEqual(sorted(second.entries));
    expect(await remote('ips-update')).toEqual(sorted(second.entries));
    await expectNoChanges(updated, second);
    // Clearing a label is a change too.
    const third = { username: 'ips-update', entries: [e('203.0.113.1')] };
    const cleared = await driver.update(updated, third);
    expect(await remote('ips-update')).toEqual([e('203.0.113.1')]);
    await expectNoChanges(cleared, third);
  });

  it('replaces half of a full list of 100 IPs: removals run first, so the limit is never hit', async () => {
    const full = Array.from({ length: 100 }, (_, i) => e(`10.1.${Math.floor(i / 50)}.${i % 50}`));
    await subAccount('ips-full', full);
    const imported = (await driver.import('ips-full')).state!;
    const next = [...full.slice(0, 50), ...Array.from({ length: 50 }, (_, i) => e(`10.2.0.${i}`, `n${i}`))];
    const config = { username: 'ips-full', entries: next };
    const updated = await driver.update(imported, config);
    expect(sorted(updated['entries'])).toEqual(sorted(next));
    expect(await remote('ips-full')).toEqual(sorted(next));
  });

  it('shows entries added and removed outside Terraform as drift, and puts them back', async () => {
    await subAccount('ips-drift');
    const config = { username: 'ips-drift', entries: [e('203.0.113.20', 'keep'), e('203.0.113.21')] };
    const state = await driver.create(config);
    await suite.admin.ips.add({ ip: '198.51.100.99', label: 'rogue', username: 'ips-drift' });
    await suite.admin.ips.delete({ ip: '203.0.113.21', username: 'ips-drift' });
    const drifted = (await driver.read(state))!;
    expect(sorted(drifted['entries'])).toEqual(sorted([e('203.0.113.20', 'keep'), e('198.51.100.99', 'rogue')]));
    const { planned } = await driver.plan(drifted, config);
    expect(sorted(planned['entries'])).toEqual(sorted(config.entries));
    const fixed = await driver.update(drifted, config);
    expect(await remote('ips-drift')).toEqual(sorted(config.entries));
    await expectNoChanges(fixed, config);
  });

  it('imports by username and by _self, and rejects a malformed ID', async () => {
    await subAccount('ips-import', [e('203.0.113.30', 'x'), e('203.0.113.31')]);
    const { state, diagnostics } = await driver.import('ips-import');
    expect(diagnostics).toEqual([]);
    expect(normalized(state, 'entries')).toEqual({
      id: 'ips-import',
      username: 'ips-import',
      entries: sorted([e('203.0.113.30', 'x'), e('203.0.113.31')]),
      removed_entries: [],
    });
    await expectNoChanges(state!, { username: 'ips-import', entries: [e('203.0.113.30', 'x'), e('203.0.113.31')] });

    await suite.admin.ips.add({ ip: '192.0.2.77' });
    const self = await driver.import('_self');
    expect(self.state).toEqual({ id: '_self', username: null, entries: [e('192.0.2.77')], removed_entries: [] });
    await suite.admin.ips.delete({ ip: '192.0.2.77' });

    const bad = await driver.import('not/valid!');
    expect(bad.state).toBeNull();
    expect(bad.diagnostics[0]).toMatchObject({ summary: 'Invalid import ID' });
    expect(bad.diagnostics[0]!.detail).toContain('_self');
  });

  it('deletes every entry, and deleting again (or after the sub-account is gone) succeeds', async () => {
    await subAccount('ips-delete');
    const state = await driver.create({ username: 'ips-delete', entries: [e('203.0.113.40'), e('203.0.113.41', 'l')] });
    await suite.admin.ips.add({ ip: '198.51.100.40', username: 'ips-delete' });
    expect(errors(await driver.destroy(state))).toEqual([]);
    expect(await remote('ips-delete')).toEqual([]);
    expect(errors(await driver.destroy(state))).toEqual([]);
    await suite.admin.subAccounts.delete('ips-delete');
    expect(errors(await driver.destroy(state))).toEqual([]);
    expect(await driver.read(state)).toBeNull();
  });

  it('records what happened when some adds fail, and the next plan shows the rest', async () => {
    await subAccount('ips-partial', [e('198.51.100.50')]);
    const state = await driver.create({ username: 'ips-partial', entries: [e('198.51.100.50')] });
    const config = { username: 'ips-partial', entries: [e('203.0.113.51'), e('203.0.113.52'), e('203.0.113.53')] };
    const { planned } = await driver.plan(state, config);
    await suite.emu.control.fault({ path: '/api/ip/add/', status: 500, count: 1 });
    const { state: after, diagnostics } = await driver.apply(state, planned, config);

    expect(errors(diagnostics)).toHaveLength(1);
    expect(diagnostics[0]).toMatchObject({ summary: 'Unable to update authorized IP list' });
    expect(diagnostics[0]!.detail).toMatch(/sub-account 'ips-partial'.*add IP '203\.0\.113\.5[123]'.*500/s);
    const truth = await remote('ips-partial');
    expect(truth).toHaveLength(2); // the removal and two of three adds happened
    expect(sorted(after!['entries'])).toEqual(truth);
    const next = await driver.plan(after!, config);
    expect(sorted(next.planned['entries'])).not.toEqual(sorted(after!['entries']));
    const done = await driver.update(after!, config);
    expect(await remote('ips-partial')).toEqual(sorted(config.entries));
    await expectNoChanges(done, config);
  });

  it('keeps the old label when removing the IP for a label change fails (the re-add is not tried)', async () => {
    await subAccount('ips-relabel');
    const state = await driver.create({ username: 'ips-relabel', entries: [e('203.0.113.60', 'old'), e('203.0.113.61')] });
    const config = { username: 'ips-relabel', entries: [e('203.0.113.60', 'new'), e('203.0.113.61'), e('203.0.113.62')] };
    const { planned } = await driver.plan(state, config);
    await suite.emu.control.fault({ path: '/api/ip/delete/', status: 503, count: 1 });
    const { state: after, diagnostics } = await driver.apply(state, planned, config);
    expect(errors(diagnostics).map((d) => d.summary)).toEqual(['Unable to update authorized IP list', 'Unable to update authorized IP list']);
    expect(errors(diagnostics)[1]!.detail).toMatch(/1 change\(s\) were not attempted/);
    expect(sorted(after!['entries'])).toEqual(sorted([e('203.0.113.60', 'old'), e('203.0.113.61'), e('203.0.113.62')]));
    expect(await remote('ips-relabel')).toEqual(sorted(after!['entries'] as Entry[]));
  });

  it('saves what a partly failed create did, and nothing when it did nothing', async () => {
    await subAccount('ips-create-fail');
    const config = { username: 'ips-create-fail', entries: [e('203.0.113.70'), e('203.0.113.71')] };
    const { planned } = await driver.plan(null, config);
    await suite.emu.control.fault({ path: '/api/ip/add/', status: 500, count: 1 });
    const partial = await driver.apply(null, planned, config);
    expect(errors(partial.diagnostics)).toHaveLength(1);
    expect(partial.state!['entries']).toEqual(await remote('ips-create-fail'));
    expect(partial.state!['entries']).toHaveLength(1);
    // Saved with an error, Terraform marks it tainted and replaces the whole list next: said, with the way out.
    expect(partial.diagnostics.filter((d) => d.severity === 'warning')).toEqual([
      expect.objectContaining({
        summary: 'The authorized IP list is kept, marked tainted',
        detail: expect.stringMatching(
          /sub-account 'ips-create-fail'.*next plan replaces it: every entry removed, then added again.*terraform untaint ADDRESS/s,
        ),
      }),
    ]);

    await subAccount('ips-create-none');
    const none = { username: 'ips-create-none', entries: [e('203.0.113.72')] };
    const plan2 = await driver.plan(null, none);
    await suite.emu.control.fault({ path: '/api/ip/add/', status: 500, count: 1 });
    const failed = await driver.apply(null, plan2.planned, none);
    expect(failed.state).toBeNull();
    expect(errors(failed.diagnostics)[0]!.summary).toBe('Unable to create authorized IP list');
    expect(failed.diagnostics.filter((d) => d.severity === 'warning')).toEqual([]);
  });

  it('says so when the apply removes an entry added after the plan, which the plan could not show', async () => {
    await subAccount('ips-late');
    const state = await driver.create({ username: 'ips-late', entries: [e('203.0.113.80')] });
    const config = { username: 'ips-late', entries: [e('203.0.113.80'), e('203.0.113.81')] };
    const { planned, diagnostics: planDiags } = await driver.plan(state, config);
    expect(planned['removed_entries']).toEqual([]);
    expect(planDiags.filter((d) => d.severity === 'warning')).toEqual([]);
    // A colleague adds an entry between the reviewed plan and its apply.
    await suite.admin.ips.add({ ip: '198.51.100.90', label: 'late', username: 'ips-late' });
    const { state: after, diagnostics } = await driver.apply(state, planned, config);
    expect(errors(diagnostics)).toEqual([]);
    expect(diagnostics.filter((d) => d.severity === 'warning')).toEqual([
      expect.objectContaining({
        summary: 'Authorized IP list removed 1 entry the plan did not show',
        detail: expect.stringMatching(/added after the plan was made.*198\.51\.100\.90 \(late\)/),
      }),
    ]);
    expect(await remote('ips-late')).toEqual(sorted(after!['entries'] as Entry[]));
  });

  it('leaves alone an entry whose label the account keeps decomposed: Terraform holds it composed, and the plan showed it unchanged', async () => {
    await subAccount('ips-nfd', [e('203.0.113.60', 'cafe\u0301'), e('203.0.113.61', 'other')]);
    // State and configuration hold every string in normal form C, as Terraform does.
    const state = { ...(await driver.import('ips-nfd')).state!, entries: [e('203.0.113.60', 'caf\u00e9'), e('203.0.113.61', 'other')] };
    const config = { username: 'ips-nfd', entries: [e('203.0.113.60', 'caf\u00e9'), e('203.0.113.61', 'other2')] };
    const after = await driver.update(state, config);
    expect(after['entries']).toEqual(config.entries);
    // Only the relabelled entry was removed and added again: the other keeps its bytes.
    expect(await remote('ips-nfd')).toEqual([e('203.0.113.60', 'cafe\u0301'), e('203.0.113.61', 'other2')]);
  });

  it('plans the same removals while applying when an entry it removes is gone already, so Terraform does not stop the list', async () => {
    await subAccount('ips-gone', [e('203.0.113.90', 'vpn')]);
    // The list took over the account's entries; a per-entry resource still manages 203.0.113.90.
    const state = (await driver.read(await driver.create({ username: 'ips-gone', entries: [e('203.0.113.90', 'vpn'), e('203.0.113.91')] })))!;
    const config = { username: 'ips-gone', entries: [e('203.0.113.91')] };
    const reviewed = await driver.plan(state, config);
    expect(reviewed.planned['removed_entries']).toEqual(['203.0.113.90 (vpn)']);
    // The same apply destroys the per-entry resource before it updates the list.
    await suite.admin.ips.delete({ ip: '203.0.113.90', username: 'ips-gone' });
    const whileApplying = await driver.plan(state, config);
    expect(whileApplying.planned['removed_entries']).toEqual(reviewed.planned['removed_entries']);
    expect(whileApplying.diagnostics.filter((d) => d.severity === 'warning')).toEqual([
      expect.objectContaining({
        detail: expect.stringMatching(/: 203\.0\.113\.90 \(vpn\)\. Of these, 203\.0\.113\.90 \(vpn\) is gone from the account already\./),
      }),
    ]);
    const { state: after, diagnostics } = await driver.apply(state, whileApplying.planned, config);
    expect(errors(diagnostics)).toEqual([]);
    expect(after!['entries']).toEqual(config.entries);
    expect(await remote('ips-gone')).toEqual(config.entries);
  });

  it('keeps a new list whose add may have taken effect: the list read again shows it did', async () => {
    await subAccount('ips-create-lost');
    const config = { username: 'ips-create-lost', entries: [e('203.0.113.75', 'office')] };
    const { planned } = await driver.plan(null, config);
    // The add is made, and its answer dropped a second later; meanwhile the store's read-back is refused.
    await suite.emu.control.fault({ path: '/api/ip/add/', method: 'POST', dropResponse: true, delayAfterMs: 1000, count: 1 });
    const applying = driver.apply(null, planned, config);
    while ((await remote('ips-create-lost')).length === 0) await new Promise((r) => setTimeout(r, 50));
    await suite.emu.control.fault({ path: '/api/ip_labels/', method: 'GET', status: 403, count: 1 });
    const { state, diagnostics } = await applying;
    expect(errors(diagnostics).map((d) => d.summary)).toContain('Unable to create authorized IP list');
    // Saved: the entry exists, and the state holds it.
    expect(state).not.toBeNull();
    expect(state!['entries']).toEqual(await remote('ips-create-lost'));
    expect(state!['entries']).toEqual([e('203.0.113.75', 'office')]);
  });

  it('plans a replacement when username changes', async () => {
    await subAccount('ips-rename');
    const state = await driver.create({ username: 'ips-rename', entries: [] });
    const { requiresReplace } = await driver.plan(state, { username: 'ips-renamed', entries: [] });
    expect(requiresReplace).toEqual([[{ attributeName: 'username' }]]);
  });

  it('validates every constraint, naming the entry at fault', async () => {
    const diags = await driver.validate({
      username: 'bad name!',
      entries: [e('203.0.113.300'), e('203.0.113.1', ''), e('203.0.113.2', 'x'.repeat(101))],
    });
    expect(paths(errors(diags)).sort()).toEqual(['entries', 'entries', 'entries', 'username']);
    const details = errors(diags)
      .map((d) => d.detail)
      .join('\n');
    expect(details).toContain('"203.0.113.300"');
    expect(details).toMatch(/label of the entry for 203\.0\.113\.1 must not be empty/);
    expect(details).toMatch(/label of the entry for 203\.0\.113\.2 must be at most 100 characters/);

    const dup = await driver.validate({ entries: [e('203.0.113.9', 'a'), e('203.0.113.9', 'b')] });
    expect(errors(dup)).toEqual([
      expect.objectContaining({ attribute: [{ attributeName: 'entries' }], detail: expect.stringContaining('203.0.113.9 more than once') }),
    ]);
    const tooMany = await driver.validate({ entries: Array.from({ length: 101 }, (_, i) => e(`10.9.${Math.floor(i / 100)}.${i % 100}`)) });
    expect(errors(tooMany)).toEqual([expect.objectContaining({ attribute: [{ attributeName: 'entries' }], detail: expect.stringContaining('at most 100') })]);
    expect(await driver.validate({ username: 'ok', entries: [e('203.0.113.9', 'fine')] })).toEqual([]);
  });

  it('refuses a null entry (a conditional giving null in a for) at validation, and waits for an unknown one', async () => {
    const config = { entries: [e('192.0.2.1'), null] };
    expect(errors(await driver.validate(config))).toEqual([
      expect.objectContaining({
        summary: 'Null element',
        detail: 'An element of entries is null (for example a variable that is null, or a conditional that gives null); remove it or set it to a value.',
        attribute: [{ attributeName: 'entries' }],
      }),
    ]);
    expect(await driver.validate({ entries: [e('192.0.2.1'), UNKNOWN] })).toEqual([]);
  });

  it("keeps entries' own rules from failing on a null entry, should one reach them", () => {
    const ctx = { path: [{ attributeName: 'entries' }], attributeName: 'entries', sensitive: false, siblings: {} };
    const check = (v: Array<Entry | null>) => schema.attributes.entries.validators.flatMap((r) => r.validate(v as Entry[], ctx));
    expect(check([e('192.0.2.1'), null])).toEqual([]);
    expect(check([null, e('192.0.2.1'), e('192.0.2.1', 'x')])).toEqual([
      expect.objectContaining({ detail: expect.stringContaining('192.0.2.1 more than once') }),
    ]);
  });

  it('leaves id unknown at plan time while username is unknown', async () => {
    const { planned } = await driver.plan(null, { username: UNKNOWN, entries: [] });
    expect(isUnknown(planned['id']!)).toBe(true);
  });
});

describe('proxyaccount_authorized_ips data source', () => {
  const ds = authorizedIpsDataSource.schema;

  it('reads the entries sorted by address, with labels (null when none)', async () => {
    await subAccount('ipsds', [e('10.0.0.10', 'ten'), e('10.0.0.9'), e('9.255.0.1', 'low')]);
    const { state, diagnostics } = await suite.readData('proxyaccount_authorized_ips', ds, { username: 'ipsds' });
    expect(diagnostics).toEqual([]);
    expect(state).toEqual({ username: 'ipsds', id: 'ipsds', entries: [e('9.255.0.1', 'low'), e('10.0.0.9'), e('10.0.0.10', 'ten')] });
    const self = await suite.readData('proxyaccount_authorized_ips', ds, {});
    expect(self.state).toEqual({ username: null, id: '_self', entries: await remote() });
  });

  it('reports a missing sub-account on username, and validates username', async () => {
    const { state, diagnostics } = await suite.readData('proxyaccount_authorized_ips', ds, { username: 'ipsds-nobody' });
    expect(state).toBeNull();
    expect(diagnostics).toEqual([expect.objectContaining({ summary: 'Sub-account not found', attribute: [{ attributeName: 'username' }] })]);
    const server = await suite.newServer();
    const res = await server.validateDataResourceConfig({ typeName: 'proxyaccount_authorized_ips', config: dv(ds, obj(ds, { username: 'no spaces' })) });
    expect(paths(errors(res.diagnostics))).toEqual(['username']);
  });
});
