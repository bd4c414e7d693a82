// proxyaccount_authorized_proxies: the authoritative list of authorized proxies of the parent
// account. Proxies are declared in any form the API accepts (bare host, full domain,
// domain:port) and kept in state as declared; the API lists them as domain:port, so reads map
// each listed proxy back to the declared forms that stand for it.
import { SELF_ID } from '../access/account-ids';
import { authoritativeList } from '../access/authoritative-list';
import { listPlanValues, REMOVED_ENTRIES_ATTRIBUTE } from '../access/list-schema';
import { denotes, listedAtOtherPort, otherPortProblem, proxyForm } from '../access/list-syntax';
import { attr, defineSchema, eachElement, useStateForUnknown, type Model } from '../framework';
import type { Resource } from '../types';

const schema = defineSchema({
  description:
    'The complete list of authorized proxies of the parent account (the provider must authenticate as it). Terraform owns the whole list: proxies not declared here are removed, and proxies added outside Terraform show up as drift, as `domain:port`. When `proxies` is known only at apply, the plan cannot list what it removes: see the guide for what it shows and does instead. **Do not combine it with `proxyaccount_authorized_proxy`** (they would undo each other\'s changes); see the guide "Migrating to authoritative lists".',
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
        'Every authorized proxy, each as a bare host (`us-ny`), a full domain (`us-ny.proxy.example.net`) or `<domain>:<port>` (`us-ny.proxy.example.net:8080`). State keeps the form declared here. A `<domain>:<port>` whose domain the account lists at another port is refused at plan, naming the listed form (the API refuses it). An empty set removes them all. The subscription plan limits how many may be authorized. The apply adds before it removes, and removes nothing once an add has failed (an add refused for that limit alone is sent again after the removals).',
      markdown: true,
      required: true,
      validators: [eachElement(proxyForm(), 'set')],
    }),
    removed_entries: REMOVED_ENTRIES_ATTRIBUTE,
  },
});

/** The state of a `proxyaccount_authorized_proxies`. */
export type AuthorizedProxiesModel = Model<typeof schema>;

/** The `proxyaccount_authorized_proxies` resource. */
export const authorizedProxiesResource: Resource<typeof schema> = authoritativeList<typeof schema, string, string>({
  typeName: 'proxyaccount_authorized_proxies',
  displayName: 'authorized proxy list',
  schema,
  parentOnly: true,
  entriesAttribute: 'proxies',
  fromModel: (m) => ({ username: null, entries: m.proxies ?? [], removed: m.removed_entries ?? null }),
  fromPlan: (m) => ({ username: null, entries: m.proxies }),
  toModel: ({ entries, removed }) => ({ id: SELF_ID, proxies: [...entries], removed_entries: removed === null ? null : [...removed] }),
  toPlan: listPlanValues,
  access: (store) => ({
    list: () => store.proxies.list(),
    fresh: () => store.proxies.fresh(),
    add: (p) => store.proxies.add(p),
    remove: (p) => store.proxies.delete(p),
  }),
  entries: {
    noun: 'proxy',
    // The API lists domain:port; a declared bare host, full domain or domain:port stands for it.
    pair: (listed, declared) => declared.map((d) => listed.find((r) => denotes(d, r))),
    // Several declared forms may stand for one proxy: adding it once is enough.
    sameEntry: (a, b) => denotes(a, b) || denotes(b, a),
    listed: (p) => p,
    key: (p) => p,
    name: (p) => p,
    toState: (listed, declared) => asDeclared(listed, declared),
    // A listed proxy declared at another port: refused at plan, since the apply would remove the
    // listed entry (which the form does not stand for) and then fail to add the form.
    refused: (declared, listed) => {
      const other = listedAtOtherPort(declared, listed);
      return other === undefined ? undefined : { summary: 'Wrong proxy port', detail: otherPortProblem(declared, other) };
    },
    addsFirst: true,
  },
});

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
