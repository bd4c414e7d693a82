// proxyaccount_proxies data source: every proxy the parent account may use, as domain:port.
import { SELF_ID } from '../access/account-ids';
import { attr, defineSchema, type Model } from '../framework';
import type { DataSource } from '../types';

const schema = defineSchema({
  description: 'Lists every authorized proxy of the parent account (the provider must authenticate as it), e.g. to configure clients.',
  attributes: {
    id: attr.string({ description: 'Always `_self`: the proxies of the account the provider authenticates as.', markdown: true, computed: true }),
    proxies: attr.list('string', {
      description: 'The authorized proxies as `<domain>:<port>`, e.g. `us-ny.proxy.example.net:8080`, sorted.',
      markdown: true,
      computed: true,
    }),
  },
});

/** The state of a `proxyaccount_proxies` data source. */
export type ProxiesDataModel = Model<typeof schema>;

/** The `proxyaccount_proxies` data source. */
export const proxiesDataSource = {
  typeName: 'proxyaccount_proxies',
  displayName: 'authorized proxies',
  describe: () => "authorized proxies of the provider's account",
  schema,

  async read(ctx) {
    // Read anew, not from the copy resource refreshes cached: this process never learns of a write
    // another provider configuration (its own process) made earlier in the run.
    const remote = await ctx.data.proxies.fresh();
    return { id: SELF_ID, proxies: [...remote].sort() };
  },
} satisfies DataSource<typeof schema>;
