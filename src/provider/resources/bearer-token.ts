// proxyaccount_bearer_token: a bearer token of the authenticated account or of a sub-account.
// The raw token exists only in the create response, so state keeps it; metadata is read
// through the coalescing reader. The API manages tokens with HTTP Basic only.
import type { BearerToken } from '../../sdk';
import {
  attr,
  dateYmd,
  defineSchema,
  hasErrorCode,
  isNotFound,
  requiresReplace,
  useStateForUnknown,
  type Model,
  type ResourceContext,
  type ResourceDefinition,
} from '../framework';
import { entryId, labelFromRemote, labelValidators, parseImportId, target, usernameValidators } from './entry-id';

const schema = defineSchema({
  description:
    'A bearer token of the authenticated account or of a sub-account, for the API and the proxy servers. Managing tokens needs the provider configured with username and password (the API refuses bearer authentication here). The raw token is known only when Terraform creates it.',
  markdown: true,
  attributes: {
    id: attr.string({
      description: 'The token ID, prefixed with `USERNAME/` for a sub-account\'s token (e.g. `42` or `alice/42`); also the import ID.',
      markdown: true,
      computed: true,
      planModifiers: [useStateForUnknown()],
    }),
    label: attr.string({
      description: 'A note identifying the token, 1–100 characters; omit it for none (an empty string is refused). Changing it replaces the token.',
      optional: true,
      validators: labelValidators(100),
      planModifiers: [requiresReplace()],
    }),
    expires_at: attr.string({
      description:
        'Expiry date, `YYYY-MM-DD` (UTC), after today; omit it for a token that never expires. The API reports a date-time, of which the date is kept; the emulator treats the date as the START of that day (the token stops working at 00:00:00 UTC on it). Changing it replaces the token.',
      markdown: true,
      optional: true,
      validators: [dateYmd()],
      planModifiers: [requiresReplace()],
    }),
    active: attr.bool({
      description:
        'Whether the token is accepted; false deactivates it (proxy servers may still accept it for about five minutes). The API reports an expired token as inactive, and refuses to activate it again: set a later `expires_at` to get a new token.',
      markdown: true,
      optional: true,
      computed: true,
      default: true,
    }),
    username: attr.string({
      description: 'The sub-account the token belongs to; omit it for the authenticated account. Changing it replaces the token.',
      optional: true,
      validators: usernameValidators(),
      planModifiers: [requiresReplace()],
    }),
    token_id: attr.number({
      description: 'The token\'s numeric identifier.',
      computed: true,
      planModifiers: [useStateForUnknown()],
    }),
    created_at: attr.string({
      description: 'When the token was created, RFC 3339 in UTC (e.g. `2025-01-31T09:30:00Z`).',
      markdown: true,
      computed: true,
      planModifiers: [useStateForUnknown()],
    }),
    token: attr.string({
      description:
        'The raw token, beginning with the service\'s token prefix. The API returns it only when the token is created, so it is kept in state (protect the state); it is null after `terraform import`.',
      markdown: true,
      computed: true,
      sensitive: true,
      planModifiers: [useStateForUnknown()],
    }),
  },
});

/** The state of a `proxyaccount_bearer_token`. */
export type BearerTokenModel = Model<typeof schema>;

const DAY_MS = 86_400_000;

/** The `proxyaccount_bearer_token` resource. */
export const bearerTokenResource = {
  typeName: 'proxyaccount_bearer_token',
  displayName: 'bearer token',
  describe: (m) => describeToken(m.token_id ?? null, m.label ?? null, m.username ?? null),
  schema,

  async create(ctx, { planned }) {
    const { client, reader } = ctx.data;
    const { label, expires_at: expiresAt, username } = planned;
    const object = describeToken(null, label, username);
    const created = await basicAuthOnly(ctx, object, () =>
      reader.write('tokens', username ?? undefined, () =>
        client.tokens.create(
          { ...(label !== null ? { label } : {}), ...(expiresAt !== null ? { expiresAt } : {}), ...target(username) },
          { signal: ctx.signal },
        ),
      ),
    );
    if (created === undefined) return undefined;
    let remote: BearerToken = created;
    if (planned.active === false) {
      try {
        remote = await reader.write('tokens', username ?? undefined, () =>
          client.tokens.deactivate({ id: created.id, ...target(username) }, { signal: ctx.signal }),
        );
      } catch (err) {
        // The token exists: return it with the error so Terraform keeps it (and its secret).
        ctx.reportError(err, 'Unable to deactivate bearer token', describeToken(created.id, label, username));
      }
    }
    return toState(planned, remote, created.token);
  },

  async read(ctx, { state }) {
    const listed = await basicAuthOnly(ctx, describeToken(state.token_id, state.label, state.username), () => listTokens(ctx, state.username));
    if (listed === undefined) return undefined;
    const remote = listed.find((t) => t.id === state.token_id);
    return remote === undefined ? null : toState(state, remote, state.token);
  },

  async update(ctx, { prior, planned }) {
    const { client, reader } = ctx.data;
    const { username } = planned;
    const id = prior.token_id!;
    const object = describeToken(id, prior.label, username);
    const want = planned.active ?? true;
    let remote: BearerToken | undefined;
    // Only `active` changes in place; every other configurable attribute replaces the token.
    if (want !== prior.active) {
      const toggle = want ? client.tokens.activate : client.tokens.deactivate;
      try {
        remote = await basicAuthOnly(ctx, object, () =>
          reader.write('tokens', username ?? undefined, () => toggle.call(client.tokens, { id, ...target(username) }, { signal: ctx.signal })),
        );
      } catch (err) {
        if (want && refusedAsExpired(err, prior.expires_at)) {
          const message = err instanceof Error ? err.message : String(err);
          ctx.diagnostics.addError(
            'Bearer token has expired',
            `${capitalize(object)} expired on ${prior.expires_at ?? 'its expiry date'}, and the API refuses to activate an expired token (${message}). Set active = false to keep it as it is, or set a later expires_at, which replaces it with a new token.`,
            [{ attributeName: 'active' }],
          );
          return undefined;
        }
        throw err;
      }
      if (remote === undefined) return undefined;
    } else {
      const listed = await basicAuthOnly(ctx, object, () => listTokens(ctx, username));
      if (listed === undefined) return undefined;
      remote = listed.find((t) => t.id === id);
      if (remote === undefined) throw new Error(`token ${id} is no longer listed; it was deleted outside Terraform during the apply`);
    }
    return toState(planned, remote, prior.token);
  },

  async delete(ctx, { prior }) {
    const { client, reader } = ctx.data;
    const { token_id: id, username } = prior;
    if (id === null) return;
    await basicAuthOnly(ctx, describeToken(id, prior.label, username), async () => {
      try {
        await reader.write('tokens', username ?? undefined, () => client.tokens.delete({ id, ...target(username) }, { signal: ctx.signal }));
      } catch (err) {
        // Already gone counts as deleted: the token (404) or its whole sub-account (also 404).
        if (!isNotFound(err)) throw err;
      }
    });
  },

  async import(ctx, id) {
    const parsed = parseImportId(ctx, id, '"TOKEN_ID" or "USERNAME/TOKEN_ID" (e.g. 42 or alice/42)', (entry) =>
      /^[1-9][0-9]{0,14}$/.test(entry) ? undefined : `${JSON.stringify(entry)} is not a token ID (a positive integer)`,
    );
    if (parsed === undefined) return undefined;
    // The raw token cannot be read back: it stays null.
    return { id: entryId(parsed.username, parsed.entry), token_id: Number(parsed.entry), username: parsed.username };
  },
} satisfies ResourceDefinition<typeof schema>;

