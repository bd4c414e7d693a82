// proxyaccount_sub_account data source: one sub-account's details including usage figures.
import type { SubAccount } from '../../sdk';
import { attr, defineSchema, isNotFound, type DataSourceDefinition, type Model } from '../framework';
import { usernameValidators } from '../resources/entry-id';

const schema = defineSchema({
  description: 'Reads one sub-account of the parent account, including its bandwidth usage.',
  attributes: {
    username: attr.string({
      description: 'Username of the sub-account to read.',
      required: true,
      validators: usernameValidators(),
    }),
    id: attr.string({ description: 'The sub-account username.', computed: true }),
    active: attr.bool({ description: 'False when the sub-account is deactivated.', computed: true }),
    first_name: attr.string({ description: 'First name; null when not set.', computed: true }),
    last_name: attr.string({ description: 'Last name; null when not set.', computed: true }),
    email: attr.string({ description: 'Email address; null when not set.', computed: true }),
    monthly_limit: attr.number({ description: 'Bandwidth limit in GB for the current billing period; 0 means no limit.', computed: true }),
    total_limit: attr.number({ description: 'Bandwidth limit in GB over all time; 0 means no limit.', computed: true }),
    monthly_bandwidth: attr.number({ description: 'GB used in the current billing period (may be fractional).', computed: true }),
    total_bandwidth: attr.number({ description: 'GB used in total (may be fractional).', computed: true }),
  },
});

/** The state of a `proxyaccount_sub_account` data source. */
export type SubAccountDataModel = Model<typeof schema>;

/** The `proxyaccount_sub_account` data source. */
export const subAccountDataSource = {
  typeName: 'proxyaccount_sub_account',
  displayName: 'sub-account',
  describe: (c) => `sub-account '${c.username ?? ''}'`,
  schema,

  async read(ctx, { config }) {
    let remote: SubAccount;
    try {
      remote = await ctx.data.reader.getSubAccount(config.username);
    } catch (err) {
      if (!isNotFound(err)) throw err;
      ctx.diagnostics.addError(
        'Sub-account not found',
        `The parent account has no sub-account '${config.username}'.`,
        [{ attributeName: 'username' }],
      );
      return undefined;
    }
    return {
      username: config.username,
      id: remote.username,
      active: remote.active,
      first_name: remote.firstName ?? null,
      last_name: remote.lastName ?? null,
      email: remote.email ?? null,
      monthly_limit: remote.monthlyBandwidthLimit,
      total_limit: remote.totalBandwidthLimit,
      monthly_bandwidth: remote.monthlyBandwidth,
      total_bandwidth: remote.totalBandwidth,
    };
  },
} satisfies DataSourceDefinition<typeof schema>;
