// The emulator's fixed world: the proxy hosts a parent may authorize and the geo-IP counts of the
// two proxy pools. Both are deterministic so tests and docs can rely on them.

/** A proxy host of the catalogue. */
export interface CatalogueProxy {
  /** Bare host name, e.g. `us-ny`; the full domain is `<host>.<proxy domain>`. */
  readonly host: string;
  /** The port listings show after the full domain. */
  readonly port: number;
}

/** Every proxy host the emulator knows (Americas on 8080, Europe on 1080, elsewhere on 3128). */
export const PROXY_CATALOGUE: readonly CatalogueProxy[] = [
  ...['us-ny', 'us-la', 'us-chi', 'us-mia', 'us-sea', 'us-dal', 'ca-tor', 'mx-mex', 'br-sao', 'ar-bue'].map((host) => ({ host, port: 8080 })),
  ...['gb-lon', 'de-fra', 'fr-par', 'nl-ams', 'es-mad', 'it-mil', 'se-sto', 'pl-waw'].map((host) => ({ host, port: 1080 })),
  ...['jp-tyo', 'kr-sel', 'sg-sin', 'in-bom', 'au-syd', 'za-jnb'].map((host) => ({ host, port: 3128 })),
];

/** The default proxy domain (`--proxy-domain`). */
export const DEFAULT_PROXY_DOMAIN = 'proxy.example.net';

/** The outcome of reading a `proxy` form value. */
export type ProxyLookup = { ok: true; proxy: CatalogueProxy } | { ok: false; reason: string };

/**
 * Resolves a bare host (`us-ny`), full domain (`us-ny.proxy.example.net`) or `domain:port`
 * (`us-ny.proxy.example.net:8080`) to a catalogue entry. Case-insensitive, like DNS names.
 */
export function lookupProxy(value: string, proxyDomain: string): ProxyLookup {
  const lower = value.trim().toLowerCase();
  const domainSuffix = `.${proxyDomain.toLowerCase()}`;
  let name = lower;
  let port: number | undefined;
  const colon = lower.lastIndexOf(':');
  if (colon !== -1) {
    const portText = lower.slice(colon + 1);
    name = lower.slice(0, colon);
    if (!/^[0-9]{1,5}$/.test(portText)) return { ok: false, reason: 'port must be a number' };
    port = Number(portText);
    if (!name.endsWith(domainSuffix)) {
      return { ok: false, reason: `the <domain>:<port> form needs the full domain (…${domainSuffix})` };
    }
  }
  let host = name;
  if (name.includes('.')) {
    if (!name.endsWith(domainSuffix)) return { ok: false, reason: `unknown proxy domain (expected …${domainSuffix})` };
    host = name.slice(0, -domainSuffix.length);
  }
  const proxy = PROXY_CATALOGUE.find((p) => p.host === host);
  if (!proxy) return { ok: false, reason: 'unknown proxy host' };
  if (port !== undefined && port !== proxy.port) {
    return { ok: false, reason: `wrong port for this proxy (it listens on ${proxy.port})` };
  }
  return { ok: true, proxy };
}

/** `<host>.<domain>`, as add responses show it. */
export function fullProxyDomain(host: string, proxyDomain: string): string {
  return `${host}.${proxyDomain}`;
}

// [ISO country code, open-pool count, world-pool count]
const GEO_COUNTS: ReadonlyArray<readonly [string, number, number]> = [
  ['US', 41250, 812400],
  ['GB', 8120, 154300],
  ['DE', 9310, 171200],
  ['FR', 6840, 133900],
  ['NL', 5120, 87650],
  ['CA', 4380, 96120],
  ['BR', 7260, 201450],
  ['MX', 2950, 88340],
  ['AR', 1480, 42110],
  ['ES', 3870, 76020],
  ['IT', 3410, 81560],
  ['SE', 1290, 23870],
  ['PL', 2210, 51230],
  ['JP', 6020, 119870],
  ['KR', 2780, 64410],
  ['SG', 1910, 28760],
  ['IN', 8840, 243900],
  ['AU', 2630, 47190],
  ['ZA', 1170, 35620],
  ['RU', 5410, 148300],
  ['UA', 1860, 54270],
  ['TR', 2340, 71980],
  ['ID', 3120, 132600],
  ['VN', 1740, 98450],
  ['TH', 1350, 61270],
  ['PH', 980, 57340],
  ['EG', 760, 44180],
  ['NG', 540, 38920],
  ['CH', 1420, 19640],
  ['NO', 830, 12950],
];

/** The countries of the geo-IP maps with their IP counts in the open and the world pool. */
export function geoCountries(): ReadonlyArray<{ readonly code: string; readonly open: number; readonly world: number }> {
  return GEO_COUNTS.map(([code, open, world]) => ({ code, open, world }));
}

/** The proxy pools that have geo-IP maps. */
export type GeoPool = 'open' | 'world';

/** The geo-IP map of a pool: country code → IP count, as a JSON string (EMULATOR-CHOICES). */
export function geoIpMap(pool: GeoPool): Record<string, string> {
  const map: Record<string, string> = {};
  for (const [code, open, world] of GEO_COUNTS) map[code] = String(pool === 'open' ? open : world);
  return map;
}
