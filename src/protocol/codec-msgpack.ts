// cty values <-> msgpack, driven by the type (msgpack alone cannot tell a list from a set or an
// object from a map). Wire rules follow go-cty: unknown = ext 0 (refined: ext 12 with a map of
// refinements), null = nil, numbers as int64/uint64/float64 or decimal text, dynamic = [type, value].
// Values are read and written in one pass over the bytes, with no generic intermediate tree: this
// runs for every state, config and plan of every RPC. What an object type needs (attribute order,
// its keys' bytes) is worked out once per type object, which lives as long as its schema.
import {
  CtyBigNumber,
  CtyDynamic,
  Unknown,
  UNKNOWN,
  isPlainRecord,
  numberFromBigInt,
  numberFromDecimalText,
  typeFromJson,
  typeToJson,
  type CtyNumber,
  type CtyType,
  type CtyValue,
  type Refinements,
} from './cty';
import { CodecError, MISSING_ATTRIBUTE } from './codec-error';
import { at, type Path, setOwn, steps } from './codec-path';
import { Family, MalformedMsgpack, MsgpackExt, MsgpackReader } from './msgpack-reader';
import { MsgpackWriter } from './msgpack-writer';
import type { AttributePathStep } from './types';

type ObjectType = Extract<CtyType, { kind: 'object' }>;

const EXT_UNKNOWN = 0;
const EXT_REFINED_UNKNOWN = 12;
const REFINE = { nullness: 1, stringPrefix: 2, numberMin: 3, numberMax: 4, lengthMin: 5, lengthMax: 6 } as const;
const INT64_MIN = -(2n ** 63n);
const UINT64_MAX = 2n ** 64n - 1n;
/** An unrefined unknown: fixext 1 of type 0 with one zero byte, as go-cty writes it. */
const UNKNOWN_BYTES = Uint8Array.of(0xd4, EXT_UNKNOWN, 0);
const utf8 = new TextDecoder('utf-8', { fatal: true });

// ---------------------------------------------------------------- per object type, once

/** What both directions need of an object type; attributes are addressed by declaration index. */
interface ObjectPlan {
  /** Attribute names in declaration order (decoded objects keep it). */
  readonly names: readonly string[];
  readonly types: readonly CtyType[];
  readonly optional: readonly boolean[];
  readonly index: ReadonlyMap<string, number>;
  /** Declaration indexes in go-cty's order (sorted names), the order they are written in. */
  readonly sorted: readonly number[];
  /** Each attribute's name as msgpack (by declaration index). */
  readonly keys: readonly Uint8Array[];
  /** The map header of a whole object (every attribute is always written). */
  readonly header: Uint8Array;
  /** Each attribute's path step, and its path when the object is the value itself. */
  readonly steps: readonly AttributePathStep[];
  readonly rootPaths: readonly Path[];
}

const plans = new WeakMap<ObjectType, ObjectPlan>();

function objectPlan(t: ObjectType): ObjectPlan {
  let plan = plans.get(t);
  if (plan !== undefined) return plan;
  const names = Object.keys(t.attributes);
  const optional = new Set(t.optional ?? []);
  const w = new MsgpackWriter(64);
  const bytesOf = (write: () => void): Uint8Array => {
    w.reset();
    write();
    return w.take();
  };
  const stepsOf = names.map((attributeName): AttributePathStep => ({ attributeName }));
  plan = {
    names,
    types: names.map((n) => t.attributes[n]!),
    optional: names.map((n) => optional.has(n)),
    index: new Map(names.map((n, i) => [n, i])),
    sorted: names
      .map((n, i) => [n, i] as const)
      .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
      .map(([, i]) => i),
    keys: names.map((n) => bytesOf(() => w.string(n))),
    header: bytesOf(() => w.mapHeader(names.length)),
    steps: stepsOf,
    rootPaths: stepsOf.map((step) => at(null, step)),
  };
  plans.set(t, plan);
  return plan;
}

