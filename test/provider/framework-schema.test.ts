// The schema DSL: protocol schema, cty type, typed model conversion and definition checks.
import { Types, UNKNOWN, CtyBigNumber } from '../../src/protocol/cty';
import { attr, defineSchema } from '../../src/provider/framework';
import { attributeList, fromModel, toModel, toPlanModel } from '../../src/provider/framework/model';
import { widgetSchema, type Widget } from './fixtures';
import { obj } from './harness';

describe('defineSchema', () => {
  it('produces the protocol schema with flags, descriptions and nested attributes', () => {
    const block = widgetSchema.schema.block;
    expect(widgetSchema.schema.version).toBe(0);
    const byName = Object.fromEntries(block.attributes.map((a) => [a.name, a]));
    expect(byName['name']).toMatchObject({ type: Types.string, required: true, description: 'Name.' });
    expect(byName['name']!.optional).toBeUndefined();
    expect(byName['secret_wo']).toMatchObject({ optional: true, sensitive: true, writeOnly: true });
    expect(byName['size']).toMatchObject({ optional: true, computed: true, type: Types.number });
    expect(byName['legacy']).toMatchObject({ deprecated: true });
    expect(byName['tags']!.type).toEqual(Types.set(Types.string));
    expect(byName['entries']!.type).toBeUndefined();
    expect(byName['entries']!.nestedType).toMatchObject({ nesting: 'list' });
    expect(byName['entries']!.nestedType!.attributes.map((a) => a.name)).toEqual(['ip', 'label']);
  });

  it('derives the object type used to decode values', () => {
    expect(widgetSchema.type.kind).toBe('object');
    const attrs = (widgetSchema.type as { attributes: Record<string, unknown> }).attributes;
    expect(Object.keys(attrs).sort()).toEqual(Object.keys(widgetSchema.attributes).sort());
    expect(attrs['entries']).toMatchObject({ kind: 'list', element: { kind: 'object' } });
  });

  it.each([
    ['required with computed', { description: 'x', required: true, computed: true }],
    ['no presence flag', { description: 'x' }],
    ['default without computed', { description: 'x', optional: true, default: 'a' }],
    ['computed write-only', { description: 'x', computed: true, writeOnly: true }],
    ['empty description', { description: ' ', optional: true }],
  ])('rejects a definition with %s', (_name, opts) => {
    expect(() => attr.string(opts)).toThrow(/invalid attribute definition/);
  });
});

describe('model conversion', () => {
  it('decodes snake_case keys, nulls, sets as arrays, nested objects and big numbers', () => {
    const value = obj(widgetSchema, {
      id: 'w1',
      name: 'a',
      size: CtyBigNumber.parse('0.1'),
      tags: ['x', 'y'],
      entries: [{ ip: '10.0.0.1', label: null }],
      enabled: UNKNOWN,
    });
    const m: Widget = toModel(widgetSchema.attributes, value);
    expect(m.id).toBe('w1');
    expect(m.note).toBeNull();
    expect(m.size).toBeCloseTo(0.1);
    expect(m.tags).toEqual(['x', 'y']);
    expect(m.entries).toEqual([{ ip: '10.0.0.1', label: null }]);
    // A known model never carries unknowns: they arrive as null.
    expect(m.enabled).toBeNull();
  });

  it('marks attributes that are not wholly known as UNKNOWN in plan models', () => {
    const value = obj(widgetSchema, { name: 'a', tags: ['x', UNKNOWN], enabled: true });
    const m = toPlanModel(widgetSchema.attributes, value);
    expect(m.tags).toBe(UNKNOWN);
    expect(m.enabled).toBe(true);
    expect(m.name).toBe('a');
  });

  it('encodes a model back with every attribute present', () => {
    const v = fromModel(widgetSchema.attributes, { name: 'a', entries: [{ ip: '10.0.0.1' }], revision: UNKNOWN });
    expect(v).toEqual(obj(widgetSchema, { name: 'a', entries: [{ ip: '10.0.0.1', label: null }], revision: UNKNOWN }));
  });

  it('types required attributes as non-null and others as nullable', () => {
    const s = defineSchema({
      description: 'd',
      attributes: { a: attr.string({ description: 'a', required: true }), b: attr.number({ description: 'b', optional: true }) },
    });
    const m = toModel(s.attributes, obj(s, { a: 'x', b: 2 }));
    const a: string = m.a;
    const b: number | null = m.b;
    // @ts-expect-error an optional attribute may be null
    const bad: number = m.b;
    expect([a, b, bad]).toEqual(['x', 2, 2]);
  });
});

describe('attributeList', () => {
  it('lists a map once: entries and names in declaration order, write-only names, the same object every call', () => {
    const attributes = {
      b: attr.string({ description: 'B.', required: true }),
      a: attr.string({ description: 'A.', optional: true, writeOnly: true }),
      c: attr.number({ description: 'C.', computed: true }),
    };
    const list = attributeList(attributes);
    expect(list.names).toEqual(['b', 'a', 'c']);
    expect(list.entries).toEqual([
      ['b', attributes.b],
      ['a', attributes.a],
      ['c', attributes.c],
    ]);
    expect(list.writeOnly).toEqual(['a']);
    expect(attributeList(attributes)).toBe(list);
    expect(attributeList({ ...attributes })).not.toBe(list);
  });
});
