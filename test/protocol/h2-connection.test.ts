// Our HTTP/2 layer below gRPC: HPACK and its Huffman code against the examples of RFC 7541, and
// the connection's framing and flow control against node:http2's client (nghttp2), pushed where
// grpc-js and Terraform's grpc-go rarely go: tiny windows, bodies over every window, headers split
// over CONTINUATION frames, many calls at once, and bytes that are not HTTP/2.
import * as http2 from 'node:http2';
import * as net from 'node:net';
import { HpackDecoder, HpackError, encodeHeaders } from '../../src/protocol/h2-hpack';
import { decodeHuffman, HuffmanError, huffmanCodes } from '../../src/protocol/h2-huffman';
import { listenUnary, type UnaryServer } from '../../src/protocol/h2-server';

const hex = (s: string): Buffer => Buffer.from(s.replace(/\s+/g, ''), 'hex');

/** Huffman-encodes latin1 text with the table under test (the encoder the tests need). */
function huffmanEncode(text: string, codes = huffmanCodes()): Buffer {
  let bits = '';
  for (const ch of Buffer.from(text, 'latin1')) {
    const [code, length] = codes[ch]!;
    bits += code.toString(2).padStart(length, '0');
  }
  bits += '1'.repeat((8 - (bits.length % 8)) % 8);
  const out = Buffer.alloc(bits.length / 8);
  for (let i = 0; i < out.length; i++) out[i] = Number.parseInt(bits.slice(i * 8, i * 8 + 8), 2);
  return out;
}

describe('HPACK Huffman code', () => {
  it('is a complete prefix code of 257 symbols (Kraft sum exactly 1), EOS being 30 ones', () => {
    const codes = huffmanCodes();
    expect(codes).toHaveLength(257);
    expect(codes.reduce((sum, [, length]) => sum + 2 ** -length, 0)).toBe(1);
    expect(codes[256]).toEqual([0x3fffffff, 30]);
    // Two symbols from the RFC's table: '0' is 00000, 'a' is 00011.
    expect(codes[0x30]).toEqual([0b00000, 5]);
    expect(codes[0x61]).toEqual([0b00011, 5]);
  });

  it('decodes every octet value back, and random text', () => {
    const all = Buffer.from(Array.from({ length: 256 }, (_, i) => i)).toString('latin1');
    expect(decodeHuffman(huffmanEncode(all), 0, huffmanEncode(all).length)).toBe(all);
    let seed = 7;
    for (let n = 0; n < 200; n++) {
      let text = '';
      for (let i = 0; i < n % 40; i++) {
        seed = (seed * 1103515245 + 12345) & 0x7fffffff;
        text += String.fromCharCode(seed % 256);
      }
      const encoded = huffmanEncode(text);
      expect(decodeHuffman(encoded, 0, encoded.length)).toBe(text);
    }
  });

  it('refuses padding that is not ones, padding of 8 bits or more, and EOS inside a string', () => {
    // 'a' is 00011: padded with zeros instead of ones.
    expect(() => decodeHuffman(Buffer.from([0b00011000]), 0, 1)).toThrow(HuffmanError);
    // 'a' then a whole octet of ones.
    expect(() => decodeHuffman(Buffer.from([0b00011111, 0xff]), 0, 2)).toThrow(HuffmanError);
    expect(() => decodeHuffman(Buffer.from([0xff, 0xff, 0xff, 0xfc]), 0, 4)).toThrow(HuffmanError);
  });
});

