// What both value codecs (msgpack and JSON) share on their hot path: where they are in a value,
// and what an object type needs, each computed once. A codec walks every attribute of every value
// of every RPC, so nothing here allocates more than it must when the value is fine: the array of
// steps a CodecError carries is only built when one is thrown.
import type { CtyType } from './cty';
import type { AttributePathStep } from './types';

/** Where a codec is in a value: a chain from the innermost step outwards (null: the value itself). */
export type Path = { readonly parent: Path; readonly step: AttributePathStep } | null;

/** `path` extended by one step: one small object. */
export const at = (path: Path, step: AttributePathStep): Path => ({ parent: path, step });

/** The steps of `path`, outermost first, as a CodecError carries them. */
export function steps(path: Path): AttributePathStep[] {
  const out: AttributePathStep[] = [];
  for (let p = path; p !== null; p = p.parent) out.push(p.step);
  return out.reverse();
}

/** Assigns an own property even for the key `__proto__` (which a plain assignment would not). */
export function setOwn<V>(target: Record<string, V>, key: string, value: V): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

/** What an object type's codecs need: computed once per type (a schema's types live as long as it). */
export interface ObjectShape {
  /** Attribute names in declaration order. */
  readonly names: readonly string[];
  /** Attribute names sorted, the order go-cty writes them in. */
  readonly sorted: readonly string[];
  readonly optional: ReadonlySet<string>;
}

const shapes = new WeakMap<CtyType, ObjectShape>();

export function shapeOf(t: Extract<CtyType, { kind: 'object' }>): ObjectShape {
  let shape = shapes.get(t);
  if (shape === undefined) {
    const names = Object.keys(t.attributes);
    shape = { names, sorted: [...names].sort(), optional: new Set(t.optional ?? []) };
    shapes.set(t, shape);
  }
  return shape;
}
