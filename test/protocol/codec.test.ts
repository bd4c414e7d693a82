import { encode as rawEncode, ExtData } from '@msgpack/msgpack';
import { CodecError, decodeDynamicValue, decodeJsonValue, decodeMsgpack, encodeDynamicValue, encodeJsonValue, encodeMsgpack } from '../../src/protocol/codec';
import { CtyBigNumber, CtyDynamic, Types, UNKNOWN, Unknown, ctyEqual, isUnknown, isWhollyKnown, type CtyType, type CtyValue } from '../../src/protocol/cty';

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
const fromHex = (h: string): Uint8Array => Uint8Array.from(Buffer.from(h.replace(/\s+/g, ''), 'hex'));

const ENTRY = Types.object({ ip: Types.string, label: Types.string });
const EVERYTHING = Types.object({
  s: Types.string,
  n: Types.number,
  b: Types.bool,
  l: Types.list(Types.string),
  st: Types.set(ENTRY),
  m: Types.map(Types.number),
  t: Types.tuple([Types.string, Types.bool]),
  d: Types.dynamic,
  o: Types.object({ inner: Types.list(Types.number) }),
});
const everything = (): { [key: string]: CtyValue } => ({
  s: 'hello ✓',
  n: 42,
  b: true,
  l: ['a', 'b'],
  st: [
    { ip: '203.0.113.7', label: 'office' },
    { ip: '198.51.100.1', label: 'home' },
  ],
  m: { a: 1.5, b: -7 },
  t: ['x', false],
  d: new CtyDynamic(Types.list(Types.string), ['dyn']),
  o: { inner: [1, 2, 3] },
});

