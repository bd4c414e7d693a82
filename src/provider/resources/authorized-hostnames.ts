// proxyaccount_authorized_hostnames: the authoritative list of authorized hostnames of one
// account. It owns the whole list: hostnames not declared are removed, and hostnames added
// outside Terraform show as drift. Do not combine it with proxyaccount_authorized_hostname.
import {
  attr,
  defineSchema,
  eachElement,
  isNotFound,
  isUnknown,
  requiresReplace,
  useStateForUnknown,
  validator,
  type Model,
  type ResourceContext,
  type ResourceDefinition,
} from '../framework';
import {
  accountId,
  deleteListUnlessAccountGone,
  importAccountList,
  ownerPhrase,
  targetOf,
  usernameValidators,
} from './account-id';
import { syncList, type ListOp } from './list-sync';
import { hostname } from './list-syntax';

const schema = defineSchema({
  description:
    'The complete list of authorized hostnames of the provider\'s account or of one sub-account. Terraform owns the whole list: hostnames not declared here are removed, and hostnames added outside Terraform show up as drift. **Do not combine it with `proxyaccount_authorized_hostname` for the same account** (they would undo each other\'s changes); see the guide "Migrating to authoritative lists".',
  markdown: true,
  attributes: {
    id: attr.string({
      description: 'The sub-account username, or `_self` for the account the provider authenticates as. Import uses the same ID.',
      markdown: true,
      computed: true,
      planModifiers: [useStateForUnknown()],
    }),
    username: attr.string({
      description: 'Sub-account whose list this is (the provider must authenticate as its parent). Omit it for the provider\'s own account. Changing it replaces the resource.',
      optional: true,
      validators: usernameValidators(),
      planModifiers: [requiresReplace()],
    }),
    domains: attr.set('string', {
      description:
        'Every authorized hostname of the account, e.g. `app.example.com`; each once (host names are case-insensitive). An empty set removes them all.',
      markdown: true,
      required: true,
      validators: [eachElement(hostname(), 'set'), uniqueIgnoringCase()],
    }),
  },
});

/** The state of a `proxyaccount_authorized_hostnames`. */
export type AuthorizedHostnamesModel = Model<typeof schema>;

/** The `proxyaccount_authorized_hostnames` resource. */
export const authorizedHostnamesResource = {
  typeName: 'proxyaccount_authorized_hostnames',
  displayName: 'authorized hostname list',
  describe: (m) => `authorized hostname list ${ownerPhrase(m.username ?? null)}`,
  schema,

  modifyPlan(_ctx, { prior, planned }) {
    // The ID follows from username alone, so a new list shows it in the plan already.
    if (prior === null && !isUnknown(planned.username)) return { planned: { id: accountId(planned.username) } };
    return undefined;
  },

  async create(ctx, { planned }) {
    const r = await sync(ctx, planned.username, planned.domains, 'create');
    // A create that changed nothing before failing saves nothing.
    if (!r.changed && ctx.diagnostics.hasErrors()) return undefined;
    return { id: accountId(planned.username), username: planned.username, domains: r.domains };
  },

  async read(ctx, { state }) {
    let remote: readonly string[];
    try {
      remote = await ctx.data.reader.listHostnames(targetOf(state.username));
    } catch (err) {
      // The sub-account, and with it its list, is gone.
      if (isNotFound(err)) return null;
      throw err;
    }
    return { id: accountId(state.username), username: state.username, domains: asDeclared(remote, state.domains ?? []) };
  },

  async update(ctx, { planned }) {
    const r = await sync(ctx, planned.username, planned.domains, 'update');
    return { id: accountId(planned.username), username: planned.username, domains: r.domains };
  },

  async delete(ctx, { prior }) {
    await deleteListUnlessAccountGone(() => sync(ctx, prior.username, [], 'delete'));
  },

  async import(ctx, id) {
    return importAccountList(ctx, id);
  },
} satisfies ResourceDefinition<typeof schema>;

/**
 * Makes the remote list equal `desired`. Returns the domains state should hold: `desired` when
 * every write succeeded, else the list as it now is (with the errors reported).
 */
async function sync(
  ctx: ResourceContext,
  username: string | null,
  desired: readonly string[],
  operation: 'create' | 'update' | 'delete',
): Promise<{ domains: string[]; changed: boolean }> {
  const { client, reader } = ctx.data;
  const target = targetOf(username);
  const write = (run: () => Promise<unknown>) => () => reader.write('hostnames', target, run).then(() => undefined);

  const outcome = await syncList<string>(ctx, {
    operation,
    displayName: 'authorized hostname list',
    object: `authorized hostname list ${ownerPhrase(username)}`,
    fresh: () => {
      reader.invalidate('hostnames', target);
      return reader.listHostnames(target);
    },
    diff(before) {
      const { claimed, unclaimed } = pair(before, desired);
      const ops: ListOp[] = unclaimed.map((domain) => ({
        kind: 'remove',
        key: domain.toLowerCase(),
        value: domain,
        description: `remove hostname '${domain}'`,
        run: write(() => client.hostnames.delete({ domain, username: target }, { signal: ctx.signal })),
      }));
      for (const domain of desired) {
        if (claimed.has(domain)) continue;
        ops.push({
          kind: 'add',
          key: domain.toLowerCase(),
          value: domain,
          description: `add hostname '${domain}'`,
          run: write(() => client.hostnames.add({ domain, username: target }, { signal: ctx.signal })),
        });
      }
      return ops;
    },
    replay(before, done) {
      const removed = new Set(done.filter((o) => o.kind === 'remove').map((o) => o.value));
      return [...before.filter((d) => !removed.has(d)), ...done.filter((o) => o.kind === 'add').map((o) => o.value)];
    },
  });
  if (outcome.ok) return { domains: [...desired], changed: outcome.changed };
  return { domains: asDeclared(outcome.remote, desired), changed: outcome.changed };
}

/**
 * Pairs each declared hostname with the remote entry it stands for: the same spelling first,
 * else the same name in another case (an API may store names lower-cased). Remote entries left
 * over are not declared.
 */
function pair(remote: readonly string[], declared: readonly string[]): { claimed: Map<string, string>; unclaimed: string[] } {
  const left = [...remote];
  const claimed = new Map<string, string>();
  const take = (d: string, match: (r: string) => boolean): void => {
    const i = left.findIndex(match);
    if (i === -1) return;
    claimed.set(d, left[i]!);
    left.splice(i, 1);
  };
  for (const d of declared) take(d, (r) => r === d);
  for (const d of declared) if (!claimed.has(d)) take(d, (r) => r.toLowerCase() === d.toLowerCase());
  return { claimed, unclaimed: left };
}

/** The remote list in declared spelling; hostnames not declared appear as the API lists them. */
function asDeclared(remote: readonly string[], declared: readonly string[]): string[] {
  const { claimed, unclaimed } = pair(remote, declared);
  return [...claimed.keys(), ...unclaimed];
}

function uniqueIgnoringCase() {
  return validator<string[]>('each hostname once, ignoring case', (v) => {
    const seen = new Map<string, string>();
    for (const d of v) {
      const other = seen.get(d.toLowerCase());
      if (other !== undefined) return `lists ${JSON.stringify(other)} and ${JSON.stringify(d)}, the same hostname (host names are case-insensitive); list it once`;
      seen.set(d.toLowerCase(), d);
    }
    return undefined;
  });
}
