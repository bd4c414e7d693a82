// The two ways through an emulated proxy: absolute-form HTTP requests, forwarded with their
// body, and CONNECT tunnels. Usage counts payload bytes: for HTTP the request body sent to the
// target plus the response body returned to the client (headers are not counted); for a tunnel
// every byte relayed in either direction after the tunnel is established. An open tunnel, and an
// exchange that runs long, is admitted again as it runs (TunnelCheck), so that what would refuse a
// new request also ends it.
import { Agent, type IncomingHttpHeaders, type IncomingMessage, request as httpRequest, type ServerResponse } from 'node:http';
import { connect, type Socket } from 'node:net';
import { Transform } from 'node:stream';
import { countryHeader, exitIpHeader, type ProxyContext } from './context';
import { gate, type Passed } from './gate';
import { parseAuthority } from './target';
import { ExchangeWatch } from './tunnel-check';

/** Connecting to the target, and silence on an established exchange, end it after this. */
const UPSTREAM_TIMEOUT_MS = 30_000;

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade']);

const PROXY_AUTHENTICATE = ['Basic realm="proxyaccount emulator"', 'Bearer realm="proxyaccount emulator"'];

/** A keep-alive pool for the forwarded HTTP requests of one emulator's proxies (destroy it on close). */
export function createUpstreamAgent(): Agent {
  return new Agent({ keepAlive: true, maxSockets: 256, timeout: UPSTREAM_TIMEOUT_MS });
}

/** Serves an absolute-form request received by the proxy of `proxyHost`. */
export async function forwardHttp(ctx: ProxyContext, upstreamAgent: Agent, proxyHost: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const log = (status: number | string, note: string): void => ctx.log(`proxy ${proxyHost}: ${req.method ?? '-'} ${note} ${status}`);
  let url: URL;
  try {
    url = new URL(req.url ?? '');
  } catch {
    refuseHttp(res, 400, 'this is a proxy: send absolute-form requests (http://host/path) or CONNECT');
    log(400, '(not absolute-form)');
    return;
  }
  if (url.protocol !== 'http:') {
    refuseHttp(res, 400, 'only http:// targets are forwarded; use CONNECT for https');
    log(400, url.protocol);
    return;
  }
  const target = `${url.hostname}:${url.port || 80}`;
  const passed = await gate(ctx, proxyHost, req, url.hostname, Number(url.port || 80));
  if (!passed.ok) {
    refuseHttp(res, passed.status, passed.message);
    log(passed.status, target);
    return;
  }
  const { dest } = passed;
  // Only now may a client that waits for it send its body (servers.ts: checkContinue).
  if (/100-continue/i.test(req.headers.expect ?? '')) res.writeContinue();
  let sent = 0;
  let received = 0;
  let recorded = false;
  let ended = false;
  const as = `${target} as ${passed.who.account.username} (${passed.who.via})`;
  // An exchange that runs long (a streamed answer, a slow upload) is held to what admitted it as a
  // tunnel is; once it would be refused, both sides are closed and one line says why.
  const end = (why: string): void => {
    if (ended || recorded) return;
    ended = true;
    ctx.log(`proxy ${proxyHost}: ${req.method ?? '-'} ${as} closed: ${why}`);
    upstream.destroy();
    res.destroy();
  };
  const watch = new ExchangeWatch(ctx, passed, end);
  watch.start();
  const record = (): void => {
    if (recorded) return;
    recorded = true;
    watch.stop();
    watch.flush(true);
    log(res.headersSent ? res.statusCode : 'dropped', `${as} exit ${passed.exitIp} bytes ${sent + received}`);
  };
  const upstream = httpRequest({
    host: dest.address,
    port: dest.port,
    method: req.method,
    path: `${url.pathname}${url.search}`,
    // Host is the absolute URL's (RFC 9112, 3.2.2), whatever the client sent, or did not.
    headers: { ...forwardedHeaders(req.headers, passed, countryHeader(ctx.settings.operator).toLowerCase()), host: url.host },
    setHost: false,
    agent: upstreamAgent,
    timeout: UPSTREAM_TIMEOUT_MS,
  });
  upstream.on('timeout', () => upstream.destroy(new Error('target timed out')));
  upstream.on('error', (err) => {
    if (!res.headersSent) refuseHttp(res, /timed out/.test(err.message) ? 504 : 502, `target ${target}: ${err.message}`);
    else res.destroy();
    record();
  });
  upstream.on('response', (upRes) => {
    const headers: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(upRes.headers)) {
      if (value !== undefined && !HOP_BY_HOP.has(name)) headers[name] = value;
    }
    headers[exitIpHeader(ctx.settings.operator)] = passed.exitIp;
    res.writeHead(upRes.statusCode ?? 502, headers);
    upRes.on('data', (chunk: Buffer) => {
      received += chunk.length;
      watch.count(chunk.length);
    });
    upRes.pipe(res);
    upRes.on('error', () => res.destroy());
  });
  req.on('data', (chunk: Buffer) => {
    sent += chunk.length;
    watch.count(chunk.length);
  });
  req.pipe(upstream);
  // On finish, before the client can send its next request: a limit crossed now stops that one.
  res.on('finish', record);
  res.on('close', () => {
    if (!res.writableFinished) upstream.destroy();
    record();
  });
}

