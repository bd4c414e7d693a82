// The msgpack codec as it was before it wrote and read bytes itself: cty values to and from a
// generic tree that @msgpack/msgpack encoded and decoded. Kept only as the oracle of
// msgpack-codec.test.ts, which checks that the codec still gives the same bytes and values.
import { Decoder, Encoder, ExtData, encode as encodeRaw } from '@msgpack/msgpack';
import { CtyBigNumber, CtyDynamic, Unknown, UNKNOWN, isPlainRecord, typeFromJson, typeToJson, type CtyType, type CtyValue } from '../../src/protocol/cty';
import { CodecError } from '../../src/protocol/codec-error';
import { at, type Path, setOwn, shapeOf, steps } from '../../src/protocol/codec-path';
import { rawNumber, refinementsFromMap } from '../../src/protocol/codec-msgpack';

type Raw = unknown;

const EXT_UNKNOWN = 0;
const EXT_REFINED_UNKNOWN = 12;
const REFINE = { nullness: 1, stringPrefix: 2, numberMin: 3, numberMax: 4, lengthMin: 5, lengthMax: 6 } as const;
const INT64_MIN = -(2n ** 63n);
const UINT64_MAX = 2n ** 64n - 1n;

const decoder = new Decoder({ useBigInt64: true });
const encoder = new Encoder({ useBigInt64: true });
const utf8 = new TextDecoder('utf-8', { fatal: true });

function isRawRecord(raw: Raw): raw is Record<string, Raw> {
  return raw !== null && typeof raw === 'object' && !Array.isArray(raw) && !(raw instanceof Uint8Array) && !(raw instanceof ExtData);
}

// ---------------------------------------------------------------- decoding

function decodeRefinements(payload: Uint8Array, t: CtyType, path: Path): Unknown {
  if (t.kind === 'dynamic') return UNKNOWN; // go-cty ignores refinements of dynamic unknowns too
  let map: Raw;
  try {
    map = decoder.decode(payload);
  } catch (err) {
    throw new CodecError('malformed unknown-value refinements', steps(path), { cause: err });
  }
  if (!isRawRecord(map)) throw new CodecError('unknown-value refinements must be a map', steps(path));
  // What the map means is shared with the codec: only the parsing of the payload is the oracle's.
  return refinementsFromMap(map, t, path);
}

function decodeUnknown(ext: ExtData, t: CtyType, path: Path): Unknown {
  const data = typeof ext.data === 'function' ? ext.data(0) : ext.data;
  if (data.length <= 1) return UNKNOWN;
  if (ext.type !== EXT_REFINED_UNKNOWN) throw new CodecError(`unsupported msgpack extension type ${ext.type}`, steps(path));
  if (data.length > 1024) throw new CodecError('oversize unknown-value refinements', steps(path));
  return decodeRefinements(data, t, path);
}

