// From the authorized-proxy list to requests through a proxy: an undici dispatcher that sends a
// bearer token (with an optional ip_hash for a sticky exit IP) to one of the listed proxies, and
// optionally the header that picks the exit country. Credentials travel in Proxy-Authorization,
// never in the proxy URL; for https targets they go on the CONNECT request.
import type { ProxyAgent } from 'undici';
import { InvalidArgumentError } from './errors';
import { checkKnownKeys, checkPemCertificates, keysOf } from './validation';

/** Options of {@link proxyDispatcher}. */
export interface ProxyDispatcherOptions {
  /** The authorized proxies as `proxies.list()` returns them (`domain:port`). */
  readonly proxies: readonly string[];
  /** A bearer token of the account (or sub-account) whose traffic this is. */
  readonly token: string;
  /** A caller-chosen session key: requests with the same one keep their exit IP. @default none (any exit) */
  readonly ipHash?: string;
  /** ISO country code of the exit IPs, sent in `countryHeader`. @default none (any country) */
  readonly country?: string;
  /** The operator's country header, e.g. `X-Emulator-Country`; required with `country`. */
  readonly countryHeader?: string;
  /** Which listed proxy to use: its index, or its `domain:port` / domain / bare host. @default 0 */
  readonly use?: number | string;
  /**
   * Where to connect for a listed proxy, as `host:port`. The emulator's proxies listen on loopback
   * ports its ready line names, not on the listed domains. @default the listed `domain:port`
   */
  readonly connectTo?: (proxy: string) => string;
  /**
   * CONNECT tunnels for http targets too. Without, http targets are sent in absolute form, which
   * lets the proxy count and refuse each request. @default false
   */
  readonly tunnelHttp?: boolean;
  /**
   * Certificates (PEM) to trust for `https://` targets, instead of the default store: a test
   * server's, or the emulator's `caFile` when the target is the emulator's own API. The proxy
   * itself is reached over plain HTTP and needs none. @default the default store
   */
  readonly targetCaCert?: string | Buffer;
}

const OPTION_KEYS = keysOf<ProxyDispatcherOptions>({
  proxies: true,
  token: true,
  ipHash: true,
  country: true,
  countryHeader: true,
  use: true,
  connectTo: true,
  tunnelHttp: true,
  targetCaCert: true,
});
const TOKEN_RE = /^[\x21-\x39\x3b-\x7e]{1,512}$/; // printable, no space, no colon
const IP_HASH_RE = /^[\x21-\x7e]{1,128}$/;

/**
 * Builds a dispatcher (undici `ProxyAgent`) that sends requests through one of the authorized
 * proxies with `Proxy-Authorization: Bearer <token>[:<ipHash>]`. Pass it as `dispatcher` to
 * undici's `request`/`fetch`; close it when done. Checks every option before anything is opened.
 */
export function proxyDispatcher(options: ProxyDispatcherOptions): ProxyAgent {
  if (typeof options !== 'object' || options === null) throw new InvalidArgumentError('options', 'must be an object');
  checkKnownKeys(options, OPTION_KEYS, 'the proxyDispatcher options');
  const proxy = chooseProxy(options.proxies, options.use ?? 0);
  if (typeof options.token !== 'string' || !TOKEN_RE.test(options.token)) {
    throw new InvalidArgumentError('token', 'must be 1-512 printable characters without spaces or colons');
  }
  if (options.ipHash !== undefined && !IP_HASH_RE.test(options.ipHash)) {
    throw new InvalidArgumentError('ipHash', 'must be 1-128 printable characters without spaces');
  }
  const headers: Record<string, string> = {};
  if (options.country !== undefined) {
    if (!/^[A-Za-z]{2}$/.test(options.country)) throw new InvalidArgumentError('country', 'must be a two-letter ISO country code');
    if (options.countryHeader === undefined || !/^[A-Za-z0-9-]{1,64}$/.test(options.countryHeader)) {
      throw new InvalidArgumentError('countryHeader', 'must name the header that picks the exit country, e.g. X-Emulator-Country');
    }
    headers[options.countryHeader] = options.country.toUpperCase();
  }
  const targetCa = options.targetCaCert === undefined ? undefined : checkPemCertificates(options.targetCaCert, 'targetCaCert', true);
  const address = options.connectTo ? options.connectTo(proxy) : proxy;
  if (typeof address !== 'string' || !/^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):[0-9]{1,5}$/.test(address)) {
    throw new InvalidArgumentError('connectTo', `must return host:port for ${proxy}`);
  }
  // Loaded here, not at the top: importing the SDK must not evaluate undici (the provider loads it
  // on its first API request, and its schema and validation processes never make one).
  const { ProxyAgent: Agent } = require('undici') as typeof import('undici');
  return new Agent({
    uri: `http://${address}`,
    token: `Bearer ${options.token}${options.ipHash === undefined ? '' : `:${options.ipHash}`}`,
    headers,
    proxyTunnel: options.tunnelHttp === true,
    ...(targetCa === undefined ? {} : { requestTls: { ca: targetCa } }),
  });
}

function chooseProxy(proxies: readonly string[], use: number | string): string {
  if (!Array.isArray(proxies) || proxies.length === 0) throw new InvalidArgumentError('proxies', 'must list at least one authorized proxy');
  if (typeof use === 'number') {
    const proxy = proxies[use];
    if (!Number.isInteger(use) || proxy === undefined) throw new InvalidArgumentError('use', `must be an index of proxies (0-${proxies.length - 1})`);
    return proxy;
  }
  const wanted = use.toLowerCase();
  const found = proxies.find((p) => {
    const lower = p.toLowerCase();
    const domain = lower.replace(/:[0-9]+$/, '');
    return lower === wanted || domain === wanted || domain.split('.')[0] === wanted;
  });
  if (found === undefined) throw new InvalidArgumentError('use', `${use} is not among the authorized proxies`);
  return found;
}