describe('HPACK decoder', () => {
  it('decodes the request examples of RFC 7541 C.3 (literals) and C.4 (Huffman), sharing one dynamic table per connection', () => {
    const plain = new HpackDecoder(4096, 65536);
    expect(plain.decode(hex('8286 8441 0f77 7777 2e65 7861 6d70 6c65 2e63 6f6d'))).toEqual([
      [':method', 'GET'],
      [':scheme', 'http'],
      [':path', '/'],
      [':authority', 'www.example.com'],
    ]);
    expect(plain.decode(hex('8286 84be 5808 6e6f 2d63 6163 6865'))).toEqual([
      [':method', 'GET'],
      [':scheme', 'http'],
      [':path', '/'],
      [':authority', 'www.example.com'],
      ['cache-control', 'no-cache'],
    ]);
    const huffman = new HpackDecoder(4096, 65536);
    huffman.decode(hex('8286 8441 8cf1 e3c2 e5f2 3a6b a0ab 90f4 ff'));
    huffman.decode(hex('8286 84be 5886 a8eb 1064 9cbf'));
    expect(huffman.decode(hex('8287 85bf 4088 25a8 49e9 5ba9 7d7f 8925 a849 e95b b8e8 b4bf'))).toEqual([
      [':method', 'GET'],
      [':scheme', 'https'],
      [':path', '/index.html'],
      [':authority', 'www.example.com'],
      ['custom-key', 'custom-value'],
    ]);
  });

  it('evicts on a table size update, refuses one above what we announced or after a field, and an index beyond the table', () => {
    const d = new HpackDecoder(4096, 65536);
    d.decode(hex('4088 25a8 49e9 5ba9 7d7f 8925 a849 e95b b8e8 b4bf'));
    expect(d.decode(hex('be'))).toEqual([['custom-key', 'custom-value']]);
    // Size update to 0 empties the table: index 62 is gone.
    expect(() => d.decode(hex('20 be'))).toThrow(HpackError);
    expect(() => new HpackDecoder(4096, 65536).decode(hex('3fe2 1f'))).toThrow(/above the 4096 announced/);
    expect(() => new HpackDecoder(4096, 65536).decode(hex('82 20'))).toThrow(/after a header field/);
    expect(() => new HpackDecoder(4096, 65536).decode(hex('80'))).toThrow(HpackError);
    expect(() => new HpackDecoder(4096, 65536).decode(hex('ff ff ff ff ff 0f'))).toThrow(/too large/);
  });

  it('refuses a header list larger than its limit', () => {
    const block = encodeHeaders([['x-big', 'v'.repeat(200)]]);
    expect(() => new HpackDecoder(4096, 100).decode(block)).toThrow(/header list larger/);
  });

  it('reads back what our encoder writes, the table size update included', () => {
    const fields: Array<[string, string]> = [
      [':status', '200'],
      [':status', '415'],
      ['content-type', 'application/grpc'],
      ['grpc-status', '13'],
      ['grpc-message', 'x'.repeat(300)],
    ];
    expect(new HpackDecoder(4096, 65536).decode(encodeHeaders(fields, true))).toEqual(fields);
  });

  it('encodes a frozen list once, and still sets the table size when asked to', () => {
    const fixed = Object.freeze([['grpc-status', '0'] as const]);
    const first = encodeHeaders(fixed);
    expect(encodeHeaders(fixed)).toBe(first);
    const withUpdate = encodeHeaders(fixed, true);
    expect(withUpdate[0]).toBe(0x20);
    expect(withUpdate.subarray(1)).toEqual(first);
    // A list that is not frozen may change between calls: never served from the cache.
    const open: Array<[string, string]> = [['grpc-status', '0']];
    const a = encodeHeaders(open);
    open[0] = ['grpc-status', '13'];
    expect(new HpackDecoder(4096, 65536).decode(encodeHeaders(open))).toEqual([['grpc-status', '13']]);
    expect(a).not.toEqual(encodeHeaders(open));
  });
});

