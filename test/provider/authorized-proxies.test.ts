// proxyaccount_authorized_proxies (authoritative list of the parent account) and the
// proxyaccount_proxies data source against a real emulator: declared forms kept in state while
// the API lists domain:port, drift, import, idempotent delete, a plan limit reached mid-apply.
import { proxiesDataSource } from '../../src/provider/data-sources/proxies';
import { authorizedProxiesResource } from '../../src/provider/resources/authorized-proxies';
import { UNKNOWN } from '../../src/protocol/cty';
import { errors, paths } from './harness';
import { normalized, sorted, startListSuite, type ListSuite } from './list-harness';
import { ResourceDriver, type StepFailed, type Obj } from './terraform-sim';

let suite: ListSuite;
let driver: ResourceDriver;

beforeAll(async () => {
  suite = await startListSuite();
  driver = new ResourceDriver(() => suite.newServer(), 'proxyaccount_authorized_proxies', authorizedProxiesResource.schema);
});

afterAll(async () => {
  await suite?.stop();
});

// Every test starts from an empty list on the default plan (20 proxies).
beforeEach(async () => {
  await suite.emu.control.plan('demo', 'plan20');
  for (const p of await suite.admin.proxies.list()) await suite.admin.proxies.delete(p);
});

async function remote(): Promise<string[]> {
  return sorted(await suite.admin.proxies.list());
}

async function expectNoChanges(state: Obj, config: Record<string, unknown>): Promise<void> {
  const refreshed = (await driver.read(state))!;
  expect(normalized(refreshed, 'proxies')).toEqual(normalized(state, 'proxies'));
  const { planned, requiresReplace } = await driver.plan(refreshed, config as Obj);
  expect(normalized(planned, 'proxies')).toEqual(normalized(refreshed, 'proxies'));
  expect(requiresReplace).toEqual([]);
}

const NY = 'us-ny.proxy.example.net:8080';
const LON = 'gb-lon.proxy.example.net:1080';
const TYO = 'jp-tyo.proxy.example.net:3128';

