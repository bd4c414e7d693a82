// Authoritative lists whose owner or entries are not known at plan time, against a real emulator.
// Terraform plans every change again while applying, with the values known, and refuses to apply
// one whose values differ from what the reviewed plan knew: `consistent` below is that rule. So
// what the reviewed plan could not show is settled in it: a new list whose account it cannot read
// promises no removal (which Terraform then holds the apply to), and a list whose entries are not
// known names every entry the account's list holds, leaving removed_entries unknown.
import { isUnknown, UNKNOWN, type CtyValue } from '../../src/protocol/cty';
import type { Diagnostic } from '../../src/protocol/types';
import { createProviderServer } from '../../src/provider/provider';
import { authorizedIpsResource } from '../../src/provider/resources/authorized-ips';
import { startEmulatedProvider, type EmulatedProvider } from './emulated-provider';
import { decodeObject, dv, errors, NO_PRIVATE, obj } from './harness';
import type { ResourceDriver } from './terraform-sim';

const schema = authorizedIpsResource.schema;
let p: EmulatedProvider;
let driver: ResourceDriver;

const e = (ip: string, label: string | null = null) => ({ ip, label });
const warnings = (diags: readonly Diagnostic[]) => diags.filter((d) => d.severity === 'warning');
const live = async (username: string) => (await p.admin.ips.listWithLabels({ username })).map((x) => (x.label === '' ? x.ip : `${x.ip} (${x.label})`)).sort();

/** Terraform's check of the plan made while applying: every value the reviewed plan knew is unchanged (sets in any order). */
function consistent(reviewed: Record<string, CtyValue>, applying: Record<string, CtyValue>): boolean {
  const same = (a: CtyValue, b: CtyValue): boolean =>
    Array.isArray(a) && Array.isArray(b) ? a.length === b.length && a.every((x) => b.some((y) => same(x, y))) : JSON.stringify(a) === JSON.stringify(b);
  return Object.entries(reviewed).every(([name, v]) => (v !== null && isUnknown(v)) || same(v, applying[name] ?? null));
}

beforeAll(async () => {
  p = await startEmulatedProvider();
  driver = p.driver('proxyaccount_authorized_ips', schema);
});

afterAll(async () => {
  await p?.close();
});

describe('a new list whose username is not known at plan time', () => {
  it('promises no removal and says so; the plan made while applying shows the undeclared entry, so Terraform refuses it and nothing is removed', async () => {
    await p.admin.subAccounts.create({ username: 'unk-owner' });
    await p.admin.ips.add({ ip: '198.51.100.200', label: 'precious', username: 'unk-owner' });
    const entries = [e('203.0.113.77')];

    const reviewed = await driver.plan(null, { username: UNKNOWN, entries });
    expect(reviewed.planned['removed_entries']).toEqual([]);
    expect(isUnknown(reviewed.planned['id']!)).toBe(true);
    expect(warnings(reviewed.diagnostics)).toEqual([
      expect.objectContaining({
        summary: 'Authorized IP list cannot be read before apply',
        attribute: [{ attributeName: 'entries' }],
        detail: expect.stringMatching(
          /`username` is not known until apply.*plans to remove none of them \(removed_entries = \[\]\).*the apply of this list stops.*removes nothing; the next plan then shows it/s,
        ),
      }),
    ]);

    // While applying, the username is known: the plan shows the entry, which the reviewed plan promised to keep.
    const applying = await driver.plan(null, { username: 'unk-owner', entries });
    expect(applying.planned['removed_entries']).toEqual(['198.51.100.200 (precious)']);
    expect(consistent(reviewed.planned, applying.planned)).toBe(false);
    expect(warnings(applying.diagnostics)[0]?.detail).toMatch(
      /While applying a plan whose known removed_entries leave them out, Terraform stops this list instead/,
    );
    expect(await live('unk-owner')).toEqual(['198.51.100.200 (precious)']);
  });

  it('applies as planned when the list holds nothing undeclared: the plan made while applying agrees', async () => {
    await p.admin.subAccounts.create({ username: 'unk-owner-2' });
    await p.admin.ips.add({ ip: '203.0.113.77', username: 'unk-owner-2' });
    const entries = [e('203.0.113.77'), e('203.0.113.78', 'new')];
    const reviewed = await driver.plan(null, { username: UNKNOWN, entries });
    const applying = await driver.plan(null, { username: 'unk-owner-2', entries });
    expect(consistent(reviewed.planned, applying.planned)).toBe(true);
    const { state, diagnostics } = await driver.apply(null, applying.planned, { username: 'unk-owner-2', entries });
    expect(errors(diagnostics)).toEqual([]);
    expect(state?.['removed_entries']).toEqual([]);
    expect(await live('unk-owner-2')).toEqual(['203.0.113.77', '203.0.113.78 (new)']);
  });
});

