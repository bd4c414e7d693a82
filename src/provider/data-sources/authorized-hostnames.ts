// proxyaccount_authorized_hostnames data source: the authorized hostnames of the provider's
// account or of a sub-account, sorted.
import { accountId, ownerPhrase } from '../access/account-ids';
import { readOfAccount } from '../access/sub-account-lookup';
import { usernameValidators } from '../access/usernames';
import { attr, defineSchema, type Model } from '../framework';
import type { DataSource } from '../types';

const schema = defineSchema({
  description: "Reads the authorized hostnames of the provider's account or of one sub-account.",
  attributes: {
    username: attr.string({
      description: "Sub-account to read (the provider must authenticate as its parent). Omit it for the provider's own account.",
      optional: true,
      validators: usernameValidators(),
    }),
    id: attr.string({ description: "The sub-account username, or `_self` for the provider's own account.", markdown: true, computed: true }),
    domains: attr.list('string', { description: 'The authorized hostnames, sorted.', computed: true }),
  },
});

/** The state of a `proxyaccount_authorized_hostnames` data source. */
export type AuthorizedHostnamesDataModel = Model<typeof schema>;

/** The `proxyaccount_authorized_hostnames` data source. */
export const authorizedHostnamesDataSource = {
  typeName: 'proxyaccount_authorized_hostnames',
  displayName: 'authorized hostnames',
  describe: (c) => `authorized hostnames ${ownerPhrase(c.username ?? null)}`,
  schema,

  async read(ctx, { config }) {
    // Read anew, not from the copy resource refreshes cached: this process never learns of a write
    // another provider configuration (its own process) made earlier in the run.
    const remote = await readOfAccount(ctx, config.username, () => ctx.data.account(config.username).hostnames.fresh());
    return remote === undefined ? undefined : { username: config.username, id: accountId(config.username), domains: [...remote].sort() };
  },
} satisfies DataSource<typeof schema>;
