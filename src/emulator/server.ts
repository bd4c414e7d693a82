// Starts and stops the emulator: the HTTPS API server, the plain-HTTP server that redirects to
// it, the store and the certificate file.
import { createServer as createHttpServer, type Server as HttpServer, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { BanList } from './auth';
import { DEFAULT_PROXY_DOMAIN } from './catalogue';
import { createClock, type Clock } from './clock';
import { DEFAULT_ACCOUNTS, loadAccountsFile, type AccountSeed } from './config';
import { FaultList } from './faults';
import { createRequestHandler } from './handler';
import { httpDate, sendText } from './http';
import { Router } from './router';
import { apiRoutes } from './routes';
import { Store } from './store';
import { prepareTls, type GivenCertificate } from './tls';
import { isProxyDomain, PROXY_DOMAIN_RULE } from './validation';
import type { HostResolver } from './proxy/admission';
import { countryHeader, exitIpHeader } from './proxy/context';
import { ExitPool } from './proxy/exits';
import { startProxyServers, systemResolver } from './proxy/servers';
import { InFlight } from './in-flight';
import { PortInUseError } from './port-in-use';

export { PortInUseError } from './port-in-use';
import { isLoopback } from './proxy/target';

/** How the emulated proxy servers run (docs/emulator.md, "Proxy servers"). */
export interface ProxyServerOptions {
  /** Port of the first catalogue host, the others following in catalogue order; 0 = free ports. @default 0 */
  readonly firstPort?: number;
  /** Operator name in `X-<operator>-Country` and `X-<operator>-IP`. @default 'Emulator' */
  readonly operator?: string;
  /** Proxied bytes that count as one GB of usage; must divide 10^9. @default 1e9 */
  readonly bytesPerGb?: number;
  /**
   * Forward to any target, not only loopback ones, and listen on `host` itself; without it the
   * proxies listen on loopback (`host` when it is a loopback address). @default false
   */
  readonly allowAnyTarget?: boolean;
  /** Open connections per proxy at most. @default 256 */
  readonly maxConnections?: number;
  /** Resolves authorized hostnames to addresses. @default the system resolver */
  readonly resolve?: HostResolver;
}

/** The default operator name of the proxy headers. */
export const DEFAULT_OPERATOR = 'Emulator';

/** How to run the emulator. */
export interface EmulatorOptions {
  /** Address to listen on. @default '127.0.0.1' */
  readonly host?: string;
  /** HTTPS port; 0 picks a free one. @default 8443 */
  readonly port?: number;
  /** Plain-HTTP (redirecting) port; 0 picks a free one. @default 8080 */
  readonly httpPort?: number;
  /** SQLite file to keep state in across restarts. @default undefined (in memory) */
  readonly statePath?: string;
  /** Accounts file. @default undefined (one `demo` account on plan20) */
  readonly accountsPath?: string;
  /**
   * Certificate to serve. @default undefined: a self-signed one, fresh on each start, or with
   * `statePath` kept in `<statePath>.tls.pem` (owner-only) and reused across restarts
   */
  readonly tls?: GivenCertificate;
  /** Writes the certificate clients should trust to this stable path (reported as `caFile`). */
  readonly caOutPath?: string;
  /** Secret of the control API. */
  readonly adminToken: string;
  /** Domain of the proxy catalogue: two labels or more, the last not a number. @default 'proxy.example.net' */
  readonly proxyDomain?: string;
  /** Prefix of raw bearer tokens. @default 'pxa_' */
  readonly tokenPrefix?: string;
  /** Receives one line per request and every internal error. @default writes to stderr */
  readonly log?: (line: string) => void;
  /** The emulator clock. @default a clock following real time */
  readonly clock?: Clock;
  /** The emulated proxy servers, or false for none. @default {} (every catalogue host, on free ports) */
  readonly proxies?: ProxyServerOptions | false;
}

/** A running emulator. */
export interface EmulatorServer {
  /** HTTPS base URL, e.g. `https://127.0.0.1:8443`. */
  readonly url: string;
  /** Plain-HTTP URL that answers 302 to `url`. */
  readonly httpUrl: string;
  /** PEM file of the certificate clients should trust. */
  readonly caFile: string;
  /** Secret of the control API. */
  readonly adminToken: string;
  /** Catalogue host → `address:port` of its emulated proxy (empty without proxies). */
  readonly proxies: Readonly<Record<string, string>>;
  /** The request header that picks the exit country. */
  readonly countryHeader: string;
  /** The response header that reports the exit IP. */
  readonly exitIpHeader: string;
  /** Stops both servers, closes the store and removes temporary files. Safe to call twice. */
  close(): Promise<void>;
}

/**
 * A request (headers and body) must arrive within 5 s, else Node answers 408 and closes the
 * connection. Node's defaults (5 min, checked every 30 s) let a body shorter than its
 * Content-Length hold a connection for minutes. Served requests are not affected: the limit ends
 * when the body is complete, so delay faults and slow handlers still answer.
 */
const REQUEST_TIMEOUTS = { requestTimeout: 5_000, headersTimeout: 5_000, connectionsCheckingInterval: 500 } as const;

/** Starts the emulator; resolves once both servers listen. Cleans up after itself if start-up fails. */
export async function startEmulator(options: EmulatorOptions): Promise<EmulatorServer> {
  const host = options.host ?? '127.0.0.1';
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const loadSeeds = (): readonly AccountSeed[] => (options.accountsPath === undefined ? DEFAULT_ACCOUNTS : loadAccountsFile(options.accountsPath));
  const clock = options.clock ?? createClock();
  const store = Store.open(options.statePath, clock, loadSeeds());
  const cleanups: Array<() => Promise<void> | void> = [() => store.close()];
  const close = async (): Promise<void> => {
    for (const step of cleanups.splice(0).reverse()) await step();
  };
  try {
    const tls = prepareTls({
      host,
      given: options.tls,
      keyStorePath: options.statePath === undefined ? undefined : tlsStorePath(options.statePath),
      caOutPath: options.caOutPath,
      log,
    });
    cleanups.push(() => tls.cleanup());
    const bans = new BanList(clock);
    const faults = new FaultList();
    const exits = new ExitPool();
    const proxyOptions = options.proxies === false ? undefined : (options.proxies ?? {});
    const operator = proxyOptions?.operator ?? DEFAULT_OPERATOR;
    const bytesPerGb = proxyOptions?.bytesPerGb ?? 1e9;
    if (!Number.isSafeInteger(bytesPerGb) || bytesPerGb < 1 || 1e9 % bytesPerGb !== 0) {
      throw new Error('bytes per GB must be a whole divisor of 1000000000 (e.g. 1000)');
    }
    if (!/^[A-Za-z0-9]{1,32}$/.test(operator)) throw new Error('the operator name must be 1-32 letters and digits');
    const proxyDomain = options.proxyDomain ?? DEFAULT_PROXY_DOMAIN;
    if (!isProxyDomain(proxyDomain)) throw new Error(`the proxy domain ${PROXY_DOMAIN_RULE}`);
    const inFlight = new InFlight();
    const handler = createRequestHandler({
      inFlight,
      adminToken: options.adminToken,
      store,
      clock,
      bans,
      faults,
      loadSeeds,
      exits,
      router: new Router(apiRoutes),
      settings: { proxyDomain, tokenPrefix: options.tokenPrefix ?? 'pxa_' },
      log,
    });
    const https = createHttpsServer({ cert: tls.certPem, key: tls.keyPem, ...REQUEST_TIMEOUTS }, handler);
    answerClientErrors(https, clock);
    // A real server's shutdown: no new connection, what is being served finishes (for a while),
    // then the rest is cut, each with a line.
    cleanups.push(() => stopServer(https, () => inFlight.drain(log)));
    const httpsPort = await listen(https, options.port ?? 8443, host, 'https');
    const url = `https://${urlHost(host)}:${httpsPort}`;

    const http = createHttpServer(REQUEST_TIMEOUTS, (req, res) => {
      res.on('close', () => log(`${req.method ?? '-'} ${(req.url ?? '/').split('?')[0]} ${res.statusCode} (http redirect)`));
      sendText(res, 302, `use HTTPS: ${url}${req.url ?? '/'}`, { Location: `${url}${req.url ?? '/'}`, Date: httpDate(clock.now()) });
    });
    answerClientErrors(http, clock);
    cleanups.push(() => stopServer(http));
    const httpPort = await listen(http, options.httpPort ?? 8080, host, 'http');
    let proxies: Readonly<Record<string, string>> = {};
    if (proxyOptions !== undefined) {
      const allowAnyTarget = proxyOptions.allowAnyTarget ?? false;
      const where = proxyListenHost(host, allowAnyTarget);
      if (where.note !== undefined) log(where.note);
      const running = await startProxyServers(
        {
          store,
          clock,
          exits,
          settings: { operator, bytesPerGb, allowAnyTarget, maxConnections: proxyOptions.maxConnections ?? 256 },
          resolve: proxyOptions.resolve ?? systemResolver,
          log,
        },
        where.host,
        proxyOptions.firstPort ?? 0,
      );
      cleanups.push(() => running.close());
      proxies = running.addresses;
    }
    return {
      url,
      httpUrl: `http://${urlHost(host)}:${httpPort}`,
      caFile: tls.caFile,
      adminToken: options.adminToken,
      proxies,
      countryHeader: countryHeader(operator),
      exitIpHeader: exitIpHeader(operator),
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}

/** What Node's HTTP parser refuses, as Node answers it: error code → status line and why. */
const CLIENT_ERRORS: Readonly<Record<string, readonly [string, string]>> = {
  HPE_HEADER_OVERFLOW: ['431 Request Header Fields Too Large', 'request headers too large'],
  HPE_CHUNK_EXTENSIONS_OVERFLOW: ['413 Payload Too Large', 'chunk extensions too large'],
  ERR_HTTP_REQUEST_TIMEOUT: ['408 Request Timeout', 'request not received whole within 5 s'],
};

/**
 * Answers what Node's HTTP parser refuses (a malformed request, headers too large, a request not
 * whole in time) as Node would, but dated by the emulator clock, like every other answer, and with
 * a line saying why. Nothing is written once an answer on the connection has begun: that would
 * corrupt it, so the connection is only closed.
 */
function answerClientErrors(server: HttpServer | HttpsServer, clock: Clock): void {
  const answers = new WeakMap<Duplex, Set<ServerResponse>>();
  server.on('request', (req, res: ServerResponse) => {
    const open = answers.get(req.socket) ?? new Set<ServerResponse>();
    answers.set(req.socket, open.add(res));
    res.once('close', () => open.delete(res));
  });
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    const begun = [...(answers.get(socket) ?? [])].some((res) => res.headersSent);
    if (!socket.writable || begun) {
      socket.destroy();
      return;
    }
    const [status, why] = CLIENT_ERRORS[err.code ?? ''] ?? ['400 Bad Request', 'malformed HTTP request'];
    const body = `${why}\n`;
    socket.end(
      `HTTP/1.1 ${status}\r\nDate: ${httpDate(clock.now())}\r\nConnection: close\r\n` +
        `Content-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      () => socket.destroy(),
    );
  });
}

/** Where the self-signed key and certificate are kept next to a state file. */
export function tlsStorePath(statePath: string): string {
  return `${statePath}.tls.pem`;
}

/**
 * Every TCP connection each server accepted and that is still open, TLS handshakes under way
 * included: the HTTP layer knows a connection only once its handshake is done, so closing its
 * connections at shutdown could miss one (a client that opens a connection ahead of its first
 * request, say), and close() would then wait for that client to hang up.
 */
const openSockets = new WeakMap<HttpServer | HttpsServer, Set<Socket>>();

function listen(server: HttpServer | HttpsServer, port: number, host: string, which: 'https' | 'http'): Promise<number> {
  const sockets = new Set<Socket>();
  openSockets.set(server, sockets);
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  return new Promise((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException): void => {
      if (err.code === 'EADDRINUSE') reject(new PortInUseError(port, which));
      else reject(new Error(`cannot listen on ${host}:${port}: ${err.code ?? err.message}`));
    };
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

function stopServer(server: HttpServer | HttpsServer, drain?: () => Promise<void>): Promise<void> {
  if (!server.listening) return Promise.resolve();
  return new Promise((resolve) => {
    // Stops accepting, and closes the idle keep-alive connections.
    server.close(() => resolve());
    // Every connection still open (ones still being served, ones still in their TLS handshake)
    // would otherwise hold close() open.
    void (drain ?? (() => Promise.resolve()))().then(() => {
      for (const socket of openSockets.get(server) ?? []) socket.destroy();
    });
  });
}

/**
 * Where the proxies listen, and the line to log when that is not `host`. Their targets are this
 * machine's loopback services (unless any target is allowed): listening on the network, they
 * would hand those services to anyone who knows an account, so they stay on loopback, and go on
 * `host` itself only with `allowAnyTarget`. A wildcard `host` means loopback either way.
 */
export function proxyListenHost(host: string, allowAnyTarget: boolean): { host: string; note?: string } {
  const bare = urlHost(host).replace(/^\[|\]$/g, '');
  if (allowAnyTarget || bare.toLowerCase() === 'localhost' || isLoopback(bare)) return { host: bare };
  return {
    host: '127.0.0.1',
    note:
      `proxies: listening on 127.0.0.1, not on ${host}: they forward to this machine's loopback services only, ` +
      'which they would open to the network; --proxy-allow-any-target (proxies.allowAnyTarget) puts them on --host',
  };
}

/** The host part of a URL: wildcard addresses become loopback, IPv6 gets brackets. */
function urlHost(host: string): string {
  if (host === '0.0.0.0' || host === '') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return host.includes(':') ? `[${host}]` : host;
}