/** The path of attribute `i` of an object at `path` (no allocation for the value's own attributes). */
function attributePath(plan: ObjectPlan, i: number, path: Path): Path {
  return path === null ? plan.rootPaths[i]! : at(path, plan.steps[i]!);
}

// ---------------------------------------------------------------- decoding

/** A number from plain msgpack data (refinement bounds). */
export function rawNumber(raw: unknown, path: Path): CtyNumber {
  if (typeof raw === 'number') {
    if (Number.isNaN(raw)) throw new CodecError('number is required (NaN is not a cty number)', steps(path));
    return raw;
  }
  if (typeof raw === 'bigint') return numberFromBigInt(raw);
  if (typeof raw === 'string') {
    const n = numberFromDecimalText(raw);
    if (n !== undefined) return n;
  }
  throw new CodecError('number is required', steps(path));
}

function isRefinementMap(raw: unknown): raw is Record<string, unknown> {
  return raw !== null && typeof raw === 'object' && !Array.isArray(raw) && !(raw instanceof Uint8Array) && !(raw instanceof MsgpackExt);
}

function decodeRefinements(payload: Uint8Array, t: CtyType, path: Path): Unknown {
  if (t.kind === 'dynamic') return UNKNOWN; // go-cty ignores refinements of dynamic unknowns too
  let map: unknown;
  try {
    const r = new MsgpackReader(payload);
    map = r.any();
    r.finish();
  } catch (err) {
    throw new CodecError('malformed unknown-value refinements', steps(path), { cause: err });
  }
  if (!isRefinementMap(map)) throw new CodecError('unknown-value refinements must be a map', steps(path));
  return refinementsFromMap(map, t, path);
}

/**
 * The refinements a decoded refinement map (integer keys as property names) gives a value of
 * type `t`. Exported for the test oracle, which parses the payload its own way.
 */
export function refinementsFromMap(map: Record<string, unknown>, t: CtyType, path: Path): Unknown {
  const r: { -readonly [K in keyof Refinements]: Refinements[K] } = {};
  const collection = t.kind === 'list' || t.kind === 'set' || t.kind === 'map';
  for (const [key, value] of Object.entries(map)) {
    switch (Number(key)) {
      case REFINE.nullness:
        if (typeof value !== 'boolean') throw new CodecError('null refinement must be a boolean', steps(path));
        r.nullness = value ? 'null' : 'not-null';
        break;
      case REFINE.stringPrefix:
        if (t.kind !== 'string' || typeof value !== 'string') throw new CodecError('bad string prefix refinement', steps(path));
        r.stringPrefix = value;
        break;
      case REFINE.numberMin:
      case REFINE.numberMax: {
        if (t.kind !== 'number' || !Array.isArray(value) || value.length !== 2 || typeof value[1] !== 'boolean') {
          throw new CodecError('number bound refinement must be [number, bool] on a number', steps(path));
        }
        const bound: readonly [CtyNumber, boolean] = [rawNumber(value[0], path), value[1]];
        if (Number(key) === REFINE.numberMin) r.numberLowerBound = bound;
        else r.numberUpperBound = bound;
        break;
      }
      case REFINE.lengthMin:
      case REFINE.lengthMax: {
        const n = typeof value === 'bigint' ? Number(value) : value;
        if (!collection || typeof n !== 'number' || !Number.isInteger(n)) {
          throw new CodecError('length bound refinement must be an integer on a collection', steps(path));
        }
        if (Number(key) === REFINE.lengthMin) r.lengthLowerBound = n;
        else r.lengthUpperBound = n;
        break;
      }
      default:
        break; // future refinements: go-cty ignores unknown keys, so may we
    }
  }
  return Object.keys(r).length > 0 ? new Unknown(r) : UNKNOWN;
}

function decodeUnknown(ext: MsgpackExt, t: CtyType, path: Path): Unknown {
  if (ext.data.length <= 1) return UNKNOWN;
  if (ext.type !== EXT_REFINED_UNKNOWN) throw new CodecError(`unsupported msgpack extension type ${ext.type}`, steps(path));
  if (ext.data.length > 1024) throw new CodecError('oversize unknown-value refinements', steps(path));
  return decodeRefinements(ext.data, t, path);
}

