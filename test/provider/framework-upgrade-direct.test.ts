// UpgradeResourceState decodes state with no numbers straight from JSON.parse's result. Checked
// against the careful path (normalize, then the number-preserving JSON decoder), which a no-op
// upgrade step forces: the same value or the same diagnostics for random types and states, with
// attributes added and removed at every level, nested objects, lists, sets, maps, tuples,
// dynamic values, numbers and values of the wrong type.
import fc from 'fast-check';
import { CtyBigNumber, CtyDynamic, Types, type CtyType } from '../../src/protocol/cty';
import type { ObjectSchema } from '../../src/provider/framework/schema';
import { upgradeState } from '../../src/provider/framework/upgrade';

// Not `__proto__`: normalize (the careful path after a change) assigns it as a prototype, a bug
// the direct path does not have (it keeps the key, as decoding unchanged state always did).
const name = fc.constantFrom('a', 'b', 'c', 'id', 'constructor');
const primitive = fc.constantFrom(Types.string, Types.bool, Types.number);

const ctyType: fc.Arbitrary<CtyType> = fc.letrec<{ t: CtyType }>((tie) => ({
  t: fc.oneof(
    { maxDepth: 3, depthIdentifier: 'type' },
    primitive,
    primitive,
    fc.constant(Types.dynamic),
    tie('t').map((e) => Types.list(e)),
    primitive.map((e) => Types.set(e)),
    tie('t').map((e) => Types.map(e)),
    fc.dictionary(name, tie('t'), { maxKeys: 4 }).map((attrs) => Types.object(attrs)),
    fc.array(tie('t'), { maxLength: 2 }).map((els) => Types.tuple(els)),
  ),
})).t;

/** A JSON value shaped like `t` most of the time, with extra and missing attributes and wrong types. */
function json(t: CtyType, depth = 0): fc.Arbitrary<unknown> {
  const wrong = fc.oneof(
    fc.constant(null),
    fc.constant('true'),
    fc.constant(7),
    fc.constant(0.1),
    fc.constant([]),
    fc.constant({}),
    fc.string({ maxLength: 3 }),
  );
  const shaped = ((): fc.Arbitrary<unknown> => {
    switch (t.kind) {
      case 'string':
        return fc.string({ unit: 'grapheme', maxLength: 6 });
      case 'bool':
        return fc.boolean();
      case 'number':
        return fc.oneof(fc.integer(), fc.constant(2 ** 60), fc.constant(0.5));
      case 'dynamic':
        return fc.constant({ value: 'x', type: 'string' });
      case 'list':
      case 'set':
        return fc.array(json(t.element, depth + 1), { maxLength: 3 });
      case 'tuple':
        return fc.tuple(...t.elements.map((e) => json(e, depth + 1)));
      case 'map':
        return fc.dictionary(name, json(t.element, depth + 1), { maxKeys: 3 });
      case 'object': {
        const attrs = Object.entries(t.attributes).map(([k, a]) => fc.tuple(fc.constant(k), json(a, depth + 1), fc.nat(9)));
        return fc.tuple(fc.tuple(...attrs), fc.dictionary(fc.constantFrom('gone', 'old', 'b'), json(Types.string), { maxKeys: 2 })).map(([pairs, extra]) => {
          const out: Record<string, unknown> = {};
          for (const [k, v, roll] of pairs) if (roll > 0) Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
          for (const [k, v] of Object.entries(extra)) if (!Object.hasOwn(out, k)) out[k] = v;
          return out;
        });
      }
    }
  })();
  return fc.oneof({ weight: 8, arbitrary: shaped }, { weight: 1, arbitrary: wrong });
}

const schemaOf = (type: CtyType, version: number): ObjectSchema => ({ type, version, attributes: {} }) as unknown as ObjectSchema;

describe('state decoded straight from JSON.parse', () => {
  it('gives what the careful path gives, value or diagnostics', () => {
    const objectType = fc.dictionary(name, ctyType, { minKeys: 1, maxKeys: 5 }).map((attrs) => Types.object(attrs));
    fc.assert(
      fc.property(
        objectType.chain((t) => json(t).map((state) => ({ t, state }))),
        ({ t, state }) => {
          if (state === null || typeof state !== 'object' || Array.isArray(state)) return;
          const bytes = { json: Buffer.from(JSON.stringify(state)) };
          const direct = upgradeState(schemaOf(t, 1), 1, bytes, 'toy');
          const careful = upgradeState(schemaOf(t, 1), 0, bytes, 'toy', { 0: (s) => s });
          expect(direct).toEqual(careful);
        },
      ),
      { numRuns: 1500 },
    );
  });

  it('keeps every digit of numbers, and dynamic values, by leaving them to the careful path', () => {
    const t = Types.object({ n: Types.number, d: Types.dynamic, s: Types.string });
    const r = upgradeState(schemaOf(t, 0), 0, { json: Buffer.from('{"n":0.1,"d":{"value":18446744073709551615,"type":"number"},"s":"x"}') }, 'toy');
    expect(r.diagnostics).toEqual([]);
    expect(r.value).toEqual({ n: CtyBigNumber.parse('0.1'), d: new CtyDynamic(Types.number, CtyBigNumber.parse('18446744073709551615')), s: 'x' });
  });

  it('drops attributes the schema no longer has, at every level normalize reaches, and nulls new ones', () => {
    const t = Types.object({ s: Types.string, l: Types.list(Types.object({ x: Types.bool })), m: Types.map(Types.object({ y: Types.string })) });
    const state = '{"gone":"1","l":[{"x":true,"old":"z"}],"m":{"k":{"old":"z"}}}';
    const r = upgradeState(schemaOf(t, 0), 0, { json: Buffer.from(state) }, 'toy');
    expect(r).toEqual({ value: { s: null, l: [{ x: true }], m: { k: { y: null } } }, diagnostics: [] });
  });
});
