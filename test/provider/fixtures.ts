// A fake resource and data source exercising every framework feature, backed by an in-memory
// store, and a FrameworkServer serving them with fake provider data.
import {
  attr,
  conflictsWith,
  defineSchema,
  eachElement,
  FrameworkServer,
  intAtLeast,
  ipv4,
  lengthBetween,
  matches,
  recomputedOnChange,
  requiresReplace,
  useStateForUnknown,
  type DataSourceDefinition,
  type Model,
  type ResourceDefinition,
} from '../../src/provider/framework';

import { describeProxyAccountError } from '../../src/provider/errors';

export const widgetSchema = defineSchema({
  description: 'A test widget.',
  attributes: {
    id: attr.string({ description: 'Id.', computed: true, planModifiers: [useStateForUnknown()] }),
    name: attr.string({ description: 'Name.', required: true, validators: [lengthBetween(1, 5)], planModifiers: [requiresReplace()] }),
    note: attr.string({ description: 'Note.', optional: true, validators: [conflictsWith('secret_wo'), matches(/^[a-z]+$/, 'lowercase')] }),
    secret_wo: attr.string({
      description: 'Write-only secret.',
      optional: true,
      sensitive: true,
      writeOnly: true,
      validators: [lengthBetween(1, 20), matches(/^[a-z]+$/, 'lowercase')],
    }),
    size: attr.number({ description: 'Size.', optional: true, computed: true, default: 0, validators: [intAtLeast(0)] }),
    enabled: attr.bool({ description: 'Enabled.', optional: true, computed: true, default: true }),
    created: attr.string({ description: 'Creation time.', computed: true, planModifiers: [useStateForUnknown()] }),
    revision: attr.number({ description: 'Revision.', computed: true, planModifiers: [recomputedOnChange()] }),
    tags: attr.set('string', { description: 'Tags.', optional: true, validators: [eachElement(lengthBetween(1, 3), 'set')] }),
    entries: attr.listNested(
      {
        ip: attr.string({ description: 'IP.', required: true, validators: [ipv4()] }),
        label: attr.string({ description: 'Label.', optional: true }),
      },
      { description: 'Entries.', optional: true },
    ),
    legacy: attr.string({ description: 'Old.', optional: true, deprecated: 'use note instead' }),
  },
});

export type Widget = Model<typeof widgetSchema>;

/** What the fake resource saw and holds. */
export class WidgetStore {
  readonly objects = new Map<string, Widget>();
  readonly secrets = new Map<string, string | null>();
  calls: string[] = [];
  failNext: Error | undefined;
  nextId = 1;

  take(op: string): void {
    this.calls.push(op);
    const err = this.failNext;
    this.failNext = undefined;
    if (err !== undefined) throw err;
  }
}

export function widgetResource(store: WidgetStore) {
  return {
    typeName: 'test_widget',
    displayName: 'widget',
    describe: (m) => `widget '${m.name ?? m.id ?? '?'}'`,
    schema: widgetSchema,

    async create(_ctx, { planned, config }) {
      store.take('create');
      const id = `w${store.nextId++}`;
      const w: Widget = { ...planned, id, created: '2024-01-01T00:00:00Z', revision: 1, secret_wo: null };
      store.objects.set(id, w);
      store.secrets.set(id, config.secret_wo);
      return w;
    },

    async read(_ctx, { state }) {
      store.take('read');
      const w = state.id === null ? undefined : store.objects.get(state.id);
      return w === undefined ? null : { ...w };
    },

    async update(_ctx, { prior, planned }) {
      store.take('update');
      const w: Widget = { ...planned, id: prior.id, created: prior.created, revision: (prior.revision ?? 0) + 1 };
      store.objects.set(w.id!, w);
      return w;
    },

    async delete(_ctx, { prior }) {
      store.take('delete');
      store.objects.delete(prior.id ?? '');
    },

    async import(ctx, id) {
      store.take('import');
      if (!id.startsWith('w')) {
        ctx.diagnostics.addError('Invalid import ID', `expected wN, got ${id}`);
        return undefined;
      }
      return { id };
    },
  } satisfies ResourceDefinition<typeof widgetSchema>;
}

export const lookupSchema = defineSchema({
  description: 'A test lookup.',
  attributes: {
    key: attr.string({ description: 'Key.', required: true, validators: [lengthBetween(1, 3)] }),
    value: attr.string({ description: 'Value.', computed: true }),
  },
});

export const lookupDataSource = {
  typeName: 'test_lookup',
  displayName: 'lookup',
  schema: lookupSchema,
  async read(_ctx, { config }) {
    if (config.key === 'bad') throw new Error('lookup exploded');
    return { key: config.key, value: `value-of-${config.key}` };
  },
} satisfies DataSourceDefinition<typeof lookupSchema>;

export const emptyProviderSchema = defineSchema({
  description: 'Test provider.',
  attributes: { flag: attr.bool({ description: 'Flag.', optional: true }) },
});

/** A server with the widget resource and lookup data source; configured unless told otherwise. */
export async function widgetServer(store: WidgetStore, opts: { configure?: boolean } = {}): Promise<FrameworkServer> {
  const fakeData = { fake: true };
  const server = new FrameworkServer({
    typeName: 'test',
    schema: emptyProviderSchema,
    configure: async () => fakeData,
    // The widget fails with SDK errors, so it reads them as the proxyaccount provider does.
    describeError: describeProxyAccountError,
    resources: [widgetResource(store)],
    dataSources: [lookupDataSource],
  });
  if (opts.configure !== false) {
    const { encodeDynamicValue } = await import('../../src/protocol/codec');
    const res = await server.configureProvider({ terraformVersion: '1.11.4', config: encodeDynamicValue({ flag: null }, emptyProviderSchema.type) });
    if (res.diagnostics.length > 0) throw new Error(JSON.stringify(res.diagnostics));
  }
  return server;
}