function decodeDynamic(r: MsgpackReader, head: number, family: Family, path: Path): CtyValue {
  if (family !== Family.Array || r.length(head) !== 2) throw new CodecError('dynamic value must be [type, value]', steps(path));
  const typeRaw = r.any();
  let concrete: CtyType;
  try {
    concrete = typeFromJson(typeRaw instanceof Uint8Array ? utf8.decode(typeRaw) : typeRaw);
  } catch (err) {
    throw new CodecError(`dynamic value has a bad type: ${(err as Error).message}`, steps(path), { cause: err });
  }
  return new CtyDynamic(concrete, decodeValue(r, concrete, path));
}

function decodeNumber(r: MsgpackReader, head: number, family: Family, path: Path): CtyNumber {
  if (family === Family.Int) {
    const n = r.int(head);
    return typeof n === 'bigint' ? numberFromBigInt(n) : n;
  }
  if (family === Family.Float) {
    const n = r.float(head);
    if (Number.isNaN(n)) throw new CodecError('number is required (NaN is not a cty number)', steps(path));
    return n;
  }
  if (family === Family.Str) {
    const n = numberFromDecimalText(r.text(r.length(head)));
    if (n !== undefined) return n;
  }
  throw new CodecError('number is required', steps(path));
}

function decodeObject(r: MsgpackReader, t: ObjectType, n: number, path: Path): CtyValue {
  const plan = objectPlan(t);
  const first = r.pos;
  const values: Array<CtyValue | undefined> = new Array(plan.names.length);
  let start = -1;
  try {
    for (let i = 0; i < n; i++) {
      start = -1;
      const key = r.key();
      const k = plan.index.get(key);
      if (k === undefined) throw new CodecError(`unsupported attribute "${key}"`, steps(path));
      start = r.pos;
      values[k] = decodeValue(r, plan.types[k]!, attributePath(plan, k, path));
    }
  } catch (err) {
    if (!isTypeMismatch(err)) throw err;
    remember(r, start, err);
    return decodeObjectAsParsed(r, first, n, plan, path);
  }
  const out: { [key: string]: CtyValue } = {};
  for (let k = 0; k < plan.names.length; k++) {
    const v = values[k];
    if (v !== undefined) setOwn(out, plan.names[k]!, v);
    else if (plan.optional[k]) setOwn(out, plan.names[k]!, null);
    else throw new CodecError(MISSING_ATTRIBUTE, steps(attributePath(plan, k, path)));
  }
  return out;
}

// When a map or an object fails to decode in the input's order, it is decoded again as the codec
// this one replaced did, from the whole message parsed into JavaScript objects first, so that a
// damaged message gets the same answer: a key that comes again replaces the earlier entry (whose
// value is then never looked at), integer-like keys come first, and an object's names are all
// checked before its values, which are read in declaration order. Valid messages never come here.
// A value that failed is not decoded again: its error is remembered by where it starts, or every
// enclosing map and object would decode it once more, twice as often at each level up.

const failures = new WeakMap<MsgpackReader, Map<number, CodecError>>();

/** A well-formed value of the wrong type (what may be decoded again), not malformed bytes. */
const isTypeMismatch = (err: unknown): err is CodecError => err instanceof CodecError && !(err instanceof MalformedMsgpack);

/** Remembers that the value at `start` (-1: none, the entry's key failed) fails with `err`. */
function remember(r: MsgpackReader, start: number, err: CodecError): void {
  if (start < 0) return;
  let failed = failures.get(r);
  if (failed === undefined) {
    failed = new Map();
    failures.set(r, failed);
  }
  failed.set(start, err);
}

/** Decodes the value at `pos` again, or throws what it threw the first time. */
function decodeAgain(r: MsgpackReader, pos: number, t: CtyType, path: Path): CtyValue {
  const failed = failures.get(r)?.get(pos);
  if (failed !== undefined) throw failed;
  r.pos = pos;
  return decodeValue(r, t, path);
}

