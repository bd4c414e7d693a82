// Stored state is checked before it is trusted, for every entry type: an authorized IP,
// hostname or proxy whose identifying attribute was edited in the state to another managed
// entry (its id kept) is refused with an error naming the state, and the other resource's entry
// survives both a refresh and a destroy. So is a state that lost its identifying attribute (a
// token without token_id would read as gone and be planned again, leaving the live one active),
// and an authoritative list whose username no longer matches its id (it would clear another
// account's list). A state that lost its id, which every state the provider saves has, is refused
// for every type, with no request sent: without it no other attribute could be checked, and a
// lost username too would act on the provider's own account.
import { authorizedHostnameResource } from '../../src/provider/resources/authorized-hostname';
import { authorizedHostnamesResource } from '../../src/provider/resources/authorized-hostnames';
import { authorizedIpResource } from '../../src/provider/resources/authorized-ip';
import { authorizedIpsResource } from '../../src/provider/resources/authorized-ips';
import { authorizedProxiesResource } from '../../src/provider/resources/authorized-proxies';
import { authorizedProxyResource } from '../../src/provider/resources/authorized-proxy';
import { bearerTokenResource } from '../../src/provider/resources/bearer-token';
import { subAccountResource } from '../../src/provider/resources/sub-account';
import { startEmulatedProvider, type EmulatedProvider } from './emulated-provider';
import { dv, errors, NO_PRIVATE, obj } from './harness';
import type { Obj } from './terraform-sim';

let p: EmulatedProvider;

beforeAll(async () => {
  p = await startEmulatedProvider();
  await p.admin.subAccounts.create({ username: 'chk-sub' });
});

afterAll(async () => {
  await p?.close();
});

type Def = { readonly typeName: string; readonly displayName: string; readonly schema: Parameters<EmulatedProvider['driver']>[1] };

/** Creates both entries, edits the first's state to name the second, and tries to read and destroy it. */
async function editedToTheOther(def: Def, mine: Obj, other: Obj | null, edit: Obj, attribute: string) {
  const driver = p.driver(def.typeName, def.schema);
  const mineState = await driver.create(mine);
  if (other !== null) await driver.create(other);
  await refusedAfterEdit(def, { ...mineState, ...edit }, attribute);
}

/** Reads and destroys `edited`: both must be refused, naming `attribute`, with the state kept. */
async function refusedAfterEdit(def: Def, edited: Obj, attribute: string) {
  const driver = p.driver(def.typeName, def.schema);
  const server = await p.newServer();
  const read = await server.readResource({ typeName: def.typeName, currentState: dv(def.schema, edited), private: new Uint8Array() });
  const destroyed = await driver.apply(edited, null, null);
  for (const diagnostics of [read.diagnostics, destroyed.diagnostics]) {
    expect(errors(diagnostics)).toEqual([
      expect.objectContaining({
        summary: `Inconsistent ${def.displayName} state`,
        attribute: [{ attributeName: attribute }],
        detail: expect.stringMatching(/(does not match|is not the domain|is missing|is not an IPv4 address).*nothing was sent to the API/s),
      }),
    ]);
  }
  // The state stays as it was (Terraform keeps the object), so nothing is forgotten either.
  expect(destroyed.state).toEqual(edited);
  expect(read.newState).toEqual(dv(def.schema, edited));
}

