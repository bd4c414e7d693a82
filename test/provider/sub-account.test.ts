// proxyaccount_sub_account (resource and data source) against a real emulator, driven the way
// Terraform drives it: create, second plan empty, update, activation toggle, password rotation
// with a write-only attribute, drift, import, replace, idempotent delete, failed create.
import { UNKNOWN, isUnknown } from '../../src/protocol/cty';
import { createProvider, createProviderServer, type ProxyAccountServer } from '../../src/provider/provider';
import { subAccountResource } from '../../src/provider/resources/sub-account';
import { subAccountDataSource } from '../../src/provider/data-sources/sub-account';
import { ProxyAccountClient } from '../../src/sdk';
import { startEmulator, type RunningEmulator } from '../helpers/emulator';
import type { CtyValue } from '../../src/protocol/cty';
import type { Diagnostic } from '../../src/protocol/types';
import { decode, dv, errors, obj, paths, TF110 } from './harness';
import { ResourceDriver, type Obj } from './terraform-sim';

let emu: RunningEmulator;
let admin: ProxyAccountClient;
let driver: ResourceDriver;
let env: NodeJS.ProcessEnv;
const schema = subAccountResource.schema;

const providerSchema = createProvider().schema;
const servers: ProxyAccountServer[] = [];

/** A freshly configured provider, as Terraform starts one per command. */
async function newServer(): Promise<ProxyAccountServer> {
  const server = createProviderServer({ env });
  servers.push(server);
  const res = await server.configureProvider({ terraformVersion: '1.11.4', config: dv(providerSchema, obj(providerSchema, {})) });
  if (res.diagnostics.length > 0) throw new Error(JSON.stringify(res.diagnostics));
  return server;
}

beforeAll(async () => {
  emu = await startEmulator();
  env = { PROXYACCOUNT_BASE_URL: emu.url, PROXYACCOUNT_USERNAME: 'demo', PROXYACCOUNT_PASSWORD: 'demo-password', PROXYACCOUNT_CA_CERT_FILE: emu.caFile };
  admin = new ProxyAccountClient({ baseUrl: emu.url, auth: { username: 'demo', password: 'demo-password' }, caCert: emu.caPem });
  driver = new ResourceDriver(newServer, 'proxyaccount_sub_account', schema);
});

afterAll(async () => {
  await Promise.all(servers.map((s) => s.providerData?.close()));
  await admin?.close();
  await emu?.stop();
});

/** True when the sub-account can authenticate with `password` (IP listing accepts sub-accounts). */
async function canLogIn(username: string, password: string): Promise<boolean> {
  const c = new ProxyAccountClient({ baseUrl: emu.url, auth: { username, password }, caCert: emu.caPem, maxRetries: 0 });
  try {
    await c.ips.list();
    return true;
  } catch {
    return false;
  } finally {
    await c.close();
  }
}

