import {
  CtyBigNumber,
  CtyDynamic,
  Types,
  UNKNOWN,
  Unknown,
  ctyEqual,
  isUnknown,
  isWhollyKnown,
  numberFromDecimalText,
  typeFromJson,
  typeToJson,
} from '../../src/protocol/cty';
import { schemaBlockType } from '../../src/protocol/types';

describe('cty types', () => {
  it('write and read the JSON form Terraform uses', () => {
    const t = Types.set(Types.object({ label: Types.string, ip: Types.string }));
    expect(typeToJson(t)).toBe('["set",["object",{"ip":"string","label":"string"}]]');
    const all = Types.object({
      m: Types.map(Types.number),
      l: Types.list(Types.bool),
      t: Types.tuple([Types.string, Types.dynamic]),
      o: Types.object({ a: Types.string, b: Types.number }, ['b']),
    });
    expect(typeToJson(all)).toBe(
      '["object",{"l":["list","bool"],"m":["map","number"],"o":["object",{"a":"string","b":"number"},["b"]],"t":["tuple",["string","dynamic"]]}]',
    );
    expect(typeFromJson(typeToJson(all))).toEqual(all);
    expect(typeFromJson(Buffer.from('"string"'))).toEqual(Types.string);
    expect(typeFromJson('number')).toEqual(Types.number);
    expect(typeFromJson(['map', 'bool'])).toEqual(Types.map(Types.bool));
    expect(() => typeFromJson('["list"]')).toThrow(TypeError);
    expect(() => typeFromJson('"float"')).toThrow(/unknown primitive type "float"/);
    expect(() => typeFromJson('["object",{"a":"string"},"b"]')).toThrow(/optional attributes/);
  });

  it('derive the object type of a schema block: nested attributes, nested blocks, nesting modes', () => {
    const t = schemaBlockType({
      attributes: [
        { name: 'id', type: Types.string, computed: true },
        {
          name: 'entries',
          optional: true,
          nestedType: {
            nesting: 'set',
            attributes: [
              { name: 'ip', type: Types.string, required: true },
              { name: 'label', type: Types.string, optional: true },
            ],
          },
        },
        { name: 'any', type: Types.dynamic, optional: true },
      ],
      blockTypes: [
        { typeName: 'rule', nesting: 'list', block: { attributes: [{ name: 'x', type: Types.number, required: true }] } },
        { typeName: 'timeouts', nesting: 'single', block: { attributes: [{ name: 'create', type: Types.string, optional: true }] } },
        { typeName: 'dyn', nesting: 'list', block: { attributes: [{ name: 'v', type: Types.dynamic, optional: true }] } },
        { typeName: 'by_name', nesting: 'map', block: { attributes: [{ name: 'x', type: Types.bool, optional: true }] } },
        { typeName: 'g', nesting: 'group', block: { attributes: [] } },
      ],
    });
    expect(t).toEqual(
      Types.object({
        id: Types.string,
        entries: Types.set(Types.object({ ip: Types.string, label: Types.string }, ['label'])),
        any: Types.dynamic,
        rule: Types.list(Types.object({ x: Types.number })),
        timeouts: Types.object({ create: Types.string }),
        dyn: Types.dynamic,
        by_name: Types.map(Types.object({ x: Types.bool })),
        g: Types.object({}),
      }),
    );
  });
});

describe('cty values', () => {
  it('tell unknown from null and find unknowns anywhere', () => {
    expect(isUnknown(UNKNOWN)).toBe(true);
    expect(isUnknown(null)).toBe(false);
    expect(isWhollyKnown({ a: [1, { b: 'x' }], c: null, d: CtyBigNumber.parse('0.1') })).toBe(true);
    expect(isWhollyKnown({ a: [1, { b: UNKNOWN }] })).toBe(false);
    expect(isWhollyKnown(new CtyDynamic(Types.list(Types.string), ['a', UNKNOWN]))).toBe(false);
    expect(new Unknown({}).refinements).toBeUndefined();
    expect(Object.isFrozen(new Unknown({ nullness: 'not-null' }).refinements)).toBe(true);
  });

  it('compare structurally: sets as sets, numbers numerically, dynamic with its type', () => {
    const t = Types.object({ s: Types.set(Types.number), m: Types.map(Types.string), d: Types.dynamic });
    const a = { s: [1, 2, CtyBigNumber.parse('3')], m: { x: 'y' }, d: new CtyDynamic(Types.string, 'v') };
    const b = { s: [3, 1, 2], m: { x: 'y' }, d: new CtyDynamic(Types.string, 'v') };
    expect(ctyEqual(a, b, t)).toBe(true);
    expect(ctyEqual(a, { ...b, m: { x: 'y', z: 'w' } }, t)).toBe(false);
    expect(ctyEqual(a, { ...b, d: new CtyDynamic(Types.list(Types.string), ['v']) }, t)).toBe(false);
    expect(ctyEqual(a, { ...b, s: [3, 1, 4] }, t)).toBe(false);
    expect(ctyEqual(new Unknown({ stringPrefix: 'a' }), new Unknown({ stringPrefix: 'b' }), Types.string)).toBe(false);
    expect(ctyEqual(new Unknown({ numberLowerBound: [CtyBigNumber.parse('1.0'), true] }), new Unknown({ numberLowerBound: [1, true] }), Types.number)).toBe(
      true,
    );
  });
});

describe('cty numbers', () => {
  it('are plain numbers when a float64 holds them exactly, CtyBigNumber otherwise', () => {
    expect(numberFromDecimalText('12')).toBe(12);
    expect(numberFromDecimalText('0.5')).toBe(0.5);
    expect(numberFromDecimalText('-0')).toBe(0);
    expect(numberFromDecimalText('1e3')).toBe(1000);
    expect(numberFromDecimalText('9007199254740993')).toEqual(CtyBigNumber.parse('9007199254740993'));
    expect(numberFromDecimalText('0.1')).toEqual(CtyBigNumber.parse('0.1'));
    expect(numberFromDecimalText('1e400')).toEqual(CtyBigNumber.parse('1e400'));
    expect(numberFromDecimalText('2.5e-1')).toBe(0.25);
    // the smallest double is 4.94…e-324, so the decimal 5e-324 is not exactly any double
    expect(numberFromDecimalText('5e-324')).toBeInstanceOf(CtyBigNumber);
    expect(numberFromDecimalText('abc')).toBeUndefined();
    expect(numberFromDecimalText('01')).toBeUndefined();
  });

  it('CtyBigNumber keeps its text and compares numerically', () => {
    const n = CtyBigNumber.parse('18446744073709551616');
    expect(n.isInteger()).toBe(true);
    expect(n.toBigInt()).toBe(2n ** 64n);
    expect(n.equals(2 ** 64)).toBe(true);
    expect(CtyBigNumber.parse('0.1').equals(0.1)).toBe(false);
    expect(CtyBigNumber.parse('2.50').equals(CtyBigNumber.parse('25e-1'))).toBe(true);
    expect(CtyBigNumber.parse('2.50').text).toBe('2.50');
    expect(() => CtyBigNumber.parse('0.1').toBigInt()).toThrow(RangeError);
    expect(() => CtyBigNumber.parse('1,5')).toThrow(TypeError);
    expect(JSON.stringify({ n: CtyBigNumber.parse('0.1') })).toBe('{"n":"0.1"}');
  });
});
