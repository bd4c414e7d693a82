// A resource type whose schema went from version 0 to 2: version 0 called `size` `capacity` and
// stored it as a string; version 1 only added `note` (no step needed). UpgradeResourceState runs
// the steps from the stored version on, then decodes with the current schema.
import { attr, defineSchema, type StateUpgraders } from '../../src/provider/framework';
import { upgradeState } from '../../src/provider/framework/upgrade';

const schema = defineSchema({
  description: 'A versioned toy.',
  version: 2,
  attributes: {
    id: attr.string({ description: 'Id.', computed: true }),
    size: attr.number({ description: 'Size.', optional: true }),
    note: attr.string({ description: 'Note.', optional: true }),
  },
});

const calls: number[] = [];
const upgraders: StateUpgraders = {
  0: ({ capacity, ...rest }) => {
    calls.push(0);
    if (typeof capacity !== 'string') throw new Error(`capacity is not a string: ${JSON.stringify(capacity)}`);
    return { ...rest, size: Number(capacity) };
  },
};

const raw = (state: object) => ({ json: Buffer.from(JSON.stringify(state)) });

describe('state upgrade steps', () => {
  beforeEach(() => {
    calls.length = 0;
  });

  it('brings version 0 state to the current schema through its step, then adds the attributes it lacks', () => {
    const r = upgradeState(schema, 0, raw({ id: 'w1', capacity: '7' }), 'toy', upgraders);
    expect(r.diagnostics).toEqual([]);
    expect(r.value).toEqual({ id: 'w1', size: 7, note: null });
    expect(calls).toEqual([0]);
  });

  it('runs no step for state already past it', () => {
    const r = upgradeState(schema, 1, raw({ id: 'w1', size: 3 }), 'toy', upgraders);
    expect(r.diagnostics).toEqual([]);
    expect(r.value).toEqual({ id: 'w1', size: 3, note: null });
    expect(calls).toEqual([]);
  });

  it('reports a step that cannot read the state, naming the versions', () => {
    const r = upgradeState(schema, 0, raw({ id: 'w1', capacity: 7 }), 'toy', upgraders);
    expect(r.value).toBeNull();
    expect(r.diagnostics[0]).toMatchObject({
      severity: 'error',
      summary: 'Unable to upgrade state',
      detail: expect.stringContaining('from schema version 0 to 1: capacity is not a string: 7'),
    });
  });
});

describe('keys that are also names on Object.prototype', () => {
  const tagged = defineSchema({
    description: 'A toy with a map.',
    attributes: {
      id: attr.string({ description: 'Id.', computed: true }),
      tags: attr.map('string', { description: 'Tags.', optional: true }),
      note: attr.string({ description: 'Note.', optional: true }),
      size: attr.number({ description: 'Size.', optional: true }),
    },
  });

  it('keeps a map key named __proto__ or constructor when the state is rewritten (an attribute was missing)', () => {
    // JSON.parse makes "__proto__" an own key. A number sends the state down the careful path, and
    // the missing `note` makes that path rewrite it before decoding.
    const json = Buffer.from('{"id":"t1","size":2,"tags":{"__proto__":"a","constructor":"b","plain":"c"}}');
    const r = upgradeState(tagged, 0, { json }, 'toy', {});
    expect(r.diagnostics).toEqual([]);
    const tags = (r.value as { tags: Record<string, string> }).tags;
    expect(Object.entries(tags).sort()).toEqual([
      ['__proto__', 'a'],
      ['constructor', 'b'],
      ['plain', 'c'],
    ]);
    expect((r.value as { note: unknown }).note).toBeNull();
  });

  it.each(['gone', 'toString'])('drops a stored key the schema does not have, even one named like an Object.prototype member (%s)', (key) => {
    const json = Buffer.from(`{"id":"t2","size":1,"tags":null,"note":"n","${key}":"x"}`);
    const r = upgradeState(tagged, 0, { json }, 'toy', {});
    expect(r.diagnostics).toEqual([]);
    expect(r.value).toEqual({ id: 't2', size: 1, tags: null, note: 'n' });
  });
});

describe('a value of the wrong type in stored state', () => {
  const toy = defineSchema({
    description: 'A toy with a map.',
    attributes: {
      id: attr.string({ description: 'Id.', computed: true }),
      size: attr.number({ description: 'Size.', optional: true }),
      tags: attr.map('string', { description: 'Tags.', optional: true }),
    },
  });
  const detailOf = (json: string): string => {
    const r = upgradeState(toy, 0, { json: Buffer.from(json) }, 'toy', {});
    expect(r.diagnostics).toEqual([expect.objectContaining({ severity: 'error', summary: 'Invalid value in stored state' })]);
    return r.diagnostics[0]!.detail ?? '';
  };

  it.each([
    ['an attribute', '{"id":"t","size":"big","tags":null}', 'has a value of the wrong type at size: number is required.'],
    ['a map element', '{"id":"t","size":1,"tags":{"a":[7]}}', 'has a value of the wrong type at tags["a"]: string is required.'],
    ['the state itself', '[1]', 'has a value of the wrong type: a JSON object is required for an object.'],
  ])('names where once, at %s', (_where, json, said) => {
    expect(detailOf(json)).toContain(said);
  });
});
