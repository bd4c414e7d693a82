// The msgpack codec reads and writes bytes itself, with per-object-type plans; this checks it
// against the codec it replaced (msgpack-reference.ts, over @msgpack/msgpack): the same bytes
// for every value, the same values for every encoding, and the same refusals, for random types
// with nested objects, optional attributes, sets, maps, tuples, dynamic values, big and decimal
// numbers, unknowns and refinements.
import { encode as rawEncode, ExtData } from '@msgpack/msgpack';
import fc from 'fast-check';
import { decodeMsgpack, encodeMsgpack } from '../../src/protocol/codec';
import { CtyBigNumber, CtyDynamic, Types, UNKNOWN, Unknown, type CtyType, type CtyValue, type Refinements } from '../../src/protocol/cty';
import { MsgpackExt, MsgpackReader } from '../../src/protocol/msgpack-reader';
import { referenceDecodeMsgpack, referenceEncodeMsgpack } from './msgpack-reference';

const RUNS = 400;

const primitive: fc.Arbitrary<CtyType> = fc.constantFrom(Types.string, Types.number, Types.bool);
const attrName = fc.oneof(fc.stringMatching(/^[a-z][a-z0-9_]{0,8}$/), fc.constantFrom('__proto__', 'é', '1', 'Z'));

const ctyType: fc.Arbitrary<CtyType> = fc.letrec<{ t: CtyType }>((tie) => ({
  t: fc.oneof(
    { maxDepth: 3, depthIdentifier: 'type' },
    primitive,
    fc.constant(Types.dynamic),
    tie('t').map((e) => Types.list(e)),
    primitive.map((e) => Types.set(e)),
    tie('t').map((e) => Types.map(e)),
    fc
      .tuple(fc.dictionary(attrName, tie('t'), { maxKeys: 5 }), fc.boolean())
      .map(([attrs, withOptional]) => Types.object(attrs, withOptional ? Object.keys(attrs).slice(0, 2) : undefined)),
    fc.array(tie('t'), { maxLength: 3 }).map((els) => Types.tuple(els)),
  ),
})).t;

/** Every number form: small and 32-bit boundaries, beyond 2^53, int64/uint64 edges, decimals. */
const number: fc.Arbitrary<CtyValue> = fc.oneof(
  fc.integer(),
  fc.constantFrom(0, -0.5, 127, 128, 255, 256, 65535, 65536, -32, -33, -128, -129, -32768, -32769, 2 ** 31 - 1, 2 ** 31, -(2 ** 31), -(2 ** 31) - 1),
  fc.constantFrom(2 ** 32, 2 ** 53 - 1, -(2 ** 53) + 1, 2 ** 63, 1e300, -1e-300, Number.MAX_VALUE),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((d) => (Object.is(d, -0) ? 0 : d)),
  fc
    .constantFrom('0.1', '18446744073709551615', '-9223372036854775808', '18446744073709551616', '1e400', '123456789012345678901234567890.5')
    .map((s) => CtyBigNumber.parse(s)),
);

const refinements = (t: CtyType): fc.Arbitrary<Refinements> => {
  const fields: Record<string, fc.Arbitrary<unknown>> = { nullness: fc.constantFrom('not-null', 'null') };
  if (t.kind === 'string') fields.stringPrefix = fc.string({ maxLength: 40 });
  if (t.kind === 'number') {
    fields.numberLowerBound = fc.tuple(number, fc.boolean());
    fields.numberUpperBound = fc.tuple(number, fc.boolean());
  }
  if (t.kind === 'list' || t.kind === 'set' || t.kind === 'map') {
    fields.lengthLowerBound = fc.nat(70000);
    fields.lengthUpperBound = fc.nat(70000);
  }
  return fc.record(fields, { requiredKeys: [] }) as fc.Arbitrary<Refinements>;
};