describe('an entry whose identifying attribute was edited in state to another managed entry', () => {
  it('is refused for an authorized IP, and the other IP survives', async () => {
    await editedToTheOther(
      authorizedIpResource,
      { ip: '203.0.113.21', username: 'chk-sub' },
      { ip: '203.0.113.22', username: 'chk-sub' },
      { ip: '203.0.113.22' },
      'ip',
    );
    expect((await p.admin.ips.list({ username: 'chk-sub' })).sort()).toEqual(['203.0.113.21', '203.0.113.22']);
  });

  it('is refused for an authorized hostname, and the other hostname survives', async () => {
    await editedToTheOther(
      authorizedHostnameResource,
      { domain: 'a.chk.example.com', username: null },
      { domain: 'b.chk.example.com', username: null },
      { domain: 'b.chk.example.com' },
      'domain',
    );
    expect(await p.admin.hostnames.list()).toEqual(expect.arrayContaining(['a.chk.example.com', 'b.chk.example.com']));
  });

  it('is refused for an IP moved to another account in state (username edited, id kept)', async () => {
    await editedToTheOther(
      authorizedIpResource,
      { ip: '203.0.113.23', username: null },
      { ip: '203.0.113.23', username: 'chk-sub' },
      { username: 'chk-sub' },
      'ip',
    );
    expect(await p.admin.ips.list()).toContain('203.0.113.23');
    expect(await p.admin.ips.list({ username: 'chk-sub' })).toContain('203.0.113.23');
  });

  it('is refused for an IP edited, id and all, to a spelling no configuration gives, and the address survives', async () => {
    const driver = p.driver(authorizedIpResource.typeName, authorizedIpResource.schema);
    const state = await driver.create({ ip: '203.0.113.24', username: 'chk-sub' });
    await refusedAfterEdit(authorizedIpResource, { ...state, ip: '203.0.113.024', id: 'chk-sub/203.0.113.024' }, 'ip');
    expect(await p.admin.ips.list({ username: 'chk-sub' })).toContain('203.0.113.24');
  });

  it.each([
    ['proxy', { proxy: 'gb-lon' }, 'us-ny', 'gb-lon'],
    ['domain', { domain: 'fr-par.proxy.example.net' }, 'de-fra', 'fr-par'],
  ])('is refused for an authorized proxy (%s edited), and the other proxy survives', async (attribute, edit, mine, other) => {
    await editedToTheOther(authorizedProxyResource, { proxy: mine }, { proxy: other }, edit, attribute);
    const listed = (await p.admin.proxies.list()).map((e) => e.split('.')[0]);
    expect(listed).toEqual(expect.arrayContaining([mine, other]));
  });
});

describe('a state that lost its identifying attribute (its id kept)', () => {
  it('is refused for a bearer token, which stays active and managed', async () => {
    const token = await p.driver(bearerTokenResource.typeName, bearerTokenResource.schema).create({ label: 'chk-lost', username: 'chk-sub' });
    await refusedAfterEdit(bearerTokenResource, { ...token, token_id: null }, 'token_id');
    const live = await p.admin.tokens.list({ username: 'chk-sub' });
    expect(live.filter((t) => t.label === 'chk-lost')).toEqual([expect.objectContaining({ id: token.token_id, isActive: true })]);
  });

  it.each([
    ['an authorized IP', authorizedIpResource, { ip: '203.0.113.31', username: 'chk-sub' }, 'ip'],
    ['an authorized hostname', authorizedHostnameResource, { domain: 'lost.chk.example.com', username: null }, 'domain'],
    ['an authorized proxy', authorizedProxyResource, { proxy: 'it-mil' }, 'proxy'],
  ])('is refused for %s', async (_name, def, config, attribute) => {
    await editedToTheOther(def as Def, config, null, { [attribute]: null }, attribute);
  });

  it('is refused for a sub-account', async () => {
    const sub = await p.driver(subAccountResource.typeName, subAccountResource.schema).create({ username: 'chk-lost' });
    await refusedAfterEdit(subAccountResource, { ...sub, username: null }, 'username');
    await expect(p.admin.subAccounts.get('chk-lost')).resolves.toMatchObject({ username: 'chk-lost' });
  });
});

