// proxyaccount_sub_account data source: one sub-account's details including usage figures.
import type { SubAccount } from '../../sdk';
import { readOfAccount } from '../access/sub-account-lookup';
import { usernameValidators } from '../access/usernames';
import { attr, defineSchema, type Model } from '../framework';
import type { DataSource } from '../types';

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
    // Read anew, not from the copy resource refreshes cached: this process never learns of a write
    // another provider configuration (its own process) made earlier in the run.
    const remote: SubAccount | undefined = await readOfAccount(ctx, config.username, () => ctx.data.subAccounts.fresh(config.username));
    if (remote === undefined) return undefined;
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
} satisfies DataSource<typeof schema>;
