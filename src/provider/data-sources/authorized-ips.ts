// proxyaccount_authorized_ips data source: the authorized IPs of the provider's account or of a
// sub-account, with labels, sorted by address.
import { accountId, ownerPhrase } from '../access/account-ids';
import { readOfAccount } from '../access/sub-account-lookup';
import { usernameValidators } from '../access/usernames';
import { attr, defineSchema, type Model } from '../framework';
import type { DataSource } from '../types';

const schema = defineSchema({
  description: "Reads the authorized IP addresses of the provider's account or of one sub-account.",
  attributes: {
    username: attr.string({
      description: "Sub-account to read (the provider must authenticate as its parent). Omit it for the provider's own account.",
      optional: true,
      validators: usernameValidators(),
    }),
    id: attr.string({ description: "The sub-account username, or `_self` for the provider's own account.", markdown: true, computed: true }),
    entries: attr.listNested(
      {
        ip: attr.string({ description: 'The IPv4 address.', computed: true }),
        label: attr.string({ description: 'Its label; null when none was set.', computed: true }),
      },
      { description: 'The authorized IPs, sorted by address.', computed: true },
    ),
  },
});

/** The state of a `proxyaccount_authorized_ips` data source. */
export type AuthorizedIpsDataModel = Model<typeof schema>;

/** The `proxyaccount_authorized_ips` data source. */
export const authorizedIpsDataSource = {
  typeName: 'proxyaccount_authorized_ips',
  displayName: 'authorized IPs',
  describe: (c) => `authorized IPs ${ownerPhrase(c.username ?? null)}`,
  schema,

  async read(ctx, { config }) {
    // Read anew, not from the copy resource refreshes cached: this process never learns of a write
    // another provider configuration (its own process) made earlier in the run.
    const remote = await readOfAccount(ctx, config.username, () => ctx.data.account(config.username).ips.fresh());
    if (remote === undefined) return undefined;
    const entries = [...remote].sort((a, b) => ipOrder(a.ip) - ipOrder(b.ip)).map((e) => ({ ip: e.ip, label: e.label === '' ? null : e.label }));
    return { username: config.username, id: accountId(config.username), entries };
  },
} satisfies DataSource<typeof schema>;

/** An IPv4 address as a number, so 10.0.0.9 sorts before 10.0.0.10. */
function ipOrder(ip: string): number {
  const parts = ip.split('.').map(Number);
  return parts.length === 4 && parts.every((n) => Number.isInteger(n)) ? parts.reduce((acc, n) => acc * 256 + n, 0) : Number.MAX_SAFE_INTEGER;
}
