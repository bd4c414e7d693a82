// The protobuf Reader's scalar readers: small varints take a number-only path, longer ones the
// bigint path; both must give what the protobuf encoding means, at every length boundary.
import { Reader, Writer } from '../../src/protocol/wire';

/** Every varint length from 1 to 10 bytes, at both ends of each length. */
const BOUNDARIES: bigint[] = [0n, 1n];
for (let bits = 7n; bits <= 63n; bits += 7n) BOUNDARIES.push((1n << bits) - 1n, 1n << bits);
BOUNDARIES.push(2n ** 64n - 1n, 2n ** 63n, 2n ** 53n - 1n, 2n ** 53n + 1n, 2n ** 32n + 5n, 2n ** 31n);

const varintOf = (v: bigint): Buffer => new Writer().bigVarint(v).finish();

describe('Reader scalars', () => {
  it.each(BOUNDARIES.map((v) => [v]))('read the varint %s as protobuf defines each type', (v) => {
    const bytes = varintOf(v);
    const read = <T>(f: (r: Reader) => T): T => {
      const r = new Reader(bytes);
      const out = f(r);
      expect(r.pos).toBe(bytes.length);
      return out;
    };
    expect(read((r) => r.bigVarint())).toBe(v);
    expect(read((r) => r.uint64())).toBe(Number(v));
    expect(read((r) => r.int64())).toBe(Number(BigInt.asIntN(64, v)));
    expect(read((r) => r.int32())).toBe(Number(BigInt.asIntN(32, v)));
    expect(read((r) => r.uint32())).toBe(Number(BigInt.asUintN(32, v)));
    expect(read((r) => r.bool())).toBe(v !== 0n);
    expect(read((r) => r.sint())).toBe(Number(v & 1n ? -((v + 1n) >> 1n) : v >> 1n));
    read((r) => r.skip(0));
  });

  it('reads negative int32 and int64 (ten bytes) and zigzag values', () => {
    const w = new Writer()
      .int32(-1)
      .int64(-5)
      .int32(-(2 ** 31))
      .sint(-3)
      .sint(4)
      .sint(-(2 ** 40));
    const r = new Reader(w.finish());
    expect([r.int32(), r.int64(), r.int32(), r.sint(), r.sint(), r.sint()]).toEqual([-1, -5, -(2 ** 31), -3, 4, -(2 ** 40)]);
  });

  it('reads only up to its end, and says when a varint is truncated or too long', () => {
    const bytes = varintOf(300n); // two bytes
    expect(() => new Reader(bytes, 0, 1).int64()).toThrow(/truncated varint/);
    expect(() => new Reader(bytes, 0, 1).bool()).toThrow(/truncated varint/);
    expect(() => new Reader(bytes, 0, 1).skip(0)).toThrow(/truncated varint/);
    const eleven = Buffer.alloc(11, 0x80);
    expect(() => new Reader(eleven).uint32()).toThrow(/varint too long/);
    expect(() => new Reader(eleven).skip(0)).toThrow(/varint too long/);
  });
});

describe('Writer', () => {
  /** What message() wrote before it wrote in place: the child in a writer of its own, then copied. */
  const viaChild = (write: (w: Writer) => void): Buffer => {
    const child = new Writer(64);
    write(child);
    return new Writer().tag(1, 2).bytes(child.finish()).finish();
  };

  it.each([0, 1, 126, 127, 128, 129, 16383, 16384, 2 ** 21 - 1, 2 ** 21 + 3])('writes a nested message of %i bytes in place, length first', (size) => {
    const fill = (w: Writer): void => {
      // pieces of up to 1000 bytes, so the content crosses several growths of the buffer
      for (let left = size; left > 0; left -= Math.min(left, 1000)) w.tag(2, 2).bytes(Buffer.alloc(Math.max(0, Math.min(left, 1000) - 3), left & 0xff));
    };
    const sizeOf = (() => {
      const w = new Writer();
      fill(w);
      return w.finish().length;
    })();
    const out = new Writer(4).tag(1, 2).message(fill).string('after').finish();
    expect(out.equals(Buffer.concat([viaChild(fill), new Writer().string('after').finish()]))).toBe(true);
    const r = new Reader(out);
    r.varint();
    const end = r.nested();
    expect(end - r.pos).toBe(sizeOf);
    r.pos = end;
    expect(r.string()).toBe('after');
  });

  it('nests messages inside messages', () => {
    const inner = (w: Writer): void => {
      w.tag(1, 2).string('x'.repeat(200));
    };
    const innerBytes = new Writer().tag(1, 2).string('x'.repeat(200)).finish();
    const outer = (w: Writer): void => {
      w.tag(2, 2).message(inner).tag(3, 2).message(inner);
    };
    const expected = viaChild((w) => w.tag(2, 2).bytes(innerBytes).tag(3, 2).bytes(innerBytes));
    expect(new Writer(1).tag(1, 2).message(outer).finish()).toEqual(expected);
  });

  it.each(['', 'a', 'ip 10.0.0.1', 'x'.repeat(31), 'x'.repeat(32), 'x'.repeat(200), 'é', 'ab€', '😀', 'a\u0000b'])(
    'writes and reads the text %j as UTF-8',
    (s) => {
      const bytes = new Writer().string(s).finish();
      expect(bytes).toEqual(Buffer.concat([new Writer().uint32(Buffer.byteLength(s)).finish(), Buffer.from(s, 'utf8')]));
      expect(new Reader(bytes).string()).toBe(s);
    },
  );

  it('reads invalid UTF-8 as U+FFFD, short or long', () => {
    for (const n of [3, 40]) {
      const raw = Buffer.concat([Buffer.alloc(n - 1, 0x61), Buffer.from([0xff])]);
      expect(new Reader(new Writer().bytes(raw).finish()).string()).toBe(`${'a'.repeat(n - 1)}\uFFFD`);
    }
  });
});
