// From the authorized-proxy list to requests through a proxy: an undici dispatcher that sends a
// bearer token (with an optional ip_hash for a sticky exit IP) to one of the listed proxies, and
// optionally the header that picks the exit country. Credentials travel in Proxy-Authorization,
// never in the proxy URL; for https targets they go on the CONNECT request.
import type { ProxyAgent } from 'undici';
import { InvalidArgumentError } from './errors';
import { checkKnownKeys, checkPemCertificates, keysOf, optBool, optFunction, shortName } from './validation';

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
const HOST_PORT_RE = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):([0-9]{1,5})$/;
const REDACTED = '[REDACTED]';

/**
 * Builds a dispatcher (undici `ProxyAgent`) that sends requests through one of the authorized
 * proxies with `Proxy-Authorization: Bearer <token>[:<ipHash>]`. Pass it as `dispatcher` to
 * undici's `request`/`fetch`; close it when done. Checks every option before anything is opened.
 * `util.inspect` and `JSON.stringify` of it show where it connects, never the token.
 */
export function proxyDispatcher(options: ProxyDispatcherOptions): ProxyAgent {
  if (typeof options !== 'object' || options === null) throw new InvalidArgumentError('options', 'must be an object');
  checkKnownKeys(options, OPTION_KEYS, 'the proxyDispatcher options');
  const proxy = chooseProxy(options.proxies, options.use ?? 0);
  if (typeof options.token !== 'string' || !TOKEN_RE.test(options.token)) {
    throw new InvalidArgumentError('token', 'must be 1-512 printable characters without spaces or colons');
  }
  if (options.ipHash !== undefined && (typeof options.ipHash !== 'string' || !IP_HASH_RE.test(options.ipHash))) {
    throw new InvalidArgumentError('ipHash', 'must be a string of 1-128 printable characters without spaces (leave it out for any exit IP)');
  }
  const headers: Record<string, string> = {};
  if (options.country !== undefined) {
    if (typeof options.country !== 'string' || !/^[A-Za-z]{2}$/.test(options.country)) {
      throw new InvalidArgumentError('country', 'must be a two-letter ISO country code');
    }
    if (typeof options.countryHeader !== 'string' || !/^[A-Za-z0-9-]{1,64}$/.test(options.countryHeader)) {
      throw new InvalidArgumentError('countryHeader', 'must name the header that picks the exit country, e.g. X-Emulator-Country');
    }
    headers[options.countryHeader] = options.country.toUpperCase();
  } else if (options.countryHeader !== undefined) {
    throw new InvalidArgumentError('countryHeader', 'needs country: the header carries the country code (leave both out for any country)');
  }
  const tunnelHttp = optBool(options.tunnelHttp, 'tunnelHttp');
  const targetCa = options.targetCaCert === undefined ? undefined : checkPemCertificates(options.targetCaCert, 'targetCaCert', true);
  const connectTo = optFunction(options.connectTo, 'connectTo');
  const address = connectTo ? connectTo(proxy) : proxy;
  if (connectTo && !isHostPort(address)) {
    throw new InvalidArgumentError('connectTo', `must return host:port (port 1-65535) for ${proxy}, not ${describe(address)}`);
  }
  // Loaded here, not at the top: importing the SDK must not evaluate undici (the provider loads it
  // on its first API request, and its schema and validation processes never make one).
  const Agent = redactingAgent();
  return new Agent(
    {
      uri: `http://${address}`,
      token: `Bearer ${options.token}${options.ipHash === undefined ? '' : `:${options.ipHash}`}`,
      headers,
      proxyTunnel: tunnelHttp,
      ...(targetCa === undefined ? {} : { requestTls: { ca: targetCa } }),
    },
    {
      proxy,
      ...(address === proxy ? {} : { connectTo: address }),
      token: REDACTED,
      ...(options.ipHash === undefined ? {} : { ipHash: options.ipHash }),
      ...(options.country === undefined ? {} : { country: options.country.toUpperCase() }),
      tunnelHttp,
    },
  );
}

/** What `util.inspect` and `JSON.stringify` show of a dispatcher: where it goes, and no secret. */
type Shown = Readonly<Record<string, string | boolean>>;
type RedactingAgent = new (options: ConstructorParameters<typeof ProxyAgent>[0], shown: Shown) => ProxyAgent;
let agentClass: RedactingAgent | undefined;