describe('proxyaccount_sub_account', () => {
  it('creates (deactivated when active = false), and a second plan is empty', async () => {
    const config = {
      username: 'sa-create',
      password_wo: 'first-pw-1',
      password_wo_version: 1,
      first_name: 'Ada',
      email: 'ada@example.com',
      monthly_limit: 10,
      active: false,
    };
    const { planned } = await driver.plan(null, config);
    expect(isUnknown(planned['id']!)).toBe(true);
    expect(planned['password_wo']).toBeNull();
    expect(planned['total_limit']).toBe(0);

    const state = await driver.create(config);
    expect(state).toEqual(obj(schema, { ...config, id: 'sa-create', password_wo: null, last_name: null, total_limit: 0 }));
    const remote = await admin.subAccounts.get('sa-create');
    expect(remote).toMatchObject({ active: false, firstName: 'Ada', email: 'ada@example.com', monthlyBandwidthLimit: 10 });
    // Usage figures belong to the data source, not the resource.
    expect(Object.keys(schema.attributes)).not.toContain('monthly_bandwidth');

    const refreshed = await driver.read(state);
    expect(refreshed).toEqual(state);
    const second = await driver.plan(refreshed, config);
    expect(second.planned).toEqual(refreshed);
    expect(second.requiresReplace).toEqual([]);
  });

  it('updates with the complete field set: changed names, cleared email, limits, reactivation', async () => {
    const state = await driver.create({ username: 'sa-update', password: 'pw-update-1', first_name: 'Bob', email: 'bob@example.com', active: false });
    const updated = await driver.update(state, { username: 'sa-update', password: 'pw-update-1', first_name: 'Robert', last_name: 'Smith', total_limit: 50 });
    expect(updated).toMatchObject({ first_name: 'Robert', last_name: 'Smith', email: null, total_limit: 50, active: true, password: 'pw-update-1' });
    const remote = await admin.subAccounts.get('sa-update');
    expect(remote).toMatchObject({ firstName: 'Robert', lastName: 'Smith', totalBandwidthLimit: 50, active: true });
    expect(remote.email).toBeUndefined();
    const again = await driver.plan(await driver.read(updated), {
      username: 'sa-update',
      password: 'pw-update-1',
      first_name: 'Robert',
      last_name: 'Smith',
      total_limit: 50,
    });
    expect(again.planned).toEqual(updated);
  });

  it('rotates a write-only password only when password_wo_version changes', async () => {
    const base = { username: 'sa-rotate', password_wo_version: 1 };
    const state = await driver.create({ ...base, password_wo: 'rotate-pw-1' });
    expect(await canLogIn('sa-rotate', 'rotate-pw-1')).toBe(true);
    // Same version: a new write-only value is not even planned as a change.
    const same = await driver.plan(state, { ...base, password_wo: 'rotate-pw-2' });
    expect(same.planned).toEqual(state);
    const rotated = await driver.update(state, { ...base, password_wo: 'rotate-pw-2', password_wo_version: 2 });
    expect(rotated['password_wo']).toBeNull();
    expect(rotated['password_wo_version']).toBe(2);
    expect(await canLogIn('sa-rotate', 'rotate-pw-2')).toBe(true);
  });

  it('rejects write-only passwords on Terraform older than 1.11', async () => {
    const old = new ResourceDriver(newServer, 'proxyaccount_sub_account', schema, TF110);
    const diags = await old.validate({ username: 'sa-old', password_wo: 'x', password_wo_version: 1 });
    expect(paths(errors(diags))).toEqual(['password_wo']);
  });

  it('validates every API constraint on its attribute', async () => {
    const diags = await driver.validate({
      username: 'bad name!',
      password: 'p'.repeat(129),
      first_name: 'x'.repeat(21),
      email: 'not-an-email',
      monthly_limit: -1,
      total_limit: 1.5,
    });
    expect(paths(errors(diags)).sort()).toEqual(['email', 'first_name', 'monthly_limit', 'password', 'total_limit', 'username']);
    const both = await driver.validate({ username: 'ok', password: 'a', password_wo: 'b', password_wo_version: 1 });
    expect(paths(errors(both)).sort()).toEqual(['password', 'password_wo']);
  });

  it('detects drift: a field changed outside shows as an update, a deleted sub-account leaves state', async () => {
    const config = { username: 'sa-drift', first_name: 'Carol' };
    const state = await driver.create(config);
    await admin.subAccounts.edit({ username: 'sa-drift', firstName: 'Mallory' });
    const drifted = (await driver.read(state))!;
    expect(drifted['first_name']).toBe('Mallory');
    const { planned } = await driver.plan(drifted, config);
    expect(planned['first_name']).toBe('Carol');
    await admin.subAccounts.delete('sa-drift');
    expect(await driver.read(drifted)).toBeNull();
  });

  it('plans a replacement when the username changes', async () => {
    const state = await driver.create({ username: 'sa-rename' });
    const { requiresReplace } = await driver.plan(state, { username: 'sa-renamed' });
    expect(requiresReplace).toEqual([[{ attributeName: 'username' }]]);
  });

  it('imports by username (password null), and rejects a malformed ID', async () => {
    await admin.subAccounts.create({ username: 'sa-import', lastName: 'Imported', monthlyLimit: 3 });
    const { state, diagnostics } = await driver.import('sa-import');
    expect(errors(diagnostics)).toEqual([]);
    expect(state).toEqual(obj(schema, { id: 'sa-import', username: 'sa-import', last_name: 'Imported', monthly_limit: 3, total_limit: 0, active: true }));
    const bad = await driver.import('not valid!');
    expect(bad.state).toBeNull();
    expect(bad.diagnostics[0]).toMatchObject({ summary: 'Invalid import ID' });
  });

  it('deletes, and deleting again (already gone) succeeds', async () => {
    const state = await driver.create({ username: 'sa-delete' });
    expect(errors(await driver.destroy(state))).toEqual([]);
    await expect(admin.subAccounts.get('sa-delete')).rejects.toMatchObject({ code: 'ERR_NOT_FOUND' });
    expect(errors(await driver.destroy(state))).toEqual([]);
  });

  it('saves nothing when create fails, and says why', async () => {
    await driver.create({ username: 'sa-taken' });
    const { planned } = await driver.plan(null, { username: 'sa-taken' });
    const { state, diagnostics } = await driver.apply(null, planned, { username: 'sa-taken' });
    expect(state).toBeNull();
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0]).toMatchObject({ severity: 'error', summary: 'Unable to create sub-account' });
    // Read before creating: nothing is sent, and the way to adopt it is named.
    expect(diagnostics[0]!.detail).toMatch(
      /Sub-account 'sa-taken' already exists \(read before creating it; nothing was sent\).*terraform import proxyaccount_sub_account\.NAME "sa-taken"/s,
    );
  });

  it('keeps in state, with the error, a sub-account whose create lost its connection and which reading back does not show yet', async () => {
    const config = { username: 'sa-reset', password_wo: 'reset-pw-1', password_wo_version: 1, monthly_limit: 5 };
    const { planned } = await driver.plan(null, config);
    // The connection drops without an answer: the create may still be queued somewhere on its way.
    await emu.control.fault({ path: '/api/sub/create/', method: 'POST', reset: true, count: 1 });
    const { state, diagnostics } = await driver.apply(null, planned, config);
    expect(errors(diagnostics)).toEqual([
      expect.objectContaining({
        summary: 'Unable to create sub-account',
        detail: expect.stringMatching(
          /create sub-account 'sa-reset'.*does not hold it yet, but the API may still carry the request out.*kept in the state marked tainted/s,
        ),
      }),
    ]);
    expect(diagnostics[0]!.detail).not.toMatch(/base_url|reachable|ca_cert_file|reset-pw-1/);
    // Saved as sent (tainted): the next refresh drops it, as it was never made, and the plan creates it again.
    expect(state).toMatchObject({ id: 'sa-reset', username: 'sa-reset', monthly_limit: 5, password_wo: null });
    expect(await driver.read(state!)).toBeNull();
  });

  it('keeps a configured unknown unknown and still defaults the other computed attributes', async () => {
    const { planned } = await driver.plan(null, { username: 'sa-plan', active: UNKNOWN });
    expect(isUnknown(planned['active']!)).toBe(true);
    expect(planned['monthly_limit']).toBe(0);
  });
});

