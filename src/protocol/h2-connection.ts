// One server-side HTTP/2 connection (RFC 9113) over a socket: frames, SETTINGS, PING, GOAWAY,
// stream states and flow control both ways. It serves requests that are answered once, whole
// (headers, at most one body, trailers), which is all unary gRPC asks; it never pushes and never
// reads a request before its end. What to answer is the handler's business (h2-server.ts).
//
// Why not node:http2: for the ~800 short calls of a plan, node:http2 builds a Duplex stream, two
// header objects and a trailers round trip through setImmediate per call, about 0.4 ms of CPU each
// (bench/RESULTS.md, "Provider process cost"). Here a call is a small object, one header block
// decoded, and one write of its whole answer.
import type { Socket } from 'node:net';
import { encodeHeaders, type HeaderField, HpackDecoder, HpackError } from './h2-hpack';

const PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1');
const FRAME_HEADER = 9;
const EMPTY = Buffer.alloc(0);

enum FrameType {
  DATA = 0x0,
  HEADERS = 0x1,
  PRIORITY = 0x2,
  RST_STREAM = 0x3,
  SETTINGS = 0x4,
  PUSH_PROMISE = 0x5,
  PING = 0x6,
  GOAWAY = 0x7,
  WINDOW_UPDATE = 0x8,
  CONTINUATION = 0x9,
}

const END_STREAM = 0x1;
const ACK = 0x1;
const END_HEADERS = 0x4;
const PADDED = 0x8;
const PRIORITY_FLAG = 0x20;

/** HTTP/2 error codes (RFC 9113 §7) used here. */
export const H2Error = {
  NO_ERROR: 0x0,
  PROTOCOL_ERROR: 0x1,
  FLOW_CONTROL_ERROR: 0x3,
  STREAM_CLOSED: 0x5,
  FRAME_SIZE_ERROR: 0x6,
  REFUSED_STREAM: 0x7,
  COMPRESSION_ERROR: 0x9,
  ENHANCE_YOUR_CALM: 0xb,
} as const;

const MAX_WINDOW = 0x7fffffff;
const DEFAULT_WINDOW = 65_535;
const DEFAULT_FRAME_SIZE = 16_384;

/** What we announce, and how we keep the client's windows open. */
const OUR_STREAM_WINDOW = 1 << 20;
const OUR_CONNECTION_WINDOW = 1 << 24;
const OUR_MAX_CONCURRENT_STREAMS = 1000;
const OUR_HEADER_TABLE_SIZE = 4096;
const OUR_MAX_HEADER_LIST = 64 * 1024;
/** A header block split over CONTINUATION frames may not grow beyond this. */
const MAX_HEADER_BLOCK = 256 * 1024;

/** A connection-level failure: answered with GOAWAY and the end of the connection. */
class ConnectionError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/** One request, from its headers to the end of its answer; `C` is what the layer above keeps with it. */
export class ServerStream<C = unknown> {
  /** Set once the client reset the stream or the connection ended: answers are dropped. */
  cancelled = false;
  /** Set once the whole answer (its END_STREAM) is queued. */
  answered = false;
  /** Whether the client's END_STREAM arrived. */
  remoteEnded = false;
  /** Body octets discarded from here on (answered early, or too large). */
  discarding = false;
  /** The layer above's state of this call (its route), so that it needs no map of streams. */
  context: C | undefined = undefined;
  /** The body so far: its first chunk alone (most bodies are one DATA frame), then all of them. */
  first: Buffer | undefined = undefined;
  chunks: Buffer[] | undefined = undefined;
  size = 0;
  /** Octets of the body received since our last WINDOW_UPDATE for this stream. */
  unacknowledged = 0;
  sendWindow: number;
  /** A body waiting for flow control, from `offset`, and the trailers block that ends it. */
  pending: { data: Buffer; offset: number; trailers: Buffer } | undefined;

  constructor(
    private readonly connection: H2Connection<C>,
    readonly id: number,
    sendWindow: number,
  ) {
    this.sendWindow = sendWindow;
  }

  /** Answers with headers, one body and trailers; the body waits for flow control as needed. */
  answer(headers: readonly HeaderField[], body: Buffer, trailers: readonly HeaderField[]): void {
    this.connection.answer(this, headers, body, trailers);
  }

