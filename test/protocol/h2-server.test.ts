// The unary gRPC server on node:http2 at the edges a well-behaved client does not reach: raw
// HTTP/2 requests for what grpc-js (server.test.ts) and terraform (the e2e suite) never send.
import * as http2 from 'node:http2';
import { encodeGrpcMessage, GrpcStatus, listenUnary, type UnaryRoute, type UnaryServer } from '../../src/protocol/h2-server';

interface Answer {
  status: number | undefined;
  headers: http2.IncomingHttpHeaders;
  trailers: http2.IncomingHttpHeaders;
  body: Buffer;
}

function frame(payload: Buffer, compressed = 0): Buffer {
  const out = Buffer.alloc(5 + payload.length);
  out[0] = compressed;
  out.writeUInt32BE(payload.length, 1);
  payload.copy(out, 5);
  return out;
}

let server: UnaryServer;
let client: http2.ClientHttp2Session;
const handled: string[] = [];
let release: (() => void) | undefined;

const echo: UnaryRoute = {
  decode: (b) => b.toString('utf8'),
  encode: (v) => {
    if (v === 'unencodable') throw new Error('cannot encode it');
    return Buffer.from(String(v).toUpperCase());
  },
  handle: async (req) => {
    handled.push(String(req));
    if (req === 'slow') await new Promise<void>((r) => (release = r));
    if (req === 'bug') throw new Error('broken: 100% ünicode');
    return req;
  },
};
const internalErrors: string[] = [];

beforeEach(async () => {
  handled.length = 0;
  internalErrors.length = 0;
  server = await listenUnary({
    routes: new Map([['/test.Echo/Say', echo]]),
    maxMessageBytes: 64,
    onInternalError: (path) => internalErrors.push(path),
  });
  client = http2.connect(`http://127.0.0.1:${server.port}`);
});

afterEach(() => {
  client.destroy();
  server.destroy();
});

function call(path: string, body: Buffer, headers: http2.OutgoingHttpHeaders = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = client.request({ ':method': 'POST', ':path': path, 'content-type': 'application/grpc', te: 'trailers', ...headers });
    const chunks: Buffer[] = [];
    // The 'response' event's headers carry `:status` as a number (IncomingHttpStatusHeader).
    let responseHeaders: http2.IncomingHttpHeaders & http2.IncomingHttpStatusHeader = {};
    let trailers: http2.IncomingHttpHeaders = {};
    req.on('response', (h) => (responseHeaders = h));
    req.on('trailers', (t) => (trailers = t));
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve({ status: responseHeaders[':status'], headers: responseHeaders, trailers, body: Buffer.concat(chunks) }));
    req.on('error', reject);
    req.end(body);
  });
}

describe('the node:http2 unary gRPC server', () => {
  it('answers one framed message with status 0 in the trailers', async () => {
    const res = await call('/test.Echo/Say', frame(Buffer.from('hello')));
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/grpc');
    expect(res.body).toEqual(frame(Buffer.from('HELLO')));
    expect(res.trailers['grpc-status']).toBe('0');
  });

  it('answers an unknown method with UNIMPLEMENTED, and a handler that throws with INTERNAL, percent-encoded', async () => {
    const unknown = await call('/test.Echo/Shout', frame(Buffer.from('x')));
    expect(unknown.headers['grpc-status']).toBe(String(GrpcStatus.UNIMPLEMENTED));
    expect(unknown.headers['grpc-message']).toBe('unknown method /test.Echo/Shout');

    const bug = await call('/test.Echo/Say', frame(Buffer.from('bug')));
    expect(bug.headers['grpc-status']).toBe(String(GrpcStatus.INTERNAL));
    expect(bug.headers['grpc-message']).toBe('broken: 100%25 %C3%BCnicode');
    expect(decodeURIComponent(String(bug.headers['grpc-message']))).toBe('broken: 100% ünicode');
    expect(internalErrors).toEqual(['/test.Echo/Say']);
  });

  it('answers a response it cannot encode with INTERNAL, rather than leaving the call unanswered', async () => {
    const res = await call('/test.Echo/Say', frame(Buffer.from('unencodable')));
    expect(res.headers['grpc-status']).toBe(String(GrpcStatus.INTERNAL));
    expect(res.headers['grpc-message']).toBe('cannot encode it');
    expect(internalErrors).toEqual(['/test.Echo/Say']);
    expect((await call('/test.Echo/Say', frame(Buffer.from('next')))).trailers['grpc-status']).toBe('0');
  });

  it('refuses what it does not speak: other content types, compression, a bad frame, an oversized message', async () => {
    expect((await call('/test.Echo/Say', frame(Buffer.from('x')), { 'content-type': 'application/json' })).status).toBe(415);
    const compressed = await call('/test.Echo/Say', frame(Buffer.from('x'), 1));
    expect(compressed.headers['grpc-status']).toBe(String(GrpcStatus.UNIMPLEMENTED));
    const truncated = await call('/test.Echo/Say', frame(Buffer.from('hello')).subarray(0, 7));
    expect(truncated.headers['grpc-status']).toBe(String(GrpcStatus.INTERNAL));
    const large = await call('/test.Echo/Say', frame(Buffer.alloc(100, 0x61)));
    expect(large.headers['grpc-status']).toBe(String(GrpcStatus.RESOURCE_EXHAUSTED));
    expect(handled).toEqual([]);
  });

  it('runs a call the client cancelled to its end (a write is never abandoned)', async () => {
    const req = client.request({ ':method': 'POST', ':path': '/test.Echo/Say', 'content-type': 'application/grpc' });
    req.on('error', () => undefined);
    req.end(frame(Buffer.from('slow')));
    while (release === undefined) await new Promise((r) => setTimeout(r, 5));
    req.close(http2.constants.NGHTTP2_CANCEL);
    await new Promise((r) => setTimeout(r, 20));
    release();
    release = undefined;
    await new Promise((r) => setTimeout(r, 20));
    expect(handled).toEqual(['slow']);
    // The server is still serving.
    expect((await call('/test.Echo/Say', frame(Buffer.from('next')))).trailers['grpc-status']).toBe('0');
  });

  it('close() lets a call in flight answer before it reports done', async () => {
    const pending = call('/test.Echo/Say', frame(Buffer.from('slow')));
    while (release === undefined) await new Promise((r) => setTimeout(r, 5));
    let closed = false;
    server.close(() => (closed = true));
    await new Promise((r) => setTimeout(r, 20));
    expect(closed).toBe(false);
    release();
    release = undefined;
    const res = await pending;
    expect(res.trailers['grpc-status']).toBe('0');
    expect(res.body).toEqual(frame(Buffer.from('SLOW')));
    for (let i = 0; i < 100 && !closed; i++) await new Promise((r) => setTimeout(r, 10));
    expect(closed).toBe(true);
  });
});

describe('encodeGrpcMessage', () => {
  it('keeps printable ASCII and percent-encodes the rest, % included', () => {
    expect(encodeGrpcMessage('plain text: ok')).toBe('plain text: ok');
    expect(encodeGrpcMessage('50% done\nnext')).toBe('50%25 done%0Anext');
  });
});
