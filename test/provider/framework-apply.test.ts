// ApplyResourceChange, ReadResource, ImportResourceState, UpgradeResourceState and
// ReadDataSource through the FrameworkServer, with the in-memory widget resource.
import { UNKNOWN, type CtyValue } from '../../src/protocol/cty';
import { PaymentRequiredError, ServerError, ServiceUnavailableError } from '../../src/sdk';
import { lookupSchema, widgetSchema, WidgetStore, widgetServer } from './fixtures';
import { decode, decodeObject, dv, errors, jsonState, NO_PRIVATE, obj } from './harness';

type Values = Record<string, CtyValue>;

function apply(server: Awaited<ReturnType<typeof widgetServer>>, prior: Values | null, planned: Values | null, config: Values | null) {
  return server.applyResourceChange({
    typeName: 'test_widget',
    priorState: dv(widgetSchema, prior === null ? null : obj(widgetSchema, prior)),
    plannedState: dv(widgetSchema, planned === null ? null : obj(widgetSchema, planned)),
    config: dv(widgetSchema, config === null ? null : obj(widgetSchema, config)),
    plannedPrivate: NO_PRIVATE,
  });
}

const PLANNED_CREATE: Values = { id: UNKNOWN, name: 'a', size: 0, enabled: true, created: UNKNOWN, revision: UNKNOWN };

/** The request the widget's failures concern (an SDK error always names one). */
const WIDGET_GET = { method: 'GET', path: '/api/widget/', operation: 'read widget' };

describe('ApplyResourceChange', () => {
  it('creates: the resource sees the plan (unknowns as null) and write-only values from the config', async () => {
    const store = new WidgetStore();
    const server = await widgetServer(store);
    const res = await apply(server, null, PLANNED_CREATE, { name: 'a', secret_wo: 'pw' });
    expect(errors(res.diagnostics)).toEqual([]);
    const state = decodeObject(widgetSchema, res.newState);
    expect(state).toMatchObject({ id: 'w1', name: 'a', created: '2024-01-01T00:00:00Z', revision: 1, secret_wo: null });
    expect(store.secrets.get('w1')).toBe('pw');
  });

  it('returns no state when create fails, with a diagnostic naming the object and the cause', async () => {
    const store = new WidgetStore();
    const server = await widgetServer(store);
    store.failNext = new PaymentRequiredError({ method: 'POST', path: '/api/widget/', operation: 'create widget', status: 402, responseText: 'limit reached' });
    const res = await apply(server, null, PLANNED_CREATE, { name: 'a' });
    expect(decode(widgetSchema, res.newState)).toBeNull();
    expect(res.diagnostics).toHaveLength(1);
    expect(res.diagnostics[0]).toMatchObject({ severity: 'error', summary: 'Unable to create widget' });
    expect(res.diagnostics[0]!.detail).toMatch(/^Widget 'a': POST \/api\/widget\/ .*402 Payment Required: limit reached/);
    expect(res.diagnostics[0]!.detail).toMatch(/plan/);
  });

  it('turns a non-SDK exception into a diagnostic too (never a gRPC error)', async () => {
    const store = new WidgetStore();
    const server = await widgetServer(store);
    store.failNext = new TypeError('x is undefined');
    const res = await apply(server, null, PLANNED_CREATE, { name: 'a' });
    expect(res.diagnostics[0]).toMatchObject({ severity: 'error', summary: 'Unable to create widget' });
    expect(res.diagnostics[0]!.detail).toMatch(/x is undefined.*bug/);
  });

  it('updates in place', async () => {
    const store = new WidgetStore();
    const server = await widgetServer(store);
    const created = decodeObject(widgetSchema, (await apply(server, null, PLANNED_CREATE, { name: 'a' })).newState);
    const planned = { ...created, note: 'x', revision: UNKNOWN };
    const res = await apply(server, created, planned, { name: 'a', note: 'x' });
    expect(errors(res.diagnostics)).toEqual([]);
    expect(decodeObject(widgetSchema, res.newState)).toMatchObject({ id: 'w1', note: 'x', revision: 2, created: '2024-01-01T00:00:00Z' });
  });

  it('keeps the prior state when an update fails', async () => {
    const store = new WidgetStore();
    const server = await widgetServer(store);
    const created = decodeObject(widgetSchema, (await apply(server, null, PLANNED_CREATE, { name: 'a' })).newState);
    store.failNext = new ServerError({ ...WIDGET_GET, status: 500, responseText: 'boom' });
    const res = await apply(server, created, { ...created, note: 'x' }, { name: 'a', note: 'x' });
    expect(res.diagnostics[0]).toMatchObject({ summary: 'Unable to update widget' });
    expect(decode(widgetSchema, res.newState)).toEqual(created);
  });

  it('deletes (null new state), and keeps the state when delete fails', async () => {
    const store = new WidgetStore();
    const server = await widgetServer(store);
    const created = decodeObject(widgetSchema, (await apply(server, null, PLANNED_CREATE, { name: 'a' })).newState);
    store.failNext = new ServiceUnavailableError({ ...WIDGET_GET, status: 503, responseText: 'down' });
    const failed = await apply(server, created, null, null);
    expect(decode(widgetSchema, failed.newState)).toEqual(created);
    expect(errors(failed.diagnostics)).toHaveLength(1);
    const ok = await apply(server, created, null, null);
    expect(ok.diagnostics).toEqual([]);
    expect(decode(widgetSchema, ok.newState)).toBeNull();
    expect(store.objects.size).toBe(0);
  });

  it('refuses to run CRUD before the provider is configured', async () => {
    const store = new WidgetStore();
    const server = await widgetServer(store, { configure: false });
    const res = await apply(server, null, PLANNED_CREATE, { name: 'a' });
    expect(res.diagnostics[0]).toMatchObject({ summary: 'Provider not configured' });
    expect(store.calls).toEqual([]);
  });
});