/** Serves a CONNECT request received by the proxy of `proxyHost`. */
export async function forwardConnect(ctx: ProxyContext, proxyHost: string, req: IncomingMessage, client: Socket, head: Buffer): Promise<void> {
  const authority = req.url ?? '';
  const log = (status: number | string, note: string): void => ctx.log(`proxy ${proxyHost}: CONNECT ${note} ${status}`);
  client.on('error', () => client.destroy());
  const parsed = parseAuthority(authority);
  if (!parsed) {
    refuseSocket(client, 400, 'CONNECT needs host:port');
    log(400, '(malformed)');
    return;
  }
  const target = `${parsed.host}:${parsed.port}`;
  const passed = await gate(ctx, proxyHost, req, parsed.host, parsed.port);
  if (!passed.ok) {
    refuseSocket(client, passed.status, passed.message);
    log(passed.status, target);
    return;
  }
  const { dest } = passed;
  const upstream = connect({ host: dest.address, port: dest.port });
  upstream.setTimeout(UPSTREAM_TIMEOUT_MS, () => upstream.destroy(new Error('target timed out')));
  let bytes = 0;
  let established = false;
  let ended = false;
  // What would refuse this CONNECT now ends the tunnel: one line says why.
  const end = (why: string): void => {
    if (ended) return;
    ended = true;
    ctx.log(`proxy ${proxyHost}: CONNECT ${target} as ${passed.who.account.username} (${passed.who.via}) closed: ${why}`);
    client.destroy();
    upstream.destroy();
    guard.destroy();
  };
  // A client that only listens sends no byte to check: the watch's timer covers it.
  const watch = new ExchangeWatch(ctx, passed, end);
  const { check } = watch;
  const count = (chunk: Buffer): void => {
    bytes += chunk.length;
    watch.count(chunk.length);
  };
  // The client's bytes wait for a re-admission when one is due, so none is relayed after what
  // admitted the tunnel is gone. A Transform keeps Node's order and backpressure.
  const guard = new Transform({
    transform(chunk: Buffer, _encoding, done): void {
      const pass = (): void => {
        count(chunk);
        done(null, chunk);
      };
      if (!check.due()) {
        pass();
        return;
      }
      void check.run().then((why) => {
        if (why === undefined) pass();
        else end(why); // The chunk is dropped and `done` never called: the stream is destroyed.
      });
    },
  });
  upstream.once('connect', () => {
    established = true;
    client.write(`HTTP/1.1 200 Connection Established\r\n${exitIpHeader(ctx.settings.operator)}: ${passed.exitIp}\r\n\r\n`);
    if (head.length > 0) guard.write(head);
    upstream.on('data', count);
    client.pipe(guard).pipe(upstream);
    upstream.pipe(client);
    client.setTimeout(UPSTREAM_TIMEOUT_MS, () => client.destroy());
    watch.start();
  });
  upstream.on('error', (err) => {
    if (!established) {
      refuseSocket(client, /timed out/.test(err.message) ? 504 : 502, `target ${target}: ${err.message}`);
      log(502, target);
    } else client.destroy();
  });
  let closed = 0;
  const onClose = (): void => {
    closed += 1;
    watch.stop();
    if (closed === 1) {
      // One side is gone: the other has nothing more to relay.
      client.destroy();
      upstream.destroy();
      guard.destroy();
      return;
    }
    if (!established) return;
    watch.flush(true);
    log(200, `${target} as ${passed.who.account.username} (${passed.who.via}) exit ${passed.exitIp} bytes ${bytes}`);
  };
  client.once('close', onClose);
  upstream.once('close', onClose);
}

/** The request's headers for the target: no hop-by-hop header, no credential meant for the proxy. */
function forwardedHeaders(headers: IncomingHttpHeaders, passed: Passed, country: string): IncomingHttpHeaders {
  const out: IncomingHttpHeaders = {};
  const connectionListed = new Set(
    String(headers.connection ?? '')
      .split(',')
      .map((h) => h.trim().toLowerCase()),
  );
  for (const [name, value] of Object.entries(headers)) {
    if (HOP_BY_HOP.has(name) || connectionListed.has(name)) continue;
    if (name === passed.credentialHeader) continue;
    if (name === country) continue;
    out[name] = value;
  }
  return out;
}

function refuseHttp(res: ServerResponse, status: number, message: string): void {
  const headers: Record<string, string | string[]> = { 'Content-Type': 'text/plain; charset=utf-8', Connection: 'close' };
  if (status === 407) headers['Proxy-Authenticate'] = PROXY_AUTHENTICATE;
  res.writeHead(status, headers);
  res.end(`${message}\n`);
}

function refuseSocket(socket: Socket, status: number, message: string): void {
  const body = `${message}\n`;
  const lines = [
    `HTTP/1.1 ${status} ${reason(status)}`,
    'Content-Type: text/plain; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Connection: close',
  ];
  if (status === 407) for (const value of PROXY_AUTHENTICATE) lines.push(`Proxy-Authenticate: ${value}`);
  // Closed once written: a client that keeps its side open must not hold a connection slot.
  socket.end(`${lines.join('\r\n')}\r\n\r\n${body}`, () => socket.destroy());
}

function reason(status: number): string {
  const reasons: Record<number, string> = {
    400: 'Bad Request',
    402: 'Payment Required',
    403: 'Forbidden',
    407: 'Proxy Authentication Required',
    502: 'Bad Gateway',
    504: 'Gateway Timeout',
    509: 'Bandwidth Limit Exceeded',
  };
  return reasons[status] ?? 'Error';
}
