// proxyaccount_authorized_ip against a real emulator, driven the way Terraform drives it:
// create and read, second plan empty, replacement, drift, import, idempotent delete,
// validation, and the refresh of many entries costing one listing.
import { isUnknown } from '../../src/protocol/cty';
import { authorizedIpResource } from '../../src/provider/resources/authorized-ip';
import { countOf, startEmulatedProvider, type EmulatedProvider } from './emulated-provider';
import { decode, dv, errors, NO_PRIVATE, obj, paths } from './harness';
import type { ResourceDriver } from './terraform-sim';

const schema = authorizedIpResource.schema;
let p: EmulatedProvider;
let driver: ResourceDriver;

beforeAll(async () => {
  p = await startEmulatedProvider();
  driver = p.driver('proxyaccount_authorized_ip', schema);
  await p.admin.subAccounts.create({ username: 'ip-sub' });
});

afterAll(async () => {
  await p?.close();
});

const labelsOf = (username?: string) => p.admin.ips.listWithLabels(username === undefined ? {} : { username });

describe('proxyaccount_authorized_ip', () => {
  it('creates an IP of the authenticated account, reads it back, and a second plan is empty', async () => {
    const config = { ip: '203.0.113.10', label: 'office' };
    const { planned } = await driver.plan(null, config);
    expect(isUnknown(planned['id']!)).toBe(true);

    const state = await driver.create(config);
    expect(state).toEqual(obj(schema, { id: '203.0.113.10', ip: '203.0.113.10', label: 'office' }));
    expect(await labelsOf()).toContainEqual({ ip: '203.0.113.10', label: 'office' });

    const refreshed = await driver.read(state);
    expect(refreshed).toEqual(state);
    const second = await driver.plan(refreshed, config);
    expect(second.planned).toEqual(refreshed);
    expect(second.requiresReplace).toEqual([]);
  });

  it('creates an unlabelled IP of a sub-account: ID USERNAME/IP, remote "" read as null', async () => {
    const config = { ip: '198.51.100.1', username: 'ip-sub' };
    const state = await driver.create(config);
    expect(state).toEqual(obj(schema, { id: 'ip-sub/198.51.100.1', ip: '198.51.100.1', username: 'ip-sub' }));
    expect(await labelsOf('ip-sub')).toContainEqual({ ip: '198.51.100.1', label: '' });
    expect(await labelsOf()).not.toContainEqual(expect.objectContaining({ ip: '198.51.100.1' }));
    const refreshed = await driver.read(state);
    expect(refreshed).toEqual(state);
    expect((await driver.plan(refreshed, config)).planned).toEqual(state);
  });

  it('replaces the entry when ip, label or username changes, and a replacement really moves it', async () => {
    const state = await driver.create({ ip: '203.0.113.20', label: 'a' });
    expect((await driver.plan(state, { ip: '203.0.113.21', label: 'a' })).requiresReplace).toEqual([[{ attributeName: 'ip' }]]);
    expect((await driver.plan(state, { ip: '203.0.113.20', label: 'b' })).requiresReplace).toEqual([[{ attributeName: 'label' }]]);
    expect((await driver.plan(state, { ip: '203.0.113.20' })).requiresReplace).toEqual([[{ attributeName: 'label' }]]);
    expect((await driver.plan(state, { ip: '203.0.113.20', label: 'a', username: 'ip-sub' })).requiresReplace).toEqual([[{ attributeName: 'username' }]]);

    // Replacement = destroy, then create (the default order).
    expect(errors(await driver.destroy(state))).toEqual([]);
    const replaced = await driver.create({ ip: '203.0.113.20', label: 'b' });
    expect(replaced['label']).toBe('b');
    expect(await labelsOf()).toContainEqual({ ip: '203.0.113.20', label: 'b' });
  });

  it('detects drift: a label changed outside plans a replacement, an IP removed outside leaves state', async () => {
    const config = { ip: '203.0.113.30', label: 'ci' };
    const state = await driver.create(config);
    await p.admin.ips.delete({ ip: '203.0.113.30' });
    await p.admin.ips.add({ ip: '203.0.113.30', label: 'tampered' });
    const drifted = (await driver.read(state))!;
    expect(drifted['label']).toBe('tampered');
    const { planned, requiresReplace } = await driver.plan(drifted, config);
    expect(planned['label']).toBe('ci');
    expect(requiresReplace).toEqual([[{ attributeName: 'label' }]]);

    await p.admin.ips.delete({ ip: '203.0.113.30' });
    expect(await driver.read(drifted)).toBeNull();
  });

  it('reads entries of a sub-account deleted outside Terraform as gone, and destroys them without error', async () => {
    await p.admin.subAccounts.create({ username: 'ip-doomed' });
    const state = await driver.create({ ip: '192.0.2.5', username: 'ip-doomed' });
    await p.admin.subAccounts.delete('ip-doomed');
    expect(await driver.read(state)).toBeNull();
    expect(errors(await driver.destroy(state))).toEqual([]);
  });

  it('imports by IP and by USERNAME/IP, with the remote label', async () => {
    await p.admin.ips.add({ ip: '203.0.113.40', label: 'imported' });
    await p.admin.ips.add({ ip: '203.0.113.41', username: 'ip-sub' });

    const own = await driver.import('203.0.113.40');
    expect(own.diagnostics).toEqual([]);
    expect(own.state).toEqual(obj(schema, { id: '203.0.113.40', ip: '203.0.113.40', label: 'imported' }));
    const sub = await driver.import(' ip-sub/203.0.113.41 ');
    expect(sub.state).toEqual(obj(schema, { id: 'ip-sub/203.0.113.41', ip: '203.0.113.41', username: 'ip-sub' }));
    // Importing what is not there reads as gone (Terraform: "Cannot import non-existent remote object").
    expect((await driver.import('203.0.113.49')).state).toBeNull();
    expect((await driver.import('ip-sub/203.0.113.40')).state).toBeNull();
  });

  it('rejects malformed import IDs, saying what was expected', async () => {
    for (const id of ['not-an-ip', 'a/b/203.0.113.1', 'bad name!/203.0.113.1', 'ip-sub/', '203.0.113.01']) {
      const res = await driver.import(id);
      expect(res.state).toBeNull();
      expect(res.diagnostics).toEqual([expect.objectContaining({ severity: 'error', summary: 'Invalid import ID' })]);
      expect(res.diagnostics[0]!.detail).toContain('"IP" or "USERNAME/IP"');
    }
  });

  it('deletes, and deleting again (already gone, a 400 on this API) succeeds', async () => {
    const state = await driver.create({ ip: '203.0.113.50' });
    expect(errors(await driver.destroy(state))).toEqual([]);
    expect((await labelsOf()).map((e) => e.ip)).not.toContain('203.0.113.50');
    expect(errors(await driver.destroy(state))).toEqual([]);
  });

  it('does not take every 400 on delete for "already gone": an entry still listed keeps its state', async () => {
    const state = await driver.create({ ip: '203.0.113.60' });
    await p.emu.control.fault({ path: '/api/ip/delete/', status: 400, count: 1 });
    const failed = await driver.apply(state, null, null);
    expect(failed.state).toEqual(state);
    expect(errors(failed.diagnostics)).toEqual([expect.objectContaining({ summary: 'Unable to delete authorized IP' })]);
    expect((await labelsOf()).map((e) => e.ip)).toContain('203.0.113.60');

    const retried = await driver.apply(state, null, null);
    expect(errors(retried.diagnostics)).toEqual([]);
    expect(retried.state).toBeNull();
    expect((await labelsOf()).map((e) => e.ip)).not.toContain('203.0.113.60');
  });

  it('keeps in state an IP whose create may have taken effect (answer lost, read-back failed), with the error', async () => {
    const config = { ip: '203.0.113.61', label: 'lost' };
    const { planned } = await driver.plan(null, config);
    // The add is made, its answer lost; the listing that would settle it is refused.
    await p.emu.control.fault({ path: '/api/ip/add/', method: 'POST', dropResponse: true, count: 1 });
    await p.emu.control.fault({ path: '/api/ip_labels/', method: 'GET', status: 403, count: 1 });
    const { state, diagnostics } = await driver.apply(null, planned, config);
    expect(errors(diagnostics)).toEqual([
      expect.objectContaining({ summary: 'Unable to create authorized IP', detail: expect.stringMatching(/may or may not have taken effect/) }),
    ]);
    // Terraform saves it (tainted): the IP exists, and the state holds it.
    expect(state).toEqual(obj(schema, { id: '203.0.113.61', ip: '203.0.113.61', label: 'lost' }));
    expect(await labelsOf()).toContainEqual({ ip: '203.0.113.61', label: 'lost' });
    // The next refresh finds it.
    expect(await driver.read(state!)).toEqual(state);
  });

  it('keeps in state, with the error, an IP whose add lost its connection and which reading back does not show yet; no connection advice', async () => {
    const config = { ip: '203.0.113.63', label: 'reset' };
    const { planned } = await driver.plan(null, config);
    // The connection drops without an answer: the add may still be queued somewhere on its way.
    await p.emu.control.fault({ path: '/api/ip/add/', method: 'POST', reset: true, count: 1 });
    const { state, diagnostics } = await driver.apply(null, planned, config);
    expect(errors(diagnostics)).toEqual([
      expect.objectContaining({
        summary: 'Unable to create authorized IP',
        detail: expect.stringMatching(
          /^Authorized IP '203\.0\.113\.63': add IP '203\.0\.113\.63': the request was sent and its outcome is unknown \(.+\); the account was read back and does not hold it yet, but the API may still carry the request out\. The next refresh reads the account again and shows what exists\.\n\nIt is kept in the state marked tainted.*creates it again.*replaces it.*terraform untaint/s,
        ),
      }),
    ]);
    // The run reached the API: advice about base_url, reachability or the CA would mislead.
    expect(diagnostics[0]!.detail).not.toMatch(/base_url|reachable|ca_cert_file/);
    // Terraform saves it (tainted); it was never made, so the next refresh drops it and the plan creates it again.
    expect(state).toEqual(obj(schema, { id: '203.0.113.63', ip: '203.0.113.63', label: 'reset' }));
    expect(await driver.read(state!)).toBeNull();
  });

  it('keeps in state an IP whose add timed out and was made by the API after the read-back, so the next refresh finds it', async () => {
    const slow = p.driver('proxyaccount_authorized_ip', schema, { PROXYACCOUNT_REQUEST_TIMEOUT: '1', PROXYACCOUNT_MAX_RETRIES: '0' });
    const config = { ip: '203.0.113.64', label: 'late' };
    const { planned } = await slow.plan(null, config);
    // Served 4 s after it arrived: after the client gave up at 1 s and read the account back.
    await p.emu.control.fault({ path: '/api/ip/add/', method: 'POST', delayMs: 4000, count: 1 });
    const { state, diagnostics } = await slow.apply(null, planned, config);
    expect(errors(diagnostics)).toEqual([expect.objectContaining({ summary: 'Unable to create authorized IP' })]);
    expect(state).toEqual(obj(schema, { id: '203.0.113.64', ip: '203.0.113.64', label: 'late' }));
    while (!(await labelsOf()).some((e) => e.ip === '203.0.113.64')) await new Promise((r) => setTimeout(r, 50));
    // Not an orphan: the state holds it, and the next refresh reads it.
    expect(await driver.read(state!)).toEqual(state);
  });

  it('keeps in state an IP whose add a gateway answered 504 after the API made it, with no error', async () => {
    const config = { ip: '203.0.113.62', label: 'via-gateway' };
    const { planned } = await driver.plan(null, config);
    await p.emu.control.fault({ path: '/api/ip/add/', method: 'POST', statusAfterServing: 504, count: 1 });
    const { state, diagnostics } = await driver.apply(null, planned, config);
    expect(errors(diagnostics)).toEqual([]);
    expect(state).toEqual(obj(schema, { id: '203.0.113.62', ip: '203.0.113.62', label: 'via-gateway' }));
    expect(await labelsOf()).toContainEqual({ ip: '203.0.113.62', label: 'via-gateway' });
  });

  it('explains how to import an IP that is already authorized', async () => {
    await p.admin.ips.add({ ip: '203.0.113.70', username: 'ip-sub' });
    const config = { ip: '203.0.113.70', username: 'ip-sub' };
    const { planned } = await driver.plan(null, config);
    const { state, diagnostics } = await driver.apply(null, planned, config);
    expect(state).toBeNull();
    expect(diagnostics).toEqual([expect.objectContaining({ severity: 'error', summary: 'Unable to create authorized IP' })]);
    expect(diagnostics[0]!.detail).toMatch(/already exists.*terraform import proxyaccount_authorized_ip\.NAME "ip-sub\/203\.0\.113\.70"/s);
    // A create_before_destroy replacement keeping the address meets its own old object: said first.
    expect(diagnostics[0]!.detail).toMatch(
      /replaced with create_before_destroy and keeps this key .* its own old object holds it: remove create_before_destroy/,
    );
    expect(diagnostics[0]!.detail).not.toMatch(/does not manage it/);
  });

  it('validates every constraint on its attribute', async () => {
    const diags = errors(await driver.validate({ ip: '300.1.2.3', label: 'x'.repeat(101), username: 'bad name!' }));
    expect(paths(diags).sort()).toEqual(['ip', 'label', 'username']);
    const empty = errors(await driver.validate({ ip: '203.0.113.1', label: '' }));
    expect(paths(empty)).toEqual(['label']);
    expect(empty[0]!.detail).toMatch(/must not be empty: omit label/);
    expect(errors(await driver.validate({ ip: '203.0.113.1', label: 'x'.repeat(100), username: 'a.b@c+d-e' }))).toEqual([]);
    expect(paths(errors(await driver.validate({ ip: '203.0.113.1', username: 'u'.repeat(31) })))).toEqual(['username']);
  });

  it('names an octet above 255 before any leading zero, so the message never suggests a refused value', async () => {
    const details = async (ip: string) => errors(await driver.validate({ ip })).map((d) => d.detail);
    expect(await details('10.0.0.0300')).toEqual([
      'Attribute ip must be an IPv4 address such as 203.0.113.7, one address: 0300 is above 255 (got "10.0.0.0300").',
    ]);
    expect(await details('010.0.0.300')).toEqual([
      'Attribute ip must be an IPv4 address such as 203.0.113.7, one address: 300 is above 255 (got "010.0.0.300").',
    ]);
    expect(await details('10.0.0.0255')).toEqual([
      'Attribute ip must be an IPv4 address such as 203.0.113.7, one address: "0255" has a leading zero (write 255) (got "10.0.0.0255").',
    ]);
  });

  it('refreshes many entries of one account in parallel with one listing request', async () => {
    const ips = Array.from({ length: 25 }, (_, i) => `10.20.0.${i + 1}`);
    for (const ip of ips) await p.admin.ips.add({ ip, label: `host-${ip}`, username: 'ip-sub' });
    const states = ips.map((ip) => obj(schema, { id: `ip-sub/${ip}`, ip, label: `host-${ip}`, username: 'ip-sub' }));

    const { server, requests } = await p.recordedServer();
    const answers = await Promise.all(
      states.map((s) =>
        server.readResource({ typeName: 'proxyaccount_authorized_ip', currentState: dv(schema, s), private: NO_PRIVATE, clientCapabilities: undefined }),
      ),
    );
    expect(answers.flatMap((a) => a.diagnostics)).toEqual([]);
    expect(answers.map((a) => decode(schema, a.newState))).toEqual(states);
    expect(countOf(requests, 'GET /api/ip_labels/')).toBe(1);
    expect(requests).toHaveLength(1);
  });
});
