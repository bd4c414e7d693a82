// proxyaccount_geoips data source: how many proxy IPs each country has in one pool.
import { attr, defineSchema, oneOf, type Model } from '../framework';
import type { DataSource } from '../types';

const schema = defineSchema({
  description: 'Counts of proxy IP addresses per country in the open or the world proxy pool.',
  attributes: {
    pool: attr.string({
      description: 'The proxy pool: `open` or `world`.',
      markdown: true,
      required: true,
      validators: [oneOf('open', 'world')],
    }),
    id: attr.string({ description: 'The pool name.', computed: true }),
    counts: attr.map('number', {
      description: 'Number of proxy IPs by ISO 3166-1 alpha-2 country code, e.g. `US`. Use the codes in the `X-Service-Country` proxy header.',
      markdown: true,
      computed: true,
    }),
  },
});

/** The state of a `proxyaccount_geoips` data source. */
export type GeoIpsDataModel = Model<typeof schema>;

/** The `proxyaccount_geoips` data source. */
export const geoIpsDataSource = {
  typeName: 'proxyaccount_geoips',
  displayName: 'geo-IP counts',
  describe: (c) => `geo-IP counts of the ${c.pool ?? ''} pool`,
  schema,

  async read(ctx, { config }) {
    const { geoIps } = ctx.data;
    // Not a collection the reader caches: one data source reads it once per run.
    const counts = config.pool === 'world' ? await geoIps.world() : await geoIps.open();
    return { pool: config.pool, id: config.pool, counts: { ...counts } };
  },
} satisfies DataSource<typeof schema>;
