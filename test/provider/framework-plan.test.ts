// PlanResourceChange through the FrameworkServer: create, update, replace, destroy, defaults,
// computed values, write-only nulling and the resource's modifyPlan hook.
import { isUnknown, UNKNOWN, type CtyValue } from '../../src/protocol/cty';
import { attr, defineSchema, FrameworkServer, requiresReplaceIf, type ResourceDefinition } from '../../src/provider/framework';
import { emptyProviderSchema, widgetSchema, WidgetStore, widgetServer } from './fixtures';
import { decode, decodeObject, dv, errors, NO_PRIVATE, obj, TF111 } from './harness';

type Values = Record<string, CtyValue>;

async function plan(prior: Values | null, config: Values | null, proposed?: Values | null) {
  const server = await widgetServer(new WidgetStore());
  const cfg = config === null ? null : obj(widgetSchema, config);
  // Terraform's proposal: config values, plus prior values for computed attributes left null.
  const prop =
    proposed !== undefined
      ? proposed === null
        ? null
        : obj(widgetSchema, proposed)
      : cfg === null
        ? null
        : Object.fromEntries(
            Object.entries(cfg).map(([k, v]) => [
              k,
              v === null && widgetSchema.attributes[k as keyof typeof widgetSchema.attributes].computed && prior !== null ? (prior[k] ?? null) : v,
            ]),
          );
  const res = await server.planResourceChange({
    typeName: 'test_widget',
    priorState: dv(widgetSchema, prior === null ? null : obj(widgetSchema, prior)),
    proposedNewState: dv(widgetSchema, prop),
    config: dv(widgetSchema, cfg),
    priorPrivate: NO_PRIVATE,
    clientCapabilities: TF111,
  });
  return res;
}

const PRIOR: Values = { id: 'w1', name: 'a', note: 'n', size: 2, enabled: true, created: 'c0', revision: 4 };

describe('PlanResourceChange', () => {
  describe('create', () => {
    it('plans computed attributes as unknown (id too, which Terraform proposes as null) and applies defaults', async () => {
      const res = await plan(null, { name: 'a' });
      expect(errors(res.diagnostics)).toEqual([]);
      const p = decodeObject(widgetSchema, res.plannedState);
      expect(isUnknown(p['id']!)).toBe(true);
      expect(isUnknown(p['created']!)).toBe(true);
      expect(isUnknown(p['revision']!)).toBe(true);
      expect(p['size']).toBe(0);
      expect(p['enabled']).toBe(true);
      expect(p['name']).toBe('a');
      expect(p['note']).toBeNull();
      expect(res.requiresReplace).toEqual([]);
    });

    it('keeps configured values of optional+computed attributes', async () => {
      const p = decodeObject(widgetSchema, (await plan(null, { name: 'a', size: 7, enabled: false })).plannedState);
      expect([p['size'], p['enabled']]).toEqual([7, false]);
    });

    it('keeps a configured unknown unknown instead of defaulting it', async () => {
      const p = decodeObject(widgetSchema, (await plan(null, { name: 'a', size: UNKNOWN })).plannedState);
      expect(isUnknown(p['size']!)).toBe(true);
    });

    it('plans write-only attributes as null', async () => {
      const p = decodeObject(widgetSchema, (await plan(null, { name: 'a', secret_wo: 'pw' })).plannedState);
      expect(p['secret_wo']).toBeNull();
    });
  });

  describe('update', () => {
    it('changes nothing when the config matches the state', async () => {
      const res = await plan(PRIOR, { name: 'a', note: 'n', size: 2 });
      expect(decode(widgetSchema, res.plannedState)).toEqual(obj(widgetSchema, PRIOR));
      expect(res.requiresReplace).toEqual([]);
    });

    it('keeps prior computed values, marks recomputed ones unknown, on an in-place change', async () => {
      const p = decodeObject(widgetSchema, (await plan(PRIOR, { name: 'a', note: 'm', size: 2 })).plannedState);
      expect(p['note']).toBe('m');
      expect(p['id']).toBe('w1');
      expect(p['created']).toBe('c0');
      expect(isUnknown(p['revision']!)).toBe(true);
    });

    it('re-applies a default when the attribute is removed from the config', async () => {
      const p = decodeObject(widgetSchema, (await plan({ ...PRIOR, size: 9, enabled: false }, { name: 'a', note: 'n' })).plannedState);
      expect([p['size'], p['enabled']]).toEqual([0, true]);
    });

    it('asks for replacement when a requiresReplace attribute changes', async () => {
      const res = await plan(PRIOR, { name: 'b', note: 'n', size: 2 });
      expect(res.requiresReplace).toEqual([[{ attributeName: 'name' }]]);
      expect(decodeObject(widgetSchema, res.plannedState)['name']).toBe('b');
    });

    it('useStateForUnknown restores a prior value Terraform proposed as unknown', async () => {
      const res = await plan(PRIOR, { name: 'a', note: 'n', size: 2 }, { ...PRIOR, created: UNKNOWN });
      expect(decodeObject(widgetSchema, res.plannedState)['created']).toBe('c0');
    });

    it('nulls write-only attributes and ignores them for change detection', async () => {
      const res = await plan(PRIOR, { name: 'a', note: 'n', size: 2, secret_wo: 'pw' });
      const p = decodeObject(widgetSchema, res.plannedState);
      expect(p['secret_wo']).toBeNull();
      expect(p['revision']).toBe(4);
    });
  });

  it('plans destroy as null', async () => {
    const res = await plan(PRIOR, null, null);
    expect(decode(widgetSchema, res.plannedState)).toBeNull();
    expect(res.diagnostics).toEqual([]);
  });
});

