// Serves every proxy host of the catalogue as an HTTP forward proxy on its own loopback port,
// bounded: connections per proxy, header size, time to send the headers.
import { lookup } from 'node:dns/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { PROXY_CATALOGUE } from '../catalogue';
import { PortInUseError } from '../port-in-use';
import type { HostResolver } from './admission';
import type { ProxyContext } from './context';
import { createUpstreamAgent, forwardConnect, forwardHttp } from './forward';

/** Bytes of request headers accepted at most (Node answers 431 beyond). */
const MAX_HEADER_BYTES = 16 * 1024;

/** The running proxies. */
export interface ProxyServers {
  /** Catalogue host → `address:port` it listens on. */
  readonly addresses: Readonly<Record<string, string>>;
  close(): Promise<void>;
}

/** An authorized hostname that does not resolve within this long authorizes nobody. */
const RESOLVE_TIMEOUT_MS = 2_000;

/** The default resolver: every address the system resolver gives, within RESOLVE_TIMEOUT_MS. */
export const systemResolver: HostResolver = async (hostname) => {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${hostname} did not resolve in time`)), RESOLVE_TIMEOUT_MS);
  });
  try {
    return (await Promise.race([lookup(hostname, { all: true }), timeout])).map((a) => a.address);
  } finally {
    clearTimeout(timer);
  }
};

/**
 * Starts one proxy per catalogue host on `host`: on `firstPort + i` for the i-th host of the
 * catalogue, or on free ports when `firstPort` is 0.
 */
export async function startProxyServers(ctx: ProxyContext, host: string, firstPort: number): Promise<ProxyServers> {
  const servers: Server[] = [];
  const addresses: Record<string, string> = {};
  // Tunnels leave the HTTP server's bookkeeping once established: closing must end them itself.
  const tunnels = new Set<Socket>();
  const upstreamAgent = createUpstreamAgent();
  const close = async (): Promise<void> => {
    for (const socket of tunnels) socket.destroy();
    await Promise.all(servers.splice(0).map(stop));
    upstreamAgent.destroy();
  };
  try {
    for (const [i, proxy] of PROXY_CATALOGUE.entries()) {
      // No limit on a whole request: an upload may take long (one that stalls still ends after 30 s
      // without a byte, at the target connection).
      const server = createServer({ maxHeaderSize: MAX_HEADER_BYTES, headersTimeout: 10_000, requestTimeout: 0, keepAliveTimeout: 5_000 });
      server.maxConnections = ctx.settings.maxConnections;
      const failed = (err: unknown): void => ctx.log(`proxy ${proxy.host}: internal error: ${err instanceof Error ? err.message : String(err)}`);
      const onRequest = (req: IncomingMessage, res: ServerResponse): void => {
        forwardHttp(ctx, upstreamAgent, proxy.host, req, res).catch((err: unknown) => {
          failed(err);
          if (!res.headersSent) res.writeHead(500).end();
          else res.destroy();
        });
      };
      server.on('request', onRequest);
      // `Expect: 100-continue`: Node would answer 100 before the request is admitted, and the
      // client would upload a body about to be refused; forwardHttp sends it once admitted.
      server.on('checkContinue', onRequest);
      server.on('connect', (req, duplex, head) => {
        const socket = duplex as Socket;
        tunnels.add(socket);
        socket.once('close', () => tunnels.delete(socket));
        forwardConnect(ctx, proxy.host, req, socket, head).catch((err: unknown) => {
          failed(err);
          socket.destroy();
        });
      });
      server.on('clientError', (err: NodeJS.ErrnoException, socket) => {
        const status = err.code === 'HPE_HEADER_OVERFLOW' ? '431 Request Header Fields Too Large' : '400 Bad Request';
        if (socket.writable) socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\n\r\n`, () => socket.destroy());
        else socket.destroy();
      });
      servers.push(server);
      // The address really bound (`localhost` names one of several).
      const bound = await listen(server, firstPort === 0 ? 0 : firstPort + i, host, proxy.host);
      addresses[proxy.host] = `${bound.family === 'IPv6' ? `[${bound.address}]` : bound.address}:${bound.port}`;
    }
  } catch (err) {
    await close();
    throw err;
  }
  return { addresses, close };
}

function listen(server: Server, port: number, host: string, proxyHost: string): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException): void => {
      if (err.code === 'EADDRINUSE' && port !== 0) reject(new PortInUseError(port, 'proxy', proxyHost));
      else reject(new Error(`proxy ${proxyHost} cannot listen on ${host}:${port}: ${err.code ?? err.message}`));
    };
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      resolve(server.address() as AddressInfo);
    });
  });
}

function stop(server: Server): Promise<void> {
  if (!server.listening) return Promise.resolve();
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