describe('proxyaccount_sub_account: removing the password (the API cannot clear one)', () => {
  const warnings = (diags: ReadonlyArray<{ severity: string }>) => diags.filter((d) => d.severity === 'warning');

  it('plans a replacement, with a warning that says why, and the replacement leaves no password that authenticates', async () => {
    const state = await driver.create({ username: 'sa-pw-gone', password: 'Gone-Pass-1' });
    const { requiresReplace, diagnostics } = await driver.plan(state, { username: 'sa-pw-gone' });
    expect(requiresReplace).toEqual([[{ attributeName: 'password' }]]);
    expect(warnings(diagnostics)).toEqual([
      expect.objectContaining({
        summary: 'Removing the password replaces the sub-account',
        attribute: [{ attributeName: 'password' }],
        detail: expect.stringMatching(
          /cannot remove a sub-account's password.*replaces sub-account 'sa-pw-gone'.*usage history, authorized IPs, hostnames and bearer tokens.*created anew without a password.*ignore_changes = \[password\]/s,
        ),
      }),
    ]);
    expect(diagnostics.map((d) => d.detail ?? '').join('\n')).not.toContain('Gone-Pass-1');
    // Terraform runs a replacement as a destroy and then a create.
    expect(errors(await driver.destroy(state))).toEqual([]);
    const replaced = await driver.create({ username: 'sa-pw-gone' });
    expect(replaced['password']).toBeNull();
    expect(await canLogIn('sa-pw-gone', 'Gone-Pass-1')).toBe(false);
    const again = await driver.plan(replaced, { username: 'sa-pw-gone' });
    expect(again.planned).toEqual(replaced);
    expect(again.requiresReplace).toEqual([]);
    expect(again.diagnostics).toEqual([]);
  });

  it('plans a replacement when password_wo and its version are both removed', async () => {
    const state = await driver.create({ username: 'sa-wo-gone', password_wo: 'Wo-Pass-1', password_wo_version: 1 });
    const { requiresReplace, diagnostics } = await driver.plan(state, { username: 'sa-wo-gone' });
    expect(requiresReplace).toEqual([[{ attributeName: 'password_wo_version' }]]);
    expect(warnings(diagnostics)).toEqual([
      expect.objectContaining({
        attribute: [{ attributeName: 'password_wo_version' }],
        detail: expect.stringMatching(/created anew without a password.*keep password_wo_version.*ignore_changes = \[password_wo_version\]/s),
      }),
    ]);
  });

  it('changes the password in place when it moves from password to password_wo with a version', async () => {
    const state = await driver.create({ username: 'sa-pw-move', password: 'Move-Pass-1' });
    const config = { username: 'sa-pw-move', password_wo: 'Move-Pass-2', password_wo_version: 1 };
    const { diagnostics } = await driver.plan(state, config);
    expect(diagnostics).toEqual([]);
    const updated = await driver.update(state, config);
    expect(updated).toMatchObject({ password: null, password_wo: null, password_wo_version: 1 });
    expect(await canLogIn('sa-pw-move', 'Move-Pass-2')).toBe(true);
    expect(await canLogIn('sa-pw-move', 'Move-Pass-1')).toBe(false);
  });

  it('keeps a write-only password as it is while password_wo_version stays, without password_wo (a run without the secret)', async () => {
    const state = await driver.create({ username: 'sa-wo-keep', password_wo: 'Keep-Pass-1', password_wo_version: 3 });
    const { planned, requiresReplace, diagnostics } = await driver.plan(state, { username: 'sa-wo-keep', password_wo_version: 3 });
    expect(planned).toEqual(state);
    expect(requiresReplace).toEqual([]);
    expect(diagnostics).toEqual([]);
  });

  it('plans nothing with lifecycle { ignore_changes = [password] }: Terraform sends the prior password as the configured one', async () => {
    const state = await driver.create({ username: 'sa-pw-ignored', password: 'Ignored-Pass-1' });
    // The configuration no longer sets password; ignore_changes makes Terraform put the prior
    // value in the configuration and the proposed state before PlanResourceChange.
    const { planned, requiresReplace, diagnostics } = await driver.plan(state, { username: 'sa-pw-ignored', password: 'Ignored-Pass-1' });
    expect(planned).toEqual(state);
    expect(requiresReplace).toEqual([]);
    expect(diagnostics).toEqual([]);
  });

  it('warns at import that a password it may have is not known and keeps working, saying how to take it over, without the secret', async () => {
    await admin.subAccounts.create({ username: 'sa-pw-warn', password: 'Never-Shown-1' });
    const { state, diagnostics } = await driver.import('sa-pw-warn');
    expect(diagnostics).toEqual([
      expect.objectContaining({
        severity: 'warning',
        summary: 'Password of an imported sub-account not known',
        detail: expect.stringMatching(
          /The API never shows a sub-account's password, nor whether it has one, so the state of sub-account 'sa-pw-warn' records none.*Any password it has goes on working with the API and the proxy servers.*set password_wo with password_wo_version \(Terraform 1\.11 or later\), or password, and apply/s,
        ),
      }),
    ]);
    expect(JSON.stringify(diagnostics)).not.toContain('Never-Shown-1');
    expect(state).toMatchObject({ password: null, password_wo_version: null });
    // Of a sub-account that does not exist, nothing: no state is recorded, and no password works.
    const none = await driver.import('sa-pw-none');
    expect(none.diagnostics.filter((d) => d.summary === 'Password of an imported sub-account not known')).toEqual([]);
    expect(await canLogIn('sa-pw-warn', 'Never-Shown-1')).toBe(true);
    // What the warning says takes it over: the first apply with password_wo and a version sends it.
    const updated = await driver.update(state!, { username: 'sa-pw-warn', password_wo: 'Taken-Over-1', password_wo_version: 1 });
    expect(updated).toMatchObject({ password: null, password_wo: null, password_wo_version: 1 });
    expect(await canLogIn('sa-pw-warn', 'Never-Shown-1')).toBe(false);
    expect(await canLogIn('sa-pw-warn', 'Taken-Over-1')).toBe(true);
  });

  it('plans nothing for an imported sub-account whose configuration sets no password', async () => {
    await admin.subAccounts.create({ username: 'sa-pw-import', password: 'Never-Known-1' });
    const { state } = await driver.import('sa-pw-import');
    const { planned, requiresReplace, diagnostics } = await driver.plan(state!, { username: 'sa-pw-import' });
    expect(planned).toEqual(state);
    expect(requiresReplace).toEqual([]);
    expect(diagnostics).toEqual([]);
  });
});

