// proxyaccount_authorized_hostnames data source: the authorized hostnames of the provider's
// account or of a sub-account, sorted.
import { attr, defineSchema, isNotFound, type DataSourceDefinition, type Model } from '../framework';
import { accountId, ownerPhrase, targetOf, usernameValidators } from '../resources/account-id';

const schema = defineSchema({
  description: 'Reads the authorized hostnames of the provider\'s account or of one sub-account.',
  attributes: {
    username: attr.string({
      description: 'Sub-account to read (the provider must authenticate as its parent). Omit it for the provider\'s own account.',
      optional: true,
      validators: usernameValidators(),
    }),
    id: attr.string({ description: 'The sub-account username, or `_self` for the provider\'s own account.', markdown: true, computed: true }),
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
    try {
      const remote = await ctx.data.reader.listHostnames(targetOf(config.username));
      return { username: config.username, id: accountId(config.username), domains: [...remote].sort() };
    } catch (err) {
      if (!isNotFound(err) || config.username === null) throw err;
      ctx.diagnostics.addError('Sub-account not found', `The parent account has no sub-account '${config.username}'.`, [{ attributeName: 'username' }]);
      return undefined;
    }
  },
} satisfies DataSourceDefinition<typeof schema>;
