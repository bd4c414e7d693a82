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
