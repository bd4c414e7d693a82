// A unary-only gRPC server: what go-plugin's client (grpc-go) needs from us, and nothing else.
// gRPC over HTTP/2 for unary calls is small: a POST to /package.Service/Method with
// `content-type: application/grpc`, one length-prefixed message each way, and the status in the
// trailers (https://github.com/grpc/grpc/blob/master/doc/PROTOCOL-HTTP2.md). It runs on our own
// HTTP/2 connection (h2-connection.ts) over node:tls: grpc-js, and later node:http2 alone, cost
// most of a plan's provider time per call (bench/RESULTS.md has the measurements that chose this).
// test/protocol/server.test.ts checks it with grpc-js as the client, h2-server.test.ts with
// node:http2's client, and the end-to-end suites with Terraform's grpc-go.
import * as net from 'node:net';
import * as tls from 'node:tls';
import { clientCertificateProblem, pinnedCertificates } from './client-pin';
import { H2Connection, type ServerStream, type StreamHandler } from './h2-connection';
import type { HeaderField } from './h2-hpack';

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
  /** Called when a TLS client is refused for its certificate, with the reason. */
  readonly onRefusedClient?: (reason: string) => void;
  /** Listen on this Unix domain socket instead of an ephemeral port on 127.0.0.1. */
  readonly socketPath?: string;
}

/** A listening server. */
export interface UnaryServer {
  /** The ephemeral port on 127.0.0.1; 0 when listening on `socketPath`. */
  readonly port: number;
  /** As go-plugin's handshake line names it: `tcp` and `127.0.0.1:PORT`, or `unix` and the socket's path. */
  readonly network: 'tcp' | 'unix';
  readonly address: string;
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

// Frozen, so that their encoding is made once (h2-hpack.ts).
const RESPONSE_HEADERS: readonly HeaderField[] = Object.freeze([[':status', '200'] as const, ['content-type', 'application/grpc'] as const]);
const OK_TRAILERS: readonly HeaderField[] = Object.freeze([['grpc-status', '0'] as const]);

/** A response that carries only a status (no message): headers and trailers in one block. */
function trailersOnly(stream: ServerStream, code: number, message: string): void {
  stream.answerHeadersOnly([...RESPONSE_HEADERS, ['grpc-status', String(code)], ['grpc-message', encodeGrpcMessage(message)]]);
}

/** Frames one message: compressed flag 0, 4-byte big-endian length, the bytes. */
function frame(payload: Buffer): Buffer {
  const out = Buffer.allocUnsafe(5 + payload.length);
  const n = payload.length;
  out[0] = 0;
  out[1] = n >>> 24;
  out[2] = (n >>> 16) & 0xff;
  out[3] = (n >>> 8) & 0xff;
  out[4] = n & 0xff;
  out.set(payload, 5);
  return out;
}

/** What a stream keeps of its call between its headers and its body. */
interface Call {
  readonly path: string;
  readonly route: UnaryRoute;
}

/**
 * Runs one call to its answer. A cancelled call still runs to the end (a write is never
 * abandoned); only its answer is dropped. A response that cannot be encoded is answered like a
 * handler that failed, rather than leaving the call without an answer.
 */
async function run(opts: UnaryServerOptions, stream: ServerStream<Call>, call: Call, request: unknown): Promise<void> {
  let message: Buffer;
  try {
    const response = await call.route.handle(request);
    if (stream.cancelled) return;
    message = frame(call.route.encode(response));
  } catch (err) {
    opts.onInternalError(call.path, err);
    trailersOnly(stream, GrpcStatus.INTERNAL, err instanceof Error ? err.message : String(err));
    return;
  }
  stream.answer(RESPONSE_HEADERS, message, OK_TRAILERS);
}

/** The gRPC side of each stream: route by path at the headers, answer once the body is whole. */
function grpcHandler(opts: UnaryServerOptions): StreamHandler<Call> {
  return {
    headers(stream, fields) {
      let method = '';
      let path = '';
      let contentType = '';
      for (const [name, value] of fields) {
        if (name === ':method') method = value;
        else if (name === ':path') path = value;
        else if (name === 'content-type') contentType = value;
      }
      if (!contentType.startsWith('application/grpc')) {
        stream.answerHeadersOnly([[':status', '415']]);
        return;
      }
      const route = method === 'POST' ? opts.routes.get(path) : undefined;
      if (route === undefined) {
        trailersOnly(stream, GrpcStatus.UNIMPLEMENTED, `unknown method ${path}`);
        return;
      }
      stream.context = { path, route };
    },
    tooLarge(stream) {
      trailersOnly(stream, GrpcStatus.RESOURCE_EXHAUSTED, `request larger than ${opts.maxMessageBytes} bytes`);
    },
    body(stream, body) {
      const call = stream.context;
      if (call === undefined) return;
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
        request = call.route.decode(body.subarray(5));
      } catch (err) {
        trailersOnly(stream, GrpcStatus.INTERNAL, `cannot decode the request: ${err instanceof Error ? err.message : String(err)}`);
        return;
      }
      void run(opts, stream, call, request);
    },
  };
}

/** Listens on `socketPath`, or on 127.0.0.1 (an ephemeral port), and resolves once it accepts connections. */
export function listenUnary(opts: UnaryServerOptions): Promise<UnaryServer> {
  const handler = grpcHandler(opts);
  const connections = new Set<H2Connection<Call>>();
  let closing = false;
  // Checked before the connection reads a byte (client-pin.ts says why not with a CA).
  const pins = opts.tls === undefined ? undefined : pinnedCertificates(opts.tls.clientCertPem);
  const onSocket = (socket: net.Socket): void => {
    if (closing) {
      socket.destroy();
      return;
    }
    if (pins !== undefined) {
      const problem = clientCertificateProblem((socket as tls.TLSSocket).getPeerX509Certificate(), pins);
      if (problem !== undefined) {
        opts.onRefusedClient?.(problem);
        socket.destroy();
        return;
      }
    }
    const connection: H2Connection<Call> = new H2Connection<Call>(socket, {
      handler,
      maxBodyBytes: opts.maxMessageBytes + 5,
      onClose: () => connections.delete(connection),
    });
    connections.add(connection);
  };
  const server = opts.tls
    ? tls.createServer(
        {
          key: opts.tls.keyPem,
          cert: opts.tls.certPem,
          // No CA at all (an empty list, so Node builds no root store): the client's certificate is
          // asked for, then compared with the pinned ones in onSocket.
          ca: [],
          requestCert: true,
          rejectUnauthorized: false,
          // gRPC clients (grpc-go 1.67+) require HTTP/2 negotiated with ALPN.
          ALPNProtocols: ['h2'],
        },
        onSocket,
      )
    : net.createServer(onSocket);
  // A TLS failure (a client without the expected certificate) only ends that connection.
  server.on('tlsClientError', () => undefined);
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    const onListening = (): void => {
      server.off('error', reject);
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      resolve({
        port,
        ...(opts.socketPath === undefined ? { network: 'tcp', address: `127.0.0.1:${port}` } : { network: 'unix', address: opts.socketPath }),
        close(done) {
          closing = true;
          // close() waits for the connections to end; each ends once its calls in flight are answered.
          server.close(() => done());
          for (const c of connections) c.closeGracefully();
        },
        destroy() {
          closing = true;
          for (const c of connections) c.destroy();
          server.close();
        },
      });
    };
    if (opts.socketPath === undefined) server.listen(0, '127.0.0.1', onListening);
    else server.listen(opts.socketPath, onListening);
  });
}
