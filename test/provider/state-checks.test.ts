// Stored state is checked before it is trusted, for every entry type: an authorized IP,
// hostname or proxy whose identifying attribute was edited in the state to another managed
// entry (its id kept) is refused with an error naming the state, and the other resource's entry
// survives both a refresh and a destroy.
import { authorizedHostnameResource } from '../../src/provider/resources/authorized-hostname';
import { authorizedIpResource } from '../../src/provider/resources/authorized-ip';
import { authorizedProxyResource } from '../../src/provider/resources/authorized-proxy';
import { startEmulatedProvider, type EmulatedProvider } from './emulated-provider';
import { dv, errors } from './harness';
import type { Obj } from './terraform-sim';

let p: EmulatedProvider;

beforeAll(async () => {
  p = await startEmulatedProvider();
  await p.admin.subAccounts.create({ username: 'chk-sub' });
});

afterAll(async () => {
  await p?.close();
});

type Def = typeof authorizedIpResource | typeof authorizedHostnameResource | typeof authorizedProxyResource;

/** Creates both entries, edits the first's state to name the second, and tries to read and destroy it. */
async function editedToTheOther(def: Def, mine: Obj, other: Obj, edit: Obj, attribute: string) {
  const driver = p.driver(def.typeName, def.schema);
  const mineState = await driver.create(mine);
  await driver.create(other);
  const edited: Obj = { ...mineState, ...edit };
  const server = await p.newServer();
  const read = await server.readResource({ typeName: def.typeName, currentState: dv(def.schema, edited), private: new Uint8Array() });
  const destroyed = await driver.apply(edited, null, null);
  for (const diagnostics of [read.diagnostics, destroyed.diagnostics]) {
    expect(errors(diagnostics)).toEqual([
      expect.objectContaining({
        summary: `Inconsistent ${def.displayName} state`,
        attribute: [{ attributeName: attribute }],
        detail: expect.stringMatching(/(does not match|is not the domain).*nothing was sent to the API/s),
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

  it.each([
    ['proxy', { proxy: 'gb-lon' }, 'us-ny', 'gb-lon'],
    ['domain', { domain: 'fr-par.proxy.example.net' }, 'de-fra', 'fr-par'],
  ])('is refused for an authorized proxy (%s edited), and the other proxy survives', async (attribute, edit, mine, other) => {
    await editedToTheOther(authorizedProxyResource, { proxy: mine }, { proxy: other }, edit, attribute);
    const listed = (await p.admin.proxies.list()).map((e) => e.split('.')[0]);
    expect(listed).toEqual(expect.arrayContaining([mine, other]));
  });
});