  /** Answers with one header block that ends the stream (gRPC's trailers-only response). */
  answerHeadersOnly(headers: readonly HeaderField[]): void {
    this.connection.answerHeadersOnly(this, headers);
  }
}

/** What the connection asks of the layer above. */
export interface StreamHandler<C = unknown> {
  /** Headers of a new request. Answering now (a refusal) discards the body that follows. */
  headers(stream: ServerStream<C>, fields: readonly HeaderField[]): void;
  /** The whole body at the client's END_STREAM, unless the stream was answered or cancelled. */
  body(stream: ServerStream<C>, body: Buffer): void;
  /** The body grew past `maxBodyBytes`: answer now; the rest of it is discarded. */
  tooLarge(stream: ServerStream<C>): void;
}

export interface ConnectionOptions<C = unknown> {
  readonly handler: StreamHandler<C>;
  /** Largest request body kept, in octets. */
  readonly maxBodyBytes: number;
  /** Called once when the socket has closed. */
  readonly onClose: () => void;
}

export class H2Connection<C = unknown> {
  private readonly decoder = new HpackDecoder(OUR_HEADER_TABLE_SIZE, OUR_MAX_HEADER_LIST);
  private readonly streams = new Map<number, ServerStream<C>>();
  /** Streams with a body blocked by flow control, in the order they blocked. */
  private readonly blocked = new Set<ServerStream<C>>();
  private input: Buffer = EMPTY;
  private prefaceSeen = false;
  private lastStreamId = 0;
  /** A header block being continued: its stream, END_STREAM flag and fragments. */
  private continuation: { streamId: number; endStream: boolean; fragments: Buffer[]; size: number } | undefined;
  private peerInitialWindow = DEFAULT_WINDOW;
  private peerMaxFrame = DEFAULT_FRAME_SIZE;
  private sendWindow = DEFAULT_WINDOW;
  /** Octets received since our last connection WINDOW_UPDATE. */
  private unacknowledged = 0;
  private tableSizeSent = false;
  /** Whole frames (an answer's are one buffer) waiting for the next write. */
  private readonly output: Buffer[] = [];
  private flushScheduled = false;
  /** The flush as setImmediate's callback, made once rather than a closure per write. */
  private readonly flushNow = (): void => this.flush();
  private goingAway = false;
  /** Set after a connection error: nothing more is read. */
  private failed = false;
  private closed = false;