describe('an authoritative list whose username no longer matches its id', () => {
  beforeAll(async () => {
    await p.admin.subAccounts.create({ username: 'chk-erin' });
    await p.admin.subAccounts.create({ username: 'chk-frank' });
  });

  it("is refused, and the other account's list survives a destroy", async () => {
    const driver = p.driver(authorizedIpsResource.typeName, authorizedIpsResource.schema);
    const erin = await driver.create({ username: 'chk-erin', entries: [{ ip: '198.51.100.1', label: null }] });
    await driver.create({
      username: 'chk-frank',
      entries: [
        { ip: '198.51.100.2', label: null },
        { ip: '198.51.100.3', label: null },
      ],
    });
    await refusedAfterEdit(authorizedIpsResource, { ...erin, username: 'chk-frank' }, 'username');
    expect((await p.admin.ips.list({ username: 'chk-frank' })).sort()).toEqual(['198.51.100.2', '198.51.100.3']);
    expect(await p.admin.ips.list({ username: 'chk-erin' })).toEqual(['198.51.100.1']);
  });

  it("is refused when the username was lost, so the provider's own list is not read in its place", async () => {
    const driver = p.driver(authorizedHostnamesResource.typeName, authorizedHostnamesResource.schema);
    const erin = await driver.create({ username: 'chk-erin', domains: ['erin.chk.example.com'] });
    await refusedAfterEdit(authorizedHostnamesResource, { ...erin, username: null }, 'username');
    expect(await p.admin.hostnames.list({ username: 'chk-erin' })).toEqual(['erin.chk.example.com']);
  });

  it("is refused for the parent's proxies when the id names something else", async () => {
    const driver = p.driver(authorizedProxiesResource.typeName, authorizedProxiesResource.schema);
    const mine = await driver.create({ proxies: ['pl-waw'] });
    await refusedAfterEdit(authorizedProxiesResource, { ...mine, id: 'chk-erin' }, 'id');
    expect((await p.admin.proxies.list()).map((e) => e.split('.')[0])).toContain('pl-waw');
  });
});