describe('a new list while the provider cannot read the account (not configured yet)', () => {
  it('promises no removal, as for an unknown username', async () => {
    const server = createProviderServer({ env: {} });
    const config = obj(schema, { username: 'someone', entries: [e('203.0.113.9')] });
    const res = await server.planResourceChange({
      typeName: 'proxyaccount_authorized_ips',
      priorState: dv(schema, null),
      proposedNewState: dv(schema, { ...config, id: UNKNOWN, removed_entries: UNKNOWN }),
      config: dv(schema, config),
      priorPrivate: NO_PRIVATE,
    });
    expect(decodeObject(schema, res.plannedState)).toMatchObject({ id: 'someone', removed_entries: [] });
    expect(res.diagnostics).toEqual([
      expect.objectContaining({ severity: 'warning', detail: expect.stringMatching(/the provider's configuration is not known until apply/) }),
    ]);
  });
});

describe('a list whose entries are not known at plan time', () => {
  it('on update leaves removed_entries unknown and names every entry the list holds; the plan made while applying agrees and the apply removes what it named', async () => {
    await p.admin.subAccounts.create({ username: 'unk-entries' });
    const state = await driver.create({ username: 'unk-entries', entries: [e('203.0.113.1'), e('203.0.113.2')] });
    await p.admin.ips.add({ ip: '198.51.100.9', label: 'drift', username: 'unk-entries' });
    const refreshed = (await driver.read(state))!;

    const reviewed = await driver.plan(refreshed, { username: 'unk-entries', entries: UNKNOWN });
    // Not the prior value ([]), which the plan made while applying would contradict.
    expect(isUnknown(reviewed.planned['removed_entries']!)).toBe(true);
    expect(warnings(reviewed.diagnostics)).toEqual([
      expect.objectContaining({
        summary: 'Authorized IP list may remove entries this plan cannot show',
        detail: expect.stringMatching(
          /`entries` is not known until apply.*It holds now: 203\.0\.113\.1, 203\.0\.113\.2, 198\.51\.100\.9 \(drift\); applying this plan removes each of them the configuration turns out not to declare, and any entry added to the list between this plan and its apply/s,
        ),
      }),
    ]);

    const entries = [e('203.0.113.1'), e('203.0.113.3')];
    const applying = await driver.plan(refreshed, { username: 'unk-entries', entries });
    expect(consistent(reviewed.planned, applying.planned)).toBe(true);
    expect([...(applying.planned['removed_entries'] as string[])].sort()).toEqual(['198.51.100.9 (drift)', '203.0.113.2']);
    const applied = await driver.apply(refreshed, applying.planned, { username: 'unk-entries', entries });
    expect(errors(applied.diagnostics)).toEqual([]);
    expect(await live('unk-entries')).toEqual(['203.0.113.1', '203.0.113.3']);
  });

  it('plans nothing to remove, without a warning, when the list is empty', async () => {
    await p.admin.subAccounts.create({ username: 'unk-empty' });
    const reviewed = await driver.plan(null, { username: 'unk-empty', entries: UNKNOWN });
    expect(reviewed.planned['removed_entries']).toEqual([]);
    expect(reviewed.planned['id']).toBe('unk-empty');
    expect(reviewed.diagnostics).toEqual([]);
  });
});
