// Property-based tests of the cty codec (fast-check): for random types and values, msgpack and
// JSON round-trip to an equal value; decoding random or truncated bytes never fails with
// anything but a CodecError (never a crash, a hang or a wrong value accepted silently).
import fc from 'fast-check';
import { CodecError, decodeJsonValue, decodeMsgpack, encodeJsonValue, encodeMsgpack } from '../../src/protocol/codec';
import { ctyEqual, Types, UNKNOWN, type CtyType, type CtyValue } from '../../src/protocol/cty';

/** Runs per property: enough to find shape bugs, bounded so the file takes a few seconds. */
const RUNS = 300;

const primitive: fc.Arbitrary<CtyType> = fc.constantFrom(Types.string, Types.number, Types.bool);
const attrName = fc.stringMatching(/^[a-z][a-z0-9_]{0,8}$/);

/** Random cty types, nested up to a few levels (no dynamic: its values carry their own type). */
const ctyType: fc.Arbitrary<CtyType> = fc.letrec<{ t: CtyType }>((tie) => ({
  t: fc.oneof(
    { maxDepth: 3, depthIdentifier: 'type' },
    primitive,
    tie('t').map((e) => Types.list(e)),
    primitive.map((e) => Types.set(e)),
    tie('t').map((e) => Types.map(e)),
    fc.dictionary(attrName, tie('t'), { maxKeys: 4 }).map((attrs) => Types.object(attrs)),
    fc.array(tie('t'), { maxLength: 3 }).map((els) => Types.tuple(els)),
  ),
})).t;

/**
 * A random value of `t`: null anywhere, unknown where `allowUnknown`, strings with any code
 * points. `exactDecimals` keeps numbers to those whose shortest decimal text is the double
 * itself (integers and eighths): cty numbers are decimals, so the double 0.1 and the decimal
 * "0.1" JSON carries are rightly different values.
 */
function arbitraryValue(t: CtyType, allowUnknown: boolean, exactDecimals = false): fc.Arbitrary<CtyValue> {
  const maybe = (a: fc.Arbitrary<CtyValue>): fc.Arbitrary<CtyValue> => {
    const options: Array<fc.Arbitrary<CtyValue>> = [a, a, a, fc.constant(null)];
    if (allowUnknown) options.push(fc.constant(UNKNOWN));
    return fc.oneof(...options);
  };
  switch (t.kind) {
    case 'string':
      return maybe(fc.string({ unit: 'grapheme', maxLength: 20 }));
    case 'number':
      return maybe(
        exactDecimals
          ? fc.oneof(
              fc.integer(),
              fc.integer().map((i) => i / 8),
            )
          : fc.oneof(
              fc.integer(),
              fc.double({ noNaN: true, noDefaultInfinity: true }).map((d) => (Object.is(d, -0) ? 0 : d)),
            ),
      );
    case 'bool':
      return maybe(fc.boolean());
    case 'list':
      return maybe(fc.array(arbitraryValue(t.element, allowUnknown, exactDecimals), { maxLength: 4 }));
    case 'set':
      // Set elements are distinct and known (cty refuses unknown set elements in this codec's use).
      return maybe(
        fc.uniqueArray(
          arbitraryValue(t.element, false, exactDecimals).filter((v) => v !== null),
          { maxLength: 4, selector: (v) => JSON.stringify(v) },
        ),
      );
    case 'map':
      return maybe(fc.dictionary(attrName, arbitraryValue(t.element, allowUnknown, exactDecimals), { maxKeys: 4 }));
    case 'object': {
      const entries = Object.entries(t.attributes).map(([k, at]) => arbitraryValue(at, allowUnknown, exactDecimals).map((v) => [k, v] as const));
      return maybe(fc.tuple(...entries).map((pairs) => Object.fromEntries(pairs)));
    }
    case 'tuple':
      return maybe(fc.tuple(...t.elements.map((e) => arbitraryValue(e, allowUnknown, exactDecimals))));
    default:
      return fc.constant(null);
  }
}

const typed = (allowUnknown: boolean, exactDecimals = false) => ctyType.chain((t) => arbitraryValue(t, allowUnknown, exactDecimals).map((v) => ({ t, v })));

describe('cty codec properties', () => {
  it('msgpack: decode(encode(v)) equals v, unknowns included', () => {
    fc.assert(
      fc.property(typed(true), ({ t, v }) => {
        expect(ctyEqual(decodeMsgpack(encodeMsgpack(v, t), t), v, t)).toBe(true);
      }),
      { numRuns: RUNS },
    );
  });

  it('JSON: decode(encode(v)) equals v for known values', () => {
    fc.assert(
      fc.property(typed(false, true), ({ t, v }) => {
        expect(ctyEqual(decodeJsonValue(encodeJsonValue(v, t), t), v, t)).toBe(true);
      }),
      { numRuns: RUNS },
    );
  });

  it('msgpack: random and truncated bytes fail only with a CodecError', () => {
    fc.assert(
      fc.property(typed(true), fc.uint8Array({ maxLength: 64 }), fc.nat(), ({ t, v }, noise, cut) => {
        const bytes = encodeMsgpack(v, t);
        for (const input of [noise, bytes.subarray(0, cut % (bytes.length + 1))]) {
          try {
            decodeMsgpack(input, t);
          } catch (err) {
            expect(err).toBeInstanceOf(CodecError);
          }
        }
      }),
      { numRuns: RUNS },
    );
  });

  it('JSON: random text, control characters and invalid UTF-8 fail only with a CodecError', () => {
    const text = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 40 }),
      fc.uint8Array({ maxLength: 40 }).map((b) => Buffer.from(b)),
    );
    fc.assert(
      fc.property(ctyType, text, (t, input) => {
        try {
          decodeJsonValue(input, t);
        } catch (err) {
          expect(err).toBeInstanceOf(CodecError);
        }
      }),
      { numRuns: RUNS },
    );
  });
});
