// Reads msgpack one value at a time, so the value codec can decode straight into cty values as
// the type directs, without first building a generic tree of every value. Malformed bytes throw
// a MalformedMsgpack, a CodecError "malformed msgpack: …" (with no path, as a failure to parse the
// whole message).
import { CodecError } from './codec-error';
import { decodeUtf8 } from './utf8';

/** Bytes that are not msgpack at all, as against a well-formed value of the wrong type. */
export class MalformedMsgpack extends CodecError {
  constructor(what: string) {
    super(`malformed msgpack: ${what}`, []);
  }
}

/** An extension value (Terraform's unknowns), its data a view into the input. */
export class MsgpackExt {
  constructor(
    readonly type: number,
    readonly data: Uint8Array,
  ) {}
}

/** What the head byte of a value says it is (plain numbers: the FAMILY table holds them). */
export const Family = { Nil: 0, Bool: 1, Int: 2, Float: 3, Str: 4, Bin: 5, Array: 6, Map: 7, Ext: 8 } as const;
export type Family = (typeof Family)[keyof typeof Family];

/** Family of each head byte (0xc1 is never used: -1). */
const FAMILY: Int8Array = (() => {
  const f = new Int8Array(256);
  for (let b = 0; b < 256; b++) {
    if (b <= 0x7f || b >= 0xe0) f[b] = Family.Int;
    else if (b <= 0x8f) f[b] = Family.Map;
    else if (b <= 0x9f) f[b] = Family.Array;
    else if (b <= 0xbf) f[b] = Family.Str;
    else if (b === 0xc0) f[b] = Family.Nil;
    else if (b === 0xc1) f[b] = -1;
    else if (b <= 0xc3) f[b] = Family.Bool;
    else if (b <= 0xc6) f[b] = Family.Bin;
    else if (b <= 0xc9) f[b] = Family.Ext;
    else if (b <= 0xcb) f[b] = Family.Float;
    else if (b <= 0xd3) f[b] = Family.Int;
    else if (b <= 0xd8) f[b] = Family.Ext;
    else if (b <= 0xdb) f[b] = Family.Str;
    else if (b <= 0xdd) f[b] = Family.Array;
    else f[b] = Family.Map;
  }
  return f;
})();

/** A cursor over msgpack bytes. */
export class MsgpackReader {
  private readonly buf: Buffer;
  pos: number;
  private readonly end: number;

  constructor(bytes: Uint8Array) {
    this.buf = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.pos = 0;
    this.end = this.buf.length;
  }

  /** Throws the malformed-input error. */
  malformed(what: string): never {
    throw new MalformedMsgpack(what);
  }

  /** True when every byte was read. */
  done(): boolean {
    return this.pos === this.end;
  }

  /** Throws unless every byte was read (a value followed by more bytes is malformed). */
  finish(): void {
    if (this.pos !== this.end) this.malformed(`extra ${this.end - this.pos} byte(s) after the value at offset ${this.pos}`);
  }

  private need(n: number): number {
    const at = this.pos;
    if (at + n > this.end) this.malformed(`insufficient data at offset ${at}`);
    this.pos = at + n;
    return at;
  }

  /** Consumes the head byte of the next value. */
  head(): number {
    return this.buf[this.need(1)]!;
  }

  /** The family of a head byte; throws on the unused byte 0xc1. */
  family(head: number): Family {
    const f = FAMILY[head]!;
    if (f < 0) this.malformed(`unrecognized type byte 0x${head.toString(16)}`);
    return f as Family;
  }

