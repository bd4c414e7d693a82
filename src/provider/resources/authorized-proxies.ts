// proxyaccount_authorized_proxies: the authoritative list of authorized proxies of the parent
// account. Proxies are declared in any form the API accepts (bare host, full domain,
// domain:port) and kept in state as declared; the API lists them as domain:port, so reads map
// each listed proxy back to the declared forms that stand for it.
import {
  attr,
  defineSchema,
  eachElement,
  useStateForUnknown,
  type Model,
  type ResourceContext,
  type ResourceDefinition,
} from '../framework';
import { SELF_ID } from './account-id';
import { syncList, type ListOp } from './list-sync';
import { denotes, proxyForm } from './list-syntax';

const OBJECT = "authorized proxy list of the provider's account";

const schema = defineSchema({
  description:
    'The complete list of authorized proxies of the parent account (the provider must authenticate as it). Terraform owns the whole list: proxies not declared here are removed, and proxies added outside Terraform show up as drift, as `domain:port`. **Do not combine it with `proxyaccount_authorized_proxy`** (they would undo each other\'s changes); see the guide "Migrating to authoritative lists".',
  markdown: true,
  attributes: {
    id: attr.string({
      description: 'Always `_self` (the list belongs to the account the provider authenticates as). Import uses the same ID.',
      markdown: true,
      computed: true,
      planModifiers: [useStateForUnknown()],
    }),
    proxies: attr.set('string', {
      description:
        'Every authorized proxy, each as a bare host (`us-ny`), a full domain (`us-ny.proxy.example.net`) or `<domain>:<port>` (`us-ny.proxy.example.net:8080`). State keeps the form declared here. An empty set removes them all. The subscription plan limits how many may be authorized.',
      markdown: true,
      required: true,
      validators: [eachElement(proxyForm(), 'set')],
    }),
  },
});

/** The state of a `proxyaccount_authorized_proxies`. */
export type AuthorizedProxiesModel = Model<typeof schema>;

/** The `proxyaccount_authorized_proxies` resource. */
export const authorizedProxiesResource = {
  typeName: 'proxyaccount_authorized_proxies',
  displayName: 'authorized proxy list',
  describe: () => OBJECT,
  schema,

  modifyPlan(_ctx, { prior }) {
    // The ID is fixed, so a new list shows it in the plan already.
    if (prior === null) return { planned: { id: SELF_ID } };
    return undefined;
  },

  async create(ctx, { planned }) {
    const r = await sync(ctx, planned.proxies, 'create');
    // A create that changed nothing before failing saves nothing.
    if (!r.changed && ctx.diagnostics.hasErrors()) return undefined;
    return { id: SELF_ID, proxies: r.proxies };
  },

  async read(ctx, { state }) {
    const remote = await ctx.data.reader.listProxies();
    return { id: SELF_ID, proxies: asDeclared(remote, state.proxies ?? []) };
  },

  async update(ctx, { planned }) {
    const r = await sync(ctx, planned.proxies, 'update');
    return { id: SELF_ID, proxies: r.proxies };
  },

  async delete(ctx) {
    await sync(ctx, [], 'delete');
  },

  async import(ctx, id) {
    if (id.trim() !== SELF_ID) {
      ctx.diagnostics.addError(
        'Invalid import ID',
        `Cannot import ${JSON.stringify(id)}: the authorized proxy list belongs to the account the provider authenticates as; its ID is "${SELF_ID}".`,
      );
      return undefined;
    }
    return { id: SELF_ID };
  },
} satisfies ResourceDefinition<typeof schema>;

/**
 * Makes the remote list equal `desired`. Returns the proxies state should hold: `desired` when
 * every write succeeded, else the list as it now is in declared forms (with the errors reported).
 */
async function sync(ctx: ResourceContext, desired: readonly string[], operation: 'create' | 'update' | 'delete'): Promise<{ proxies: string[]; changed: boolean }> {
  const { client, reader } = ctx.data;
  const write = (run: () => Promise<unknown>) => () => reader.write('proxies', undefined, run).then(() => undefined);

  const outcome = await syncList<string>(ctx, {
    operation,
    displayName: 'authorized proxy list',
    object: OBJECT,
    fresh: () => {
      reader.invalidate('proxies');
      return reader.listProxies();
    },
    diff(before) {
      const ops: ListOp[] = [];
      for (const proxy of before) {
        if (desired.some((d) => denotes(d, proxy))) continue;
        ops.push({ kind: 'remove', key: proxy, value: proxy, description: `remove proxy '${proxy}'`, run: write(() => client.proxies.delete(proxy, { signal: ctx.signal })) });
      }
      for (const proxy of desired) {
        // Several declared forms may stand for one proxy: adding it once is enough.
        if (before.some((r) => denotes(proxy, r)) || ops.some((o) => o.kind === 'add' && (denotes(o.value, proxy) || denotes(proxy, o.value)))) continue;
        ops.push({ kind: 'add', key: proxy, value: proxy, description: `add proxy '${proxy}'`, run: write(() => client.proxies.add(proxy, { signal: ctx.signal })) });
      }
      return ops;
    },
    replay(before, done) {
      const removed = new Set(done.filter((o) => o.kind === 'remove').map((o) => o.value));
      return [...before.filter((p) => !removed.has(p)), ...done.filter((o) => o.kind === 'add').map((o) => o.value)];
    },
  });
  if (outcome.ok) return { proxies: [...desired], changed: outcome.changed };
  return { proxies: asDeclared(outcome.remote, desired), changed: outcome.changed };
}

/**
 * The remote list in declared forms: each listed proxy becomes every declared form that stands
 * for it, or stays `domain:port` when none does. Declared forms matching nothing are dropped.
 */
function asDeclared(remote: readonly string[], declared: readonly string[]): string[] {
  const out = new Set<string>();
  for (const r of remote) {
    const forms = declared.filter((d) => denotes(d, r));
    if (forms.length === 0) out.add(r);
    for (const f of forms) out.add(f);
  }
  return [...out];
}
