// Protobuf wire format primitives for the generated code in gen/: a growable writer and a reader.
// Small on purpose: loading a protobuf library (or parsing .proto text) would cost start-up time on
// every Terraform command, and our messages only need varints, length-delimited fields and fixed64/32.

import { decodeUtf8, writeShortAscii } from './utf8';

/** Wire types of the protobuf encoding. */
export const WireType = { VARINT: 0, I64: 1, LEN: 2, I32: 5 } as const;

/** Appends protobuf-encoded fields to a growable buffer. */
export class Writer {
  private buf: Buffer;
  private pos = 0;

  /** @param initialSize starting capacity in bytes @default 256 */
  constructor(initialSize = 256) {
    this.buf = Buffer.allocUnsafe(initialSize);
  }

  private reserve(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.pos + n));
    next.set(this.buf.subarray(0, this.pos));
    this.buf = next;
  }

  /** A field key: field number and wire type. */
  tag(field: number, wireType: number): this {
    return this.uint32(((field << 3) | wireType) >>> 0);
  }

  /** An unsigned 32-bit varint. */
  uint32(v: number): this {
    this.reserve(5);
    let x = v >>> 0;
    while (x > 0x7f) {
      this.buf[this.pos++] = (x & 0x7f) | 0x80;
      x >>>= 7;
    }
    this.buf[this.pos++] = x;
    return this;
  }

  /** A 64-bit varint from a JS integer (negative values take ten bytes, as int64 does). */
  int64(v: number): this {
    if (v >= 0 && v <= 0xffffffff) return this.uint32(v);
    return this.bigVarint(BigInt.asUintN(64, BigInt(Math.trunc(v))));
  }

  /** A 64-bit varint from a bigint (two's complement for negatives). */
  bigVarint(v: bigint): this {
    this.reserve(10);
    let x = BigInt.asUintN(64, v);
    while (x > 0x7fn) {
      this.buf[this.pos++] = Number(x & 0x7fn) | 0x80;
      x >>= 7n;
    }
    this.buf[this.pos++] = Number(x);
    return this;
  }

  /** A signed 32-bit varint (negative values sign-extend to ten bytes, as int32 does). */
  int32(v: number): this {
    return v >= 0 ? this.uint32(v) : this.bigVarint(BigInt(v | 0));
  }

  /** A zigzag-encoded varint (sint32/sint64). */
  sint(v: number): this {
    const z = BigInt(Math.trunc(v));
    return this.bigVarint(z >= 0n ? z << 1n : (-z << 1n) - 1n);
  }

  /** A boolean varint. */
  bool(v: boolean): this {
    return this.uint32(v ? 1 : 0);
  }

  /** Eight little-endian bytes of a double. */
  double(v: number): this {
    this.reserve(8);
    this.pos = this.buf.writeDoubleLE(v, this.pos);
    return this;
  }

  /** Four little-endian bytes of a float. */
  float(v: number): this {
    this.reserve(4);
    this.pos = this.buf.writeFloatLE(v, this.pos);
    return this;
  }

  /** fixed32/sfixed32. */
  fixed32(v: number, signed: boolean): this {
    this.reserve(4);
    this.pos = signed ? this.buf.writeInt32LE(v | 0, this.pos) : this.buf.writeUInt32LE(v >>> 0, this.pos);
    return this;
  }

  /** fixed64/sfixed64 from a JS integer. */
  fixed64(v: number): this {
    this.reserve(8);
    this.pos = this.buf.writeBigUInt64LE(BigInt.asUintN(64, BigInt(Math.trunc(v))), this.pos);
    return this;
  }

  /** Length-prefixed bytes. */
  bytes(v: Uint8Array): this {
    this.uint32(v.length);
    this.reserve(v.length);
    this.buf.set(v, this.pos);
    this.pos += v.length;
    return this;
  }

  /** Length-prefixed UTF-8 text; short ASCII (names, ids) is copied without a native call. */
  string(v: string): this {
    this.reserve(1 + v.length);
    const end = writeShortAscii(this.buf, this.pos + 1, v);
    if (end >= 0) {
      this.buf[this.pos] = v.length; // a one-byte length: SHORT is below 128
      this.pos = end;
      return this;
    }
    const len = Buffer.byteLength(v, 'utf8');
    this.uint32(len);
    this.reserve(len);
    this.pos += this.buf.write(v, this.pos, len, 'utf8');
    return this;
  }

  /**
   * Writes a nested message produced by `write` in place, length-prefixed: one byte is kept for
   * the length (most nested messages are shorter than 128 bytes); a longer one is moved up by
   * the extra length bytes afterwards. No writer or buffer per nested message.
   */
  message(write: (w: Writer) => void): this {
    this.reserve(1);
    const lengthAt = this.pos++;
    write(this);
    const len = this.pos - lengthAt - 1;
    if (len < 0x80) {
      this.buf[lengthAt] = len;
      return this;
    }
    const extra = len < 1 << 14 ? 1 : len < 1 << 21 ? 2 : len < 1 << 28 ? 3 : 4;
    this.reserve(extra);
    const b = this.buf;
    b.copyWithin(lengthAt + 1 + extra, lengthAt + 1, this.pos);
    let p = lengthAt;
    for (let x = len; ; x >>>= 7) {
      if (x <= 0x7f) {
        b[p] = x;
        break;
      }
      b[p++] = (x & 0x7f) | 0x80;
    }
    this.pos += extra;
    return this;
  }

  /** The bytes written so far (a copy-free view). */
  finish(): Buffer {
    return this.buf.subarray(0, this.pos);
  }
}

