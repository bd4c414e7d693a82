// cty, Terraform's type system, as plain TypeScript data: types, the JSON form Terraform uses for
// types in schemas and dynamic values, unknown values (with refinements) and value comparison.
import { CtyBigNumber, numbersEqual, type CtyNumber } from './number';

export { CtyBigNumber, numberFromBigInt, numberFromDecimalText, numbersEqual, type CtyNumber } from './number';

/** A cty type. Objects list optional attributes only in type constraints (e.g. function parameters). */
export type CtyType =
  | { readonly kind: 'string' }
  | { readonly kind: 'number' }
  | { readonly kind: 'bool' }
  | { readonly kind: 'dynamic' }
  | { readonly kind: 'list'; readonly element: CtyType }
  | { readonly kind: 'set'; readonly element: CtyType }
  | { readonly kind: 'map'; readonly element: CtyType }
  | {
      readonly kind: 'object';
      readonly attributes: Readonly<Record<string, CtyType>>;
      readonly optional?: readonly string[];
    }
  | { readonly kind: 'tuple'; readonly elements: readonly CtyType[] };

const STRING: CtyType = Object.freeze({ kind: 'string' });
const NUMBER: CtyType = Object.freeze({ kind: 'number' });
const BOOL: CtyType = Object.freeze({ kind: 'bool' });
const DYNAMIC: CtyType = Object.freeze({ kind: 'dynamic' });

/** Constructors of cty types. */
export const Types = {
  /** cty.String */
  string: STRING,
  /** cty.Number */
  number: NUMBER,
  /** cty.Bool */
  bool: BOOL,
  /** cty.DynamicPseudoType: any type, decided per value. */
  dynamic: DYNAMIC,
  /** A list of `element`. */
  list: (element: CtyType): CtyType => ({ kind: 'list', element }),
  /** A set of `element`. */
  set: (element: CtyType): CtyType => ({ kind: 'set', element }),
  /** A map from string to `element`. */
  map: (element: CtyType): CtyType => ({ kind: 'map', element }),
  /** An object; `optional` names attributes that may be omitted in a type constraint. */
  object: (attributes: Readonly<Record<string, CtyType>>, optional?: readonly string[]): CtyType =>
    optional && optional.length > 0 ? { kind: 'object', attributes, optional } : { kind: 'object', attributes },
  /** A tuple of the given element types. */
  tuple: (elements: readonly CtyType[]): CtyType => ({ kind: 'tuple', elements }),
} as const;

type TypeJson = string | [string, unknown] | [string, unknown, unknown];

function toJsonValue(t: CtyType): TypeJson {
  switch (t.kind) {
    case 'string':
    case 'number':
    case 'bool':
    case 'dynamic':
      return t.kind;
    case 'list':
    case 'set':
    case 'map':
      return [t.kind, toJsonValue(t.element)];
    case 'tuple':
      return ['tuple', t.elements.map(toJsonValue)];
    case 'object': {
      const attrs: Record<string, unknown> = {};
      for (const name of Object.keys(t.attributes).sort()) attrs[name] = toJsonValue(t.attributes[name]!);
      return t.optional && t.optional.length > 0 ? ['object', attrs, [...t.optional].sort()] : ['object', attrs];
    }
  }
}

/** The cty JSON form of a type, e.g. `["set",["object",{"ip":"string"}]]`. */
export function typeToJson(t: CtyType): string {
  return JSON.stringify(toJsonValue(t));
}

