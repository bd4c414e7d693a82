// proxyaccount_authorized_hostname against a real emulator, driven the way Terraform drives it:
// create and read, second plan empty, replacement, drift, import, idempotent delete,
// validation, and the refresh of many entries costing one listing.
import { isUnknown } from '../../src/protocol/cty';
import { authorizedHostnameResource } from '../../src/provider/resources/authorized-hostname';
import { countOf, startEmulatedProvider, type EmulatedProvider } from './emulated-provider';
import { decode, dv, errors, NO_PRIVATE, obj, paths } from './harness';
import type { ResourceDriver } from './terraform-sim';

const schema = authorizedHostnameResource.schema;
let p: EmulatedProvider;
let driver: ResourceDriver;

beforeAll(async () => {
  p = await startEmulatedProvider();
  driver = p.driver('proxyaccount_authorized_hostname', schema);
  await p.admin.subAccounts.create({ username: 'host-sub' });
});

afterAll(async () => {
  await p?.close();
});

const listed = (username?: string) => p.admin.hostnames.list(username === undefined ? {} : { username });

describe('proxyaccount_authorized_hostname', () => {
  it('creates a hostname of the authenticated account, reads it back, and a second plan is empty', async () => {
    const config = { domain: 'ci.example.com' };
    const { planned } = await driver.plan(null, config);
    expect(isUnknown(planned['id']!)).toBe(true);
    const state = await driver.create(config);
    expect(state).toEqual(obj(schema, { id: 'ci.example.com', domain: 'ci.example.com' }));
    expect(await listed()).toContain('ci.example.com');
    const refreshed = await driver.read(state);
    expect(refreshed).toEqual(state);
    const second = await driver.plan(refreshed, config);
    expect(second.planned).toEqual(refreshed);
    expect(second.requiresReplace).toEqual([]);
  });

  it('creates a hostname of a sub-account with ID USERNAME/HOSTNAME', async () => {
    const config = { domain: 'build.example.org', username: 'host-sub' };
    const state = await driver.create(config);
    expect(state['id']).toBe('host-sub/build.example.org');
    expect(await listed('host-sub')).toEqual(['build.example.org']);
    expect(await listed()).not.toContain('build.example.org');
    expect(await driver.read(state)).toEqual(state);
  });

  it('replaces the entry when domain or username changes', async () => {
    const state = await driver.create({ domain: 'a.example.com' });
    expect((await driver.plan(state, { domain: 'b.example.com' })).requiresReplace).toEqual([[{ attributeName: 'domain' }]]);
    expect((await driver.plan(state, { domain: 'a.example.com', username: 'host-sub' })).requiresReplace).toEqual([[{ attributeName: 'username' }]]);
  });

  it('detects a hostname removed outside Terraform, and one whose sub-account was deleted', async () => {
    const state = await driver.create({ domain: 'gone.example.com' });
    await p.admin.hostnames.delete({ domain: 'gone.example.com' });
    expect(await driver.read(state)).toBeNull();

    await p.admin.subAccounts.create({ username: 'host-doomed' });
    const sub = await driver.create({ domain: 'x.example.com', username: 'host-doomed' });
    await p.admin.subAccounts.delete('host-doomed');
    expect(await driver.read(sub)).toBeNull();
    expect(errors(await driver.destroy(sub))).toEqual([]);
  });

  it('imports by HOSTNAME and by USERNAME/HOSTNAME, and rejects malformed IDs', async () => {
    await p.admin.hostnames.add({ domain: 'imported.example.com' });
    await p.admin.hostnames.add({ domain: 'sub-imported.example.com', username: 'host-sub' });
    const own = await driver.import('imported.example.com');
    expect(own.diagnostics).toEqual([]);
    expect(own.state).toEqual(obj(schema, { id: 'imported.example.com', domain: 'imported.example.com' }));
    const sub = await driver.import('host-sub/sub-imported.example.com');
    expect(sub.state).toEqual(obj(schema, { id: 'host-sub/sub-imported.example.com', domain: 'sub-imported.example.com', username: 'host-sub' }));
    expect((await driver.import('missing.example.com')).state).toBeNull();
    for (const id of ['bad host', 'a/b/c.example.com', '-x.example.com', 'x!/ok.example.com']) {
      const res = await driver.import(id);
      expect(res.state).toBeNull();
      expect(res.diagnostics).toEqual([expect.objectContaining({ summary: 'Invalid import ID' })]);
    }
  });

  it('deletes, and deleting again (already gone, a 400 on this API) succeeds; other 400s do not', async () => {
    const state = await driver.create({ domain: 'del.example.com' });
    await p.emu.control.fault({ path: '/api/hostname/delete/', status: 400, count: 1 });
    const failed = await driver.apply(state, null, null);
    expect(failed.state).toEqual(state);
    expect(errors(failed.diagnostics)).toHaveLength(1);

    expect(errors(await driver.destroy(state))).toEqual([]);
    expect(await listed()).not.toContain('del.example.com');
    expect(errors(await driver.destroy(state))).toEqual([]);
  });

  it('deletes the spelling the API lists when the entry it adopted differs only in case', async () => {
    const state = await driver.create({ domain: 'mixed.example.com', username: 'host-sub' });
    // Re-added outside Terraform in another case; this API stores and matches hostnames as written.
    await p.admin.hostnames.delete({ domain: 'mixed.example.com', username: 'host-sub' });
    await p.admin.hostnames.add({ domain: 'MIXED.example.com', username: 'host-sub' });
    expect(await driver.read(state)).toEqual(state);
    expect(errors(await driver.destroy(state))).toEqual([]);
    expect(await listed('host-sub')).not.toContain('MIXED.example.com');
    expect(errors(await driver.destroy(state))).toEqual([]);
  });

  it('explains how to import a hostname that is already authorized', async () => {
    await p.admin.hostnames.add({ domain: 'dup.example.com' });
    const { planned } = await driver.plan(null, { domain: 'dup.example.com' });
    const { state, diagnostics } = await driver.apply(null, planned, { domain: 'dup.example.com' });
    expect(state).toBeNull();
    expect(diagnostics[0]!.detail).toMatch(/terraform import proxyaccount_authorized_hostname\.NAME "dup\.example\.com"/);
  });

  it('keeps in state, with the error, a hostname whose add lost its connection and which reading back does not show yet; no connection advice', async () => {
    const config = { domain: 'reset.example.net' };
    const { planned } = await driver.plan(null, config);
    // The connection drops without an answer: the add may still be queued somewhere on its way.
    await p.emu.control.fault({ path: '/api/hostname/add/', method: 'POST', reset: true, count: 1 });
    const { state, diagnostics } = await driver.apply(null, planned, config);
    expect(errors(diagnostics)).toEqual([
      expect.objectContaining({
        summary: 'Unable to create authorized hostname',
        detail: expect.stringMatching(
          /add hostname 'reset\.example\.net'.*does not hold it yet, but the API may still carry the request out.*kept in the state marked tainted/s,
        ),
      }),
    ]);
    expect(diagnostics[0]!.detail).not.toMatch(/base_url|reachable|ca_cert_file/);
    expect(state).toEqual(obj(schema, { id: 'reset.example.net', domain: 'reset.example.net' }));
    // Never made: the next refresh drops it, and the plan creates it again.
    expect(await driver.read(state!)).toBeNull();
  });

  it('validates every constraint on its attribute', async () => {
    expect(paths(errors(await driver.validate({ domain: 'has space.example.com', username: 'no way' }))).sort()).toEqual(['domain', 'username']);
    for (const domain of ['', 'a..b', `${'x'.repeat(64)}.com`, '203.0.113.7', 'ci.example.com/path']) {
      expect(paths(errors(await driver.validate({ domain })))).toEqual(['domain']);
    }
    expect(errors(await driver.validate({ domain: 'localhost' }))).toEqual([]);
  });

  it('refuses domain = null (a null variable) at validation, where Terraform would plan a create', async () => {
    const diags = errors(await driver.validate({ domain: null }));
    expect(diags.map((d) => [paths([d]), d.summary, d.detail])).toEqual([
      [['domain'], 'Missing required argument', expect.stringContaining('domain is required, but its value is null')],
    ]);
    // username is optional: null there is the authenticated account.
    expect(errors(await driver.validate({ domain: 'null.example.com', username: null }))).toEqual([]);
  });

  it('refuses a domain the resolver reads as an IP address, saying why; the same label before a name is fine', async () => {
    for (const domain of ['0x7f000001', '0x7f.0x1', '127.0.0.0x1', 'ci.0X1F']) {
      const diags = errors(await driver.validate({ domain }));
      expect(diags.map((d) => [paths([d]), d.detail])).toEqual([
        [['domain'], expect.stringContaining('not an IP address: a numeric last label such as 7 or 0x1f makes one')],
      ]);
    }
    expect(errors(await driver.validate({ domain: '0x7f.example.com' }))).toEqual([]);
  });

  it('says to drop the trailing dot of a fully qualified name, naming the name to write', async () => {
    expect(errors(await driver.validate({ domain: 'office.example.com.' })).map((d) => d.detail)).toEqual([
      'Attribute domain must be a host name such as app.example.com (got "office.example.com."): drop the trailing dot and write "office.example.com".',
    ]);
    // A name that the dot is not the only fault of gets the full rule.
    expect(errors(await driver.validate({ domain: 'ci.0x1f.' })).map((d) => d.detail)).toEqual([
      expect.stringContaining('a numeric last label such as 7 or 0x1f makes one (got "ci.0x1f.")'),
    ]);
  });

  it('refreshes many entries of one account in parallel with one listing request', async () => {
    const domains = Array.from({ length: 20 }, (_, i) => `n${i}.bulk.example.com`);
    for (const domain of domains) await p.admin.hostnames.add({ domain, username: 'host-sub' });
    const states = domains.map((domain) => obj(schema, { id: `host-sub/${domain}`, domain, username: 'host-sub' }));
    const { server, requests } = await p.recordedServer();
    const answers = await Promise.all(
      states.map((s) =>
        server.readResource({ typeName: 'proxyaccount_authorized_hostname', currentState: dv(schema, s), private: NO_PRIVATE, clientCapabilities: undefined }),
      ),
    );
    expect(answers.flatMap((a) => a.diagnostics)).toEqual([]);
    expect(answers.map((a) => decode(schema, a.newState))).toEqual(states);
    expect(countOf(requests, 'GET /api/hostnames/')).toBe(1);
    expect(requests).toHaveLength(1);
  });
});