/**
 * Where each entry's value starts, keyed as a JavaScript object made from the map would be (see
 * above); reads from the map's first entry at `first` to its end, and leaves the reader there.
 */
function entriesAsParsed(r: MsgpackReader, first: number, n: number): Record<string, number> {
  r.pos = first;
  const at: Record<string, number> = Object.create(null);
  for (let i = 0; i < n; i++) {
    const key = r.key();
    at[key] = r.pos;
    r.any();
  }
  return at;
}

function decodeObjectAsParsed(r: MsgpackReader, first: number, n: number, plan: ObjectPlan, path: Path): CtyValue {
  const entries = entriesAsParsed(r, first, n);
  const end = r.pos;
  for (const name of Object.keys(entries)) if (!plan.index.has(name)) throw new CodecError(`unsupported attribute "${name}"`, steps(path));
  const out: { [key: string]: CtyValue } = {};
  for (let k = 0; k < plan.names.length; k++) {
    const name = plan.names[k]!;
    const pos = entries[name];
    if (pos !== undefined) setOwn(out, name, decodeAgain(r, pos, plan.types[k]!, attributePath(plan, k, path)));
    else if (plan.optional[k]) setOwn(out, name, null);
    else throw new CodecError(MISSING_ATTRIBUTE, steps(attributePath(plan, k, path)));
  }
  r.pos = end;
  return out;
}

function decodeMapAsParsed(r: MsgpackReader, first: number, n: number, element: CtyType, path: Path): CtyValue {
  const entries = entriesAsParsed(r, first, n);
  const end = r.pos;
  const out: { [key: string]: CtyValue } = {};
  for (const [key, pos] of Object.entries(entries)) setOwn(out, key, decodeAgain(r, pos, element, at(path, { elementKeyString: key })));
  r.pos = end;
  return out;
}

/** Reads the next value as type `t`. */
function decodeValue(r: MsgpackReader, t: CtyType, path: Path): CtyValue {
  const head = r.head();
  const family = r.family(head);
  if (family === Family.Ext) return decodeUnknown(r.ext(head), t, path);
  if (family === Family.Nil) return null;
  switch (t.kind) {
    case 'dynamic':
      return decodeDynamic(r, head, family, path);
    case 'string':
      if (family === Family.Str) return r.text(r.length(head));
      if (family === Family.Bin) {
        try {
          return utf8.decode(r.bytes(r.length(head)));
        } catch (err) {
          throw new CodecError('string is required (binary data that is not UTF-8)', steps(path), { cause: err });
        }
      }
      throw new CodecError('string is required', steps(path));
    case 'bool':
      if (family !== Family.Bool) throw new CodecError('bool is required', steps(path));
      return head === 0xc3;
    case 'number':
      return decodeNumber(r, head, family, path);
    case 'list':
    case 'set': {
      if (family !== Family.Array) throw new CodecError(`a ${t.kind} is required`, steps(path));
      const n = r.length(head);
      const out: CtyValue[] = [];
      for (let i = 0; i < n; i++) out.push(decodeValue(r, t.element, at(path, { elementKeyInt: i })));
      return out;
    }
    case 'tuple': {
      const n = family === Family.Array ? r.length(head) : -1;
      if (n !== t.elements.length) throw new CodecError(`a tuple of length ${t.elements.length} is required`, steps(path));
      const out: CtyValue[] = [];
      for (let i = 0; i < n; i++) out.push(decodeValue(r, t.elements[i]!, at(path, { elementKeyInt: i })));
      return out;
    }
    case 'map': {
      if (family !== Family.Map) throw new CodecError('a map is required', steps(path));
      const n = r.length(head);
      const first = r.pos;
      const out: { [key: string]: CtyValue } = {};
      let start = -1;
      try {
        for (let i = 0; i < n; i++) {
          start = -1;
          const k = r.key();
          start = r.pos;
          setOwn(out, k, decodeValue(r, t.element, at(path, { elementKeyString: k })));
        }
      } catch (err) {
        if (!isTypeMismatch(err)) throw err;
        remember(r, start, err);
        return decodeMapAsParsed(r, first, n, t.element, path);
      }
      return out;
    }
    case 'object':
      if (family !== Family.Map) throw new CodecError('an object is required', steps(path));
      return decodeObject(r, t, r.length(head), path);
  }
}