describe('proxyaccount_sub_account: a write-only password and its version (the only trace of it in state)', () => {
  /**
   * The warnings of a plan that records a version no password goes with: a warning, so that a
   * destroy (which plans the configuration first) never needs the secret; the apply refuses it.
   */
  const planErrors = async (prior: Obj | null, config: Record<string, CtyValue>): Promise<Diagnostic[]> => {
    const { diagnostics } = await driver.plan(prior, config);
    expect(errors(diagnostics)).toEqual([]);
    const warned = diagnostics.filter((d) => d.severity === 'warning');
    expect(warned.map((d) => d.detail)).toEqual([expect.stringContaining('Applying this plan fails at this sub-account, before anything is sent.')]);
    return warned;
  };
  const noPasswordToSend = (detail: RegExp) => [
    expect.objectContaining({ summary: 'No password to send', attribute: [{ attributeName: 'password_wo' }], detail: expect.stringMatching(detail) }),
  ];

  it('refuses password_wo without password_wo_version, saying to add one and why', async () => {
    for (const passwordWo of ['Wo-Pass-1', UNKNOWN]) {
      const diags = await driver.validate({ username: 'sa-wo-nover', password_wo: passwordWo });
      expect(diags).toEqual([
        expect.objectContaining({
          severity: 'error',
          summary: 'Write-only password without a version',
          attribute: [{ attributeName: 'password_wo' }],
          detail: expect.stringMatching(/add password_wo_version = 1 .*tells Terraform to send password_wo again/s),
        }),
      ]);
      expect(JSON.stringify(diags)).not.toContain('Wo-Pass-1');
    }
    expect(await driver.validate({ username: 'sa-wo-nover', password_wo: 'Wo-Pass-1', password_wo_version: 1 })).toEqual([]);
    expect(await driver.validate({ username: 'sa-wo-nover', password_wo: 'Wo-Pass-1', password_wo_version: UNKNOWN })).toEqual([]);
    expect(await driver.validate({ username: 'sa-wo-nover', password_wo: null })).toEqual([]);
  });

  it('warns at plan of a create with password_wo_version and no password_wo: nothing would record that none was sent', async () => {
    const diags = await planErrors(null, { username: 'sa-ver-only', password_wo_version: 1 });
    expect(diags).toEqual(noPasswordToSend(/password_wo_version is set, but password_wo is not given in this run.*Give password_wo in this run/s));
    // A password_wo known only at apply, or a stored password, is sent.
    await driver.plan(null, { username: 'sa-ver-only', password_wo: UNKNOWN, password_wo_version: 1 });
    const state = await driver.create({ username: 'sa-ver-only', password: 'Stored-Pass-1', password_wo_version: 1 });
    expect(await canLogIn('sa-ver-only', 'Stored-Pass-1')).toBe(true);
    expect(state['password_wo_version']).toBe(1);
  });

  it('warns at plan of a move from password to password_wo_version in a run without password_wo: the old password would stay', async () => {
    const state = await driver.create({ username: 'sa-mv-null', password: 'Old-Pass-4' });
    const diags = await planErrors(state, { username: 'sa-mv-null', password_wo: null, password_wo_version: 1 });
    expect(diags).toEqual(noPasswordToSend(/password_wo_version changes, but password_wo is not given in this run, so no password would be sent/));
    expect(JSON.stringify(diags)).not.toContain('Old-Pass-4');
  });

  it('warns at plan of a version change in a run without password_wo, and after import, of a version given alone', async () => {
    const state = await driver.create({ username: 'sa-bump-null', password_wo: 'Pass-One-9', password_wo_version: 1 });
    expect(await planErrors(state, { username: 'sa-bump-null', password_wo_version: 2 })).toEqual(
      noPasswordToSend(/password_wo_version changes.*Applying this plan fails at this sub-account/s),
    );
    // In the run that changes it, password_wo may be known only at apply.
    const { diagnostics } = await driver.plan(state, { username: 'sa-bump-null', password_wo: UNKNOWN, password_wo_version: 2 });
    expect(diagnostics).toEqual([]);

    await admin.subAccounts.create({ username: 'sa-imp-ver', password: 'Unknown-Pass-1' });
    const { state: imported } = await driver.import('sa-imp-ver');
    expect(await planErrors(imported!, { username: 'sa-imp-ver', password_wo_version: 1 })).toEqual(noPasswordToSend(/password_wo_version changes/));
  });

  it('refuses at apply a version change whose password_wo is not given, sending nothing and keeping the prior state', async () => {
    const state = await driver.create({ username: 'sa-apply-null', password_wo: 'Apply-Pass-1', password_wo_version: 1 });
    // What a plan made with the version still unknown leads to: the version is known only now.
    const { state: after, diagnostics } = await driver.apply(
      state,
      { ...state, password_wo_version: 2, first_name: 'Changed' },
      { username: 'sa-apply-null', password_wo_version: 2, first_name: 'Changed' },
    );
    expect(errors(diagnostics)).toEqual(noPasswordToSend(/password_wo_version changes.*Nothing was sent\./s));
    expect(after).toEqual(state);
    expect((await admin.subAccounts.get('sa-apply-null')).firstName).toBeUndefined();
    expect(await canLogIn('sa-apply-null', 'Apply-Pass-1')).toBe(true);

    const created = await driver.apply(null, { ...state, username: 'sa-apply-new', id: UNKNOWN }, { username: 'sa-apply-new', password_wo_version: 1 });
    expect(errors(created.diagnostics)).toEqual(noPasswordToSend(/password_wo_version is set.*Nothing was sent\./s));
    expect(created.state).toBeNull();
    await expect(admin.subAccounts.get('sa-apply-new')).rejects.toMatchObject({ code: 'ERR_NOT_FOUND' });
  });
});