function value(t: CtyType, depth = 0): fc.Arbitrary<CtyValue> {
  const maybe = (a: fc.Arbitrary<CtyValue>): fc.Arbitrary<CtyValue> =>
    fc.oneof(
      a,
      a,
      a,
      fc.constant(null),
      fc.constant(UNKNOWN),
      refinements(t).map((r) => new Unknown(r)),
    );
  switch (t.kind) {
    case 'string':
      return maybe(fc.oneof(fc.string({ unit: 'grapheme', maxLength: 40 }), fc.string({ maxLength: 300 })));
    case 'number':
      return maybe(number);
    case 'bool':
      return maybe(fc.boolean());
    case 'dynamic':
      return depth > 2
        ? fc.constant(null)
        : maybe(ctyType.filter((c) => c.kind !== 'dynamic').chain((c) => value(c, depth + 1).map((v) => new CtyDynamic(c, v))));
    case 'list':
    case 'set':
      return maybe(fc.array(value(t.element, depth + 1), { maxLength: 20 }));
    case 'map':
      return maybe(fc.dictionary(attrName, value(t.element, depth + 1), { maxKeys: 4 }));
    case 'tuple':
      return maybe(fc.tuple(...t.elements.map((e) => value(e, depth + 1))));
    case 'object': {
      const entries = Object.entries(t.attributes).map(([k, a]) => fc.tuple(fc.constant(k), value(a, depth + 1), fc.boolean()));
      // Optional attributes may be left out altogether.
      const optional = new Set(t.optional ?? []);
      return maybe(
        fc.tuple(...entries).map((pairs) => {
          const out: Record<string, CtyValue> = {};
          for (const [k, v, omit] of pairs)
            if (!(omit && optional.has(k))) Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
          return out;
        }),
      );
    }
  }
}

const typed = ctyType.chain((t) => value(t).map((v) => ({ t, v })));

/** The outcome of a call: its value, or the class and message of what it threw. */
function outcome<T>(f: () => T): { ok: T } | { threw: string } {
  try {
    return { ok: f() };
  } catch (err) {
    return { threw: `${(err as Error).name}: ${(err as Error).message}` };
  }
}

/**
 * Whether two decoders agree: the same value, or both a CodecError (the same message, but for
 * malformed input, which the old parser worded its own way).
 */
function sameOutcome(mine: () => CtyValue, before: () => CtyValue): boolean {
  const a = outcome(mine);
  const b = outcome(before);
  if ('ok' in a && 'ok' in b) {
    expect(a.ok).toEqual(b.ok);
    return true;
  }
  if ('threw' in a && 'threw' in b) {
    expect(a.threw).toMatch(/^CodecError: /);
    expect(b.threw).toMatch(/^CodecError: /);
    if (!/malformed msgpack/.test(b.threw)) expect(a.threw).toBe(b.threw);
    else expect(a.threw).toMatch(/malformed msgpack/);
    return true;
  }
  return false;
}

/**
 * Whether some string or key in `input`, read as msgpack, is not valid UTF-8; extensions (an
 * unknown value's refinements) are read as msgpack too.
 */
function holdsInvalidUtf8(input: Uint8Array): boolean {
  const invalid = (v: unknown): boolean => {
    if (typeof v === 'string') return v.includes('\uFFFD');
    if (v instanceof MsgpackExt) return holdsInvalidUtf8(v.data);
    if (Array.isArray(v)) return v.some(invalid);
    if (v === null || typeof v !== 'object' || v instanceof Uint8Array) return false;
    return Object.entries(v).some(([key, e]) => key.includes('\uFFFD') || invalid(e));
  };
  try {
    return invalid(new MsgpackReader(input).any());
  } catch {
    return false;
  }
}