describe('ReadResource', () => {
  it('returns the remote truth, and null when the object is gone (drift → recreate)', async () => {
    const store = new WidgetStore();
    const server = await widgetServer(store);
    const created = decodeObject(widgetSchema, (await apply(server, null, PLANNED_CREATE, { name: 'a' })).newState);
    store.objects.set('w1', { ...store.objects.get('w1')!, note: 'changed' });
    const read = (state: Values) =>
      server.readResource({ typeName: 'test_widget', currentState: dv(widgetSchema, obj(widgetSchema, state)), private: NO_PRIVATE });
    expect(decodeObject(widgetSchema, (await read(created)).newState)['note']).toBe('changed');
    store.objects.delete('w1');
    const gone = await read(created);
    expect(gone.diagnostics).toEqual([]);
    expect(decode(widgetSchema, gone.newState)).toBeNull();
  });

  it('keeps the current state when the read fails', async () => {
    const store = new WidgetStore();
    const server = await widgetServer(store);
    store.failNext = new ServerError({ ...WIDGET_GET, status: 500, responseText: 'failed' });
    const state = obj(widgetSchema, { id: 'w1', name: 'a' });
    const res = await server.readResource({ typeName: 'test_widget', currentState: dv(widgetSchema, state), private: NO_PRIVATE });
    expect(decode(widgetSchema, res.newState)).toEqual(state);
    expect(res.diagnostics[0]).toMatchObject({ summary: 'Unable to read widget' });
  });
});

describe('ImportResourceState', () => {
  it('returns a state holding the id (everything else null) for Read to complete', async () => {
    const server = await widgetServer(new WidgetStore());
    const res = await server.importResourceState({ typeName: 'test_widget', id: 'w7' });
    expect(res.diagnostics).toEqual([]);
    expect(res.importedResources).toHaveLength(1);
    expect(res.importedResources[0]!.typeName).toBe('test_widget');
    expect(decode(widgetSchema, res.importedResources[0]!.state)).toEqual(obj(widgetSchema, { id: 'w7' }));
  });

  it('reports a bad import ID', async () => {
    const server = await widgetServer(new WidgetStore());
    const res = await server.importResourceState({ typeName: 'test_widget', id: 'zzz' });
    expect(res.importedResources).toEqual([]);
    expect(res.diagnostics[0]).toMatchObject({ summary: 'Invalid import ID' });
  });
});

describe('UpgradeResourceState', () => {
  const upgrade = async (json: string | Uint8Array, version = 0) =>
    (await widgetServer(new WidgetStore(), { configure: false })).upgradeResourceState({
      typeName: 'test_widget',
      version,
      rawState: { json: typeof json === 'string' ? Buffer.from(json) : json },
    });

  it('decodes raw JSON state with the current schema', async () => {
    const state = obj(widgetSchema, { id: 'w1', name: 'a', size: 2, tags: ['x'], entries: [{ ip: '10.0.0.1', label: null }] });
    const res = await upgrade(jsonState(widgetSchema, state));
    expect(res.diagnostics).toEqual([]);
    expect(decode(widgetSchema, res.upgradedState)).toEqual(state);
  });

  it('drops attributes the schema no longer has and adds new ones as null', async () => {
    const res = await upgrade(JSON.stringify({ id: 'w1', name: 'a', removed_attr: 'x', entries: [{ ip: '10.0.0.1', gone: 1 }] }));
    expect(res.diagnostics).toEqual([]);
    expect(decode(widgetSchema, res.upgradedState)).toEqual(obj(widgetSchema, { id: 'w1', name: 'a', entries: [{ ip: '10.0.0.1', label: null }] }));
  });

  it('refuses state from a newer schema version', async () => {
    const res = await upgrade('{}', 3);
    expect(res.upgradedState).toBeUndefined();
    expect(res.diagnostics[0]).toMatchObject({ severity: 'error', summary: 'State written by a newer provider' });
  });
});

describe('ReadDataSource', () => {
  it('returns the data source state', async () => {
    const server = await widgetServer(new WidgetStore());
    const res = await server.readDataSource({ typeName: 'test_lookup', config: dv(lookupSchema, obj(lookupSchema, { key: 'k' })) });
    expect(res.diagnostics).toEqual([]);
    expect(decode(lookupSchema, res.state)).toEqual({ key: 'k', value: 'value-of-k' });
  });

  it('turns an exception into "Unable to read <name>"', async () => {
    const server = await widgetServer(new WidgetStore());
    const res = await server.readDataSource({ typeName: 'test_lookup', config: dv(lookupSchema, obj(lookupSchema, { key: 'bad' })) });
    expect(res.state).toBeUndefined();
    expect(res.diagnostics[0]).toMatchObject({ severity: 'error', summary: 'Unable to read lookup' });
  });
});

describe('GetProviderSchema and StopProvider', () => {
  it('lists every registered schema', async () => {
    const server = await widgetServer(new WidgetStore(), { configure: false });
    const res = await server.getProviderSchema();
    expect(Object.keys(res.resourceSchemas)).toEqual(['test_widget']);
    expect(Object.keys(res.dataSourceSchemas)).toEqual(['test_lookup']);
    expect(res.resourceSchemas['test_widget']).toBe(widgetSchema.schema);
  });

  it('aborts the signal handed to configure when Terraform stops the provider', async () => {
    const server = await widgetServer(new WidgetStore(), { configure: false });
    expect(server.signal.aborted).toBe(false);
    await server.stopProvider();
    expect(server.signal.aborted).toBe(true);
  });
});