describe('proxyaccount_sub_account: an edit whose answer is lost (finding: a rotation that took effect reported as a plain failure)', () => {
  /**
   * The first edit is made and its answer dropped; the SDK's three retries get 503, and with
   * `resent`, so do the four attempts of the store's second sending (an edit with a password).
   */
  const loseTheEdit = async (resent = false): Promise<void> => {
    await emu.control.fault({ path: '/api/sub/edit/', method: 'POST', dropResponse: true, count: 1 });
    await emu.control.fault({ path: '/api/sub/edit/', method: 'POST', status: 503, count: resent ? 7 : 3 });
  };

  it('says a rotation may have taken effect, that the new password may be in force, and keeps the old version so the next apply sends it again', async () => {
    const base = { username: 'sa-lost-rot', password_wo_version: 1 };
    const state = await driver.create({ ...base, password_wo: 'Lost-Rot-1' });
    const config = { ...base, password_wo: 'Lost-Rot-2', password_wo_version: 2 };
    const { planned } = await driver.plan(state, config);
    await loseTheEdit(true);
    const { state: after, diagnostics } = await driver.apply(state, planned, config);
    expect(errors(diagnostics)).toEqual([
      expect.objectContaining({
        summary: 'Unable to update sub-account',
        detail: expect.stringMatching(
          /^Sub-account 'sa-lost-rot': edit sub-account 'sa-lost-rot': the request was sent but its answer was lost \(.*503.*\); it may or may not have taken effect: it was sent again after its answer was lost, and that answer was lost too; it sets a password, which the API never shows.*\n\nThe edit carried a new password for sub-account 'sa-lost-rot', which the API never shows: it may already be the one in force, so proxy clients and API callers still using the old password may be refused\. The state keeps password_wo_version 1, the version before this apply, so the next plan shows the change again and the next apply sends the new password again\./s,
        ),
      }),
    ]);
    expect(diagnostics[0]!.detail).not.toMatch(/Lost-Rot|base_url|reachable/);
    // The lost edit was made: the new password is the one in force. (The old one is not tried:
    // failed logins count toward the address's ban, which the other tests' share.)
    expect(await canLogIn('sa-lost-rot', 'Lost-Rot-2')).toBe(true);
    // The state keeps the old version, so the next plan sends the password again, and its apply settles it.
    expect(after).toEqual(state);
    const again = await driver.plan(after!, config);
    expect(again.planned['password_wo_version']).toBe(2);
    const settled = await driver.apply(after, again.planned, config);
    expect(errors(settled.diagnostics)).toEqual([]);
    expect(settled.state!['password_wo_version']).toBe(2);
  });

  it('sends a rotation whose answer is lost once more and records it; settles an edit without a password by reading back, or says it cannot', async () => {
    const state = await driver.create({ username: 'sa-lost-edit', password: 'Lost-Edit-1', monthly_limit: 5 });
    const config = { username: 'sa-lost-edit', password: 'Lost-Edit-2', monthly_limit: 50 };
    await loseTheEdit();
    const updated = await driver.update(state, config);
    expect(updated).toMatchObject({ password: 'Lost-Edit-2', monthly_limit: 50 });
    expect(await canLogIn('sa-lost-edit', 'Lost-Edit-2')).toBe(true);

    // Without a password (a sub-account whose configuration sets none, so no edit carries one):
    // reading back shows the limit as sent, which is the account as the edit leaves it.
    const plain = await driver.create({ username: 'sa-lost-limit', monthly_limit: 5 });
    await loseTheEdit();
    const relimited = await driver.update(plain, { username: 'sa-lost-limit', monthly_limit: 60 });
    expect(relimited).toMatchObject({ monthly_limit: 60 });

    // Reading back fails too: the outcome is unknown, and the state keeps what it had.
    const next = { username: 'sa-lost-limit', monthly_limit: 70 };
    const { planned } = await driver.plan(relimited, next);
    await loseTheEdit();
    await emu.control.fault({ path: '/api/sub/get/', method: 'GET', status: 503, count: 4 });
    const { state: after, diagnostics } = await driver.apply(relimited, planned, next);
    expect(errors(diagnostics)).toEqual([
      expect.objectContaining({
        summary: 'Unable to update sub-account',
        detail: expect.stringMatching(/reading the account back failed too.*may or may not have taken effect/s),
      }),
    ]);
    expect(diagnostics[0]!.detail).not.toMatch(/Lost-Edit/);
    expect(after).toEqual(relimited);
  });

  it('keeps the rotation an edit made in state when the deactivation after it fails', async () => {
    const base = { username: 'sa-edit-then-off', password_wo_version: 1 };
    const state = await driver.create({ ...base, password_wo: 'Edit-Off-1' });
    const config = { ...base, password_wo: 'Edit-Off-2', password_wo_version: 2, active: false };
    const { planned } = await driver.plan(state, config);
    await emu.control.fault({ path: '/api/sub/deactivate/', method: 'POST', status: 403, count: 1 });
    const { state: after, diagnostics } = await driver.apply(state, planned, config);
    expect(errors(diagnostics)).toEqual([expect.objectContaining({ summary: 'Unable to update sub-account' })]);
    // The new password is in force: the state records its version, and the sub-account as it is (active).
    expect(await canLogIn('sa-edit-then-off', 'Edit-Off-2')).toBe(true);
    expect(after).toMatchObject({ password_wo_version: 2, active: true });
  });
});

describe('proxyaccount_sub_account data source', () => {
  const dsSchema = subAccountDataSource.schema;
  const read = async (username: string) => {
    const server = await newServer();
    return server.readDataSource({ typeName: 'proxyaccount_sub_account', config: dv(dsSchema, obj(dsSchema, { username })) });
  };

  it('reads details including usage figures', async () => {
    await admin.subAccounts.create({ username: 'sa-data', firstName: 'Dee', monthlyLimit: 7 });
    await emu.control.usage('sa-data', 2.5);
    const res = await read('sa-data');
    expect(res.diagnostics).toEqual([]);
    expect(decode(dsSchema, res.state)).toEqual({
      username: 'sa-data',
      id: 'sa-data',
      active: true,
      first_name: 'Dee',
      last_name: null,
      email: null,
      monthly_limit: 7,
      total_limit: 0,
      monthly_bandwidth: 2.5,
      total_bandwidth: 2.5,
    });
  });

  it('reports a missing sub-account on username', async () => {
    const res = await read('sa-nobody');
    expect(res.state).toBeUndefined();
    expect(res.diagnostics).toEqual([expect.objectContaining({ summary: 'Sub-account not found', attribute: [{ attributeName: 'username' }] })]);
  });
});