describe('a state that lost its id (every state the provider saves has one)', () => {
  beforeAll(async () => {
    await p.admin.subAccounts.create({ username: 'chk-gina' });
  });

  /** Reads and destroys `state` on one recorded provider: both refused on `id`, the state kept, and no request sent. */
  async function refusedWithoutId(def: Def, state: Obj) {
    const { server, requests } = await p.recordedServer();
    const typeName = def.typeName;
    const read = await server.readResource({ typeName, currentState: dv(def.schema, state), private: NO_PRIVATE, clientCapabilities: undefined });
    const destroyed = await server.applyResourceChange({
      typeName,
      priorState: dv(def.schema, state),
      plannedState: dv(def.schema, null),
      config: dv(def.schema, null),
      plannedPrivate: NO_PRIVATE,
    });
    for (const diagnostics of [read.diagnostics, destroyed.diagnostics]) {
      expect(diagnostics).toEqual([
        expect.objectContaining({
          severity: 'error',
          summary: `Inconsistent ${def.displayName} state`,
          attribute: [{ attributeName: 'id' }],
          detail: expect.stringMatching(/is inconsistent: id is missing .*nothing was sent to the API.*terraform state rm ADDRESS.*import the object again/s),
        }),
      ]);
    }
    expect(read.newState).toEqual(dv(def.schema, state));
    expect(destroyed.newState).toEqual(dv(def.schema, state));
    expect(requests).toEqual([]);
  }

  it("is refused for a sub-account's bearer token that lost its username too, which stays the one token of its label, active", async () => {
    const token = await p.driver(bearerTokenResource.typeName, bearerTokenResource.schema).create({ label: 'chk-noid', username: 'chk-gina' });
    await refusedWithoutId(bearerTokenResource, { ...token, id: null, username: null });
    const live = await p.admin.tokens.list({ username: 'chk-gina' });
    expect(live.filter((t) => t.label === 'chk-noid')).toEqual([expect.objectContaining({ id: token.token_id, isActive: true })]);
  });

  it('is refused for a bearer token with a record of an earlier version beside its token_id: the record excuses only a state naming no token', async () => {
    const token = await p.driver(bearerTokenResource.typeName, bearerTokenResource.schema).create({ label: 'chk-noid-record' });
    const record = new Uint8Array(Buffer.from(JSON.stringify({ create_pending: { tokens_known_before: [] } }), 'utf8'));
    const { server, requests } = await p.recordedServer();
    const state = { ...token, id: null };
    const read = await server.readResource({ typeName: bearerTokenResource.typeName, currentState: dv(bearerTokenResource.schema, state), private: record });
    expect(errors(read.diagnostics)).toEqual([expect.objectContaining({ summary: 'Inconsistent bearer token state', attribute: [{ attributeName: 'id' }] })]);
    expect(requests).toEqual([]);
  });

  it('still reads the pending create an earlier version saved (no id, no token_id, its record in private state)', async () => {
    const schema = bearerTokenResource.schema;
    const record = new Uint8Array(Buffer.from(JSON.stringify({ create_pending: { tokens_known_before: [] } }), 'utf8'));
    const { server, requests } = await p.recordedServer();
    const legacy = obj(schema, { label: 'chk-noid-legacy', username: 'chk-gina', active: true });
    const read = await server.readResource({ typeName: bearerTokenResource.typeName, currentState: dv(schema, legacy), private: record });
    // No token of its label appeared: gone, so the plan creates it.
    expect(read.diagnostics).toEqual([]);
    expect(read.newState).toEqual(dv(schema, null));
    expect(requests).toEqual(['GET /api/tokens/']);
  });

  it('is refused for a sub-account, which survives', async () => {
    const sub = await p.driver(subAccountResource.typeName, subAccountResource.schema).create({ username: 'chk-noid' });
    await refusedWithoutId(subAccountResource, { ...sub, id: null });
    await expect(p.admin.subAccounts.get('chk-noid')).resolves.toMatchObject({ username: 'chk-noid' });
  });

  it.each([
    ['an authorized IP', authorizedIpResource, { ip: '203.0.113.41', username: 'chk-gina' }],
    ['an authorized hostname', authorizedHostnameResource, { domain: 'noid.chk.example.com', username: null }],
    ['an authorized proxy', authorizedProxyResource, { proxy: 'se-sto' }],
  ])('is refused for %s, which survives', async (_name, def, config) => {
    const state = await p.driver(def.typeName, def.schema).create(config);
    await refusedWithoutId(def as Def, { ...state, id: null });
    expect(await p.driver(def.typeName, def.schema).read(state)).toEqual(state);
  });

  it('is refused, not a crash, for an authorized proxy that lost every attribute', async () => {
    await refusedWithoutId(authorizedProxyResource, obj(authorizedProxyResource.schema, {}));
  });

  it("is refused for a sub-account's hostname list that lost its username too, so the provider's own list is neither read nor cleared", async () => {
    await p.admin.hostnames.add({ domain: 'keep.chk.example.com' });
    const gina = await p.driver(authorizedHostnamesResource.typeName, authorizedHostnamesResource.schema).create({
      username: 'chk-gina',
      domains: ['gina.chk.example.com'],
    });
    await refusedWithoutId(authorizedHostnamesResource, { ...gina, id: null, username: null });
    expect(await p.admin.hostnames.list()).toContain('keep.chk.example.com');
    expect(await p.admin.hostnames.list({ username: 'chk-gina' })).toEqual(['gina.chk.example.com']);
  });

  it("is refused for a sub-account's IP list", async () => {
    const gina = await p.driver(authorizedIpsResource.typeName, authorizedIpsResource.schema).create({
      username: 'chk-gina',
      entries: [{ ip: '198.51.100.41', label: null }],
    });
    await refusedWithoutId(authorizedIpsResource, { ...gina, id: null });
    expect(await p.admin.ips.list({ username: 'chk-gina' })).toEqual(['198.51.100.41']);
  });

  it("is refused for the parent's proxy list", async () => {
    const before = await p.admin.proxies.list();
    await refusedWithoutId(authorizedProxiesResource, obj(authorizedProxiesResource.schema, { proxies: ['nl-ams'], removed_entries: [] }));
    expect(await p.admin.proxies.list()).toEqual(before);
  });
});