function fromRaw(raw: Raw, t: CtyType, path: Path): CtyValue {
  if (raw instanceof ExtData) return decodeUnknown(raw, t, path);
  if (t.kind === 'dynamic') {
    if (raw === null) return null;
    if (!Array.isArray(raw) || raw.length !== 2) throw new CodecError('dynamic value must be [type, value]', steps(path));
    const [typeRaw, valueRaw] = raw as [Raw, Raw];
    let concrete: CtyType;
    try {
      concrete = typeFromJson(typeRaw instanceof Uint8Array ? utf8.decode(typeRaw) : typeRaw);
    } catch (err) {
      throw new CodecError(`dynamic value has a bad type: ${(err as Error).message}`, steps(path), { cause: err });
    }
    return new CtyDynamic(concrete, fromRaw(valueRaw, concrete, path));
  }
  if (raw === null) return null;
  switch (t.kind) {
    case 'string':
      if (typeof raw === 'string') return raw;
      if (raw instanceof Uint8Array) return utf8.decode(raw);
      throw new CodecError('string is required', steps(path));
    case 'bool':
      if (typeof raw !== 'boolean') throw new CodecError('bool is required', steps(path));
      return raw;
    case 'number':
      return rawNumber(raw, path);
    case 'list':
    case 'set':
      if (!Array.isArray(raw)) throw new CodecError(`a ${t.kind} is required`, steps(path));
      return raw.map((e, i) => fromRaw(e, t.element, at(path, { elementKeyInt: i })));
    case 'tuple':
      if (!Array.isArray(raw) || raw.length !== t.elements.length) {
        throw new CodecError(`a tuple of length ${t.elements.length} is required`, steps(path));
      }
      return raw.map((e, i) => fromRaw(e, t.elements[i]!, at(path, { elementKeyInt: i })));
    case 'map': {
      if (!isRawRecord(raw)) throw new CodecError('a map is required', steps(path));
      const out: { [key: string]: CtyValue } = {};
      for (const [k, v] of Object.entries(raw)) setOwn(out, k, fromRaw(v, t.element, at(path, { elementKeyString: k })));
      return out;
    }
    case 'object': {
      if (!isRawRecord(raw)) throw new CodecError('an object is required', steps(path));
      const out: { [key: string]: CtyValue } = {};
      for (const name of Object.keys(raw)) {
        if (!Object.hasOwn(t.attributes, name)) {
          throw new CodecError(`unsupported attribute "${name}"`, steps(path));
        }
      }
      const shape = shapeOf(t);
      for (const name of shape.names) {
        const p = at(path, { attributeName: name });
        if (Object.hasOwn(raw, name)) setOwn(out, name, fromRaw(raw[name], t.attributes[name]!, p));
        else if (shape.optional.has(name)) setOwn(out, name, null);
        else throw new CodecError('attribute is missing (every attribute must be present, null when unset)', steps(p));
      }
      return out;
    }
  }
}

/** Decodes msgpack bytes as a value of type `t`; throws CodecError with the path on mismatch. */
export function referenceDecodeMsgpack(bytes: Uint8Array, t: CtyType): CtyValue {
  let raw: Raw;
  try {
    raw = decoder.decode(bytes);
  } catch (err) {
    throw new CodecError(`malformed msgpack: ${(err as Error).message}`, [], { cause: err });
  }
  return fromRaw(raw, t, null);
}

// ---------------------------------------------------------------- encoding

function encodeNumber(v: CtyValue, path: Path): Raw {
  if (typeof v === 'number') {
    if (Number.isNaN(v)) throw new CodecError('NaN is not a cty number', steps(path));
    // Integers beyond 32 bits go out as int64 rather than float64, as go-cty writes them.
    if (Number.isInteger(v) && Math.abs(v) >= 2 ** 31 && Math.abs(v) < 2 ** 63) return BigInt(v);
    return v;
  }
  if (v instanceof CtyBigNumber) {
    if (v.isInteger()) {
      const b = v.toBigInt();
      if (b >= INT64_MIN && b <= UINT64_MAX) return b;
    }
    return v.text; // go-cty parses decimal text back at full precision
  }
  throw new CodecError('number is required', steps(path));
}

function refinementPayload(u: Unknown, t: CtyType, path: Path): Uint8Array | undefined {
  const r = u.refinements;
  if (!r || t.kind === 'dynamic') return undefined;
  const entries: Array<[number, Raw]> = [];
  if (r.nullness) entries.push([REFINE.nullness, r.nullness === 'null']);
  if (r.stringPrefix !== undefined) {
    if (t.kind !== 'string') throw new CodecError('a string prefix refinement needs a string', steps(path));
    if (r.stringPrefix !== '') entries.push([REFINE.stringPrefix, r.stringPrefix]);
  }
  for (const [key, bound] of [
    [REFINE.numberMin, r.numberLowerBound],
    [REFINE.numberMax, r.numberUpperBound],
  ] as const) {
    if (!bound) continue;
    if (t.kind !== 'number') throw new CodecError('a number bound refinement needs a number', steps(path));
    entries.push([key, [encodeNumber(bound[0], path), bound[1]]]);
  }
  for (const [key, n] of [
    [REFINE.lengthMin, r.lengthLowerBound],
    [REFINE.lengthMax, r.lengthUpperBound],
  ] as const) {
    if (n === undefined) continue;
    if (t.kind !== 'list' && t.kind !== 'set' && t.kind !== 'map') {
      throw new CodecError('a length refinement needs a list, set or map', steps(path));
    }
    entries.push([key, n]);
  }
  if (entries.length === 0) return undefined;
  // Keys are small integers, which @msgpack/msgpack cannot write as map keys: assemble by hand.
  const parts: Uint8Array[] = [Uint8Array.of(0x80 | entries.length)];
  for (const [key, value] of entries) parts.push(Uint8Array.of(key), encodeRaw(value, { useBigInt64: true }));
  return Buffer.concat(parts);
}

