// The msgpack bytes the value codec writes, straight into one growable buffer. Formats are chosen
// exactly as @msgpack/msgpack (useBigInt64) chose them before this writer replaced it, so the
// bytes Terraform receives did not change: the smallest fixed form of each header and integer,
// float64 for any other number, bigints as uint64/int64.
import { writeShortAscii } from './utf8';

/** A scratch buffer larger than this is not kept between values (a rare huge state). */
const KEEP_AT_MOST = 1 << 20;

/** Appends msgpack to a growable buffer; `take` copies out the bytes of one value. */
export class MsgpackWriter {
  private buf: Buffer;
  private pos = 0;

  constructor(initialSize = 1024) {
    this.buf = Buffer.allocUnsafe(initialSize);
  }

  /** Starts a new value (the buffer is reused). */
  reset(): void {
    this.pos = 0;
  }

  /** A copy of the bytes written since `reset`, which stays valid after the next value. */
  take(): Uint8Array {
    // From Node's buffer pool: a small value costs a slice of a shared slab, not an ArrayBuffer.
    const out = Buffer.allocUnsafe(this.pos);
    out.set(this.buf.subarray(0, this.pos));
    if (this.buf.length > KEEP_AT_MOST) this.buf = Buffer.allocUnsafe(1024);
    return out;
  }

  private reserve(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.pos + n));
    next.set(this.buf.subarray(0, this.pos));
    this.buf = next;
  }

  /** Raw bytes (e.g. an object key encoded once per type). */
  raw(bytes: Uint8Array): void {
    this.reserve(bytes.length);
    this.buf.set(bytes, this.pos);
    this.pos += bytes.length;
  }

  nil(): void {
    this.reserve(1);
    this.buf[this.pos++] = 0xc0;
  }

  bool(v: boolean): void {
    this.reserve(1);
    this.buf[this.pos++] = v ? 0xc3 : 0xc2;
  }

  /** A JS number: the smallest integer form up to 32 bits, else float64 (as @msgpack/msgpack with useBigInt64). */
  number(v: number): void {
    this.reserve(9);
    const b = this.buf;
    if (Number.isSafeInteger(v) && v < 0x100000000 && v >= -0x80000000) {
      if (v >= 0) {
        if (v < 0x80) b[this.pos++] = v;
        else if (v < 0x100) {
          b[this.pos++] = 0xcc;
          b[this.pos++] = v;
        } else if (v < 0x10000) {
          b[this.pos++] = 0xcd;
          this.pos = b.writeUInt16BE(v, this.pos);
        } else {
          b[this.pos++] = 0xce;
          this.pos = b.writeUInt32BE(v, this.pos);
        }
      } else if (v >= -0x20) b[this.pos++] = 0xe0 | (v + 0x20);
      else if (v >= -0x80) {
        b[this.pos++] = 0xd0;
        this.pos = b.writeInt8(v, this.pos);
      } else if (v >= -0x8000) {
        b[this.pos++] = 0xd1;
        this.pos = b.writeInt16BE(v, this.pos);
      } else {
        b[this.pos++] = 0xd2;
        this.pos = b.writeInt32BE(v, this.pos);
      }
      return;
    }
    b[this.pos++] = 0xcb;
    this.pos = b.writeDoubleBE(v, this.pos);
  }

  /** A 64-bit integer: uint64 when not negative, else int64 (the caller keeps it in range). */
  bigint(v: bigint): void {
    this.reserve(9);
    if (v >= 0n) {
      this.buf[this.pos++] = 0xcf;
      this.pos = this.buf.writeBigUInt64BE(v, this.pos);
    } else {
      this.buf[this.pos++] = 0xd3;
      this.pos = this.buf.writeBigInt64BE(v, this.pos);
    }
  }

  /** A length header with a fixed form below `fixLimit` and 8/16/32-bit forms (codes `c8`, `c16`, `c32`; 0 = none). */
  private header(n: number, fix: number, fixLimit: number, c8: number, c16: number, c32: number): void {
    this.reserve(5);
    const b = this.buf;
    if (n < fixLimit) b[this.pos++] = fix + n;
    else if (c8 !== 0 && n < 0x100) {
      b[this.pos++] = c8;
      b[this.pos++] = n;
    } else if (n < 0x10000) {
      b[this.pos++] = c16;
      this.pos = b.writeUInt16BE(n, this.pos);
    } else {
      b[this.pos++] = c32;
      this.pos = b.writeUInt32BE(n, this.pos);
    }
  }

  arrayHeader(n: number): void {
    this.header(n, 0x90, 16, 0, 0xdc, 0xdd);
  }

  mapHeader(n: number): void {
    this.header(n, 0x80, 16, 0, 0xde, 0xdf);
  }

  /** UTF-8 text; short ASCII (nearly every attribute value) is copied byte by byte, no native call. */
  string(v: string): void {
    this.reserve(1 + v.length);
    const end = writeShortAscii(this.buf, this.pos + 1, v);
    if (end >= 0) {
      this.buf[this.pos] = 0xa0 + v.length; // fixstr: SHORT is 32
      this.pos = end;
      return;
    }
    const len = Buffer.byteLength(v, 'utf8');
    this.header(len, 0xa0, 32, 0xd9, 0xda, 0xdb);
    this.reserve(len);
    this.pos += this.buf.write(v, this.pos, len, 'utf8');
  }

  /** Binary data (bin 8/16/32). */
  binary(v: Uint8Array): void {
    this.header(v.length, 0, 0, 0xc4, 0xc5, 0xc6);
    this.raw(v);
  }

  /** An extension value: fixext 1/2/4/8/16 when the size fits one, else ext 8/16/32. */
  ext(type: number, data: Uint8Array): void {
    this.reserve(6);
    const b = this.buf;
    const size = data.length;
    const fixed = size === 1 ? 0xd4 : size === 2 ? 0xd5 : size === 4 ? 0xd6 : size === 8 ? 0xd7 : size === 16 ? 0xd8 : 0;
    if (fixed !== 0) b[this.pos++] = fixed;
    else this.header(size, 0, 0, 0xc7, 0xc8, 0xc9);
    this.pos = this.buf.writeInt8(type, this.pos);
    this.raw(data);
  }
}
