// A resource's private state through the FrameworkServer: create, read and update may set it
// (saved with the state they return), every call and the state check receive it decoded, and
// bytes a resource does not set pass through untouched, whatever they hold.
import type { CtyValue } from '../../src/protocol/cty';
import { attr, defineSchema, FrameworkServer, type PrivateState, type ResourceDefinition } from '../../src/provider/framework';
import { emptyProviderSchema } from './fixtures';
import { decode, dv, errors, NO_PRIVATE, obj } from './harness';

const schema = defineSchema({
  description: 'A ticket.',
  attributes: {
    id: attr.string({ description: 'Id.', computed: true }),
    name: attr.string({ description: 'Name.', required: true }),
  },
});

type Seen = { call: string; private: PrivateState | undefined };

/** A ticket whose name says what each call does with the private state. */
function ticketServer(seen: Seen[]): Promise<FrameworkServer> {
  const resource = {
    typeName: 'test_ticket',
    displayName: 'ticket',
    schema,
    checkState(state, stored) {
      seen.push({ call: 'checkState', private: stored.private });
      return state.id === null && stored.private?.['pending'] !== true ? { attribute: 'id', problem: 'id is missing' } : undefined;
    },
    async create(ctx, req) {
      seen.push({ call: 'create', private: req.private });
      if (req.planned.name === 'pending') {
        ctx.setPrivate({ pending: true, known: [1, 2] });
        ctx.diagnostics.addError('Unable to create ticket', 'outcome unknown');
        return { id: null, name: req.planned.name };
      }
      if (req.planned.name === 'set-then-fail') {
        ctx.setPrivate({ lost: true });
        return undefined;
      }
      return { id: 't1', name: req.planned.name };
    },
    async read(ctx, req) {
      seen.push({ call: 'read', private: req.private });
      if (req.state.name === 'settle') {
        ctx.setPrivate(undefined);
        return { id: 't9', name: req.state.name };
      }
      return req.state;
    },
    async update(ctx, req) {
      seen.push({ call: 'update', private: req.private });
      ctx.setPrivate({ revision: 2 });
      if (req.planned.name === 'fail') {
        ctx.diagnostics.addError('Unable to update ticket', 'refused');
        return undefined;
      }
      return req.planned;
    },
    async delete(_ctx, req) {
      seen.push({ call: 'delete', private: req.private });
    },
  } satisfies ResourceDefinition<typeof schema>;
  const server = new FrameworkServer({ typeName: 'test', schema: emptyProviderSchema, configure: async () => ({}), resources: [resource], dataSources: [] });
  return server.configureProvider({ terraformVersion: '1.11.4', config: dv(emptyProviderSchema, { flag: null }) }).then(() => server);
}

const bytes = (v: unknown): Uint8Array => new Uint8Array(Buffer.from(typeof v === 'string' ? v : JSON.stringify(v), 'utf8'));
const json = (b: Uint8Array | undefined): unknown => (b === undefined || b.length === 0 ? undefined : JSON.parse(Buffer.from(b).toString('utf8')));
const ticket = (values: Record<string, CtyValue>) => obj(schema, values);

function apply(
  server: FrameworkServer,
  prior: Record<string, CtyValue> | null,
  planned: Record<string, CtyValue> | null,
  plannedPrivate: Uint8Array = NO_PRIVATE,
) {
  return server.applyResourceChange({
    typeName: 'test_ticket',
    priorState: dv(schema, prior),
    plannedState: dv(schema, planned),
    config: dv(schema, planned === null ? null : { ...planned, id: null }),
    plannedPrivate,
  });
}

function read(server: FrameworkServer, state: Record<string, CtyValue>, priv: Uint8Array) {
  return server.readResource({ typeName: 'test_ticket', currentState: dv(schema, state), private: priv });
}

describe('private state', () => {
  it('is saved with a state a create returns together with its error, and read back decoded by the state check and the read', async () => {
    const seen: Seen[] = [];
    const server = await ticketServer(seen);
    const created = await apply(server, null, ticket({ name: 'pending' }));
    expect(errors(created.diagnostics)).toHaveLength(1);
    expect(decode(schema, created.newState)).toEqual(ticket({ name: 'pending' }));
    expect(json(created.private)).toEqual({ pending: true, known: [1, 2] });

    const refreshed = await read(server, ticket({ name: 'pending' }), created.private!);
    expect(refreshed.diagnostics).toEqual([]);
    expect(seen.slice(-2)).toEqual([
      { call: 'checkState', private: { pending: true, known: [1, 2] } },
      { call: 'read', private: { pending: true, known: [1, 2] } },
    ]);
    // Not set by the read: passed on as it came.
    expect(refreshed.private).toBe(created.private);
  });

  it('lets the state check refuse a state that only the private state makes valid', async () => {
    const server = await ticketServer([]);
    const refused = await read(server, ticket({ name: 'pending' }), NO_PRIVATE);
    expect(errors(refused.diagnostics)).toEqual([expect.objectContaining({ summary: 'Inconsistent ticket state' })]);
  });

  it('is cleared by a read that sets none', async () => {
    const server = await ticketServer([]);
    const res = await read(server, ticket({ name: 'settle' }), bytes({ pending: true }));
    expect(decode(schema, res.newState)).toEqual(ticket({ id: 't9', name: 'settle' }));
    expect(res.private).toEqual(new Uint8Array());
  });

  it('passes bytes it cannot read through untouched, and hands the resource none', async () => {
    const seen: Seen[] = [];
    const server = await ticketServer(seen);
    const foreign = bytes('\u0000not json');
    const res = await read(server, ticket({ id: 't1', name: 'a' }), foreign);
    expect(res.private).toBe(foreign);
    expect(seen.find((s) => s.call === 'read')).toEqual({ call: 'read', private: undefined });
    const array = bytes([1, 2]);
    await read(server, ticket({ id: 't1', name: 'a' }), array);
    expect(seen.filter((s) => s.call === 'read').at(-1)).toEqual({ call: 'read', private: undefined });
  });

  it('is the planned private state in update and delete; a failed update keeps the one that came', async () => {
    const seen: Seen[] = [];
    const server = await ticketServer(seen);
    const planned = bytes({ revision: 1 });
    const updated = await apply(server, ticket({ id: 't1', name: 'a' }), ticket({ id: 't1', name: 'b' }), planned);
    expect(json(updated.private)).toEqual({ revision: 2 });
    const failed = await apply(server, ticket({ id: 't1', name: 'a' }), ticket({ id: 't1', name: 'fail' }), planned);
    expect(decode(schema, failed.newState)).toEqual(ticket({ id: 't1', name: 'a' }));
    expect(failed.private).toBe(planned);
    await apply(server, ticket({ id: 't1', name: 'a' }), null, planned);
    expect(seen.filter((s) => s.call !== 'checkState').map((s) => [s.call, s.private])).toEqual([
      ['update', { revision: 1 }],
      ['update', { revision: 1 }],
      ['delete', { revision: 1 }],
    ]);
  });

  it('set by a create that returns no state is not saved', async () => {
    const server = await ticketServer([]);
    const res = await apply(server, null, ticket({ name: 'set-then-fail' }));
    expect(decode(schema, res.newState)).toBeNull();
    expect(res.private).toEqual(NO_PRIVATE);
  });
});