describe('msgpack codec against the codec it replaced', () => {
  it('writes the same bytes and refuses the same values', () => {
    fc.assert(
      fc.property(typed, ({ t, v }) => {
        const mine = outcome(() => Buffer.from(encodeMsgpack(v, t)).toString('hex'));
        const before = outcome(() => Buffer.from(referenceEncodeMsgpack(v, t)).toString('hex'));
        expect(mine).toEqual(before);
      }),
      { numRuns: RUNS },
    );
  });

  it('reads the same values from what either wrote', () => {
    fc.assert(
      fc.property(typed, ({ t, v }) => {
        for (const encode of [referenceEncodeMsgpack, encodeMsgpack]) {
          let bytes: Uint8Array;
          try {
            bytes = encode(v, t);
          } catch {
            return; // a value the type refuses: covered above
          }
          expect(
            sameOutcome(
              () => decodeMsgpack(bytes, t),
              () => referenceDecodeMsgpack(bytes, t),
            ),
          ).toBe(true);
        }
      }),
      { numRuns: RUNS },
    );
  });

  it('reads every wire form another encoder may choose (keys in any order, bin strings, float32, str8, 64-bit integers, optional attributes left out)', () => {
    const t = Types.object({ b: Types.string, a: Types.number, c: Types.list(Types.number), m: Types.map(Types.bool) });
    // fixmap 4: c (fixarray: float32 1.5, int8 -100), a (uint16 300), b (bin8 "hi"), m (map16 {1: true})
    const mixed = Buffer.from('84a16392ca3fc00000d09ca161cd012ca162c4026869a16dde000101c3', 'hex');
    expect(decodeMsgpack(mixed, t)).toEqual({ a: 300, b: 'hi', c: [1.5, -100], m: { 1: true } });
    expect(decodeMsgpack(mixed, t)).toEqual(referenceDecodeMsgpack(mixed, t));
    // str8 for a short key and value, uint64 and int64 numbers
    const wide = Buffer.from('84d90161cf0000000100000000a162d9026869a16392d3fffffffffffffffe01a16dc0', 'hex');
    expect(decodeMsgpack(wide, t)).toEqual({ a: 2 ** 32, b: 'hi', c: [-2, 1], m: null });
    expect(decodeMsgpack(wide, t)).toEqual(referenceDecodeMsgpack(wide, t));
    // An optional attribute of a type constraint may be left out: it reads as null.
    const withOptional = Types.object({ a: Types.string, o: Types.number, p: Types.object({ q: Types.bool }, ['q']) }, ['o']);
    const partial = rawEncode({ a: 'x', p: {} });
    expect(decodeMsgpack(partial, withOptional)).toEqual({ a: 'x', o: null, p: { q: null } });
    expect(decodeMsgpack(partial, withOptional)).toEqual(referenceDecodeMsgpack(partial, withOptional));
  });

  it('refuses what the codec it replaced refused, always with a CodecError', () => {
    const t = Types.object({ a: Types.string, n: Types.number, d: Types.dynamic, u: Types.list(Types.string) });
    const cases: unknown[] = [
      { a: 1, n: 1, d: null, u: null }, // wrong primitive
      { a: 'x', n: 'twelve', d: null, u: null }, // not a decimal
      { a: 'x', n: 1, d: ['"nope"', 1], u: null }, // bad dynamic type
      { a: 'x', n: 1, d: ['"string"'], u: null }, // dynamic not a pair
      { a: 'x', n: 1, d: null, u: 'x' }, // not a list
      { a: 'x', n: 1, d: null }, // missing attribute
      { a: 'x', n: 1, d: null, u: null, z: 1 }, // unknown attribute
      // An unknown attribute after a wrong value: the names are checked first (found by the
      // property below, with damaged bytes that made a dynamic value wrong and a name unknown).
      { a: 1, n: 1, d: null, u: null, z: 1 },
      { a: 'x', n: 1, d: ['"string"'], u: [2], z: 1 },
      { a: new ExtData(5, Uint8Array.of(1, 2)), n: 1, d: null, u: null }, // unsupported extension
      { a: 'x', n: new ExtData(12, Uint8Array.of(0x81, 0x03, 0x92, 0xa1, 0x78, 0xc3)), d: null, u: null }, // bad bound
      { a: 'x', n: new ExtData(12, Uint8Array.of(0x81, 0x03)), d: null, u: null }, // truncated refinements
      [1, 2], // not an object
    ];
    for (const raw of cases) {
      const bytes = rawEncode(raw, { useBigInt64: true });
      const before = outcome(() => referenceDecodeMsgpack(bytes, t));
      expect(before).toHaveProperty('threw');
      expect(outcome(() => decodeMsgpack(bytes, t))).toEqual(before);
    }
    for (const hex of ['', 'c1', '84', '84a161', '84a161a178a16e01a164c0a175c0ff', 'd9', '81a9__proto__c0']) {
      expect(() => decodeMsgpack(Buffer.from(hex, 'hex'), t)).toThrow(/malformed msgpack/);
      expect(() => referenceDecodeMsgpack(Buffer.from(hex, 'hex'), t)).toThrow(/malformed msgpack/);
    }
  });

  it('answers a damaged map or object as the old codec did: a repeated key replaces, integer-like keys first, names before values', () => {
    // Hand-made: a JavaScript object could not hold these in this order (the old codec parsed
    // into one first, which is why it answered as it did).
    const str = (text: string): string => Buffer.concat([Buffer.of(0xa0 | text.length), Buffer.from(text)]).toString('hex');
    const cases: Array<[string, CtyType]> = [
      // Two wrong values: the old codec met the integer-like key first.
      [`82${str('a')}${str('x')}${str('5')}${str('y')}`, Types.map(Types.number)],
      // A wrong value replaced by a later one for the same key: no error at all.
      [`82${str('a')}${str('x')}${str('a')}01`, Types.map(Types.number)],
      [`82${str('a')}${str('x')}${str('a')}01`, Types.object({ a: Types.number })],
      // A wrong value before an unsupported name, and before a missing attribute.
      [`82${str('a')}${str('x')}${str('z')}01`, Types.object({ a: Types.number })],
      [`81${str('b')}${str('x')}`, Types.object({ a: Types.number, b: Types.number })],
      // A float key, which a JavaScript object turns into text.
      ['81ca3fc00000c3', Types.map(Types.bool)],
    ];
    for (const [hex, t] of cases) {
      const bytes = Buffer.from(hex, 'hex');
      expect(outcome(() => decodeMsgpack(bytes, t))).toEqual(outcome(() => referenceDecodeMsgpack(bytes, t)));
    }
    expect(decodeMsgpack(Buffer.from(cases[1]![0], 'hex'), Types.map(Types.number))).toEqual({ a: 1 });
    expect(outcome(() => decodeMsgpack(Buffer.from(cases[0]![0], 'hex'), Types.map(Types.number)))).toEqual({
      threw: 'CodecError: at ["5"]: number is required',
    });
  });

  it('answers a wrong value deep in maps and objects once: each level up does not decode it again', () => {
    // Each enclosing map or object decodes its entries a second time when one fails: without the
    // failure remembered, 60 levels would take 2^60 decodes of the bottom value.
    let t: CtyType = Types.object({ a: Types.number });
    let raw: unknown = { a: 'x' };
    for (let i = 0; i < 60; i++) {
      t = i % 2 === 0 ? Types.object({ o: t, p: Types.string }) : Types.map(t);
      raw = i % 2 === 0 ? { o: raw, p: 'y' } : { k: raw };
    }
    const bytes = rawEncode(raw);
    const mine = outcome(() => decodeMsgpack(bytes, t));
    expect(mine).toEqual(outcome(() => referenceDecodeMsgpack(bytes, t)));
    expect(mine).toEqual({ threw: expect.stringMatching(/^CodecError: at .*\.a: number is required$/) });
  });

  it('fails only with a CodecError on random or damaged bytes, and agrees with the old codec whenever that one reads them', () => {
    fc.assert(
      fc.property(typed, fc.uint8Array({ maxLength: 64 }), fc.nat(), fc.nat(), ({ t, v }, noise, cut, flip) => {
        let bytes: Uint8Array;
        try {
          bytes = encodeMsgpack(v, t);
        } catch {
          return;
        }
        const damaged = Uint8Array.from(bytes);
        if (damaged.length > 0) damaged[flip % damaged.length] ^= 0xff & (flip >> 3 || 1);
        for (const input of [noise, bytes.subarray(0, cut % (bytes.length + 1)), damaged]) {
          const mine = outcome(() => decodeMsgpack(input, t));
          if ('threw' in mine) expect(mine.threw).toMatch(/^CodecError: /);
          // Invalid UTF-8 in a string: the old parser kept stray bytes as Latin-1 characters (or
          // took the next byte with them), the codec now replaces them with U+FFFD (as every
          // standard UTF-8 decoder does); also when the string then fails as a value (a number's
          // decimal text, say).
          if (JSON.stringify(mine).includes('\uFFFD') || holdsInvalidUtf8(input)) continue;
          // The old parser turned msgpack timestamps (ext -1) into Dates; skip those inputs.
          if (Buffer.from(input).includes(0xff)) continue;
          expect(
            sameOutcome(
              () => decodeMsgpack(input, t),
              () => referenceDecodeMsgpack(input, t),
            ),
          ).toBe(true);
        }
      }),
      { numRuns: RUNS },
    );
  });
});
