// proxyaccount_authorized_proxy against a real emulator, driven the way Terraform drives it: the
// three accepted forms, second plan empty, replacement, drift, import by each form, idempotent
// delete, validation, and the refresh of many proxies costing one listing.
import { isUnknown } from '../../src/protocol/cty';
import { authorizedProxyResource } from '../../src/provider/resources/authorized-proxy';
import { countOf, startEmulatedProvider, type EmulatedProvider } from './emulated-provider';
import { decode, dv, errors, NO_PRIVATE, obj, paths } from './harness';
import { ResourceDriver, type StepFailed, type Obj } from './terraform-sim';

const schema = authorizedProxyResource.schema;
let p: EmulatedProvider;
let driver: ResourceDriver;

beforeAll(async () => {
  p = await startEmulatedProvider();
  driver = p.driver('proxyaccount_authorized_proxy', schema);
});

afterAll(async () => {
  await p?.close();
});

/**
 * A driver whose plan and apply share one provider server without retries, as `terraform apply`
 * plans again in the process that applies (its credentials are then known to work).
 */
async function oneApply(): Promise<ResourceDriver> {
  const server = await p.newServer({ PROXYACCOUNT_MAX_RETRIES: '0' });
  return new ResourceDriver(async () => server, 'proxyaccount_authorized_proxy', schema);
}

