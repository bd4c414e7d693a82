// Counts of proxy IPs per country for the open and world pools.
import { asObject, count } from './parse';
import type { Transport } from './transport';
import type { CallOptions, GeoIpCounts } from './types';

/** Reads a geo-IP map; counts may arrive as JSON numbers or numeric strings (the API contract leaves it open). */
export function parseGeoIps(body: unknown): GeoIpCounts {
  const o = asObject(body, 'geo-IP map');
  const out: GeoIpCounts = {};
  for (const [country, value] of Object.entries(o)) {
    // defineProperty, not assignment: a "__proto__" key from the wire must stay a plain entry.
    Object.defineProperty(out, country, {
      value: count(value, `count of "${country}"`),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

/** Geo-IP counts. */
export class GeoIpsApi {
  /** @internal */
  constructor(private readonly transport: Transport) {}

  /** IP counts by ISO country code for the open pool. */
  async open(opts?: CallOptions): Promise<GeoIpCounts> {
    return this.get('open', opts);
  }

  /** IP counts by ISO country code for the world pool. */
  async world(opts?: CallOptions): Promise<GeoIpCounts> {
    return this.get('world', opts);
  }

  private async get(pool: 'open' | 'world', opts?: CallOptions): Promise<GeoIpCounts> {
    return this.transport.call(
      {
        method: 'GET',
        path: `/api/geoips/${pool}/`,
        operation: `get ${pool}-pool geo-IP counts`,
        repeatable: true,
        parse: parseGeoIps,
      },
      opts,
    );
  }
}