/**
 * undici's ProxyAgent keeps the Proxy-Authorization header in its own fields, which
 * `console.log(dispatcher)` prints; this subclass prints what it was made for instead.
 */
function redactingAgent(): RedactingAgent {
  if (agentClass !== undefined) return agentClass;
  const { ProxyAgent: Base } = require('undici') as typeof import('undici');
  const { inspect } = require('node:util') as typeof import('node:util');
  class ProxyDispatcher extends Base {
    readonly #shown: Shown;
    constructor(options: ConstructorParameters<typeof ProxyAgent>[0], shown: Shown) {
      super(options);
      this.#shown = shown;
    }
    [inspect.custom](_depth: number, opts: import('node:util').InspectOptions): string {
      return `ProxyDispatcher ${inspect(this.#shown, opts)}`;
    }
    toJSON(): Shown {
      return this.#shown;
    }
  }
  agentClass = ProxyDispatcher;
  return agentClass;
}

function isHostPort(value: unknown): value is string {
  const m = typeof value === 'string' ? HOST_PORT_RE.exec(value) : null;
  const port = m ? Number(m[2]) : 0;
  return port >= 1 && port <= 65535;
}

/** A wrong value, described for a message without quoting a long or odd one. */
function describe(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(shortName(value, 60)) : value === null ? 'null' : typeof value;
}

function chooseProxy(proxies: readonly string[], use: number | string): string {
  if (!Array.isArray(proxies) || proxies.length === 0) throw new InvalidArgumentError('proxies', 'must list at least one authorized proxy');
  proxies.forEach((p: unknown, i) => {
    if (!isHostPort(p)) {
      throw new InvalidArgumentError(`proxies[${i}]`, `must be domain:port as proxies.list() returns it, not ${describe(p)}`);
    }
  });
  if (typeof use === 'number') {
    const proxy = proxies[use];
    if (!Number.isInteger(use) || proxy === undefined) throw new InvalidArgumentError('use', `must be an index of proxies (0-${proxies.length - 1})`);
    return proxy;
  }
  if (typeof use !== 'string' || use === '') {
    throw new InvalidArgumentError('use', 'must be an index of proxies, or a listed domain:port, domain or bare host');
  }
  const wanted = use.toLowerCase();
  const found = proxies.find((p) => {
    const lower = p.toLowerCase();
    const domain = lower.replace(/:[0-9]+$/, '');
    return lower === wanted || domain === wanted || domain.split('.')[0] === wanted;
  });
  if (found === undefined) throw new InvalidArgumentError('use', `${describe(use)} is not among the authorized proxies`);
  return found;
}

/** A request a proxy refused, as {@link proxyRefusal} reads it from undici's error. */
export interface ProxyRefusal {
  /** The proxy's status: 407 (credentials), 402 (sub-account deactivated), 509 (a limit reached), 403, 400… */
  readonly status: number;
  /** How the request went: through a CONNECT tunnel (`https://`, or `tunnelHttp`), or in absolute form. */
  readonly via: 'tunnel' | 'absolute-form';
}

const TUNNEL_REFUSED_RE = /^Proxy response \(([0-9]{3})\) !== 200 when HTTP Tunneling$/;
const ABSOLUTE_407 = 'Proxy Authentication Required (407)';

/**
 * The proxy's refusal behind an error of undici's `request`/`fetch` through a
 * {@link proxyDispatcher}, or `undefined` for any other error. undici reports a refused CONNECT
 * as an error carrying only the status, and a 407 to an absolute-form request as an error of its
 * own (every other status of an absolute-form request is an ordinary response). `fetch` wraps
 * both in causes; this follows them.
 */
export function proxyRefusal(error: unknown): ProxyRefusal | undefined {
  let e: unknown = error;
  for (let depth = 0; depth < 5 && typeof e === 'object' && e !== null; depth += 1) {
    const { code, message } = e as { code?: unknown; message?: unknown };
    if (code === 'UND_ERR_ABORTED' && typeof message === 'string') {
      const m = TUNNEL_REFUSED_RE.exec(message);
      if (m) return { status: Number(m[1]), via: 'tunnel' };
    }
    if (code === 'UND_ERR_INVALID_ARG' && message === ABSOLUTE_407) return { status: 407, via: 'absolute-form' };
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}