  constructor(
    private readonly socket: Socket,
    private readonly opts: ConnectionOptions<C>,
  ) {
    // Our SETTINGS, then the connection window raised from 64 KiB so a plan never waits for it.
    const settings = Buffer.alloc(18);
    settings.writeUInt16BE(0x3, 0);
    settings.writeUInt32BE(OUR_MAX_CONCURRENT_STREAMS, 2);
    settings.writeUInt16BE(0x4, 6);
    settings.writeUInt32BE(OUR_STREAM_WINDOW, 8);
    settings.writeUInt16BE(0x6, 12);
    settings.writeUInt32BE(OUR_MAX_HEADER_LIST, 14);
    this.frame(FrameType.SETTINGS, 0, 0, settings);
    this.windowUpdate(0, OUR_CONNECTION_WINDOW - DEFAULT_WINDOW);
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.receive(chunk));
    socket.on('error', () => this.destroy());
    socket.on('close', () => {
      this.closed = true;
      for (const stream of this.streams.values()) stream.cancelled = true;
      this.streams.clear();
      this.blocked.clear();
      this.opts.onClose();
    });
  }

  /** Streams not yet answered in full. */
  get activeStreams(): number {
    return this.streams.size;
  }

  /** GOAWAY: no new streams; the socket ends once the streams in flight are answered. */
  closeGracefully(): void {
    if (this.goingAway || this.closed) return;
    this.goingAway = true;
    this.goAway(H2Error.NO_ERROR);
    this.endIfIdle();
  }

  destroy(): void {
    this.socket.destroy();
  }

  answer(stream: ServerStream<C>, headers: readonly HeaderField[], body: Buffer, trailers: readonly HeaderField[]): void {
    if (!this.startAnswer(stream)) return;
    const headerBlock = this.encode(headers);
    const trailerBlock = this.encode(trailers);
    if (body.length > stream.sendWindow || body.length > this.sendWindow) {
      // The body waits for flow control: its frames go out as the client's windows open.
      this.frame(FrameType.HEADERS, END_HEADERS, stream.id, headerBlock);
      stream.pending = { data: body, offset: 0, trailers: trailerBlock };
      this.sendPending(stream);
      return;
    }
    // The common case: the whole answer fits the windows, so its HEADERS, DATA and trailers
    // frames are laid out in one buffer (one allocation, one copy of the body). An empty body
    // has no DATA frame.
    const maxFrame = this.peerMaxFrame;
    const dataFrames = Math.ceil(body.length / maxFrame);
    const out = Buffer.allocUnsafe((2 + dataFrames) * FRAME_HEADER + headerBlock.length + body.length + trailerBlock.length);
    // Copies with TypedArray#set: Buffer#copy validates its arguments in several JavaScript
    // layers, a measurable share of a call at ~2,400 copies a plan.
    let pos = putFrameHeader(out, 0, headerBlock.length, FrameType.HEADERS, END_HEADERS, stream.id);
    out.set(headerBlock, pos);
    pos += headerBlock.length;
    for (let offset = 0; offset < body.length; offset += maxFrame) {
      const n = Math.min(maxFrame, body.length - offset);
      pos = putFrameHeader(out, pos, n, FrameType.DATA, 0, stream.id);
      out.set(n === body.length ? body : body.subarray(offset, offset + n), pos);
      pos += n;
    }
    pos = putFrameHeader(out, pos, trailerBlock.length, FrameType.HEADERS, END_HEADERS | END_STREAM, stream.id);
    out.set(trailerBlock, pos);
    stream.sendWindow -= body.length;
    this.sendWindow -= body.length;
    this.queue(out);
    this.finish(stream);
  }

  answerHeadersOnly(stream: ServerStream<C>, headers: readonly HeaderField[]): void {
    if (!this.startAnswer(stream)) return;
    this.frame(FrameType.HEADERS, END_HEADERS | END_STREAM, stream.id, this.encode(headers));
    this.finish(stream);
  }

  private startAnswer(stream: ServerStream<C>): boolean {
    if (stream.cancelled || stream.answered || this.closed) return false;
    stream.answered = true;
    stream.discarding = true;
    return true;
  }

  private encode(fields: readonly HeaderField[]): Buffer {
    const first = !this.tableSizeSent;
    this.tableSizeSent = true;
    return encodeHeaders(fields, first);
  }

  /** Sends as much of the stream's body as both windows allow, then its trailers. */
  private sendPending(stream: ServerStream<C>): void {
    const pending = stream.pending;
    if (pending === undefined) return;
    while (pending.offset < pending.data.length) {
      const n = Math.min(pending.data.length - pending.offset, stream.sendWindow, this.sendWindow, this.peerMaxFrame);
      if (n <= 0) {
        this.blocked.add(stream);
        return;
      }
      this.frame(FrameType.DATA, 0, stream.id, pending.data.subarray(pending.offset, pending.offset + n));
      pending.offset += n;
      stream.sendWindow -= n;
      this.sendWindow -= n;
    }
    this.blocked.delete(stream);
    stream.pending = undefined;
    this.frame(FrameType.HEADERS, END_HEADERS | END_STREAM, stream.id, pending.trailers);
    this.finish(stream);
  }

  /** The stream's END_STREAM is queued: it leaves the table once the client's side ended too. */
  private finish(stream: ServerStream<C>): void {
    if (!stream.remoteEnded) {
      // We answered before the request ended (a refusal): ask the client to stop sending it.
      this.rstStream(stream.id, H2Error.NO_ERROR);
    }
    this.streams.delete(stream.id);
    this.endIfIdle();
  }

  private endIfIdle(): void {
    if (this.goingAway && this.streams.size === 0 && !this.closed) {
      this.flush();
      this.socket.end();
    }
  }

  private receive(chunk: Buffer): void {
    if (this.failed) return;
    this.input = this.input.length === 0 ? chunk : Buffer.concat([this.input, chunk]);
    try {
      this.readFrames();
    } catch (err) {
      // A connection error: say which in a GOAWAY, then end the connection (RFC 9113 §5.4.1).
      this.failed = true;
      const code = err instanceof ConnectionError ? err.code : err instanceof HpackError ? H2Error.COMPRESSION_ERROR : H2Error.PROTOCOL_ERROR;
      this.goAway(code);
      this.flush();
      this.socket.end();
      setTimeout(() => this.socket.destroy(), 1000).unref();
      return;
    }
    this.scheduleFlush();
  }

  private readFrames(): void {
    let pos = 0;
    const input = this.input;
    if (!this.prefaceSeen) {
      if (input.length < PREFACE.length) {
        if (!PREFACE.subarray(0, input.length).equals(input)) throw new ConnectionError(H2Error.PROTOCOL_ERROR, 'not an HTTP/2 client preface');
        return;
      }
      if (!input.subarray(0, PREFACE.length).equals(PREFACE)) throw new ConnectionError(H2Error.PROTOCOL_ERROR, 'not an HTTP/2 client preface');
      this.prefaceSeen = true;
      pos = PREFACE.length;
    }
    while (input.length - pos >= FRAME_HEADER && !this.closed && !this.failed) {
      const length = (input[pos]! << 16) | (input[pos + 1]! << 8) | input[pos + 2]!;
      // We never announce a larger SETTINGS_MAX_FRAME_SIZE than the default.
      if (length > DEFAULT_FRAME_SIZE) throw new ConnectionError(H2Error.FRAME_SIZE_ERROR, `frame of ${length} octets`);
      if (input.length - pos < FRAME_HEADER + length) break;
      const type = input[pos + 3]!;
      const flags = input[pos + 4]!;
      // The reserved bit dropped; (b & 0x7f) << 24 stays a positive 31-bit number.
      const streamId = ((input[pos + 5]! & 0x7f) << 24) | (input[pos + 6]! << 16) | (input[pos + 7]! << 8) | input[pos + 8]!;
      const payload = input.subarray(pos + FRAME_HEADER, pos + FRAME_HEADER + length);
      pos += FRAME_HEADER + length;
      this.onFrame(type, flags, streamId, payload);
    }
    this.input = pos === input.length ? EMPTY : input.subarray(pos);
  }

  private onFrame(type: number, flags: number, streamId: number, payload: Buffer): void {
    if (this.continuation !== undefined && type !== FrameType.CONTINUATION) {
      throw new ConnectionError(H2Error.PROTOCOL_ERROR, 'a header block was interrupted');
    }
    switch (type) {
      case FrameType.DATA:
        this.onData(flags, streamId, payload);
        return;
      case FrameType.HEADERS:
        this.onHeaders(flags, streamId, payload);
        return;
      case FrameType.CONTINUATION:
        this.onContinuation(flags, streamId, payload);
        return;
      case FrameType.PRIORITY:
        if (streamId === 0) throw new ConnectionError(H2Error.PROTOCOL_ERROR, 'PRIORITY on stream 0');
        return;
      case FrameType.RST_STREAM:
        this.onReset(streamId, payload);
        return;
      case FrameType.SETTINGS:
        this.onSettings(flags, streamId, payload);
        return;
      case FrameType.PING:
        if (streamId !== 0) throw new ConnectionError(H2Error.PROTOCOL_ERROR, 'PING on a stream');
        if (payload.length !== 8) throw new ConnectionError(H2Error.FRAME_SIZE_ERROR, 'PING of other than 8 octets');
        if ((flags & ACK) === 0) this.frame(FrameType.PING, ACK, 0, Buffer.from(payload));
        return;
      case FrameType.GOAWAY:
        // The client is leaving: answer what it sent, then end.
        this.goingAway = true;
        this.endIfIdle();
        return;
      case FrameType.WINDOW_UPDATE:
        this.onWindowUpdate(streamId, payload);
        return;
      case FrameType.PUSH_PROMISE:
        throw new ConnectionError(H2Error.PROTOCOL_ERROR, 'PUSH_PROMISE from a client');
      default:
        // Unknown frame types are ignored (RFC 9113 §4.1).
        return;
    }
  }

  private onData(flags: number, streamId: number, payload: Buffer): void {
    if (streamId === 0) throw new ConnectionError(H2Error.PROTOCOL_ERROR, 'DATA on stream 0');
    if (streamId > this.lastStreamId) throw new ConnectionError(H2Error.PROTOCOL_ERROR, 'DATA on an idle stream');
    // Every DATA octet, padding included, counts against the connection's window.
    this.unacknowledged += payload.length;
    if (this.unacknowledged >= OUR_CONNECTION_WINDOW / 2) {
      this.windowUpdate(0, this.unacknowledged);
      this.unacknowledged = 0;
    }
    const stream = this.streams.get(streamId);
    // DATA after a reset or after our answer may still be in flight: dropped.
    if (stream === undefined || stream.remoteEnded) return;
    const data = unpad(flags, payload);
    if (!stream.discarding) {
      stream.size += data.length;
      if (stream.size > this.opts.maxBodyBytes) {
        stream.discarding = true;
        stream.first = undefined;
        stream.chunks = undefined;
        this.opts.handler.tooLarge(stream);
      } else if (stream.first === undefined) {
        stream.first = data;
      } else {
        stream.chunks ??= [stream.first];
        stream.chunks.push(data);
      }
    }
    if (flags & END_STREAM) {
      this.remoteEnd(stream);
      return;
    }
    stream.unacknowledged += payload.length;
    if (stream.unacknowledged >= OUR_STREAM_WINDOW / 2) {
      this.windowUpdate(stream.id, stream.unacknowledged);
      stream.unacknowledged = 0;
    }
  }

  private onHeaders(flags: number, streamId: number, payload: Buffer): void {
    if (streamId === 0 || streamId % 2 === 0) throw new ConnectionError(H2Error.PROTOCOL_ERROR, `HEADERS on stream ${streamId}`);
    let fragment = unpad(flags, payload);
    if (flags & PRIORITY_FLAG) {
      if (fragment.length < 5) throw new ConnectionError(H2Error.FRAME_SIZE_ERROR, 'HEADERS too short for its priority');
      fragment = fragment.subarray(5);
    }
    const endStream = (flags & END_STREAM) !== 0;
    if (flags & END_HEADERS) {
      this.onHeaderBlock(streamId, endStream, fragment);
      return;
    }
    this.continuation = { streamId, endStream, fragments: [fragment], size: fragment.length };
  }

  private onContinuation(flags: number, streamId: number, payload: Buffer): void {
    const c = this.continuation;
    if (c === undefined || c.streamId !== streamId) throw new ConnectionError(H2Error.PROTOCOL_ERROR, 'CONTINUATION without its HEADERS');
    c.size += payload.length;
    if (c.size > MAX_HEADER_BLOCK) throw new ConnectionError(H2Error.ENHANCE_YOUR_CALM, 'header block too large');
    c.fragments.push(payload);
    if (flags & END_HEADERS) {
      this.continuation = undefined;
      this.onHeaderBlock(streamId, c.endStream, Buffer.concat(c.fragments, c.size));
    }
  }

  private onHeaderBlock(streamId: number, endStream: boolean, block: Buffer): void {
    // Every block is decoded, even one we refuse: the dynamic table must stay in step.
    const fields = this.decoder.decode(block);
    if (streamId <= this.lastStreamId) {
      const stream = this.streams.get(streamId);
      // Trailers of a request (gRPC clients send none): they must end it.
      if (stream === undefined || stream.remoteEnded) throw new ConnectionError(H2Error.STREAM_CLOSED, `HEADERS on closed stream ${streamId}`);
      if (!endStream) throw new ConnectionError(H2Error.PROTOCOL_ERROR, 'request trailers without END_STREAM');
      this.remoteEnd(stream);
      return;
    }
    this.lastStreamId = streamId;
    if (this.goingAway) {
      this.rstStream(streamId, H2Error.REFUSED_STREAM);
      return;
    }
    if (this.streams.size >= OUR_MAX_CONCURRENT_STREAMS) {
      this.rstStream(streamId, H2Error.REFUSED_STREAM);
      return;
    }
    const stream = new ServerStream<C>(this, streamId, this.peerInitialWindow);
    // Known before the handler runs, so that a refusal of a bodiless request needs no RST_STREAM.
    stream.remoteEnded = endStream;
    this.streams.set(streamId, stream);
    this.opts.handler.headers(stream, fields);
    if (endStream) this.deliver(stream);
  }

  private remoteEnd(stream: ServerStream<C>): void {
    stream.remoteEnded = true;
    this.deliver(stream);
  }

  /** Hands the whole body to the handler, unless the stream was answered or its body dropped. */
  private deliver(stream: ServerStream<C>): void {
    if (stream.answered || stream.discarding || stream.cancelled) return;
    const body = stream.chunks !== undefined ? Buffer.concat(stream.chunks, stream.size) : (stream.first ?? EMPTY);
    stream.first = undefined;
    stream.chunks = undefined;
    this.opts.handler.body(stream, body);
  }

  private onReset(streamId: number, payload: Buffer): void {
    if (streamId === 0) throw new ConnectionError(H2Error.PROTOCOL_ERROR, 'RST_STREAM on stream 0');
    if (payload.length !== 4) throw new ConnectionError(H2Error.FRAME_SIZE_ERROR, 'RST_STREAM of other than 4 octets');
    if (streamId > this.lastStreamId) throw new ConnectionError(H2Error.PROTOCOL_ERROR, 'RST_STREAM on an idle stream');
    const stream = this.streams.get(streamId);
    if (stream === undefined) return;
    stream.cancelled = true;
    stream.pending = undefined;
    this.blocked.delete(stream);
    this.streams.delete(streamId);
    this.endIfIdle();
  }

  private onSettings(flags: number, streamId: number, payload: Buffer): void {
    if (streamId !== 0) throw new ConnectionError(H2Error.PROTOCOL_ERROR, 'SETTINGS on a stream');
    if (flags & ACK) {
      if (payload.length !== 0) throw new ConnectionError(H2Error.FRAME_SIZE_ERROR, 'SETTINGS ACK with a payload');
      return;
    }
    if (payload.length % 6 !== 0) throw new ConnectionError(H2Error.FRAME_SIZE_ERROR, 'SETTINGS of a length not a multiple of 6');
    for (let at = 0; at < payload.length; at += 6) {
      const id = payload.readUInt16BE(at);
      const value = payload.readUInt32BE(at + 2);
      if (id === 0x2 && value > 1) throw new ConnectionError(H2Error.PROTOCOL_ERROR, 'SETTINGS_ENABLE_PUSH above 1');
      if (id === 0x4) {
        if (value > MAX_WINDOW) throw new ConnectionError(H2Error.FLOW_CONTROL_ERROR, 'SETTINGS_INITIAL_WINDOW_SIZE above 2^31-1');
        const delta = value - this.peerInitialWindow;
        this.peerInitialWindow = value;
        for (const stream of this.streams.values()) {
          stream.sendWindow += delta;
          if (stream.sendWindow > MAX_WINDOW) throw new ConnectionError(H2Error.FLOW_CONTROL_ERROR, 'a stream window above 2^31-1');
        }
      }
      if (id === 0x5) {
        if (value < DEFAULT_FRAME_SIZE || value > 0xffffff) throw new ConnectionError(H2Error.PROTOCOL_ERROR, `SETTINGS_MAX_FRAME_SIZE ${value}`);
        this.peerMaxFrame = value;
      }
      // SETTINGS_HEADER_TABLE_SIZE asks nothing of us: our encoder's table is empty (size 0).
    }
    this.frame(FrameType.SETTINGS, ACK, 0, Buffer.alloc(0));
    this.resumeBlocked();
  }

  private onWindowUpdate(streamId: number, payload: Buffer): void {
    if (payload.length !== 4) throw new ConnectionError(H2Error.FRAME_SIZE_ERROR, 'WINDOW_UPDATE of other than 4 octets');
    const increment = payload.readUInt32BE(0) & MAX_WINDOW;
    if (streamId === 0) {
      if (increment === 0) throw new ConnectionError(H2Error.PROTOCOL_ERROR, 'WINDOW_UPDATE of 0');
      this.sendWindow += increment;
      if (this.sendWindow > MAX_WINDOW) throw new ConnectionError(H2Error.FLOW_CONTROL_ERROR, 'connection window above 2^31-1');
      this.resumeBlocked();
      return;
    }
    const stream = this.streams.get(streamId);
    if (stream === undefined) return;
    if (increment === 0 || stream.sendWindow + increment > MAX_WINDOW) {
      // A stream error: that stream ends, the connection goes on.
      this.rstStream(streamId, increment === 0 ? H2Error.PROTOCOL_ERROR : H2Error.FLOW_CONTROL_ERROR);
      stream.cancelled = true;
      this.blocked.delete(stream);
      this.streams.delete(streamId);
      this.endIfIdle();
      return;
    }
    stream.sendWindow += increment;
    this.sendPending(stream);
  }

  private resumeBlocked(): void {
    for (const stream of [...this.blocked]) {
      if (this.sendWindow <= 0) return;
      this.sendPending(stream);
    }
  }

  private rstStream(streamId: number, code: number): void {
    const payload = Buffer.alloc(4);
    payload.writeUInt32BE(code, 0);
    this.frame(FrameType.RST_STREAM, 0, streamId, payload);
  }

  private windowUpdate(streamId: number, increment: number): void {
    const payload = Buffer.alloc(4);
    payload.writeUInt32BE(increment, 0);
    this.frame(FrameType.WINDOW_UPDATE, 0, streamId, payload);
  }

  private goAway(code: number): void {
    const payload = Buffer.alloc(8);
    payload.writeUInt32BE(this.lastStreamId, 0);
    payload.writeUInt32BE(code, 4);
    this.frame(FrameType.GOAWAY, 0, 0, payload);
  }

  /** Queues one frame, header and payload in one buffer. */
  private frame(type: number, flags: number, streamId: number, payload: Buffer): void {
    const out = Buffer.allocUnsafe(FRAME_HEADER + payload.length);
    out.set(payload, putFrameHeader(out, 0, payload.length, type, flags, streamId));
    this.queue(out);
  }

  /**
   * Queues whole frames. Everything queued until the event loop's check phase goes out in one
   * write: the answers of one turn (the calls a read delivered, the replies that came in
   * together) leave as one TLS record, while a lone answer waits for nothing but the end of the
   * turn that made it.
   */
  private queue(frames: Buffer): void {
    this.output.push(frames);
    this.scheduleFlush();
  }

  private scheduleFlush(): void {
    if (this.flushScheduled || this.output.length === 0) return;
    this.flushScheduled = true;
    setImmediate(this.flushNow);
  }

  private flush(): void {
    this.flushScheduled = false;
    if (this.output.length === 0 || this.closed || this.socket.destroyed || !this.socket.writable) {
      this.output.length = 0;
      return;
    }
    const data = this.output.length === 1 ? this.output[0]! : Buffer.concat(this.output);
    this.output.length = 0;
    this.socket.write(data);
  }
}

/** Writes a frame header at `pos` of `out`; returns where its payload starts. */
function putFrameHeader(out: Buffer, pos: number, length: number, type: number, flags: number, streamId: number): number {
  out[pos] = length >>> 16;
  out[pos + 1] = (length >>> 8) & 0xff;
  out[pos + 2] = length & 0xff;
  out[pos + 3] = type;
  out[pos + 4] = flags;
  out[pos + 5] = streamId >>> 24;
  out[pos + 6] = (streamId >>> 16) & 0xff;
  out[pos + 7] = (streamId >>> 8) & 0xff;
  out[pos + 8] = streamId & 0xff;
  return pos + FRAME_HEADER;
}

/** The payload of a DATA or HEADERS frame without its padding. */
function unpad(flags: number, payload: Buffer): Buffer {
  if ((flags & PADDED) === 0) return payload;
  if (payload.length < 1) throw new ConnectionError(H2Error.FRAME_SIZE_ERROR, 'padded frame without its pad length');
  const padLength = payload[0]!;
  if (padLength >= payload.length) throw new ConnectionError(H2Error.PROTOCOL_ERROR, 'padding longer than the frame');
  return payload.subarray(1, payload.length - padLength);
}