function toRaw(v: CtyValue | undefined, t: CtyType, path: Path): Raw {
  if (v === undefined) throw new CodecError('value is missing (use null)', steps(path));
  if (v instanceof Unknown) {
    const payload = refinementPayload(v, t, path);
    return payload ? new ExtData(EXT_REFINED_UNKNOWN, payload) : new ExtData(EXT_UNKNOWN, Uint8Array.of(0));
  }
  if (t.kind === 'dynamic') {
    if (v === null) return null;
    if (!(v instanceof CtyDynamic)) throw new CodecError('a dynamic value must be a CtyDynamic carrying its type', steps(path));
    if (v.type.kind === 'dynamic') throw new CodecError('a CtyDynamic needs a concrete type', steps(path));
    return [Buffer.from(typeToJson(v.type)), toRaw(v.value, v.type, path)];
  }
  if (v === null) return null;
  switch (t.kind) {
    case 'string':
      if (typeof v !== 'string') throw new CodecError('string is required', steps(path));
      return v;
    case 'bool':
      if (typeof v !== 'boolean') throw new CodecError('bool is required', steps(path));
      return v;
    case 'number':
      return encodeNumber(v, path);
    case 'list':
    case 'set':
      if (!Array.isArray(v)) throw new CodecError(`a ${t.kind} (array) is required`, steps(path));
      return v.map((e, i) => toRaw(e, t.element, at(path, { elementKeyInt: i })));
    case 'tuple':
      if (!Array.isArray(v) || v.length !== t.elements.length) {
        throw new CodecError(`a tuple of length ${t.elements.length} is required`, steps(path));
      }
      return v.map((e, i) => toRaw(e, t.elements[i]!, at(path, { elementKeyInt: i })));
    case 'map': {
      if (!isPlainRecord(v)) throw new CodecError('a map (plain object) is required', steps(path));
      const out: Record<string, Raw> = {};
      for (const [k, e] of Object.entries(v)) setOwn(out, k, toRaw(e, t.element, at(path, { elementKeyString: k })));
      return out;
    }
    case 'object': {
      if (!isPlainRecord(v)) throw new CodecError('an object (plain object) is required', steps(path));
      for (const name of Object.keys(v)) {
        if (!Object.hasOwn(t.attributes, name)) {
          throw new CodecError(`unsupported attribute "${name}"`, steps(path));
        }
      }
      const out: Record<string, Raw> = {};
      const shape = shapeOf(t);
      for (const name of shape.sorted) {
        const p = at(path, { attributeName: name });
        let e = Object.hasOwn(v, name) ? v[name] : undefined;
        if (e === undefined && shape.optional.has(name)) e = null;
        if (e === undefined) throw new CodecError('attribute is missing (every attribute must be present, null when unset)', steps(p));
        setOwn(out, name, toRaw(e, t.attributes[name]!, p));
      }
      return out;
    }
  }
}

/** Encodes a value of type `t` as msgpack; throws CodecError with the path on mismatch. */
export function referenceEncodeMsgpack(v: CtyValue, t: CtyType): Uint8Array {
  const raw = toRaw(v, t, null);
  return encoder.encode(raw);
}
