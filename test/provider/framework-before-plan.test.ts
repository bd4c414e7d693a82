// The provider's beforePlan hook: run once per configured process, before the first plan; its
// failure answers every plan; once it has settled, plans no longer wait for it.
import { encodeDynamicValue } from '../../src/protocol/codec';
import { FrameworkServer } from '../../src/provider/framework';
import { emptyProviderSchema, widgetResource, widgetSchema, WidgetStore } from './fixtures';
import { decodeObject, dv, NO_PRIVATE, obj } from './harness';

async function server(beforePlan: () => Promise<void>, configure = true): Promise<{ server: FrameworkServer; calls: () => number }> {
  let calls = 0;
  const s = new FrameworkServer({
    typeName: 'test',
    schema: emptyProviderSchema,
    configure: async () => ({ fake: true }),
    beforePlan: () => {
      calls++;
      return beforePlan();
    },
    resources: [widgetResource(new WidgetStore())],
    dataSources: [],
  });
  if (configure) await s.configureProvider({ terraformVersion: '1.11.4', config: encodeDynamicValue({ flag: null }, emptyProviderSchema.type) });
  return { server: s, calls: () => calls };
}

const plan = (s: FrameworkServer) =>
  s.planResourceChange({
    typeName: 'test_widget',
    priorState: dv(widgetSchema, null),
    proposedNewState: dv(widgetSchema, obj(widgetSchema, { name: 'a', size: 1, enabled: true })),
    config: dv(widgetSchema, obj(widgetSchema, { name: 'a', size: 1, enabled: true })),
    priorPrivate: NO_PRIVATE,
  });

describe('beforePlan', () => {
  it('runs once, before the first plan, for plans started together and after', async () => {
    let release = (): void => undefined;
    const { server: s, calls } = await server(() => new Promise<void>((resolve) => (release = resolve)));
    const first = [plan(s), plan(s), plan(s)];
    await new Promise((r) => setImmediate(r));
    expect(calls()).toBe(1);
    release();
    const answers = [...(await Promise.all(first)), await plan(s), await plan(s)];
    expect(calls()).toBe(1);
    for (const a of answers) {
      expect(a.diagnostics).toEqual([]);
      expect(decodeObject(widgetSchema, a.plannedState)).toMatchObject({ name: 'a', size: 1 });
    }
  });

  it('answers every plan with its failure, and is not run again', async () => {
    const { server: s, calls } = await server(() => Promise.reject(new Error('credentials refused')));
    for (const a of [await plan(s), ...(await Promise.all([plan(s), plan(s)]))]) {
      expect(a.plannedState).toBeUndefined();
      expect(a.diagnostics).toEqual([expect.objectContaining({ severity: 'error', summary: 'Unable to verify the provider credentials' })]);
    }
    expect(calls()).toBe(1);
  });

  it('is not run before the provider is configured', async () => {
    const { server: s, calls } = await server(() => Promise.resolve(), false);
    const a = await plan(s);
    expect(calls()).toBe(0);
    expect(a.diagnostics).toEqual([]); // planning needs no API, so it goes on without the hook
  });

  it('reports a hook that throws instead of returning a promise as a bug', async () => {
    const { server: s } = await server(() => {
      throw new Error('boom');
    });
    const a = await plan(s);
    expect(a.diagnostics).toEqual([
      expect.objectContaining({ summary: 'Internal provider error', detail: expect.stringContaining('PlanResourceChange failed: boom') }),
    ]);
  });
});