/** Reads protobuf-encoded fields from a buffer. */
export class Reader {
  /** Current offset. */
  pos: number;
  /** Offset where this reader's message ends. */
  readonly end: number;

  constructor(
    readonly buf: Uint8Array,
    start = 0,
    end = buf.length,
  ) {
    this.pos = start;
    this.end = end;
  }

  private fail(what: string): never {
    throw new RangeError(`protobuf: ${what} at offset ${this.pos}`);
  }

  /** An unsigned varint up to 2^53 (more is truncated to a double). */
  varint(): number {
    let result = 0;
    let scale = 1;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= this.end) this.fail('truncated varint');
      const b = this.buf[this.pos++]!;
      result += (b & 0x7f) * scale;
      if (b < 0x80) return result;
      scale *= 128;
    }
    return this.fail('varint too long');
  }

  /** A varint as a 64-bit two's complement bigint. */
  bigVarint(): bigint {
    let result = 0n;
    let shift = 0n;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= this.end) this.fail('truncated varint');
      const b = this.buf[this.pos++]!;
      result |= BigInt(b & 0x7f) << shift;
      if (b < 0x80) return BigInt.asUintN(64, result);
      shift += 7n;
    }
    return this.fail('varint too long');
  }

  /**
   * A varint below 2^49 (seven bytes at most) as a number, or -1 with nothing consumed when it is
   * longer or truncated. Almost every varint Terraform sends is small; the bigint path costs an
   * allocation per byte, which a field such as a boolean in every request should not pay.
   */
  private smallVarint(): number {
    let result = 0;
    let scale = 1;
    const start = this.pos;
    for (let p = start; p < this.end && p < start + 7; p++) {
      const b = this.buf[p]!;
      result += (b & 0x7f) * scale;
      if (b < 0x80) {
        this.pos = p + 1;
        return result;
      }
      scale *= 128;
    }
    return -1;
  }

  /** int64 as a JS number (exact up to 2^53). */
  int64(): number {
    const v = this.smallVarint();
    return v >= 0 ? v : Number(BigInt.asIntN(64, this.bigVarint()));
  }

  /** uint64 as a JS number (exact up to 2^53). */
  uint64(): number {
    const v = this.smallVarint();
    return v >= 0 ? v : Number(this.bigVarint());
  }

  /** int32 (ten-byte negative encodings included). */
  int32(): number {
    const v = this.smallVarint();
    // ToInt32 keeps the low 32 bits, as BigInt.asIntN(32) does; exact below 2^53.
    return v >= 0 ? v | 0 : Number(BigInt.asIntN(32, this.bigVarint()));
  }

  /** uint32. */
  uint32(): number {
    const v = this.smallVarint();
    return v >= 0 ? v >>> 0 : Number(BigInt.asUintN(32, this.bigVarint()));
  }

  /** sint32/sint64 (zigzag). */
  sint(): number {
    const v = this.smallVarint();
    if (v >= 0) return v % 2 === 1 ? -(v + 1) / 2 : v / 2;
    const z = this.bigVarint();
    return Number(z & 1n ? -((z + 1n) >> 1n) : z >> 1n);
  }

  /** A boolean varint. */
  bool(): boolean {
    const v = this.smallVarint();
    return v >= 0 ? v !== 0 : this.bigVarint() !== 0n;
  }

  private take(n: number): number {
    const at = this.pos;
    if (n < 0 || at + n > this.end) this.fail('truncated field');
    this.pos += n;
    return at;
  }

  private view(n: number): DataView {
    const at = this.take(n);
    return new DataView(this.buf.buffer, this.buf.byteOffset + at, n);
  }

  /** A little-endian double. */
  double(): number {
    return this.view(8).getFloat64(0, true);
  }

  /** A little-endian float. */
  float(): number {
    return this.view(4).getFloat32(0, true);
  }

  /** fixed32 or sfixed32. */
  fixed32(signed: boolean): number {
    const v = this.view(4);
    return signed ? v.getInt32(0, true) : v.getUint32(0, true);
  }

  /** fixed64 or sfixed64 as a JS number (exact up to 2^53). */
  fixed64(signed: boolean): number {
    const v = this.view(8);
    return Number(signed ? v.getBigInt64(0, true) : v.getBigUint64(0, true));
  }

  /** Length-prefixed bytes (a view into the input, not a copy). */
  bytes(): Uint8Array {
    const len = this.varint();
    const at = this.take(len);
    return this.buf.subarray(at, at + len);
  }

  /** Length-prefixed UTF-8 text. */
  string(): string {
    const len = this.varint();
    const at = this.take(len);
    return decodeUtf8(this.buf, at, at + len);
  }

  /** The end offset of a length-prefixed nested message starting here; advances past the prefix. */
  nested(): number {
    const len = this.varint();
    const end = this.pos + len;
    if (end > this.end) this.fail('truncated message');
    return end;
  }

  /** Skips a field of the given wire type (unknown fields are ignored, as protobuf requires). */
  skip(wireType: number): void {
    switch (wireType) {
      case WireType.VARINT:
        if (this.smallVarint() < 0) this.bigVarint();
        return;
      case WireType.I64:
        this.take(8);
        return;
      case WireType.LEN:
        this.take(this.varint());
        return;
      case WireType.I32:
        this.take(4);
        return;
      default:
        this.fail(`unsupported wire type ${wireType}`);
    }
  }
}
