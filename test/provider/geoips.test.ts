// proxyaccount_geoips data source against a real emulator: counts per country of each pool,
// and the pool validated before any request.
import { geoIpsDataSource } from '../../src/provider/data-sources/geoips';
import { dv, errors, obj, paths } from './harness';
import { startListSuite, type ListSuite } from './list-harness';

const schema = geoIpsDataSource.schema;
let suite: ListSuite;

beforeAll(async () => {
  suite = await startListSuite();
});

afterAll(async () => {
  await suite?.stop();
});

describe('proxyaccount_geoips data source', () => {
  it.each(['open', 'world'] as const)('reads the %s pool: every country with its count, as numbers', async (pool) => {
    const { state, diagnostics } = await suite.readData('proxyaccount_geoips', schema, { pool });
    expect(diagnostics).toEqual([]);
    const expected = pool === 'open' ? await suite.admin.geoIps.open() : await suite.admin.geoIps.world();
    expect(Object.keys(expected).length).toBeGreaterThan(0);
    expect(state).toEqual({ pool, id: pool, counts: expected });
    expect(Object.values(state!['counts'] as Record<string, unknown>).every((n) => typeof n === 'number')).toBe(true);
  });

  it('the two pools differ (the right endpoint is asked)', async () => {
    const open = await suite.readData('proxyaccount_geoips', schema, { pool: 'open' });
    const world = await suite.readData('proxyaccount_geoips', schema, { pool: 'world' });
    expect(open.state!['counts']).not.toEqual(world.state!['counts']);
  });

  it('accepts only open or world as pool', async () => {
    const server = await suite.newServer();
    const validate = (pool: string) => server.validateDataResourceConfig({ typeName: 'proxyaccount_geoips', config: dv(schema, obj(schema, { pool })) });
    const bad = await validate('moon');
    expect(paths(errors(bad.diagnostics))).toEqual(['pool']);
    expect(errors(bad.diagnostics)[0]!.detail).toContain('"open", "world"');
    expect((await validate('world')).diagnostics).toEqual([]);
  });

  it('refuses pool = null at validation instead of reading the open pool', async () => {
    const server = await suite.newServer();
    const res = await server.validateDataResourceConfig({ typeName: 'proxyaccount_geoips', config: dv(schema, obj(schema, { pool: null })) });
    expect(errors(res.diagnostics).map((d) => [paths([d]), d.summary, d.detail])).toEqual([
      [['pool'], 'Missing required argument', expect.stringContaining('pool is required, but its value is null')],
    ]);
  });
});