describe('the HTTP/2 connection under node:http2 as the client', () => {
  let server: UnaryServer;
  let client: http2.ClientHttp2Session | undefined;
  const handled: number[] = [];

  beforeEach(async () => {
    handled.length = 0;
    server = await listenUnary({
      routes: new Map([
        [
          '/test.Blob/Echo',
          {
            decode: (b: Buffer) => Buffer.from(b),
            // Answers with the request repeated `factor` times (its first octet).
            encode: (v: unknown) => Buffer.concat(Array.from({ length: (v as Buffer)[0] ?? 1 }, () => v as Buffer)),
            handle: async (req: unknown) => {
              handled.push((req as Buffer).length);
              return req;
            },
          },
        ],
      ]),
      maxMessageBytes: 32 * 1024 * 1024,
      onInternalError: () => undefined,
    });
  });

  afterEach(() => {
    client?.destroy();
    client = undefined;
    server.destroy();
  });

  function connect(settings: http2.Settings = {}): http2.ClientHttp2Session {
    client = http2.connect(`http://127.0.0.1:${server.port}`, { settings, maxSessionMemory: 100 });
    client.on('error', () => undefined);
    return client;
  }

  function call(
    session: http2.ClientHttp2Session,
    message: Buffer,
    headers: http2.OutgoingHttpHeaders = {},
  ): Promise<{ trailers: http2.IncomingHttpHeaders; body: Buffer }> {
    return new Promise((resolve, reject) => {
      const req = session.request({ ':method': 'POST', ':path': '/test.Blob/Echo', 'content-type': 'application/grpc', ...headers });
      const framed = Buffer.alloc(5 + message.length);
      framed.writeUInt32BE(message.length, 1);
      message.copy(framed, 5);
      const chunks: Buffer[] = [];
      let trailers: http2.IncomingHttpHeaders = {};
      req.on('trailers', (t) => (trailers = t));
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => resolve({ trailers, body: Buffer.concat(chunks).subarray(5) }));
      req.on('error', reject);
      req.end(framed);
    });
  }

  function blob(size: number, factor: number): Buffer {
    const b = Buffer.alloc(size);
    for (let i = 0; i < size; i++) b[i] = (i * 31 + 7) & 0xff;
    b[0] = factor;
    return b;
  }

  it('sends an answer larger than the client windows as they open, in frames the client accepts', async () => {
    const session = connect({ initialWindowSize: 1000, maxFrameSize: 16384 });
    const message = blob(70_000, 3);
    const res = await call(session, message);
    expect(res.trailers['grpc-status']).toBe('0');
    expect(res.body.equals(Buffer.concat([message, message, message]))).toBe(true);
  });

  it('receives a request larger than its stream and connection windows by opening them', async () => {
    const session = connect();
    const message = blob(9 * 1024 * 1024, 1);
    const res = await call(session, message);
    expect(res.trailers['grpc-status']).toBe('0');
    expect(res.body.equals(message)).toBe(true);
    expect(handled).toEqual([message.length]);
  });

  it('keeps 200 calls in flight at once apart', async () => {
    const session = connect();
    const messages = Array.from({ length: 200 }, (_, i) => blob(100 + i * 37, 1 + (i % 3)));
    const answers = await Promise.all(messages.map((m) => call(session, m)));
    answers.forEach((res, i) => {
      const m = messages[i]!;
      expect(res.body.equals(Buffer.concat(Array.from({ length: m[0]! }, () => m)))).toBe(true);
    });
  });

  it('reads request headers split over CONTINUATION frames, and answers a PING', async () => {
    const session = connect();
    const res = await call(session, blob(10, 1), { 'x-padding': 'p'.repeat(40_000) });
    expect(res.trailers['grpc-status']).toBe('0');
    const rtt = await new Promise<number>((resolve, reject) => session.ping((err, ms) => (err ? reject(err) : resolve(ms))));
    expect(rtt).toBeGreaterThanOrEqual(0);
  });

  it('ends a connection that does not start with the HTTP/2 preface, and one that breaks the framing with a GOAWAY', async () => {
    const notHttp2 = await rawExchange(server.port, Buffer.from('GET / HTTP/1.1\r\nhost: x\r\n\r\n'));
    expect(notHttp2.ended).toBe(true);
    expect(frameTypes(notHttp2.data)).toContain(0x7);
    // A valid preface and SETTINGS, then DATA on stream 0: a PROTOCOL_ERROR for the connection.
    const preface = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1');
    const settings = Buffer.from([0, 0, 0, 4, 0, 0, 0, 0, 0]);
    const badData = Buffer.from([0, 0, 1, 0, 0, 0, 0, 0, 0, 0x61]);
    const broken = await rawExchange(server.port, Buffer.concat([preface, settings, badData]));
    expect(broken.ended).toBe(true);
    const goAway = findFrame(broken.data, 0x7);
    expect(goAway?.readUInt32BE(4)).toBe(0x1);
  });
});

/** Writes bytes on a plain connection and collects what comes back until the server ends it. */
function rawExchange(port: number, bytes: Buffer): Promise<{ data: Buffer; ended: boolean }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(bytes));
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ data: Buffer.concat(chunks), ended: false });
    }, 3000);
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', reject);
    socket.on('end', () => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ data: Buffer.concat(chunks), ended: true });
    });
  });
}

function* frames(data: Buffer): Generator<{ type: number; payload: Buffer }> {
  let pos = 0;
  while (data.length - pos >= 9) {
    const length = data.readUIntBE(pos, 3);
    yield { type: data[pos + 3]!, payload: data.subarray(pos + 9, pos + 9 + length) };
    pos += 9 + length;
  }
}

const frameTypes = (data: Buffer): number[] => [...frames(data)].map((f) => f.type);
const findFrame = (data: Buffer, type: number): Buffer | undefined => [...frames(data)].find((f) => f.type === type)?.payload;
