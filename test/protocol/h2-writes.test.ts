// How the HTTP/2 layer writes its answers, seen from a raw client that can send many requests in
// one write and watch every frame: the answers of one read leave in one write, each whole and in
// its order per stream, also when flow control holds some back and the client cancels others.
import * as net from 'node:net';
import { encodeHeaders, HpackDecoder } from '../../src/protocol/h2-hpack';
import { listenUnary, type UnaryServer } from '../../src/protocol/h2-server';

const PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1');
const DATA = 0x0;
const HEADERS = 0x1;
const RST_STREAM = 0x3;
const SETTINGS = 0x4;
const WINDOW_UPDATE = 0x8;

interface Frame {
  type: number;
  flags: number;
  stream: number;
  payload: Buffer;
}

function frameBytes(type: number, flags: number, stream: number, payload: Buffer): Buffer {
  const header = Buffer.alloc(9);
  header.writeUIntBE(payload.length, 0, 3);
  header[3] = type;
  header[4] = flags;
  header.writeUInt32BE(stream, 5);
  return Buffer.concat([header, payload]);
}

function u32(value: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(value, 0);
  return b;
}

/** A request for the echo route: HEADERS, then the framed message in DATA frames of at most 16 KiB. */
function request(stream: number, message: Buffer): Buffer {
  const block = encodeHeaders([
    [':method', 'POST'],
    [':scheme', 'http'],
    [':path', '/test.Blob/Echo'],
    [':authority', 'localhost'],
    ['content-type', 'application/grpc'],
  ]);
  const framed = Buffer.alloc(5 + message.length);
  framed.writeUInt32BE(message.length, 1);
  message.copy(framed, 5);
  const data: Buffer[] = [];
  for (let at = 0; at < framed.length; at += 16_384) {
    const end = Math.min(framed.length, at + 16_384);
    data.push(frameBytes(DATA, end === framed.length ? 0x1 : 0, stream, framed.subarray(at, end)));
  }
  return Buffer.concat([frameBytes(HEADERS, 0x4, stream, block), ...data]);
}

function parseFrames(data: Buffer): Frame[] {
  const out: Frame[] = [];
  for (let pos = 0; data.length - pos >= 9; ) {
    const length = data.readUIntBE(pos, 3);
    if (data.length - pos < 9 + length) break;
    out.push({ type: data[pos + 3]!, flags: data[pos + 4]!, stream: data.readUInt32BE(pos + 5), payload: data.subarray(pos + 9, pos + 9 + length) });
    pos += 9 + length;
  }
  return out;
}

/** A message whose answer is `size` octets of a pattern that shows misplaced bytes. */
function message(size: number): Buffer {
  const b = Buffer.alloc(size);
  for (let i = 0; i < size; i++) b[i] = (i * 7 + size) & 0xff;
  return b;
}

/** One stream's answer as the client saw it: its frame types in order, body and trailers. */
function answerOf(frames: Frame[], stream: number, decoder: { decode(b: Buffer): unknown }): { types: string[]; body: Buffer; trailers: unknown } {
  const mine = frames.filter((f) => f.stream === stream && (f.type === HEADERS || f.type === DATA));
  const types = mine.map((f) => (f.type === DATA ? 'DATA' : f.flags & 0x1 ? 'TRAILERS' : 'HEADERS'));
  const last = mine[mine.length - 1];
  return {
    types: [...new Set(types)],
    body: Buffer.concat(mine.filter((f) => f.type === DATA).map((f) => f.payload)).subarray(5),
    trailers: last?.type === HEADERS && last.flags & 0x1 ? decoder.decode(last.payload) : undefined,
  };
}

let server: UnaryServer;
let socket: net.Socket | undefined;
/** Every write of the server's sockets, as it was handed to the socket. */
const serverWrites: Buffer[] = [];
const write = net.Socket.prototype.write;

beforeEach(async () => {
  serverWrites.length = 0;
  jest.spyOn(net.Socket.prototype, 'write').mockImplementation(function (this: net.Socket, ...args: Parameters<net.Socket['write']>) {
    // Sockets a net.Server accepted have `server` set; the test's client socket has not.
    if ((this as net.Socket & { server?: unknown }).server !== undefined) serverWrites.push(Buffer.from(args[0] as Buffer));
    return write.apply(this, args);
  });
  server = await listenUnary({
    routes: new Map([['/test.Blob/Echo', { decode: (b: Buffer) => Buffer.from(b), encode: (v: unknown) => v as Buffer, handle: async (req: unknown) => req }]]),
    maxMessageBytes: 1 << 20,
    onInternalError: () => undefined,
  });
});

afterEach(() => {
  socket?.destroy();
  server.destroy();
  jest.restoreAllMocks();
});