describe('modifyPlan and custom modifiers', () => {
  const schema = defineSchema({
    description: 'd',
    attributes: {
      id: attr.string({ description: 'id', computed: true }),
      name: attr.string({
        description: 'n',
        optional: true,
        planModifiers: [requiresReplaceIf('replaced only when cleared', (_prior, planned) => planned === null)],
      }),
      derived: attr.string({ description: 'd', computed: true }),
    },
  });
  const resource = {
    typeName: 'test_thing',
    displayName: 'thing',
    schema,
    modifyPlan(_ctx, { config, prior }) {
      // The id is the name: known at plan time when the name is.
      if (prior === null && typeof config.name === 'string') return { planned: { id: config.name, derived: UNKNOWN } };
      if (prior !== null && config.name !== prior.name) return { planned: { derived: UNKNOWN }, requiresReplace: ['derived'] };
      return undefined;
    },
    create: async () => undefined,
    read: async () => null,
    delete: async () => undefined,
  } satisfies ResourceDefinition<typeof schema>;
  const server = new FrameworkServer({
    typeName: 'test',
    schema: emptyProviderSchema,
    configure: async () => ({}),
    resources: [resource],
    dataSources: [],
  });
  const run = (prior: Values | null, config: Values) =>
    server.planResourceChange({
      typeName: 'test_thing',
      priorState: dv(schema, prior === null ? null : obj(schema, prior)),
      proposedNewState: dv(schema, obj(schema, { ...(prior ?? {}), ...config })),
      config: dv(schema, obj(schema, config)),
      priorPrivate: NO_PRIVATE,
    });

  it('lets the resource fill planned values', async () => {
    const p = decodeObject(schema, (await run(null, { name: 'x' })).plannedState);
    expect(p['id']).toBe('x');
    expect(isUnknown(p['derived']!)).toBe(true);
  });

  it('combines conditional replacement and the hook', async () => {
    const changed = await run({ id: 'x', name: 'x', derived: 'd' }, { name: 'y' });
    expect(changed.requiresReplace).toEqual([[{ attributeName: 'derived' }]]);
    const cleared = await run({ id: 'x', name: 'x', derived: 'd' }, { name: null });
    expect(cleared.requiresReplace).toEqual(expect.arrayContaining([[{ attributeName: 'name' }], [{ attributeName: 'derived' }]]));
  });
});