/** State from the API's metadata; the raw token only ever comes from the create response. */
function toState(known: BearerTokenModel, remote: BearerToken, token: string | null): BearerTokenModel {
  return {
    id: entryId(known.username, String(remote.id)),
    label: labelFromRemote(remote.label),
    expires_at: expiryDate(known.expires_at, remote.expiresAt),
    active: remote.isActive,
    username: known.username,
    token_id: remote.id,
    created_at: rfc3339(remote.createdAt),
    token,
  };
}

/**
 * The expiry date to keep in state. The emulator returns the start of the configured day; an
 * API that returns its end, the next midnight or a local midnight means the same date, so a
 * known date within a day of the returned instant stays as configured.
 */
function expiryDate(known: string | null, remote: Date | null): string | null {
  if (remote === null) return null;
  if (known !== null && Math.abs(remote.getTime() - Date.parse(`${known}T00:00:00Z`)) <= DAY_MS) return known;
  return remote.toISOString().slice(0, 10);
}

/** RFC 3339 in UTC, without a fraction when there is none. */
function rfc3339(d: Date): string {
  return d.toISOString().replace(/\.000Z$/, 'Z');
}

/** The account's token metadata (coalesced); none when the sub-account is gone (404). */
async function listTokens(ctx: ResourceContext, username: string | null): Promise<readonly BearerToken[]> {
  try {
    return await ctx.data.reader.listTokens(username ?? undefined);
  } catch (err) {
    if (isNotFound(err)) return [];
    throw err;
  }
}

/**
 * Whether a refused activation is the API's refusal of an expired token. API.md does not show
 * that status (the emulator sends 400), so any client error on a token that has an expiry date
 * counts when the message or the local clock says it has passed.
 */
function refusedAsExpired(err: unknown, expiresAt: string | null): boolean {
  if (expiresAt === null) return false;
  if (!['ERR_VALIDATION', 'ERR_FORBIDDEN', 'ERR_UNEXPECTED_STATUS'].some((code) => hasErrorCode(err, code))) return false;
  return /expir/i.test(err instanceof Error ? err.message : '') || Date.parse(`${expiresAt}T00:00:00Z`) <= Date.now();
}

/**
 * Runs a token call; the SDK's refusal to send one with a bearer-token provider becomes an
 * error saying how to configure the provider. Returns undefined after adding it.
 */
async function basicAuthOnly<T>(ctx: ResourceContext, object: string, run: () => Promise<T>): Promise<T | undefined> {
  try {
    return await run();
  } catch (err) {
    if (!hasErrorCode(err, 'ERR_BASIC_AUTH_REQUIRED')) throw err;
    ctx.diagnostics.addError(
      'Bearer tokens need username and password',
      `${capitalize(object)}: the provider is configured with a bearer token (token or PROXYACCOUNT_TOKEN), but the API manages bearer tokens only with HTTP Basic authentication, so no request was sent. Configure the provider with username and password (PROXYACCOUNT_USERNAME, PROXYACCOUNT_PASSWORD) instead, or give the token resources a provider alias that uses them.`,
    );
    return undefined;
  }
}

function describeToken(id: number | null, label: string | null, username: string | null): string {
  const name = id === null ? 'bearer token' : `bearer token ${id}`;
  return `${name}${label === null ? '' : ` '${label}'`}${username === null ? '' : ` of sub-account '${username}'`}`;
}

function capitalize(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}
