// A unary-only gRPC server on node:http2: what go-plugin's client (grpc-go) needs from us, and
// nothing else. gRPC over HTTP/2 for unary calls is small: a POST to /package.Service/Method with
// `content-type: application/grpc`, one length-prefixed message each way, and the status in the
// trailers (https://github.com/grpc/grpc/blob/master/doc/PROTOCOL-HTTP2.md). grpc-js does the same
// with a general machinery (interceptors, channelz, streaming, compression) whose per-call cost
// was the largest part of a plan's provider time: bench/RESULTS.md has the measurements that chose
// this server, and test/protocol/server.test.ts checks it with grpc-js as the client.
import * as http2 from 'node:http2';

/** gRPC status codes used here. */
export const GrpcStatus = { OK: 0, UNKNOWN: 2, RESOURCE_EXHAUSTED: 8, UNIMPLEMENTED: 12, INTERNAL: 13, UNAVAILABLE: 14 } as const;

/** One unary method: how to read its request and write its response, and what answers it. */
export interface UnaryRoute {
  decode(message: Buffer): unknown;
  encode(response: unknown): Buffer;
  /** Resolves with the response; a rejection becomes INTERNAL (the caller logs it). */
  handle(request: unknown): Promise<unknown>;
}

/** TLS for AutoMTLS: our key and certificate, and the one client certificate we accept. */
export interface MutualTls {
  readonly keyPem: string;
  readonly certPem: string;
  readonly clientCertPem: string;
}

export interface UnaryServerOptions {
  /** Routes by HTTP/2 path, e.g. `/tfplugin6.Provider/ReadResource`. */
  readonly routes: ReadonlyMap<string, UnaryRoute>;
  /** Mutual TLS; without it the server speaks cleartext HTTP/2 (h2c with prior knowledge). */
  readonly tls?: MutualTls;
  /** Largest request message accepted, in bytes. */
  readonly maxMessageBytes: number;
  /** Called for a handler that rejected (a bug), with the method's path. */
  readonly onInternalError: (path: string, err: unknown) => void;
}

/** A listening server. */
export interface UnaryServer {
  readonly port: number;
  /** Stops accepting calls; calls in flight finish, then `done` runs. */
  close(done: () => void): void;
  /** Ends every connection now (calls in flight are cut off). */
  destroy(): void;
}

/** gRPC percent-encodes grpc-message: bytes outside printable ASCII, and `%` itself. */
export function encodeGrpcMessage(message: string): string {
  let out = '';
  for (const byte of Buffer.from(message, 'utf8')) {
    out += byte >= 0x20 && byte <= 0x7e && byte !== 0x25 ? String.fromCharCode(byte) : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** A response that carries only a status (no message): headers and trailers in one frame. */
function trailersOnly(stream: http2.ServerHttp2Stream, code: number, message: string): void {
  if (stream.destroyed || stream.headersSent) return;
  stream.respond(
    { ':status': 200, 'content-type': 'application/grpc', 'grpc-status': String(code), 'grpc-message': encodeGrpcMessage(message) },
    { endStream: true },
  );
}

/** Frames one message: compressed flag 0, 4-byte big-endian length, the bytes. */
function frame(payload: Buffer): Buffer {
  const out = Buffer.allocUnsafe(5 + payload.length);
  out[0] = 0;
  out.writeUInt32BE(payload.length, 1);
  payload.copy(out, 5);
  return out;
}

function onStream(opts: UnaryServerOptions, stream: http2.ServerHttp2Stream, headers: http2.IncomingHttpHeaders): void {
  const path = headers[':path'] ?? '';
  const route = headers[':method'] === 'POST' ? opts.routes.get(path) : undefined;
  if (!String(headers['content-type'] ?? '').startsWith('application/grpc')) {
    stream.respond({ ':status': 415 }, { endStream: true });
    return;
  }
  if (route === undefined) {
    trailersOnly(stream, GrpcStatus.UNIMPLEMENTED, `unknown method ${path}`);
    stream.resume();
    return;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  let refused = false;
  stream.on('data', (chunk: Buffer) => {
    if (refused) return;
    size += chunk.length;
    if (size > opts.maxMessageBytes + 5) {
      refused = true;
      trailersOnly(stream, GrpcStatus.RESOURCE_EXHAUSTED, `request larger than ${opts.maxMessageBytes} bytes`);
      return;
    }
    chunks.push(chunk);
  });
  stream.on('end', () => {
    if (refused) return;
    const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size);
    if (body.length < 5 || body.readUInt32BE(1) !== body.length - 5) {
      trailersOnly(stream, GrpcStatus.INTERNAL, 'expected exactly one length-prefixed request message');
      return;
    }
    if (body[0] !== 0) {
      trailersOnly(stream, GrpcStatus.UNIMPLEMENTED, 'compressed messages are not supported (no grpc-accept-encoding was offered)');
      return;
    }
    let request: unknown;
    try {
      request = route.decode(body.subarray(5));
    } catch (err) {
      trailersOnly(stream, GrpcStatus.INTERNAL, `cannot decode the request: ${err instanceof Error ? err.message : String(err)}`);
      return;
    }
    route.handle(request).then(
      (response) => {
        // A cancelled call still ran to the end (a write is never abandoned); only the answer is dropped.
        if (stream.destroyed || stream.closed) return;
        const payload = frame(route.encode(response));
        stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
        stream.once('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0' }));
        stream.end(payload);
      },
      (err: unknown) => {
        opts.onInternalError(path, err);
        trailersOnly(stream, GrpcStatus.INTERNAL, err instanceof Error ? err.message : String(err));
      },
    );
  });
  // A reset by the client (cancellation) ends the stream with an error event: nothing to answer.
  stream.on('error', () => undefined);
}

/** Listens on 127.0.0.1 (an ephemeral port) and resolves once it accepts connections. */
export function listenUnary(opts: UnaryServerOptions): Promise<UnaryServer> {
  const server = opts.tls
    ? http2.createSecureServer({
        key: opts.tls.keyPem,
        cert: opts.tls.certPem,
        ca: opts.tls.clientCertPem,
        requestCert: true,
        rejectUnauthorized: true,
        // gRPC clients (grpc-go 1.67+) require HTTP/2 negotiated with ALPN.
        ALPNProtocols: ['h2'],
        settings: { maxConcurrentStreams: 1000 },
      })
    : http2.createServer({ settings: { maxConcurrentStreams: 1000 } });
  const sessions = new Set<http2.ServerHttp2Session>();
  server.on('session', (session: http2.ServerHttp2Session) => {
    sessions.add(session);
    session.on('close', () => sessions.delete(session));
    session.on('error', () => undefined);
  });
  server.on('stream', (stream, headers) => onStream(opts, stream, headers));
  // A TLS failure (a client without the expected certificate) only ends that connection.
  server.on('tlsClientError', () => undefined);
  server.on('sessionError', () => undefined);
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      resolve({
        port,
        close(done) {
          server.close(() => done());
          // close() waits for sessions to end; each closes once its streams in flight are done.
          for (const s of sessions) s.close();
        },
        destroy() {
          for (const s of sessions) s.destroy();
          server.close();
        },
      });
    });
  });
}