/** Connects, sends `bytes` in one write, and returns a way to wait for what comes back. */
async function open(bytes: Buffer): Promise<{ frames: () => Frame[]; until: (done: (f: Frame[]) => boolean) => Promise<Frame[]>; send: (b: Buffer) => void }> {
  const s = net.connect(server.port, '127.0.0.1');
  socket = s;
  await new Promise<void>((resolve, reject) => s.once('connect', resolve).once('error', reject));
  const chunks: Buffer[] = [];
  s.on('data', (c: Buffer) => chunks.push(c));
  s.write(bytes);
  const frames = () => parseFrames(Buffer.concat(chunks));
  const until = async (done: (f: Frame[]) => boolean) => {
    for (let i = 0; i < 300; i++) {
      const f = frames();
      if (done(f)) return f;
      await new Promise((r) => setTimeout(r, 10));
    }
    throw new Error('the server did not answer in time');
  };
  return { frames, until, send: (b) => s.write(b) };
}

const ended = (frames: Frame[], stream: number) => frames.some((f) => f.stream === stream && f.type === HEADERS && f.flags & 0x1);

describe('the HTTP/2 layer writing its answers', () => {
  it('answers the calls of one read in one write, each whole and in order, a body over the frame size in several DATA frames', async () => {
    const ids = Array.from({ length: 20 }, (_, i) => 1 + 2 * i);
    const sizes = ids.map((_, i) => (i === 7 ? 20_000 : 10 + i * 13));
    const conn = await open(Buffer.concat([PREFACE, frameBytes(SETTINGS, 0, 0, Buffer.alloc(0)), ...ids.map((id, i) => request(id, message(sizes[i]!)))]));
    const frames = await conn.until((f) => ids.every((id) => ended(f, id)));
    const decoder = new HpackDecoder(4096, 65536);
    // Header blocks are decoded in the order they were sent, as the client's table requires.
    const decoded = new Map<Frame, unknown>();
    for (const f of frames) if (f.type === HEADERS) decoded.set(f, decoder.decode(f.payload));
    ids.forEach((id, i) => {
      const answer = answerOf(frames, id, { decode: (b) => [...decoded].find(([f]) => f.payload === b)?.[1] });
      expect(answer.types).toEqual(['HEADERS', 'DATA', 'TRAILERS']);
      expect(answer.body.equals(message(sizes[i]!))).toBe(true);
      expect(answer.trailers).toEqual([['grpc-status', '0']]);
    });
    expect(frames.filter((f) => f.stream === 15 && f.type === DATA).map((f) => f.payload.length)).toEqual([16_384, 20_005 - 16_384]);
    // Twenty answers, one write (a write per answer would be twenty).
    const answerWrites = serverWrites.filter((w) => parseFrames(w).some((f) => f.type === HEADERS));
    expect(answerWrites).toHaveLength(1);
  });

  it('holds back what the stream windows do not allow, sends the rest in order as they open, and nothing for a cancelled call', async () => {
    // SETTINGS_INITIAL_WINDOW_SIZE 16: every answer below is larger, so each waits for its window.
    const settings = Buffer.concat([Buffer.from([0, 4]), u32(16)]);
    const ids = [1, 3, 5, 7];
    const conn = await open(
      Buffer.concat([
        PREFACE,
        frameBytes(SETTINGS, 0, 0, settings),
        ...ids.map((id) => request(id, message(100 + id))),
        // Stream 5 is cancelled in the same read as its request, before its handler answers.
        frameBytes(RST_STREAM, 0, 5, u32(0x8)),
      ]),
    );
    const held = await conn.until((f) => [1, 3, 7].every((id) => f.some((x) => x.stream === id && x.type === DATA)));
    await new Promise((r) => setTimeout(r, 50));
    for (const id of [1, 3, 7]) {
      const data = conn.frames().filter((f) => f.stream === id && f.type === DATA);
      expect(data.reduce((n, f) => n + f.payload.length, 0)).toBe(16);
      expect(ended(conn.frames(), id)).toBe(false);
    }
    expect(held.some((f) => f.stream === 5)).toBe(false);
    conn.send(Buffer.concat([1, 3, 7].map((id) => frameBytes(WINDOW_UPDATE, 0, id, u32(1000)))));
    const frames = await conn.until((f) => [1, 3, 7].every((id) => ended(f, id)));
    const decoder = new HpackDecoder(4096, 65536);
    const trailers = new Map<number, unknown>();
    for (const f of frames) {
      if (f.type !== HEADERS) continue;
      const fields = decoder.decode(f.payload);
      if (f.flags & 0x1) trailers.set(f.stream, fields);
    }
    for (const id of [1, 3, 7]) {
      const answer = answerOf(frames, id, { decode: () => trailers.get(id) });
      expect(answer.types).toEqual(['HEADERS', 'DATA', 'TRAILERS']);
      expect(answer.body.equals(message(100 + id))).toBe(true);
      expect(answer.trailers).toEqual([['grpc-status', '0']]);
    }
    expect(frames.some((f) => f.stream === 5)).toBe(false);
  });
});