function fromJsonValue(j: unknown, where: string): CtyType {
  if (typeof j === 'string') {
    if (j === 'string' || j === 'number' || j === 'bool' || j === 'dynamic') return Types[j];
    throw new TypeError(`${where}: unknown primitive type "${j}"`);
  }
  if (!Array.isArray(j) || typeof j[0] !== 'string') throw new TypeError(`${where}: not a cty type`);
  const [kind, arg, extra] = j as [string, unknown, unknown];
  switch (kind) {
    case 'list':
    case 'set':
    case 'map':
      return { kind, element: fromJsonValue(arg, `${where}.${kind}`) };
    case 'tuple':
      if (!Array.isArray(arg)) throw new TypeError(`${where}: tuple needs an array of element types`);
      return Types.tuple(arg.map((e, i) => fromJsonValue(e, `${where}[${i}]`)));
    case 'object': {
      if (arg === null || typeof arg !== 'object' || Array.isArray(arg)) {
        throw new TypeError(`${where}: object needs a map of attribute types`);
      }
      const attributes: Record<string, CtyType> = {};
      for (const [name, at] of Object.entries(arg)) {
        Object.defineProperty(attributes, name, {
          value: fromJsonValue(at, `${where}.${name}`),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
      if (extra !== undefined && (!Array.isArray(extra) || extra.some((n) => typeof n !== 'string'))) {
        throw new TypeError(`${where}: optional attributes must be a list of names`);
      }
      return Types.object(attributes, extra as string[] | undefined);
    }
    default:
      throw new TypeError(`${where}: unknown type kind "${kind}"`);
  }
}

/**
 * Parses the cty JSON form of a type. Accepts the JSON text (also as bytes, as schemas carry it)
 * or the already-parsed value; throws TypeError when it is not a cty type.
 */
export function typeFromJson(json: string | Uint8Array | unknown): CtyType {
  let value = json;
  if (json instanceof Uint8Array) value = new TextDecoder().decode(json);
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value);
    } catch {
      // a bare primitive name such as string is accepted too
    }
  }
  return fromJsonValue(value, 'type');
}

/** Whether two types are the same (optional attribute markers included). */
export function typeEquals(a: CtyType, b: CtyType): boolean {
  return typeToJson(a) === typeToJson(b);
}

/** Refinements of an unknown value: what Terraform already knows about the value to come. */
export interface Refinements {
  /** 'not-null': the value will not be null. ('null' is legal on the wire but odd.) */
  readonly nullness?: 'not-null' | 'null';
  /** Strings only: the value will start with this prefix. */
  readonly stringPrefix?: string;
  /** Numbers only: lower bound and whether it is inclusive. */
  readonly numberLowerBound?: readonly [CtyNumber, boolean];
  /** Numbers only: upper bound and whether it is inclusive. */
  readonly numberUpperBound?: readonly [CtyNumber, boolean];
  /** Lists, sets and maps only: the least number of elements. */
  readonly lengthLowerBound?: number;
  /** Lists, sets and maps only: the greatest number of elements. */
  readonly lengthUpperBound?: number;
}

/** An unknown value ("known after apply"), optionally refined (refinements survive a round trip). */
export class Unknown {
  /** Always true; lets plain-data checks recognise unknowns. */
  readonly isUnknown = true as const;
  /** What is known about the value to come, when Terraform said anything. */
  readonly refinements?: Refinements;

  /** @param refinements omit for a wholly unknown value */
  constructor(refinements?: Refinements) {
    if (refinements && Object.keys(refinements).length > 0) this.refinements = Object.freeze({ ...refinements });
    Object.freeze(this);
  }
}

/** The unrefined unknown value. */
export const UNKNOWN: Unknown = new Unknown();

/** A value of type dynamic: the concrete type travels with it. `value` may be null or Unknown. */
export class CtyDynamic {
  /**
   * @param type the concrete type of `value` (never dynamic)
   * @param value a value of `type`
   */
  constructor(
    readonly type: CtyType,
    readonly value: CtyValue,
  ) {
    Object.freeze(this);
  }
}

/**
 * Values: null = null; string/boolean as JS; number as JS number when exact, else CtyBigNumber
 * (arbitrary precision, keeps the decimal text); list/set/tuple = arrays (set order meaningless);
 * map/object = plain objects (objects have EVERY attribute present, null when absent);
 * dynamic = CtyDynamic { type, value } (an untyped null or unknown stays null / Unknown).
 */
export type CtyValue = null | Unknown | string | boolean | number | CtyBigNumber | CtyDynamic | CtyValue[] | { [key: string]: CtyValue };

