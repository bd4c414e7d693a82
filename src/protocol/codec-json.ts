// cty values <-> JSON, the encoding of stored state (UpgradeResourceState's raw state) and of
// `terraform show -json`. Follows go-cty's JSON rules: no unknowns; a missing object attribute is
// null; dynamic values are {"value": …, "type": …}; numbers keep their full decimal text.
import { CtyBigNumber, CtyDynamic, Unknown, isPlainRecord, numberFromDecimalText, typeFromJson, typeToJson, type CtyType, type CtyValue } from './cty';
import { CodecError, MISSING_ATTRIBUTE } from './codec-error';
import { at, type Path, setOwn, shapeOf, steps } from './codec-path';
import { JsonNumber, parseJsonText, type JsonNode } from './json-text';

/** Options of {@link decodeJsonValue}. */
export interface JsonDecodeOptions {
  /**
   * Drop object attributes the type does not know instead of failing (e.g. state written by an
   * older schema that had an attribute since removed).
   * @default false
   */
  readonly ignoreUndefinedAttributes?: boolean;
}

/** Plain JS form of a JSON node, for type descriptions. */
function plain(node: JsonNode): unknown {
  if (node instanceof JsonNumber) return Number(node.text);
  if (Array.isArray(node)) return node.map(plain);
  if (node instanceof Map) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of node) Object.defineProperty(out, k, { value: plain(v), enumerable: true });
    return out;
  }
  return node;
}

function fromJson(node: JsonNode, t: CtyType, path: Path, opts: JsonDecodeOptions): CtyValue {
  if (node === null) return null;
  switch (t.kind) {
    case 'dynamic': {
      if (!(node instanceof Map) || !node.has('type') || !node.has('value')) {
        throw new CodecError('a dynamic value must be {"value": …, "type": …}', steps(path));
      }
      let concrete: CtyType;
      try {
        concrete = typeFromJson(plain(node.get('type')!));
      } catch (err) {
        throw new CodecError(`dynamic value has a bad type: ${(err as Error).message}`, steps(path), { cause: err });
      }
      return new CtyDynamic(concrete, fromJson(node.get('value')!, concrete, path, opts));
    }
    case 'string':
      if (typeof node === 'string') return node;
      if (node instanceof JsonNumber) return node.text;
      if (typeof node === 'boolean') return String(node);
      throw new CodecError('string is required', steps(path));
    case 'number': {
      const text = node instanceof JsonNumber ? node.text : typeof node === 'string' ? node : undefined;
      const n = text === undefined ? undefined : numberFromDecimalText(text);
      if (n === undefined) throw new CodecError('number is required', steps(path));
      return n;
    }
    case 'bool':
      if (typeof node === 'boolean') return node;
      if (node === 'true' || node === 'false') return node === 'true';
      throw new CodecError('bool is required', steps(path));
    case 'list':
    case 'set':
      if (!Array.isArray(node)) throw new CodecError(`a JSON array is required for a ${t.kind}`, steps(path));
      return node.map((e, i) => fromJson(e, t.element, at(path, { elementKeyInt: i }), opts));
    case 'tuple':
      if (!Array.isArray(node) || node.length !== t.elements.length) {
        throw new CodecError(`a JSON array of ${t.elements.length} elements is required for the tuple`, steps(path));
      }
      return node.map((e, i) => fromJson(e, t.elements[i]!, at(path, { elementKeyInt: i }), opts));
    case 'map': {
      if (!(node instanceof Map)) throw new CodecError('a JSON object is required for a map', steps(path));
      const out: { [key: string]: CtyValue } = {};
      for (const [k, e] of node) setOwn(out, k, fromJson(e, t.element, at(path, { elementKeyString: k }), opts));
      return out;
    }
    case 'object': {
      if (!(node instanceof Map)) throw new CodecError('a JSON object is required for an object', steps(path));
      const out: { [key: string]: CtyValue } = {};
      for (const key of node.keys()) {
        if (!Object.hasOwn(t.attributes, key) && !opts.ignoreUndefinedAttributes) {
          throw new CodecError(`unsupported attribute "${key}"`, steps(path));
        }
      }
      for (const name of shapeOf(t).names) {
        const e = node.get(name);
        setOwn(out, name, e === undefined ? null : fromJson(e, t.attributes[name]!, at(path, { attributeName: name }), opts));
      }
      return out;
    }
  }
}