describe('msgpack round trips', () => {
  it('round-trips every kind of value, object and collection', () => {
    const v = everything();
    const back = decodeMsgpack(encodeMsgpack(v, EVERYTHING), EVERYTHING);
    expect(back).toEqual(v);
    expect(ctyEqual(back, v, EVERYTHING)).toBe(true);
  });

  it('decodes msgpack written by another encoder (object keys in any order)', () => {
    const bytes = rawEncode({ label: 'office', ip: '203.0.113.7' });
    expect(decodeMsgpack(bytes, ENTRY)).toEqual({ ip: '203.0.113.7', label: 'office' });
  });

  it('keeps null and unknown apart at every level', () => {
    const t = Types.object({
      a: Types.string,
      l: Types.list(Types.string),
      m: Types.map(Types.string),
      o: Types.object({ x: Types.number }),
      d: Types.dynamic,
    });
    const cases: CtyValue[] = [
      null,
      UNKNOWN,
      { a: null, l: null, m: null, o: null, d: null },
      { a: UNKNOWN, l: UNKNOWN, m: UNKNOWN, o: UNKNOWN, d: UNKNOWN },
      { a: 'x', l: [null, UNKNOWN, 'z'], m: { k: null, u: UNKNOWN }, o: { x: UNKNOWN }, d: UNKNOWN },
      { a: 'x', l: [], m: {}, o: { x: null }, d: new CtyDynamic(Types.string, null) },
      { a: 'x', l: [], m: {}, o: { x: null }, d: new CtyDynamic(Types.string, UNKNOWN) },
    ];
    for (const v of cases) {
      const back = decodeMsgpack(encodeMsgpack(v, t), t);
      expect(back).toEqual(v);
      expect(ctyEqual(back, v, t)).toBe(true);
    }
    expect(ctyEqual(null, UNKNOWN, t)).toBe(false);
    expect(hex(encodeMsgpack(null, t))).toBe('c0');
    // go-cty writes a wholly unknown value as fixext1 type 0 with one zero byte.
    expect(hex(encodeMsgpack(UNKNOWN, t))).toBe('d40000');
    expect(isUnknown(decodeMsgpack(fromHex('d40000'), Types.string))).toBe(true);
    expect(isUnknown(decodeMsgpack(fromHex('c70000'), Types.string))).toBe(true); // zero-length ext
  });

  it('preserves refined unknowns byte for byte', () => {
    // unknown string, definitely not null, prefix "pre": fixext8 type 12, map {1: false, 2: "pre"}
    const str = fromHex('d7 0c 82 01 c2 02 a3 707265');
    expect(decodeMsgpack(fromHex('c7 08 0c 82 01 c2 02 a3 707265'), Types.string)).toEqual(decodeMsgpack(str, Types.string));
    const u = decodeMsgpack(str, Types.string);
    expect(u).toBeInstanceOf(Unknown);
    expect((u as Unknown).refinements).toEqual({ nullness: 'not-null', stringPrefix: 'pre' });
    expect(hex(encodeMsgpack(u, Types.string))).toBe(hex(str));

    // unknown number within [1, 10): {3: [1, true], 4: [10, false]}
    const num = fromHex('c7 09 0c 82 03 92 01 c3 04 92 0a c2');
    const n = decodeMsgpack(num, Types.number) as Unknown;
    expect(n.refinements).toEqual({ numberLowerBound: [1, true], numberUpperBound: [10, false] });
    expect(hex(encodeMsgpack(n, Types.number))).toBe(hex(num));

    // unknown list of at least 1 and at most 3 elements, not null: {1: false, 5: 1, 6: 3}
    const list = fromHex('c7 07 0c 83 01 c2 05 01 06 03');
    const l = decodeMsgpack(list, Types.list(Types.string)) as Unknown;
    expect(l.refinements).toEqual({ nullness: 'not-null', lengthLowerBound: 1, lengthUpperBound: 3 });
    expect(hex(encodeMsgpack(l, Types.list(Types.string)))).toBe(hex(list));

    // refinements survive inside an object too, and differ from an unrefined unknown
    const t = Types.object({ id: Types.string });
    const inObject = decodeMsgpack(encodeMsgpack({ id: u }, t), t) as { id: CtyValue };
    expect(inObject.id).toEqual(u);
    expect(ctyEqual(inObject.id, UNKNOWN, Types.string)).toBe(false);
    expect(ctyEqual(inObject.id, u, Types.string)).toBe(true);
  });

  it('ignores refinements of dynamic unknowns and rejects ones that do not fit the type', () => {
    const str = fromHex('d7 0c 82 01 c2 02 a3 707265');
    expect(decodeMsgpack(str, Types.dynamic)).toBe(UNKNOWN);
    expect(() => decodeMsgpack(str, Types.number)).toThrow(CodecError);
    expect(() => encodeMsgpack(new Unknown({ stringPrefix: 'x' }), Types.number)).toThrow(/string prefix/);
    expect(hex(encodeMsgpack(new Unknown({ nullness: 'not-null' }), Types.dynamic))).toBe('d40000');
  });

  it('tells sets from lists only by the type it is given', () => {
    const bytes = encodeMsgpack(['b', 'a'], Types.list(Types.string));
    expect(hex(encodeMsgpack(['b', 'a'], Types.set(Types.string)))).toBe(hex(bytes));
    expect(decodeMsgpack(bytes, Types.set(Types.string))).toEqual(['b', 'a']);
    expect(ctyEqual(['b', 'a'], ['a', 'b'], Types.set(Types.string))).toBe(true);
    expect(ctyEqual(['b', 'a'], ['a', 'b'], Types.list(Types.string))).toBe(false);
    expect(ctyEqual(['a', 'a'], ['a', 'b'], Types.set(Types.string))).toBe(false);
    const entries = Types.set(ENTRY);
    expect(
      ctyEqual(
        [
          { ip: '1', label: 'x' },
          { ip: '2', label: 'y' },
        ],
        [
          { ip: '2', label: 'y' },
          { ip: '1', label: 'x' },
        ],
        entries,
      ),
    ).toBe(true);
  });

  it('decodes numbers from every wire form and writes them back as go-cty would', () => {
    expect(decodeMsgpack(fromHex('2a'), Types.number)).toBe(42);
    expect(decodeMsgpack(fromHex('d0 85'), Types.number)).toBe(-123);
    expect(decodeMsgpack(fromHex('cb 3ff8000000000000'), Types.number)).toBe(1.5);
    // int64 and uint64 beyond 2^53 keep every digit
    const u64max = decodeMsgpack(fromHex('cf ffffffffffffffff'), Types.number);
    expect(u64max).toEqual(CtyBigNumber.parse('18446744073709551615'));
    expect(hex(encodeMsgpack(u64max, Types.number))).toBe('cfffffffffffffffff');
    const i64min = decodeMsgpack(fromHex('d3 8000000000000000'), Types.number);
    expect((i64min as CtyBigNumber).toBigInt()).toBe(-(2n ** 63n));
    expect(hex(encodeMsgpack(i64min, Types.number))).toBe('d38000000000000000');
    expect(decodeMsgpack(fromHex('d3 0000000000000005'), Types.number)).toBe(5);
    // a decimal that no float64 holds arrives as text and must leave as the same text
    const tenth = decodeMsgpack(fromHex('a3 302e31'), Types.number);
    expect(tenth).toBeInstanceOf(CtyBigNumber);
    expect(String(tenth)).toBe('0.1');
    expect(hex(encodeMsgpack(tenth, Types.number))).toBe('a3302e31');
    expect(ctyEqual(tenth, 0.1, Types.number)).toBe(false);
    // decimal text that a float64 holds exactly becomes a plain number
    expect(decodeMsgpack(fromHex('a3 302e35'), Types.number)).toBe(0.5);
    expect(decodeMsgpack(rawEncode('12345678901234567890123'), Types.number)).toEqual(CtyBigNumber.parse('12345678901234567890123'));
    // large safe integers go out as int64, not float64
    expect(hex(encodeMsgpack(2 ** 40, Types.number))).toBe('cf0000010000000000');
    expect(hex(encodeMsgpack(1.5, Types.number))).toBe('cb3ff8000000000000');
    expect(ctyEqual(CtyBigNumber.parse('1.50'), 1.5, Types.number)).toBe(true);
    expect(() => encodeMsgpack(NaN, Types.number)).toThrow(CodecError);
    expect(() => decodeMsgpack(rawEncode('abc'), Types.number)).toThrow(/number is required/);
  });

  it('round-trips dynamic values with their type as [type JSON, value]', () => {
    const v = new CtyDynamic(Types.object({ a: Types.number }), { a: 3 });
    const bytes = encodeMsgpack(v, Types.dynamic);
    const raw = rawEncode([Buffer.from('["object",{"a":"number"}]'), { a: 3 }]);
    expect(hex(bytes)).toBe(hex(raw));
    expect(decodeMsgpack(bytes, Types.dynamic)).toEqual(v);
    // the type may also arrive as a msgpack string
    expect(decodeMsgpack(rawEncode(['"string"', 'x']), Types.dynamic)).toEqual(new CtyDynamic(Types.string, 'x'));
    expect(() => encodeMsgpack('bare', Types.dynamic)).toThrow(/CtyDynamic/);
  });

  it('reports missing and unexpected attributes with their path', () => {
    const t = Types.object({ entries: Types.list(ENTRY) });
    const bytes = rawEncode({ entries: [{ ip: '1.2.3.4', label: 'a' }, { ip: '5.6.7.8' }] });
    let err: unknown;
    try {
      decodeMsgpack(bytes, t);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(CodecError);
    expect((err as CodecError).path).toEqual([{ attributeName: 'entries' }, { elementKeyInt: 1 }, { attributeName: 'label' }]);
    expect((err as CodecError).message).toMatch(/^at entries\[1\]\.label: attribute is missing/);

    expect(() => decodeMsgpack(rawEncode({ ip: 'x', label: 'y', extra: 1 }), ENTRY)).toThrow(/unsupported attribute "extra"/);
    expect(() => encodeMsgpack({ ip: 'x' }, ENTRY)).toThrow(/at label: attribute is missing/);
    const m = Types.map(Types.number);
    try {
      decodeMsgpack(rawEncode({ k: 'nope' }), m);
    } catch (e) {
      expect((e as CodecError).path).toEqual([{ elementKeyString: 'k' }]);
    }
    expect.assertions(6);
  });

  it('treats optional attributes of a type constraint as null when absent', () => {
    const t = Types.object({ a: Types.string, b: Types.number }, ['b']);
    expect(decodeMsgpack(rawEncode({ a: 'x' }), t)).toEqual({ a: 'x', b: null });
    expect(decodeMsgpack(encodeMsgpack({ a: 'x' }, t), t)).toEqual({ a: 'x', b: null });
  });

  it('rejects wrong shapes and unsupported extensions', () => {
    expect(() => decodeMsgpack(rawEncode(1), Types.string)).toThrow(/string is required/);
    expect(() => decodeMsgpack(rawEncode(['a']), Types.tuple([Types.string, Types.string]))).toThrow(/tuple/);
    expect(() => decodeMsgpack(rawEncode(new ExtData(5, Uint8Array.of(1, 2))), Types.string)).toThrow(/extension type 5/);
    expect(() => decodeMsgpack(fromHex('c1'), Types.string)).toThrow(/malformed msgpack/);
  });
});

describe('JSON', () => {
  it('decodes stored state: missing attributes are null, numbers keep full precision', () => {
    const t = Types.object({
      id: Types.string,
      total_limit: Types.number,
      ratio: Types.number,
      big: Types.number,
      active: Types.bool,
      entries: Types.set(ENTRY),
      tags: Types.map(Types.string),
      added_later: Types.string,
    });
    const state =
      '{"id":"u1","total_limit":0,"ratio":0.1,"big":123456789012345678901,"active":true,' +
      '"entries":[{"ip":"203.0.113.7","label":"office"}],"tags":{"__proto__":"x"}}';
    const v = decodeJsonValue(Buffer.from(state), t) as { [k: string]: CtyValue };
    expect(v.id).toBe('u1');
    expect(v.total_limit).toBe(0);
    expect(v.ratio).toEqual(CtyBigNumber.parse('0.1'));
    expect(v.big).toEqual(CtyBigNumber.parse('123456789012345678901'));
    expect(v.added_later).toBeNull();
    expect(Object.keys(v.tags as object)).toEqual(['__proto__']);
    expect(isWhollyKnown(v)).toBe(true);
    // and back: JSON then msgpack keep 0.1 as decimal text
    expect(String(decodeJsonValue(encodeJsonValue(v, t), t) && (v.ratio as CtyBigNumber))).toBe('0.1');
    expect(hex(encodeMsgpack(v.ratio!, Types.number))).toBe('a3302e31');
    expect(ctyEqual(decodeJsonValue(encodeJsonValue(v, t), t), v, t)).toBe(true);
  });

  it('fails on attributes the type does not know unless asked to ignore them', () => {
    const json = '{"ip":"1.2.3.4","label":"a","removed":true}';
    expect(() => decodeJsonValue(json, ENTRY)).toThrow(/unsupported attribute "removed"/);
    expect(decodeJsonValue(json, ENTRY, { ignoreUndefinedAttributes: true })).toEqual({ ip: '1.2.3.4', label: 'a' });
  });

  it('round-trips every kind except unknown, which it refuses with the path', () => {
    const v = everything();
    expect(decodeJsonValue(encodeJsonValue(v, EVERYTHING), EVERYTHING)).toEqual(v);
    expect(JSON.parse(Buffer.from(encodeJsonValue(v, EVERYTHING)).toString()).d).toEqual({
      value: ['dyn'],
      type: ['list', 'string'],
    });
    expect(() => encodeJsonValue({ ...v, l: ['a', UNKNOWN] }, EVERYTHING)).toThrow(/at l\[1\]: unknown values/);
  });

  it('accepts the conversions go-cty accepts (numbers and bools given as strings)', () => {
    const t = Types.object({ n: Types.number, b: Types.bool, s: Types.string });
    expect(decodeJsonValue('{"n":"12","b":"true","s":5}', t)).toEqual({ n: 12, b: true, s: '5' });
    expect(() => decodeJsonValue('{"n":"twelve"}', t)).toThrow(/at n: number is required/);
    expect(() => decodeJsonValue('{"n":1,', t)).toThrow(/malformed JSON/);
  });
});

describe('DynamicValue', () => {
  const t: CtyType = ENTRY;
  it('prefers msgpack, falls back to JSON, and reads absence as null', () => {
    const v = { ip: '1.2.3.4', label: 'x' };
    const dv = encodeDynamicValue(v, t);
    expect(dv.json).toBeUndefined();
    expect(decodeDynamicValue(dv, t)).toEqual(v);
    expect(decodeDynamicValue({ json: encodeJsonValue(v, t) }, t)).toEqual(v);
    expect(decodeDynamicValue(undefined, t)).toBeNull();
    expect(decodeDynamicValue({ msgpack: new Uint8Array(0) }, t)).toBeNull();
  });
});