describe('proxyaccount_authorized_proxies', () => {
  it('creates from every accepted form (removing what was not declared), keeps the forms, and a second plan is empty', async () => {
    await suite.admin.proxies.add('de-fra');
    const config = { proxies: ['us-ny', 'gb-lon.proxy.example.net', TYO] };
    const { planned } = await driver.plan(null, config);
    expect(planned['id']).toBe('_self');
    const state = await driver.create(config);
    expect(normalized(state, 'proxies')).toEqual({ id: '_self', proxies: sorted(config.proxies), removed_entries: ['de-fra.proxy.example.net:1080'] });
    expect(await remote()).toEqual(sorted([NY, LON, TYO]));
    await expectNoChanges(state, config);
  });

  it('accepts several forms of one proxy, and changing only the form sends nothing', async () => {
    const both = { proxies: ['us-ny', 'US-NY.proxy.example.net'] };
    const state = await driver.create(both);
    expect(await remote()).toEqual([NY]);
    await expectNoChanges(state, both);
    const one = { proxies: [NY] };
    const updated = await driver.update(state, one);
    expect(updated['proxies']).toEqual([NY]);
    expect(await remote()).toEqual([NY]);
    await expectNoChanges(updated, one);
  });

  it('plans removed_entries as the apply will pair the forms: a form change removes nothing', async () => {
    const state = await driver.create({ proxies: ['us-ny'] });
    const refreshed = (await driver.read(state))!;
    // Another form of the same proxy: nothing is removed, and the plan says nothing is.
    const sameProxy = await driver.plan(refreshed, { proxies: ['us-ny.proxy.example.net'] });
    expect(sameProxy.planned['removed_entries']).toEqual([]);
    expect(sameProxy.diagnostics.filter((d) => d.severity === 'warning')).toEqual([]);
  });

  it('refuses at plan a domain:port of a listed proxy at another port, naming the listed form; an unlisted one plans as before', async () => {
    const state = await driver.create({ proxies: ['US-NY.proxy.example.net:8080', 'gb-lon'] });
    const refreshed = (await driver.read(state))!;
    const config = { proxies: ['US-NY.proxy.example.net:8080', 'gb-lon.proxy.example.net:8080'] };
    const refused = [
      {
        severity: 'error',
        summary: 'Wrong proxy port',
        detail:
          '"gb-lon.proxy.example.net:8080" names gb-lon.proxy.example.net, which the account lists at port 1080, and the API refuses another port: ' +
          'write "gb-lon.proxy.example.net:1080", or the proxy without a port ("gb-lon.proxy.example.net" or "gb-lon").',
        attribute: [{ attributeName: 'proxies' }],
      },
    ];
    const planErrors = (prior: Obj | null) =>
      driver.plan(prior, config).then(
        () => [],
        (err: unknown) => (err as StepFailed).diagnostics,
      );
    // The list changed to it, and a new list declaring it (which takes over the listed proxies).
    expect(await planErrors(refreshed)).toEqual(refused);
    expect(await planErrors(null)).toEqual(refused);
    // A domain:port of a proxy the account does not list: the plan cannot tell its port.
    const unlisted = await driver.plan(refreshed, { proxies: ['us-ny', 'gb-lon', 'fr-par.proxy.example.net:8080'] });
    expect(errors(unlisted.diagnostics)).toEqual([]);
    expect(unlisted.planned['removed_entries']).toEqual([]);
    expect(await remote()).toEqual(sorted([NY, LON]));
  });

  it('adds before it removes: an add the API refuses removes nothing, the proxy it was to replace included', async () => {
    const state = await driver.create({ proxies: ['us-ny', 'gb-lon'] });
    const config = { proxies: ['us-ny', 'fr-par.proxy.example.net:8080'] };
    const { planned } = await driver.plan(state, config);
    expect(planned['removed_entries']).toEqual([LON]);
    // Added after the plan: the apply would remove it too, and say so, were anything removed.
    await suite.admin.proxies.add('nl-ams');
    const { state: after, diagnostics } = await driver.apply(state, planned, config);
    expect(errors(diagnostics)).toEqual([
      expect.objectContaining({
        summary: 'Unable to update authorized proxy list',
        detail: expect.stringMatching(/add proxy 'fr-par\.proxy\.example\.net:8080'.*400.*wrong port/s),
      }),
      expect.objectContaining({ detail: expect.stringMatching(/2 change\(s\) were not attempted after the failures above/) }),
    ]);
    expect(diagnostics.filter((d) => d.severity === 'warning')).toEqual([]);
    expect(await remote()).toEqual(sorted([NY, LON, 'nl-ams.proxy.example.net:1080']));
    expect(sorted(after!['proxies'])).toEqual(sorted(['us-ny', LON, 'nl-ams.proxy.example.net:1080']));
  });

  it('swaps a proxy on a list at the plan limit: the add refused for the limit is sent again once the removal made room', async () => {
    await suite.emu.control.plan('demo', 'trial'); // at most 2 proxies
    const state = await driver.create({ proxies: ['us-ny', 'gb-lon'] });
    const config = { proxies: ['us-ny', 'jp-tyo'] };
    const updated = await driver.update(state, config);
    expect(await remote()).toEqual(sorted([NY, TYO]));
    await expectNoChanges(updated, config);
  });

  it('adds and removes in place', async () => {
    const state = await driver.create({ proxies: ['us-ny', 'gb-lon'] });
    const config = { proxies: ['gb-lon', 'sg-sin', 'au-syd.proxy.example.net'] };
    const updated = await driver.update(state, config);
    expect(sorted(updated['proxies'])).toEqual(sorted(config.proxies));
    expect(await remote()).toEqual(sorted([LON, 'sg-sin.proxy.example.net:3128', 'au-syd.proxy.example.net:3128']));
    await expectNoChanges(updated, config);
  });

  it('shows proxies added outside Terraform as domain:port and removed ones as missing, then puts them back', async () => {
    const config = { proxies: ['us-ny', 'gb-lon'] };
    const state = await driver.create(config);
    await suite.admin.proxies.add('fr-par');
    await suite.admin.proxies.delete('gb-lon');
    const drifted = (await driver.read(state))!;
    expect(sorted(drifted['proxies'])).toEqual(sorted(['us-ny', 'fr-par.proxy.example.net:1080']));
    const fixed = await driver.update(drifted, config);
    expect(await remote()).toEqual(sorted([NY, LON]));
    await expectNoChanges(fixed, config);
  });

  it('imports by _self (listing domain:port), adopts declared forms without requests, and rejects other IDs', async () => {
    await suite.admin.proxies.add('us-ny');
    await suite.admin.proxies.add('jp-tyo');
    const { state, diagnostics } = await driver.import('_self');
    expect(diagnostics).toEqual([]);
    expect(normalized(state, 'proxies')).toEqual({ id: '_self', proxies: sorted([NY, TYO]), removed_entries: [] });
    const config = { proxies: ['us-ny', 'jp-tyo.proxy.example.net'] };
    await suite.emu.control.fault({ path: '/api/proxy/*', status: 500, count: 100 });
    try {
      const adopted = await driver.update(state!, config); // would fail on any write
      expect(sorted(adopted['proxies'])).toEqual(sorted(config.proxies));
    } finally {
      await suite.emu.control.reset();
    }
    const bad = await driver.import('demo');
    expect(bad.state).toBeNull();
    expect(bad.diagnostics[0]).toMatchObject({ summary: 'Invalid import ID' });
  });

  it('deletes every proxy, deleting again succeeds, and a failed removal keeps the state', async () => {
    const state = await driver.create({ proxies: ['us-ny', 'gb-lon'] });
    await suite.admin.proxies.add('nl-ams');
    await suite.emu.control.fault({ path: '/api/proxy/delete/', status: 400, count: 1 });
    const failed = await driver.apply(state, null, null);
    expect(errors(failed.diagnostics)).toEqual([expect.objectContaining({ summary: 'Unable to delete authorized proxy list' })]);
    expect(failed.state).toEqual(state);
    expect(await remote()).toHaveLength(1);
    expect(errors(await driver.destroy(state))).toEqual([]);
    expect(await remote()).toEqual([]);
    expect(errors(await driver.destroy(state))).toEqual([]);
  });

  it('records what happened when the plan limit stops an add, and the next plan shows the rest', async () => {
    await suite.emu.control.plan('demo', 'trial'); // at most 2 proxies
    const config = { proxies: ['us-ny', 'gb-lon', 'jp-tyo'] };
    const { planned } = await driver.plan(null, config);
    const { state, diagnostics } = await driver.apply(null, planned, config);
    expect(errors(diagnostics)).toEqual([expect.objectContaining({ summary: 'Unable to create authorized proxy list' })]);
    expect(errors(diagnostics)[0]!.detail).toMatch(/402.*plan/s);
    const truth = await remote();
    expect(truth).toHaveLength(2);
    const expected = config.proxies.filter((p) => truth.some((t) => t.startsWith(`${p}.`)));
    expect(sorted(state!['proxies'])).toEqual(sorted(expected));
    const next = await driver.plan(state!, config);
    expect(sorted(next.planned['proxies'])).not.toEqual(sorted(state!['proxies']));
    await suite.emu.control.plan('demo', 'plan20');
    const done = await driver.update(state!, config);
    expect(await remote()).toEqual(sorted([NY, LON, TYO]));
    await expectNoChanges(done, config);
  });

  it('validates each proxy form', async () => {
    const diags = await driver.validate({ proxies: ['', 'us ny', 'us-ny:8080', 'us-ny.proxy.example.net:99999', 'us-ny'] });
    expect(paths(errors(diags))).toEqual(['proxies', 'proxies', 'proxies', 'proxies']);
    expect(
      errors(diags)
        .map((d) => d.detail)
        .join('\n'),
    ).toContain('"us-ny:8080"');
    expect(await driver.validate({ proxies: ['us-ny', 'us-ny.proxy.example.net', NY] })).toEqual([]);
  });

  it('says what to write for a proxy with a trailing dot, and for a bare host given a port', async () => {
    const rule =
      'Attribute proxies must be a bare proxy host (us-ny), a full domain (us-ny.proxy.example.net) or <domain>:<port> (us-ny.proxy.example.net:8080)';
    const details = async (proxy: string) => errors(await driver.validate({ proxies: [proxy] })).map((d) => d.detail);
    expect(await details('us-ny.proxy.example.net.')).toEqual([
      `${rule}, got "us-ny.proxy.example.net.": drop the trailing dot and write "us-ny.proxy.example.net".`,
    ]);
    expect(await details('us-ny.proxy.example.net.:8080')).toEqual([
      `${rule}, got "us-ny.proxy.example.net.:8080": drop the trailing dot and write "us-ny.proxy.example.net:8080".`,
    ]);
    expect(await details('us-ny:8080')).toEqual([
      `${rule}, got "us-ny:8080": a port needs the full domain, with the port the account lists it at (such as us-ny.proxy.example.net:<port>); or write the bare host alone, "us-ny".`,
    ]);
    expect(await details('gb-lon:1080')).toEqual([
      `${rule}, got "gb-lon:1080": a port needs the full domain, with the port the account lists it at (such as gb-lon.proxy.example.net:<port>); or write the bare host alone, "gb-lon".`,
    ]);
  });

  it('refuses a null proxy (`proxies = [var.n]`) at validation, and waits for an unknown one', async () => {
    const diags = await driver.validate({ proxies: [null] });
    expect(errors(diags)).toEqual([
      expect.objectContaining({
        summary: 'Null element',
        detail: 'An element of proxies is null (for example a variable that is null, or a conditional that gives null); remove it or set it to a value.',
        attribute: [{ attributeName: 'proxies' }],
      }),
    ]);
    expect(await driver.validate({ proxies: ['us-ny', UNKNOWN] })).toEqual([]);
  });
});

describe('proxyaccount_proxies data source', () => {
  it('lists every authorized proxy as domain:port, sorted', async () => {
    for (const p of ['us-ny', 'au-syd', 'gb-lon']) await suite.admin.proxies.add(p);
    const { state, diagnostics } = await suite.readData('proxyaccount_proxies', proxiesDataSource.schema, {});
    expect(diagnostics).toEqual([]);
    expect(state).toEqual({ id: '_self', proxies: ['au-syd.proxy.example.net:3128', LON, NY] });
    expect(state!['proxies']).toEqual(await remote());
  });
});
