// Conversion between cty values (decoded with the schema type) and the plain TypeScript models
// resources work with. Model keys are the schema's snake_case attribute names; sets are arrays;
// numbers are JS numbers; null is null. Known models (apply, read, import) carry no unknowns:
// an unknown planned value arrives as null. Plan models mark a top-level attribute that is not
// wholly known with UNKNOWN (unknowns deeper inside are not exposed).
import { CtyBigNumber, isPlainRecord, isUnknown, isWhollyKnown, UNKNOWN, Unknown, type CtyValue } from '../../protocol/cty';
import type { AnyAttribute, AttributeMap, ModelOfAttributes, ObjectSchema } from './schema';

/** The model of a schema: what create/read/update/delete receive and return. */
export type Model<S extends ObjectSchema> = ModelOfAttributes<S['attributes']>;

/** A plan-time model: each attribute may also be UNKNOWN ("known after apply"). */
export type PlanModel<S extends ObjectSchema> = { [K in keyof Model<S>]: Model<S>[K] | Unknown };

/** True when a plan model's value is known: narrows `T | Unknown` to `T` for any attribute type. */
export function isKnown<T>(v: T | Unknown): v is T {
  return !(v instanceof Unknown);
}

/** An attribute map's entries and what the RPCs ask of it, once per map (a schema never changes). */
export interface AttributeList {
  readonly entries: ReadonlyArray<readonly [string, AnyAttribute]>;
  readonly names: readonly string[];
  /** Names of write-only attributes (none in most schemas: then nothing is nulled or copied). */
  readonly writeOnly: readonly string[];
}

const lists = new WeakMap<AttributeMap, AttributeList>();

/** The entries of `attributes`, worked out on first use; RPCs walk them on every call. */
export function attributeList(attributes: AttributeMap): AttributeList {
  let list = lists.get(attributes);
  if (list === undefined) {
    const entries = Object.entries(attributes);
    list = { entries, names: entries.map(([name]) => name), writeOnly: entries.filter(([, a]) => a.writeOnly).map(([name]) => name) };
    lists.set(attributes, list);
  }
  return list;
}

/** A cty object value as decoded (every attribute present). */
export type CtyObject = { [key: string]: CtyValue };

/** True when `v` is a decoded object or map value. */
export function isCtyObject(v: CtyValue): v is CtyObject {
  return isPlainRecord(v);
}

/** Decodes an object value into a known model (unknown → null). */
export function toModel<A extends AttributeMap>(attributes: A, value: CtyValue): ModelOfAttributes<A> {
  const obj = isCtyObject(value) ? value : {};
  const out: Record<string, unknown> = {};
  for (const [name, a] of attributeList(attributes).entries) out[name] = attributeToModel(a, obj[name] ?? null);
  return out as ModelOfAttributes<A>;
}

/** Decodes an object value into a plan model (not wholly known → UNKNOWN). */
export function toPlanModel<A extends AttributeMap>(attributes: A, value: CtyValue): { [K in keyof A]: ModelOfAttributes<A>[K] | Unknown } {
  const obj = isCtyObject(value) ? value : {};
  const out: Record<string, unknown> = {};
  for (const [name, a] of attributeList(attributes).entries) {
    const v = obj[name] ?? null;
    out[name] = isWhollyKnown(v) ? attributeToModel(a, v) : UNKNOWN;
  }
  return out as { [K in keyof A]: ModelOfAttributes<A>[K] | Unknown };
}

/**
 * Encodes a (plan) model as an object value with every attribute present; missing or
 * `undefined` fields become null, UNKNOWN stays unknown.
 */
export function fromModel(attributes: AttributeMap, model: Readonly<Record<string, unknown>>): CtyObject {
  const out: CtyObject = {};
  for (const [name, a] of attributeList(attributes).entries) out[name] = attributeFromModel(a, model[name]);
  return out;
}

/** Converts one attribute's cty value to its model value. */
export function attributeToModel(a: AnyAttribute, v: CtyValue): unknown {
  if (v === null || isUnknown(v)) return null;
  if (a.nested !== undefined) {
    const nested = a.nested.attributes;
    return Array.isArray(v) ? v.map((el) => toModel(nested, el)) : null;
  }
  return primitiveOrCollection(v);
}

function primitiveOrCollection(v: CtyValue): unknown {
  if (v === null || isUnknown(v)) return null;
  if (typeof v === 'string' || typeof v === 'boolean' || typeof v === 'number') return v;
  if (Array.isArray(v)) return v.map(primitiveOrCollection);
  if (isCtyObject(v)) {
    const out: Record<string, unknown> = {};
    for (const [k, el] of Object.entries(v)) out[k] = primitiveOrCollection(el);
    return out;
  }
  // A big or inexact number (e.g. 0.1); the model uses the nearest JS number.
  if (v instanceof CtyBigNumber) return v.toNumber();
  return null;
}

/** Converts one attribute's model value to cty. */
export function attributeFromModel(a: AnyAttribute, v: unknown): CtyValue {
  if (v === undefined || v === null) return null;
  if (isUnknownLike(v)) return v;
  if (a.nested !== undefined) {
    const nested = a.nested.attributes;
    if (!Array.isArray(v)) throw new TypeError('a nested attribute model must be an array');
    return v.map((el: unknown) => fromModel(nested, isRecord(el) ? el : {}));
  }
  return plainToCty(v);
}

function plainToCty(v: unknown): CtyValue {
  if (v === undefined || v === null) return null;
  if (isUnknownLike(v)) return v;
  if (typeof v === 'string' || typeof v === 'boolean' || typeof v === 'number') return v;
  if (Array.isArray(v)) return v.map(plainToCty);
  if (isRecord(v)) {
    const out: CtyObject = {};
    for (const [k, el] of Object.entries(v)) out[k] = plainToCty(el);
    return out;
  }
  throw new TypeError(`cannot encode a ${typeof v} as a cty value`);
}

function isUnknownLike(v: unknown): v is Unknown {
  return typeof v === 'object' && v !== null && isUnknown(v as CtyValue);
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
