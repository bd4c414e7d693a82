// proxyaccount_authorized_hostnames: the authoritative list of authorized hostnames of one
// account. It owns the whole list: hostnames not declared are removed, and hostnames added
// outside Terraform show as drift. Do not combine it with proxyaccount_authorized_hostname.
import { accountId } from '../access/account-ids';
import { authoritativeList } from '../access/authoritative-list';
import { listPlanValues, REMOVED_ENTRIES_ATTRIBUTE } from '../access/list-schema';
import { hostname } from '../access/list-syntax';
import { usernameValidators } from '../access/usernames';
import { attr, defineSchema, eachElement, requiresReplace, useStateForUnknown, validator, type Model } from '../framework';
import type { Resource } from '../types';

const schema = defineSchema({
  description:
    'The complete list of authorized hostnames of the provider\'s account or of one sub-account. Terraform owns the whole list: hostnames not declared here are removed, and hostnames added outside Terraform show up as drift. When `username` or `domains` is known only at apply, the plan cannot list what it removes: see the guide for what it shows and does instead. **Do not combine it with `proxyaccount_authorized_hostname` for the same account** (they would undo each other\'s changes); see the guide "Migrating to authoritative lists".',
  markdown: true,
  attributes: {
    id: attr.string({
      description: 'The sub-account username, or `_self` for the account the provider authenticates as. Import uses the same ID.',
      markdown: true,
      computed: true,
      planModifiers: [useStateForUnknown()],
    }),
    username: attr.string({
      description:
        "Sub-account whose list this is (the provider must authenticate as its parent). Omit it for the provider's own account. Changing it replaces the resource.",
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
    removed_entries: REMOVED_ENTRIES_ATTRIBUTE,
  },
});

/** The state of a `proxyaccount_authorized_hostnames`. */
export type AuthorizedHostnamesModel = Model<typeof schema>;

/** The `proxyaccount_authorized_hostnames` resource. */
export const authorizedHostnamesResource: Resource<typeof schema> = authoritativeList<typeof schema, string, string>({
  typeName: 'proxyaccount_authorized_hostnames',
  displayName: 'authorized hostname list',
  schema,
  parentOnly: false,
  entriesAttribute: 'domains',
  fromModel: (m) => ({ username: m.username ?? null, entries: m.domains ?? [], removed: m.removed_entries ?? null }),
  fromPlan: (m) => ({ username: m.username, entries: m.domains }),
  toModel: ({ username, entries, removed }) => ({
    id: accountId(username),
    username,
    domains: [...entries],
    removed_entries: removed === null ? null : [...removed],
  }),
  toPlan: listPlanValues,
  access(store, username) {
    const hostnames = store.account(username).hostnames;
    return { list: () => hostnames.list(), fresh: () => hostnames.fresh(), add: (d) => hostnames.add(d), remove: (d) => hostnames.delete(d) };
  },
  entries: {
    noun: 'hostname',
    pair: (listed, declared) => {
      const { claimed } = pair(listed, declared);
      return declared.map((d) => claimed.get(d));
    },
    listed: (d) => d,
    key: (d) => d.toLowerCase(),
    name: (d) => d,
    toState: (listed, declared) => asDeclared(listed, declared),
  },
});

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
  // Validation refuses a null element before this runs; should one come anyway, it is no hostname.
  return validator<Array<string | null>>('each hostname once, ignoring case', (v) => {
    const seen = new Map<string, string>();
    for (const d of v) {
      if (d === null) continue;
      const other = seen.get(d.toLowerCase());
      if (other !== undefined)
        return `lists ${JSON.stringify(other)} and ${JSON.stringify(d)}, the same hostname (host names are case-insensitive); list it once`;
      seen.set(d.toLowerCase(), d);
    }
    return undefined;
  });
}