/** Decodes msgpack bytes as a value of type `t`; throws CodecError with the path on mismatch. */
export function decodeMsgpack(bytes: Uint8Array, t: CtyType): CtyValue {
  try {
    const r = new MsgpackReader(bytes);
    const value = decodeValue(r, t, null);
    r.finish();
    return value;
  } catch (err) {
    // Malformed bytes anywhere are the answer even when a value before them had the wrong type
    // (as when the whole message was parsed first): only then is the type error worth reporting.
    if (isTypeMismatch(err)) {
      const whole = new MsgpackReader(bytes);
      whole.any();
      whole.finish();
    }
    throw err;
  }
}

// ---------------------------------------------------------------- encoding

/** One writer for every value: encoding never calls out, so values cannot interleave. */
const writer = new MsgpackWriter();
const typeJsonBytes = new WeakMap<CtyType, Uint8Array>();

function encodeNumber(w: MsgpackWriter, v: CtyValue, path: Path): void {
  if (typeof v === 'number') {
    if (Number.isNaN(v)) throw new CodecError('NaN is not a cty number', steps(path));
    // Integers beyond 32 bits go out as int64 rather than float64, as go-cty writes them.
    if (Number.isInteger(v) && Math.abs(v) >= 2 ** 31 && Math.abs(v) < 2 ** 63) w.bigint(BigInt(v));
    else w.number(v);
    return;
  }
  if (v instanceof CtyBigNumber) {
    if (v.isInteger()) {
      const b = v.toBigInt();
      if (b >= INT64_MIN && b <= UINT64_MAX) {
        w.bigint(b);
        return;
      }
    }
    w.string(v.text); // go-cty parses decimal text back at full precision
    return;
  }
  throw new CodecError('number is required', steps(path));
}

function refinementPayload(u: Unknown, t: CtyType, path: Path): Uint8Array | undefined {
  const r = u.refinements;
  if (!r || t.kind === 'dynamic') return undefined;
  const entries: Array<[number, (w: MsgpackWriter) => void]> = [];
  if (r.nullness) entries.push([REFINE.nullness, (w) => w.bool(r.nullness === 'null')]);
  if (r.stringPrefix !== undefined) {
    if (t.kind !== 'string') throw new CodecError('a string prefix refinement needs a string', steps(path));
    const prefix = r.stringPrefix;
    if (prefix !== '') entries.push([REFINE.stringPrefix, (w) => w.string(prefix)]);
  }
  for (const [key, bound] of [
    [REFINE.numberMin, r.numberLowerBound],
    [REFINE.numberMax, r.numberUpperBound],
  ] as const) {
    if (!bound) continue;
    if (t.kind !== 'number') throw new CodecError('a number bound refinement needs a number', steps(path));
    const out = new MsgpackWriter(16);
    encodeNumber(out, bound[0], path); // checked now, so a bad bound fails before anything is written
    entries.push([
      key,
      (w) => {
        w.arrayHeader(2);
        w.raw(out.take());
        w.bool(bound[1]);
      },
    ]);
  }
  for (const [key, n] of [
    [REFINE.lengthMin, r.lengthLowerBound],
    [REFINE.lengthMax, r.lengthUpperBound],
  ] as const) {
    if (n === undefined) continue;
    if (t.kind !== 'list' && t.kind !== 'set' && t.kind !== 'map') {
      throw new CodecError('a length refinement needs a list, set or map', steps(path));
    }
    entries.push([key, (w) => w.number(n)]);
  }
  if (entries.length === 0) return undefined;
  // A map with small integer keys; written apart from the value, whose ext header needs its size.
  const w = new MsgpackWriter(64);
  w.mapHeader(entries.length);
  for (const [key, write] of entries) {
    w.number(key);
    write(w);
  }
  return w.take();
}