/** Decodes the JSON encoding of a value of type `t` (no unknowns); throws CodecError with the path. */
export function decodeJsonValue(bytes: Uint8Array | string, t: CtyType, opts: JsonDecodeOptions = {}): CtyValue {
  const text = typeof bytes === 'string' ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  let node: JsonNode;
  try {
    node = parseJsonText(text);
  } catch (err) {
    throw new CodecError(`malformed JSON: ${(err as Error).message}`, [], { cause: err });
  }
  return fromJson(node, t, null, opts);
}

function toJson(v: CtyValue | undefined, t: CtyType, path: Path): string {
  if (v === undefined) throw new CodecError('value is missing (use null)', steps(path));
  if (v instanceof Unknown) throw new CodecError('unknown values cannot be encoded as JSON', steps(path));
  if (v === null) return 'null';
  switch (t.kind) {
    case 'dynamic':
      if (!(v instanceof CtyDynamic)) throw new CodecError('a dynamic value must be a CtyDynamic carrying its type', steps(path));
      return `{"value":${toJson(v.value, v.type, path)},"type":${typeToJson(v.type)}}`;
    case 'string':
      if (typeof v !== 'string') throw new CodecError('string is required', steps(path));
      return JSON.stringify(v);
    case 'bool':
      if (typeof v !== 'boolean') throw new CodecError('bool is required', steps(path));
      return String(v);
    case 'number':
      if (v instanceof CtyBigNumber) return v.text;
      if (typeof v !== 'number') throw new CodecError('number is required', steps(path));
      if (!Number.isFinite(v)) throw new CodecError(`${v} cannot be encoded as JSON`, steps(path));
      return String(v);
    case 'list':
    case 'set':
    case 'tuple': {
      if (!Array.isArray(v)) throw new CodecError(`a ${t.kind} (array) is required`, steps(path));
      if (t.kind === 'tuple' && v.length !== t.elements.length) {
        throw new CodecError(`a tuple of length ${t.elements.length} is required`, steps(path));
      }
      const parts = v.map((e, i) => toJson(e, t.kind === 'tuple' ? t.elements[i]! : t.element, at(path, { elementKeyInt: i })));
      return `[${parts.join(',')}]`;
    }
    case 'map': {
      if (!isPlainRecord(v)) throw new CodecError('a map (plain object) is required', steps(path));
      const parts = Object.keys(v)
        .sort()
        .map((k) => `${JSON.stringify(k)}:${toJson(v[k], t.element, at(path, { elementKeyString: k }))}`);
      return `{${parts.join(',')}}`;
    }
    case 'object': {
      if (!isPlainRecord(v)) throw new CodecError('an object (plain object) is required', steps(path));
      for (const name of Object.keys(v)) {
        if (!Object.hasOwn(t.attributes, name)) {
          throw new CodecError(`unsupported attribute "${name}"`, steps(path));
        }
      }
      const shape = shapeOf(t);
      const parts = shape.sorted.map((name) => {
        const p = at(path, { attributeName: name });
        let e = Object.hasOwn(v, name) ? v[name] : undefined;
        if (e === undefined && shape.optional.has(name)) e = null;
        if (e === undefined) throw new CodecError(MISSING_ATTRIBUTE, steps(p));
        return `${JSON.stringify(name)}:${toJson(e, t.attributes[name]!, p)}`;
      });
      return `{${parts.join(',')}}`;
    }
  }
}

/** Encodes a wholly known value of type `t` as JSON bytes; throws CodecError with the path. */
export function encodeJsonValue(v: CtyValue, t: CtyType): Uint8Array {
  return Buffer.from(toJson(v, t, null), 'utf8');
}