/** Whether `v` is unknown (possibly refined). */
export function isUnknown(v: CtyValue): v is Unknown {
  return v instanceof Unknown;
}

/** True when no Unknown occurs anywhere inside `v`. */
export function isWhollyKnown(v: CtyValue): boolean {
  if (v === null || typeof v !== 'object') return true;
  if (v instanceof Unknown) return false;
  if (v instanceof CtyBigNumber) return true;
  if (v instanceof CtyDynamic) return isWhollyKnown(v.value);
  if (Array.isArray(v)) return v.every(isWhollyKnown);
  return Object.values(v).every(isWhollyKnown);
}

function refinementsEqual(a: Refinements | undefined, b: Refinements | undefined): boolean {
  if (!a || !b) return a === b; // the constructor drops empty refinements, so absent means none
  const bound = (x?: readonly [CtyNumber, boolean], y?: readonly [CtyNumber, boolean]): boolean =>
    x === y || (!!x && !!y && x[1] === y[1] && numbersEqual(x[0], y[0]));
  return (
    a.nullness === b.nullness &&
    a.stringPrefix === b.stringPrefix &&
    a.lengthLowerBound === b.lengthLowerBound &&
    a.lengthUpperBound === b.lengthUpperBound &&
    bound(a.numberLowerBound, b.numberLowerBound) &&
    bound(a.numberUpperBound, b.numberUpperBound)
  );
}

function isNumber(v: CtyValue): v is CtyNumber {
  return typeof v === 'number' || v instanceof CtyBigNumber;
}

/**
 * Structural equality of two values of type `t`: sets compare as sets, numbers numerically,
 * null only equals null, and two unknowns are equal when their refinements are.
 */
export function ctyEqual(a: CtyValue, b: CtyValue, t: CtyType): boolean {
  if (a === null || b === null) return a === b;
  if (a instanceof Unknown || b instanceof Unknown) {
    return a instanceof Unknown && b instanceof Unknown && refinementsEqual(a.refinements, b.refinements);
  }
  switch (t.kind) {
    case 'string':
    case 'bool':
      return a === b;
    case 'number':
      return isNumber(a) && isNumber(b) && numbersEqual(a, b);
    case 'dynamic':
      return a instanceof CtyDynamic && b instanceof CtyDynamic && typeEquals(a.type, b.type) && ctyEqual(a.value, b.value, a.type);
    case 'list':
      return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => ctyEqual(x, b[i]!, t.element));
    case 'tuple':
      return (
        Array.isArray(a) &&
        Array.isArray(b) &&
        a.length === t.elements.length &&
        b.length === t.elements.length &&
        a.every((x, i) => ctyEqual(x, b[i]!, t.elements[i]!))
      );
    case 'set': {
      if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
      const unmatched = [...b];
      for (const x of a) {
        const i = unmatched.findIndex((y) => ctyEqual(x, y, t.element));
        if (i < 0) return false;
        unmatched.splice(i, 1);
      }
      return true;
    }
    case 'map':
    case 'object': {
      if (!isPlainRecord(a) || !isPlainRecord(b)) return false;
      const keys = Object.keys(a);
      if (t.kind === 'map' && keys.length !== Object.keys(b).length) return false;
      const names = t.kind === 'object' ? Object.keys(t.attributes) : keys;
      return names.every((k) => {
        const elem = t.kind === 'object' ? t.attributes[k]! : t.element;
        if (t.kind === 'map' && !Object.hasOwn(b, k)) return false;
        return ctyEqual(a[k] ?? null, b[k] ?? null, elem);
      });
    }
  }
}

/** A map or object value (not an array, unknown, number or dynamic wrapper). */
export function isPlainRecord(v: CtyValue): v is { [key: string]: CtyValue } {
  return v !== null && typeof v === 'object' && !Array.isArray(v) && !(v instanceof Unknown) && !(v instanceof CtyBigNumber) && !(v instanceof CtyDynamic);
}