  /** The length a str, bin, array, map or ext head announces (reading its length bytes). */
  length(head: number): number {
    if (head >= 0xa0 && head <= 0xbf) return head - 0xa0;
    if ((head >= 0x90 && head <= 0x9f) || (head >= 0x80 && head <= 0x8f)) return head & 0x0f;
    switch (head) {
      case 0xc4:
      case 0xc7:
      case 0xd9:
        return this.buf[this.need(1)]!;
      case 0xc5:
      case 0xc8:
      case 0xda:
      case 0xdc:
      case 0xde:
        return this.buf.readUInt16BE(this.need(2));
      case 0xd4:
        return 1;
      case 0xd5:
        return 2;
      case 0xd6:
        return 4;
      case 0xd7:
        return 8;
      case 0xd8:
        return 16;
      default:
        return this.buf.readUInt32BE(this.need(4));
    }
  }

  /** `n` bytes of UTF-8 as text (invalid sequences become U+FFFD). */
  text(n: number): string {
    const at = this.need(n);
    return decodeUtf8(this.buf, at, at + n);
  }

  /** `n` raw bytes (a view into the input). */
  bytes(n: number): Uint8Array {
    const at = this.need(n);
    return this.buf.subarray(at, at + n);
  }

  /** The integer an Int head starts: a number up to 32 bits, a bigint for (u)int64. */
  int(head: number): number | bigint {
    if (head <= 0x7f) return head;
    if (head >= 0xe0) return head - 0x100;
    const b = this.buf;
    switch (head) {
      case 0xcc:
        return b[this.need(1)]!;
      case 0xcd:
        return b.readUInt16BE(this.need(2));
      case 0xce:
        return b.readUInt32BE(this.need(4));
      case 0xcf:
        return b.readBigUInt64BE(this.need(8));
      case 0xd0:
        return b.readInt8(this.need(1));
      case 0xd1:
        return b.readInt16BE(this.need(2));
      case 0xd2:
        return b.readInt32BE(this.need(4));
      default:
        return b.readBigInt64BE(this.need(8));
    }
  }

  /** The float a Float head starts. */
  float(head: number): number {
    return head === 0xca ? this.buf.readFloatBE(this.need(4)) : this.buf.readDoubleBE(this.need(8));
  }

  /** The extension an Ext head starts. */
  ext(head: number): MsgpackExt {
    const n = this.length(head);
    const type = this.buf.readInt8(this.need(1));
    return new MsgpackExt(type, this.bytes(n));
  }

  /** A map key: text, or a number key as JavaScript writes it (a JS property name, as before). */
  key(): string {
    const head = this.head();
    const f = this.family(head);
    let key: unknown;
    if (f === Family.Str) key = this.text(this.length(head));
    else if (f === Family.Int) key = this.int(head);
    else if (f === Family.Float) key = this.float(head);
    if (typeof key === 'number') return String(key);
    if (typeof key !== 'string') return this.malformed(`a map key must be a string or a number (type byte 0x${head.toString(16)})`);
    if (key === '__proto__') this.malformed('the key __proto__ is not allowed');
    return key;
  }

  /**
   * Any value as plain JS, for the few places with no type to follow (refinements, a dynamic
   * value's type): maps become objects (keys: strings or numbers, never `__proto__`), binary a
   * Uint8Array, 64-bit integers bigints, extensions MsgpackExt.
   */
  any(depth = 0): unknown {
    if (depth > 512) this.malformed('nesting too deep');
    const head = this.head();
    switch (this.family(head)) {
      case Family.Nil:
        return null;
      case Family.Bool:
        return head === 0xc3;
      case Family.Int:
        return this.int(head);
      case Family.Float:
        return this.float(head);
      case Family.Str:
        return this.text(this.length(head));
      case Family.Bin:
        return this.bytes(this.length(head));
      case Family.Ext:
        return this.ext(head);
      case Family.Array: {
        const n = this.length(head);
        const out: unknown[] = [];
        for (let i = 0; i < n; i++) out.push(this.any(depth + 1));
        return out;
      }
      case Family.Map: {
        const n = this.length(head);
        const out: Record<string, unknown> = {};
        for (let i = 0; i < n; i++) {
          const key = this.key();
          out[key] = this.any(depth + 1);
        }
        return out;
      }
    }
  }
}
