// The framework knows no product: a toy provider ("kv", a key-value store in memory) built with
// nothing of ours but src/provider/framework and the protocol codec it sits on, served through
// the same FrameworkServer. Its own errors are read by its own describer; an error it does not
// recognise, even one with a Node-style ERR_ code, is reported as a bug.
import { decodeDynamicValue, encodeDynamicValue } from '../../src/protocol/codec';
import {
  attr,
  defineSchema,
  errorDiagnostic,
  FrameworkServer,
  useStateForUnknown,
  type ProviderDefinition,
  type ResourceDefinition,
} from '../../src/provider/framework';

/** The toy's data: its store, and the error its store throws. */
class KvError extends Error {}
interface Kv {
  readonly values: Map<string, string>;
  failNext?: Error;
}

const entrySchema = defineSchema({
  description: 'One key.',
  attributes: {
    id: attr.string({ description: 'The key.', computed: true, planModifiers: [useStateForUnknown()] }),
    key: attr.string({ description: 'The key.', required: true }),
    value: attr.string({ description: 'The value.', required: true }),
  },
});

const entry = {
  typeName: 'kv_entry',
  displayName: 'entry',
  schema: entrySchema,
  async create(ctx, { planned }) {
    const fail = ctx.data.failNext;
    ctx.data.failNext = undefined;
    if (fail !== undefined) throw fail;
    ctx.data.values.set(planned.key, planned.value);
    return { id: planned.key, key: planned.key, value: planned.value };
  },
  async read(ctx, { state }) {
    const v = ctx.data.values.get(state.key);
    return v === undefined ? null : { ...state, value: v };
  },
  async delete(ctx, { prior }) {
    ctx.data.values.delete(prior.key);
  },
} satisfies ResourceDefinition<typeof entrySchema, Kv>;

const providerSchema = defineSchema({ description: 'Toy.', attributes: {} });

function toyServer(kv: Kv): FrameworkServer<Kv> {
  const definition: ProviderDefinition<typeof providerSchema, Kv> = {
    typeName: 'kv',
    schema: providerSchema,
    configure: async () => kv,
    describeError: (err, ctx) => (err instanceof KvError ? errorDiagnostic(ctx.summary, `${ctx.object}: the store said ${err.message}`) : undefined),
    resources: [entry],
    dataSources: [],
  };
  return new FrameworkServer(definition);
}

async function configured(kv: Kv): Promise<FrameworkServer<Kv>> {
  const server = toyServer(kv);
  await server.configureProvider({ terraformVersion: '1.11.4', config: encodeDynamicValue({}, providerSchema.type) });
  return server;
}

async function create(server: FrameworkServer<Kv>, key: string) {
  const planned = { id: null, key, value: 'v' };
  return server.applyResourceChange({
    typeName: 'kv_entry',
    priorState: encodeDynamicValue(null, entrySchema.type),
    plannedState: encodeDynamicValue(planned, entrySchema.type),
    config: encodeDynamicValue({ id: null, key, value: 'v' }, entrySchema.type),
    plannedPrivate: new Uint8Array(),
  });
}

describe('a toy provider built with the framework alone', () => {
  it('creates through its own data, typed by the provider', async () => {
    const kv: Kv = { values: new Map() };
    const res = await create(await configured(kv), 'a');
    expect(res.diagnostics).toEqual([]);
    expect(decodeDynamicValue(res.newState!, entrySchema.type)).toEqual({ id: 'a', key: 'a', value: 'v' });
    expect(kv.values.get('a')).toBe('v');
  });

  it('reads its own errors with its own describer', async () => {
    const kv: Kv = { values: new Map(), failNext: new KvError('disk full') };
    const res = await create(await configured(kv), 'a');
    expect(res.diagnostics).toEqual([expect.objectContaining({ summary: 'Unable to create entry', detail: 'entry: the store said disk full' })]);
  });

  it('reports an error it does not recognise as a bug, even one with an ERR_ code as Node and SDK errors have', async () => {
    let nodeError: Error | undefined;
    try {
      new URL('not a url');
    } catch (err) {
      nodeError = err as Error;
    }
    expect((nodeError as { code?: string }).code).toBe('ERR_INVALID_URL');
    const kv: Kv = { values: new Map(), failNext: nodeError };
    const res = await create(await configured(kv), 'a');
    expect(res.diagnostics[0]!.detail).toMatch(/unexpected error: .*Invalid URL.*This is a bug in the provider/);
  });

  it('names the toy provider, not another, when used before configure', async () => {
    const res = await create(toyServer({ values: new Map() }), 'a');
    expect(res.diagnostics).toEqual([
      expect.objectContaining({ summary: 'Provider not configured', detail: expect.stringMatching(/^The kv provider was not configured/) }),
    ]);
  });
});
