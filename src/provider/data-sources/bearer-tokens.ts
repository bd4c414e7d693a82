// proxyaccount_bearer_tokens data source: bearer-token metadata of the provider's account or of
// a sub-account. Never the raw tokens: the API returns them only once, at creation.
import type { BearerToken } from '../../sdk';
import { accountId, ownerPhrase } from '../access/account-ids';
import { readOfAccount } from '../access/sub-account-lookup';
import { usernameValidators } from '../access/usernames';
import { attr, defineSchema, type Model } from '../framework';
import type { DataSource } from '../types';

const schema = defineSchema({
  description:
    "Reads the bearer tokens of the provider's account or of one sub-account: metadata only, never the token values (the API shows a token only once, when it is created). Needs username and password credentials.",
  attributes: {
    username: attr.string({
      description: "Sub-account to read (the provider must authenticate as its parent). Omit it for the provider's own account.",
      optional: true,
      validators: usernameValidators(),
    }),
    id: attr.string({ description: "The sub-account username, or `_self` for the provider's own account.", markdown: true, computed: true }),
    tokens: attr.listNested(
      {
        token_id: attr.number({ description: "The token's numeric ID.", computed: true }),
        label: attr.string({ description: 'Its label; null when none was set.', computed: true }),
        active: attr.bool({ description: 'False when the token is deactivated.', computed: true }),
        expires_at: attr.string({ description: 'When the token expires (RFC 3339, UTC); null when it never does.', computed: true }),
        created_at: attr.string({ description: 'When the token was created (RFC 3339, UTC).', computed: true }),
      },
      { description: 'The tokens, sorted by ID.', computed: true },
    ),
  },
});

/** The state of a `proxyaccount_bearer_tokens` data source. */
export type BearerTokensDataModel = Model<typeof schema>;

/** The `proxyaccount_bearer_tokens` data source. */
export const bearerTokensDataSource = {
  typeName: 'proxyaccount_bearer_tokens',
  displayName: 'bearer tokens',
  describe: (c) => `bearer tokens ${ownerPhrase(c.username ?? null)}`,
  schema,

  async read(ctx, { config }) {
    // Read anew, not from the copy resource refreshes cached: this process never learns of a write
    // another provider configuration (its own process) made earlier in the run.
    const remote: readonly BearerToken[] | undefined = await readOfAccount(ctx, config.username, () => ctx.data.account(config.username).tokens.fresh());
    if (remote === undefined) return undefined;
    const tokens = [...remote]
      .sort((a, b) => a.id - b.id)
      .map((t) => ({
        token_id: t.id,
        label: t.label === '' ? null : t.label,
        active: t.isActive,
        expires_at: t.expiresAt === null ? null : rfc3339(t.expiresAt),
        created_at: rfc3339(t.createdAt),
      }));
    return { username: config.username, id: accountId(config.username), tokens };
  },
} satisfies DataSource<typeof schema>;

/** RFC 3339 in UTC, without a fraction when there is none: 2030-01-01T00:00:00Z. */
function rfc3339(d: Date): string {
  return d.toISOString().replace('.000Z', 'Z');
}