describe('proxyaccount_authorized_proxy', () => {
  it.each([
    ['a bare host', 'us-ny', 'us-ny.proxy.example.net', 'us-ny.proxy.example.net:8080'],
    ['a full domain', 'gb-lon.proxy.example.net', 'gb-lon.proxy.example.net', 'gb-lon.proxy.example.net:1080'],
    ['domain:port', 'jp-tyo.proxy.example.net:3128', 'jp-tyo.proxy.example.net', 'jp-tyo.proxy.example.net:3128'],
  ])('creates from %s, keeps the form as given, and a second plan is empty', async (_form, proxy, domain, listing) => {
    const { planned } = await driver.plan(null, { proxy });
    expect(isUnknown(planned['domain']!)).toBe(true);
    const state = await driver.create({ proxy });
    expect(state).toEqual(obj(schema, { id: proxy, proxy, domain }));
    expect(await p.admin.proxies.list()).toContain(listing);
    const refreshed = await driver.read(state);
    expect(refreshed).toEqual(state);
    const second = await driver.plan(refreshed, { proxy });
    expect(second.planned).toEqual(refreshed);
    expect(second.requiresReplace).toEqual([]);
  });

  it('replaces the entry when proxy changes to another proxy', async () => {
    const state = await driver.create({ proxy: 'us-la' });
    const { planned, requiresReplace } = await driver.plan(state, { proxy: 'us-chi' });
    expect(requiresReplace).toEqual([[{ attributeName: 'proxy' }]]);
    expect(planned['proxy']).toBe('us-chi');
    // A domain:port of a proxy the account does not list: the plan cannot tell its port, and replaces.
    expect((await driver.plan(state, { proxy: 'za-jnb.proxy.example.net:8080' })).requiresReplace).toEqual([[{ attributeName: 'proxy' }]]);
  });

  it('refuses at plan a domain:port of a listed proxy at another port, naming the listed form, before the replacement could remove it', async () => {
    const state = await driver.create({ proxy: 'pl-waw' });
    const wrongPort = 'pl-waw.proxy.example.net:8080';
    const refused = [
      {
        severity: 'error',
        summary: 'Wrong proxy port',
        detail:
          '"pl-waw.proxy.example.net:8080" names pl-waw.proxy.example.net, which the account lists at port 1080, and the API refuses another port: ' +
          'write "pl-waw.proxy.example.net:1080", or the proxy without a port ("pl-waw.proxy.example.net" or "pl-waw").',
        attribute: [{ attributeName: 'proxy' }],
      },
    ];
    const planErrors = (prior: Obj | null) =>
      driver.plan(prior, { proxy: wrongPort }).then(
        () => [],
        (err: unknown) => (err as StepFailed).diagnostics,
      );
    // The entry changed to it, and a new entry written so (whose add the API refuses the same way).
    expect(await planErrors(state)).toEqual(refused);
    expect(await planErrors(null)).toEqual(refused);
    expect(await p.admin.proxies.list()).toContain('pl-waw.proxy.example.net:1080');
  });

  it('plans a new domain:port unchecked, with a warning, when the API fails to give the listing (the plan read nothing before the check)', async () => {
    const server = await p.newServer({ PROXYACCOUNT_MAX_RETRIES: '0' });
    const fresh = new ResourceDriver(async () => server, 'proxyaccount_authorized_proxy', schema);
    await p.emu.control.fault({ path: '/api/proxies/', method: 'GET', status: 500, count: 1 });
    const { planned, diagnostics } = await fresh.plan(null, { proxy: 'fr-par.proxy.example.net:1080' });
    expect(planned['proxy']).toBe('fr-par.proxy.example.net:1080');
    expect(diagnostics.map((d) => [d.severity, d.summary])).toEqual([['warning', 'Proxy port not checked']]);
  });

  it('updates in place, sending nothing, when proxy changes to another form of the same proxy', async () => {
    const state = await driver.create({ proxy: 'us-sea' });
    const listing = (await p.admin.proxies.list()).find((e) => e.startsWith('us-sea.'))!;
    const { server, requests } = await p.recordedServer();
    const recorded = new ResourceDriver(async () => server, 'proxyaccount_authorized_proxy', schema);
    let form = state;
    for (const proxy of [listing, 'us-sea.proxy.example.net', 'US-SEA']) {
      const { planned, requiresReplace } = await recorded.plan(form, { proxy });
      // Replaced with create_before_destroy, the old object's destroy would remove the proxy.
      expect(requiresReplace).toEqual([]);
      expect(planned).toEqual(obj(schema, { id: proxy, proxy, domain: 'us-sea.proxy.example.net' }));
      const { state: after, diagnostics } = await recorded.apply(form, planned, { proxy });
      expect(errors(diagnostics)).toEqual([]);
      expect(after).toEqual(planned);
      form = after!;
    }
    expect(requests.filter((r) => !r.startsWith('GET '))).toEqual([]);
    expect(await p.admin.proxies.list()).toContain(listing);
    expect(await driver.read(form)).toEqual(form);
  });

  it('plans the same update while applying when the proxy was removed since the plan, and the next refresh finds it gone', async () => {
    const state = await driver.create({ proxy: 'ar-bue' });
    const listing = (await p.admin.proxies.list()).find((e) => e.startsWith('ar-bue.'))!;
    const reviewed = await driver.plan(state, { proxy: listing });
    expect(reviewed.requiresReplace).toEqual([]);
    await p.admin.proxies.delete(listing);
    // Terraform plans again while applying, and stops an apply whose action changed.
    const whileApplying = await driver.plan(state, { proxy: listing });
    expect(whileApplying.requiresReplace).toEqual([]);
    expect(whileApplying.planned).toEqual(reviewed.planned);
    const { state: after } = await driver.apply(state, whileApplying.planned, { proxy: listing });
    expect(await driver.read(after!)).toBeNull();
  });

  it('detects a proxy removed outside Terraform', async () => {
    const state = await driver.create({ proxy: 'de-fra' });
    await p.admin.proxies.delete('de-fra.proxy.example.net:1080');
    expect(await driver.read(state)).toBeNull();
  });

  it('imports by bare host, full domain and domain:port, resolving the domain from the listing', async () => {
    await p.admin.proxies.add('fr-par');
    await p.admin.proxies.add('sg-sin');
    await p.admin.proxies.add('au-syd');
    for (const [id, domain] of [
      ['fr-par', 'fr-par.proxy.example.net'],
      ['sg-sin.proxy.example.net', 'sg-sin.proxy.example.net'],
      ['au-syd.proxy.example.net:3128', 'au-syd.proxy.example.net'],
    ] as const) {
      const res = await driver.import(id);
      expect(res.diagnostics).toEqual([]);
      expect(res.state).toEqual(obj(schema, { id, proxy: id, domain }));
      // The imported form matches its configuration: nothing to change.
      expect((await driver.plan(res.state, { proxy: id })).planned).toEqual(res.state);
    }
    // Not authorized (or a wrong port): nothing to import.
    expect((await driver.import('br-sao')).state).toBeNull();
    expect((await driver.import('au-syd.proxy.example.net:8080')).state).toBeNull();
    const bad = await driver.import('not a proxy');
    expect(bad.state).toBeNull();
    expect(bad.diagnostics).toEqual([expect.objectContaining({ summary: 'Invalid import ID' })]);
  });

  it('deletes, and deleting again (already gone) succeeds', async () => {
    const state = await driver.create({ proxy: 'nl-ams.proxy.example.net' });
    expect(errors(await driver.destroy(state))).toEqual([]);
    expect(await p.admin.proxies.list()).not.toContain('nl-ams.proxy.example.net:1080');
    expect(errors(await driver.destroy(state))).toEqual([]);
  });

  it('on a 400 at delete, trusts the listing: still listed keeps the state, not listed counts as deleted', async () => {
    const state = await driver.create({ proxy: 'in-bom' });
    await p.emu.control.fault({ path: '/api/proxy/delete/', status: 400, count: 1 });
    const failed = await driver.apply(state, null, null);
    expect(failed.state).toEqual(state);
    expect(errors(failed.diagnostics)).toEqual([expect.objectContaining({ summary: 'Unable to delete authorized proxy' })]);

    await p.admin.proxies.delete('in-bom');
    await p.emu.control.fault({ path: '/api/proxy/delete/', status: 400, count: 1 });
    expect(errors(await driver.destroy(state))).toEqual([]);
  });

  it('settles a create whose answers are lost by reading the listing back', async () => {
    const lossy = await oneApply();
    const config = { proxy: 'br-sao' };
    const { planned } = await lossy.plan(null, config);
    // The add is made and its answer lost, and so is the answer to the add sent again.
    await p.emu.control.fault({ path: '/api/proxy/add/', method: 'POST', dropResponse: true, count: 2 });
    const { state, diagnostics } = await lossy.apply(null, planned, config);
    expect(errors(diagnostics)).toEqual([]);
    expect(state).toEqual(obj(schema, { id: 'br-sao', proxy: 'br-sao', domain: 'br-sao.proxy.example.net' }));
  });

  it('keeps in state a proxy whose create may have taken effect (answers lost, read-back failed), with the error', async () => {
    const lossy = await oneApply();
    const config = { proxy: 'kr-sel.proxy.example.net:3128' };
    const { planned } = await lossy.plan(null, config);
    await p.emu.control.fault({ path: '/api/proxy/add/', method: 'POST', dropResponse: true, count: 2 });
    await p.emu.control.fault({ path: '/api/proxies/', method: 'GET', status: 403, count: 1 });
    const { state, diagnostics } = await lossy.apply(null, planned, config);
    expect(errors(diagnostics)).toEqual([
      expect.objectContaining({ summary: 'Unable to create authorized proxy', detail: expect.stringMatching(/may or may not have taken effect/) }),
    ]);
    // Terraform saves it (tainted): the proxy is authorized, and the state holds it.
    expect(state).toEqual(obj(schema, { id: config.proxy, proxy: config.proxy, domain: null }));
    expect(await p.admin.proxies.list()).toContain('kr-sel.proxy.example.net:3128');
    // The next refresh finds it and fills in its domain.
    expect(await driver.read(state!)).toEqual(obj(schema, { id: config.proxy, proxy: config.proxy, domain: 'kr-sel.proxy.example.net' }));
  });

  it('keeps in state, with the error, a proxy whose adds lost their connections and which the listing does not show yet; no connection advice', async () => {
    const lossy = await oneApply();
    const config = { proxy: 'de-ber' };
    const { planned } = await lossy.plan(null, config);
    // Both the add and the add sent again lose their connections: either may still be on its way.
    await p.emu.control.fault({ path: '/api/proxy/add/', method: 'POST', reset: true, count: 2 });
    const { state, diagnostics } = await lossy.apply(null, planned, config);
    expect(errors(diagnostics)).toEqual([
      expect.objectContaining({
        summary: 'Unable to create authorized proxy',
        detail: expect.stringMatching(
          /add proxy 'de-ber'.*does not hold it yet, but the API may still carry the request out.*kept in the state marked tainted/s,
        ),
      }),
    ]);
    expect(diagnostics[0]!.detail).not.toMatch(/base_url|reachable|ca_cert_file/);
    expect(state).toEqual(obj(schema, { id: 'de-ber', proxy: 'de-ber', domain: null }));
    expect(await driver.read(state!)).toBeNull();
  });

  it('reports a proxy the API does not recognize on create', async () => {
    const { planned } = await driver.plan(null, { proxy: 'xx-nowhere' });
    const { state, diagnostics } = await driver.apply(null, planned, { proxy: 'xx-nowhere' });
    expect(state).toBeNull();
    expect(diagnostics).toEqual([expect.objectContaining({ summary: 'Unable to create authorized proxy' })]);
    expect(diagnostics[0]!.detail).toMatch(/400.*not recognized/);
  });

  it('validates the accepted forms on the proxy attribute', async () => {
    for (const proxy of ['us ny', 'us-ny:8080', 'us-ny.proxy.example.net:99999', 'us-ny.proxy.example.net:', 'https://us-ny', '']) {
      const diags = errors(await driver.validate({ proxy }));
      expect(paths(diags)).toEqual(['proxy']);
    }
    for (const proxy of ['us-ny', 'US-NY.proxy.example.net', 'us-ny.proxy.example.net:8080']) {
      expect(errors(await driver.validate({ proxy }))).toEqual([]);
    }
  });

  it('says what to write for a proxy with a trailing dot, and for a bare host given a port', async () => {
    const rule =
      'Attribute proxy must be a bare proxy host (us-ny), a full domain (us-ny.proxy.example.net) or domain:port (us-ny.proxy.example.net:8080) with a port from 1 to 65535';
    const details = async (proxy: string) => errors(await driver.validate({ proxy })).map((d) => d.detail);
    expect(await details('us-ny.proxy.example.net.')).toEqual([
      `${rule} (got "us-ny.proxy.example.net."): drop the trailing dot and write "us-ny.proxy.example.net".`,
    ]);
    expect(await details('us-ny.proxy.example.net.:8080')).toEqual([
      `${rule} (got "us-ny.proxy.example.net.:8080"): drop the trailing dot and write "us-ny.proxy.example.net:8080".`,
    ]);
    expect(await details('us-ny:8080')).toEqual([
      `${rule} (got "us-ny:8080"): a port needs the full domain, with the port the account lists it at (such as us-ny.proxy.example.net:<port>); or write the bare host alone, "us-ny".`,
    ]);
  });

  it('refreshes many proxies in parallel with one listing request', async () => {
    const hosts = ['us-mia', 'us-sea', 'us-dal', 'ca-tor', 'mx-mex', 'es-mad', 'it-mil', 'se-sto'];
    for (const h of hosts) await p.admin.proxies.add(h);
    const states = hosts.map((h) => obj(schema, { id: h, proxy: h, domain: `${h}.proxy.example.net` }));
    const { server, requests } = await p.recordedServer();
    const answers = await Promise.all(
      states.map((s) =>
        server.readResource({ typeName: 'proxyaccount_authorized_proxy', currentState: dv(schema, s), private: NO_PRIVATE, clientCapabilities: undefined }),
      ),
    );
    expect(answers.flatMap((a) => a.diagnostics)).toEqual([]);
    expect(answers.map((a) => decode(schema, a.newState))).toEqual(states);
    expect(countOf(requests, 'GET /api/proxies/')).toBe(1);
    expect(requests).toHaveLength(1);
  });

  it('reads a state naming no proxy at all as naming none, never a crash, should one get past the state check', async () => {
    // The read itself, without the framework's state check in front (which refuses such a state).
    const listings: string[] = [];
    const ctx = {
      data: {
        proxies: {
          list: async () => {
            listings.push('GET /api/proxies/');
            return ['us-ny.proxy.example.net:8080'];
          },
        },
      },
    } as unknown as Parameters<typeof authorizedProxyResource.read>[0];
    const state = obj(schema, {}) as Parameters<typeof authorizedProxyResource.read>[1]['state'];
    await expect(authorizedProxyResource.read(ctx, { state, private: undefined })).resolves.toBeNull();
    expect(listings).toEqual([]);
  });
});