function encodeObject(w: MsgpackWriter, v: { [key: string]: CtyValue }, t: ObjectType, path: Path): void {
  const plan = objectPlan(t);
  // An attribute the type lacks is reported before a missing one, as the decoder would.
  const keys = Object.keys(v);
  let known = 0;
  for (const name of plan.names) if (Object.hasOwn(v, name)) known++;
  if (known !== keys.length) {
    const extra = keys.find((name) => !plan.index.has(name));
    throw new CodecError(`unsupported attribute "${extra}"`, steps(path));
  }
  w.raw(plan.header);
  for (const k of plan.sorted) {
    const name = plan.names[k]!;
    let e = Object.hasOwn(v, name) ? v[name] : undefined;
    if (e === undefined && plan.optional[k]) e = null;
    const p = attributePath(plan, k, path);
    if (e === undefined) throw new CodecError(MISSING_ATTRIBUTE, steps(p));
    w.raw(plan.keys[k]!);
    encodeValue(w, e, plan.types[k]!, p);
  }
}

function encodeValue(w: MsgpackWriter, v: CtyValue | undefined, t: CtyType, path: Path): void {
  if (v === undefined) throw new CodecError('value is missing (use null)', steps(path));
  if (v instanceof Unknown) {
    const payload = refinementPayload(v, t, path);
    if (payload) w.ext(EXT_REFINED_UNKNOWN, payload);
    else w.raw(UNKNOWN_BYTES);
    return;
  }
  if (t.kind === 'dynamic') {
    if (v === null) {
      w.nil();
      return;
    }
    if (!(v instanceof CtyDynamic)) throw new CodecError('a dynamic value must be a CtyDynamic carrying its type', steps(path));
    if (v.type.kind === 'dynamic') throw new CodecError('a CtyDynamic needs a concrete type', steps(path));
    let typeJson = typeJsonBytes.get(v.type);
    if (typeJson === undefined) {
      typeJson = Buffer.from(typeToJson(v.type));
      typeJsonBytes.set(v.type, typeJson);
    }
    w.arrayHeader(2);
    w.binary(typeJson);
    encodeValue(w, v.value, v.type, path);
    return;
  }
  if (v === null) {
    w.nil();
    return;
  }
  switch (t.kind) {
    case 'string':
      if (typeof v !== 'string') throw new CodecError('string is required', steps(path));
      w.string(v);
      return;
    case 'bool':
      if (typeof v !== 'boolean') throw new CodecError('bool is required', steps(path));
      w.bool(v);
      return;
    case 'number':
      encodeNumber(w, v, path);
      return;
    case 'list':
    case 'set':
      if (!Array.isArray(v)) throw new CodecError(`a ${t.kind} (array) is required`, steps(path));
      w.arrayHeader(v.length);
      for (let i = 0; i < v.length; i++) encodeValue(w, v[i], t.element, at(path, { elementKeyInt: i }));
      return;
    case 'tuple':
      if (!Array.isArray(v) || v.length !== t.elements.length) {
        throw new CodecError(`a tuple of length ${t.elements.length} is required`, steps(path));
      }
      w.arrayHeader(v.length);
      for (let i = 0; i < v.length; i++) encodeValue(w, v[i], t.elements[i]!, at(path, { elementKeyInt: i }));
      return;
    case 'map': {
      if (!isPlainRecord(v)) throw new CodecError('a map (plain object) is required', steps(path));
      const keys = Object.keys(v);
      w.mapHeader(keys.length);
      for (const k of keys) {
        w.string(k);
        encodeValue(w, v[k], t.element, at(path, { elementKeyString: k }));
      }
      return;
    }
    case 'object':
      if (!isPlainRecord(v)) throw new CodecError('an object (plain object) is required', steps(path));
      encodeObject(w, v, t, path);
      return;
  }
}

/** Encodes a value of type `t` as msgpack; throws CodecError with the path on mismatch. */
export function encodeMsgpack(v: CtyValue, t: CtyType): Uint8Array {
  writer.reset();
  encodeValue(writer, v, t, null);
  return writer.take();
}
