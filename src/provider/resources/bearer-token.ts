// proxyaccount_bearer_token: a bearer token of the authenticated account or of a sub-account.
// The raw token exists only in the create response, so state keeps it; metadata is read
// through the coalescing reader. The API manages tokens with HTTP Basic only. A create whose
// outcome stays unknown (answer lost, read-back failed) is saved tainted with no token id and, as
// its id, the span of the API's time in which it ran; the next refresh, or the delete, finds what
// it made: a token of its label created in that span.
import type { TokenCreateOutcomeUnknownError } from '../../account/token-create';
import { EPHEMERAL_TOKEN_PREFIX, isEphemeralTokenLabel } from '../../resource-types/ephemeral-tokens';
import type { BearerToken } from '../../sdk';
import { entryId, parseImportId } from '../access/entry-ids';
import {
  describeSpan,
  MAX_TOKEN_ID,
  PENDING_MARGIN_MS,
  type PendingCreate,
  pendingCandidates,
  pendingId,
  pendingOf,
  tokensAfterSpan,
} from '../access/pending-token-create';
import { missingId } from '../access/state-ids';
import { reportDiscardedTokens } from '../access/token-discards';
import { labelFromRemote, labelValidators } from '../access/labels';
import { usernameValidators } from '../access/usernames';
import { hasErrorCode, isNotFound, isProxyAccountError } from '../errors';
import { attr, capitalize, dateYmd, defineSchema, isUnknown, type Model, requiresReplace, useStateForUnknown, validator } from '../framework';
import type { TokenWrite } from '../../account';
import type { Ctx, Resource } from '../types';

const schema = defineSchema({
  description:
    'A bearer token of the authenticated account or of a sub-account, for the API and the proxy servers. Managing tokens needs the provider configured with username and password (the API refuses bearer authentication here). The raw token is known only when Terraform creates it. A create whose answer is lost and whose read-back does not settle it (the read-back fails, or shows no token of the label yet: a request that timed out may still be served, so the create is not sent again) is saved tainted, with no token ID and the span of time it ran in as its `id`: the next refresh, or a delete planned without one, finds the token it may have made (one of its label created in that span, give or take 2 seconds) and replaces or deletes it; should it find several, it names them and deletes none. A token of that label created later is never taken for it: the refresh names it in a warning. So a create the API serves after that span (a request held longer than the request timeout and the read-back) leaves a token no state holds, whose value nobody received: named by the refresh if it exists by then, and listed by `proxyaccount drift` as unmanaged.',
  markdown: true,
  attributes: {
    id: attr.string({
      description:
        "The token ID, prefixed with `USERNAME/` for a sub-account's token (e.g. `42` or `alice/42`); also the import ID. While a create's outcome is unknown: `pending:FROM/TO`, the span of the API's time in which it ran (RFC 3339, UTC, e.g. `pending:2025-01-31T09:30:00.000Z/2025-01-31T09:30:41.250Z`).",
      markdown: true,
      computed: true,
      planModifiers: [useStateForUnknown()],
    }),
    label: attr.string({
      description: 'A note identifying the token, 1–100 characters; omit it for none (an empty string is refused). Changing it replaces the token.',
      optional: true,
      validators: [
        ...labelValidators(100),
        validator<string>(`not starting with ${EPHEMERAL_TOKEN_PREFIX}`, (v) =>
          isEphemeralTokenLabel(v)
            ? `must not start with ${JSON.stringify(EPHEMERAL_TOKEN_PREFIX)}: that prefix marks the ephemeral resource's tokens, which \`proxyaccount tokens prune\` deletes`
            : undefined,
        ),
      ],
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
      description: "The token's numeric identifier.",
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
        "The raw token, beginning with the service's token prefix. The API returns it only when the token is created, so it is kept in state (protect the state); it is null after `terraform import`.",
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

  checkState(state, stored) {
    const id = state.token_id;
    // Only a create whose outcome is unknown saves a state naming no token: its id is the span it
    // ran in (or, saved by an earlier version, no id and a private record: the one state without id).
    if (id === null) return pendingOf(state, stored.private) === undefined ? missingTokenId(state) : undefined;
    if (state.id === null) return missingId(state);
    if (!Number.isSafeInteger(id) || id < 1 || id > MAX_TOKEN_ID) {
      return { attribute: 'token_id', problem: `token_id ${id} is not a token ID (a positive integer of at most 15 digits)` };
    }
    if (state.id !== entryId(state.username, String(id))) {
      // A pending id beside a token_id: the same mismatch, the state edited.
      return { attribute: 'id', problem: `id ${JSON.stringify(state.id)} does not match token_id ${id} and username ${JSON.stringify(state.username)}` };
    }
    return undefined;
  },

  modifyPlan(ctx, { prior, planned }) {
    const expires = planned.expires_at;
    // The API decides expiry on its own clock: its last answer's Date, else this machine's.
    const now = ctx.data?.now() ?? Date.now();
    if (typeof expires === 'string' && (prior === null || prior.expires_at !== expires) && !afterToday(expires, now)) {
      ctx.diagnostics.addAttributeError(
        'expires_at',
        'Expiry date not in the future',
        `expires_at ${expires} is not after today (${today(now)}, UTC): the API would refuse the token or make one that is already expired. Set a later date, or omit expires_at for a token that never expires.`,
      );
      return undefined;
    }
    // An expired token is a state, not drift: it stays as it is, and the plan says why.
    if (prior !== null && prior.active === false && prior.expires_at !== null && !afterNow(prior.expires_at, now) && planned.expires_at === prior.expires_at) {
      if (planned.active === true || (planned.active !== null && isUnknown(planned.active))) {
        ctx.diagnostics.addAttributeWarning(
          'expires_at',
          'Bearer token has expired',
          `${capitalize(describeToken(prior.token_id, prior.label, prior.username))} expired on ${prior.expires_at}; the API cannot activate it again, so it is left as it is. To rotate it, set a later expires_at (the token is replaced by a new one).`,
        );
        return { planned: { active: false } };
      }
    }
    return undefined;
  },

  async create(ctx, { planned }) {
    const { label, expires_at: expiresAt, username } = planned;
    const tokens = ctx.data.account(username).tokens;
    const object = describeToken(null, label, username);
    let created: TokenWrite | undefined;
    try {
      created = await basicAuthOnly(ctx, object, () => tokens.create({ label, expiresAt }));
    } catch (err) {
      if (!isUnsettledCreate(err)) throw err;
      // Returned with the error, the state is saved tainted: nothing is forgotten, and the next
      // refresh, or the delete of a replacement or destroy planned without one, reads which token
      // (if any) this create made. The span is the id, in the state every later call is given.
      const id = pendingId(err.sentFrom, err.givenUpAt);
      ctx.diagnostics.addError(
        'Unable to create bearer token',
        `${capitalize(object)}: ${err.message}. It is kept in the state, marked tainted, as pending: its id ${id} is the span of the API's time in which it ran. ` +
          `The next plan reads the account's tokens: a token with this label created in that span (give or take ${PENDING_MARGIN_MS / 1000} s) is taken as the one it made and replaced (deleted, with a new token created in its place); with none, the plan creates the token; with several, it names them and deletes none. ` +
          'A token of this label created later is never taken for it, since another client may have made it; the plan names it in a warning, as an API that served this create late would have made it. A destroy, or a replacement planned with -refresh=false, finds it the same way before deleting it.',
      );
      return { ...planned, id, token_id: null, created_at: null, token: null };
    }
    if (created === undefined) return undefined;
    const { token } = created;
    reportDiscardedTokens(ctx.diagnostics, describeToken(token.id, label, username), created);
    let remote: BearerToken = token;
    if (planned.active === false) {
      try {
        remote = await tokens.setActive(token.id, false);
      } catch (err) {
        // The token exists: return it with the error so Terraform keeps it (and its secret).
        ctx.reportError(err, 'Unable to deactivate bearer token', describeToken(token.id, label, username));
      }
    }
    return toState(planned, remote, token.token);
  },

  async read(ctx, { state, private: stored }) {
    const pending = pendingOf(state, stored);
    if (pending !== undefined) return readPendingCreate(ctx, state, pending);
    const object = describeToken(state.token_id, state.label, state.username);
    const remote = await basicAuthOnly(ctx, object, () =>
      withPlanLimit(ctx, object, 'read', async () => (await ctx.data.account(state.username).tokens.find(state.token_id!)) ?? null),
    );
    if (remote === undefined) return undefined;
    if (remote === PLAN_LIMIT) return state;
    return remote === null ? null : toState(state, remote, state.token);
  },

  async update(ctx, { prior, planned }) {
    const { username } = planned;
    if (prior.token_id === null) {
      // An untainted pending create planned with -refresh=false: nothing names the token yet.
      ctx.diagnostics.addError(
        'Unable to update bearer token',
        `${capitalize(describeToken(null, prior.label, username))}: its create's outcome is not settled yet (no token id). Run a plan without -refresh=false: its refresh finds what the create made.`,
      );
      return undefined;
    }
    const id = prior.token_id;
    const tokens = ctx.data.account(username).tokens;
    const object = describeToken(id, prior.label, username);
    const want = planned.active ?? true;
    let remote: BearerToken | undefined;
    // Only `active` changes in place; every other configurable attribute replaces the token.
    if (want !== prior.active) {
      try {
        remote = await basicAuthOnly(ctx, object, () => tokens.setActive(id, want));
      } catch (err) {
        if (want && refusedAsExpired(err, prior.expires_at, ctx.data.now())) {
          const message = err instanceof Error ? err.message : String(err);
          ctx.diagnostics.addAttributeError(
            'active',
            'Bearer token has expired',
            `${capitalize(object)} expired on ${prior.expires_at ?? 'its expiry date'}, and the API refuses to activate an expired token (${message}). Set active = false to keep it as it is, or set a later expires_at, which replaces it with a new token.`,
          );
          return undefined;
        }
        throw err;
      }
      if (remote === undefined) return undefined;
    } else {
      const found = await basicAuthOnly(ctx, object, async () => (await tokens.find(id)) ?? null);
      if (found === undefined) return undefined;
      if (found === null) throw new Error(`token ${id} is no longer listed; it was deleted outside Terraform during the apply`);
      remote = found;
    }
    return toState(planned, remote, prior.token);
  },

  async delete(ctx, { prior, private: stored }) {
    const { token_id: id, username } = prior;
    if (id === null) {
      // A create whose outcome is unknown (checkState let it through only as one): delete what it
      // made, found as a refresh finds it. Several candidates fail the delete, which keeps the
      // state, and with it the id that says when the create ran.
      const pending = pendingOf(prior, stored);
      if (pending === undefined) return;
      const found = await findPendingToken(ctx, prior, pending, 'delete');
      if (typeof found === 'object' && found !== null) await deleteToken(ctx, found.id, prior.label, username);
      return;
    }
    await deleteToken(ctx, id, prior.label, username);
  },

  async import(ctx, id) {
    if (id.startsWith('pending:')) {
      // The id a create whose answer was lost leaves in state: it names no token to import.
      ctx.diagnostics.addError(
        'Invalid import ID',
        `${JSON.stringify(id)} is the id a token create whose answer was lost leaves in state; it names no token. Import the token that create made by its token ID ("TOKEN_ID" or "USERNAME/TOKEN_ID", e.g. 42 or alice/42): the proxyaccount_bearer_tokens data source lists the tokens with their labels, IDs and creation times. Or leave the pending resource in state: its next refresh finds the token, and the plan replaces it.`,
      );
      return undefined;
    }
    const parsed = parseImportId(ctx, id, '"TOKEN_ID" or "USERNAME/TOKEN_ID" (e.g. 42 or alice/42)', (entry) =>
      /^[1-9][0-9]{0,14}$/.test(entry) ? undefined : `${JSON.stringify(entry)} is not a token ID (a positive integer)`,
    );
    if (parsed === undefined) return undefined;
    // The raw token cannot be read back: it stays null.
    return { id: entryId(parsed.username, parsed.entry), token_id: Number(parsed.entry), username: parsed.username };
  },
} satisfies Resource<typeof schema>;

/**
 * True for the store's error of a token create whose outcome stays unknown. Told by its code and
 * record rather than by its class: importing the class would load the SDK when the provider starts.
 */
function isUnsettledCreate(err: unknown): err is TokenCreateOutcomeUnknownError {
  if (!isProxyAccountError(err) || err.code !== 'ERR_UNKNOWN_OUTCOME') return false;
  const { sentFrom, givenUpAt } = err as { sentFrom?: unknown; givenUpAt?: unknown };
  return Number.isSafeInteger(sentFrom) && Number.isSafeInteger(givenUpAt);
}

/**
 * The problem of a state naming no token that is not a pending create. Without token_id the read
 * finds nothing and the plan creates a second token, while the one the id names stays active and
 * unmanaged; with no id either, it is a pending create whose record Terraform dropped.
 */
function missingTokenId(state: BearerTokenModel): { attribute: 'token_id' | 'id'; problem: string; repair?: string } {
  if (state.id === null) {
    const label = state.label === null ? 'without a label' : `labelled '${state.label}'`;
    return {
      attribute: 'token_id',
      problem: 'token_id and id are missing, and no record of a create whose outcome is unknown came with them',
      repair:
        'Such a state is left by a create whose outcome was unknown saved by an earlier version of the provider (which kept its record in private state) once Terraform dropped the record, which it does when it plans the replacement of a tainted object (e.g. apply -refresh=false). ' +
        `The token that create may have made can no longer be found: remove this object with "terraform state rm ADDRESS", then delete the token ${label}${state.username === null ? '' : ` of sub-account '${state.username}'`} that nothing uses, if there is one (\`proxyaccount drift\` lists the tokens no state holds); the next apply creates the token again.`,
    };
  }
  if (state.id.startsWith('pending:')) {
    return {
      attribute: 'id',
      problem: `id ${JSON.stringify(state.id)} is not a pending create's id (pending:FROM/TO, two RFC 3339 UTC times with milliseconds, FROM not after TO)`,
    };
  }
  return { attribute: 'token_id', problem: `token_id is missing, while id ${JSON.stringify(state.id)} names a token` };
}

/** Deletes token `id`; already gone counts as deleted: the token (404) or its whole sub-account (also 404). */
async function deleteToken(ctx: Ctx, id: number, label: string | null, username: string | null): Promise<void> {
  const object = describeToken(id, label, username);
  await basicAuthOnly(ctx, object, () => withPlanLimit(ctx, object, 'delete', () => ctx.data.account(username).tokens.delete(id)));
}

/**
 * The refresh of a create whose outcome is unknown. What it made is a token of its account and
 * label created while it ran: none (the create made nothing: gone, so the plan creates it again),
 * one (taken as it: kept, still tainted, so the plan replaces it, deleting it; its value was never
 * received), or several (another client made tokens with this label meanwhile: an error naming
 * them, nothing deleted). A token created later is not a candidate.
 */
async function readPendingCreate(ctx: Ctx, state: BearerTokenModel, pending: PendingCreate): Promise<BearerTokenModel | null | undefined> {
  const found = await findPendingToken(ctx, state, pending, 'read');
  if (found === undefined || found === null) return found;
  if (found === PLAN_LIMIT || pending.kind === 'legacy') return state;
  ctx.diagnostics.addWarning(
    'Bearer token found for a create whose outcome was unknown',
    `${capitalize(describeToken(found.id, state.label, state.username))} was created while a create of this label whose answer was lost was running, ${describeSpan(pending)}, and no other token of this label was, so it is taken as the token that create made; its value was never received. It stays marked tainted: the plan replaces it, deleting it and creating a new token (\`terraform untaint\` keeps it instead, with no value in state, as after an import).`,
  );
  return toState(state, found, null);
}

/**
 * The token a create whose outcome is unknown made: null when none, undefined after adding an error
 * (several candidates; any candidate of an earlier version's record; or one the API refused to list).
 */
async function findPendingToken(
  ctx: Ctx,
  state: BearerTokenModel,
  pending: PendingCreate,
  operation: 'read' | 'delete',
): Promise<BearerToken | null | undefined | typeof PLAN_LIMIT> {
  const object = describeToken(null, state.label, state.username);
  const tokens = ctx.data.account(state.username).tokens;
  const listed = await basicAuthOnly(ctx, object, () =>
    withPlanLimit(ctx, object, operation, async () => {
      try {
        // A delete acts on the account as it is now; a refresh shares the run's listing.
        return await (operation === 'delete' ? tokens.fresh() : tokens.list());
      } catch (err) {
        // The sub-account is gone, and its tokens with it.
        if (state.username !== null && isNotFound(err)) return [];
        throw err;
      }
    }),
  );
  if (listed === undefined || listed === PLAN_LIMIT) return listed;
  warnOfLaterTokens(ctx, object, listed, state.label ?? '', pending);
  const candidates = pendingCandidates(listed, state.label ?? '', pending);
  if (candidates.length === 0) return null;
  if (pending.kind === 'span' && candidates.length === 1) return candidates[0]!;
  const ids = candidates.map((t) => t.id).join(', ');
  const remedy =
    'Nothing was deleted. Remove this pending create from the state (terraform state rm ADDRESS; the next apply creates the token again), then delete those of these tokens that nothing uses (`proxyaccount drift` lists the tokens no state holds).';
  ctx.diagnostics.addError(
    `Unable to ${operation} bearer token`,
    pending.kind === 'span'
      ? `${capitalize(object)}: its create had its answer lost, and reading the account back did not settle what it made. Tokens ${ids} with this label were created while it ran, ${describeSpan(pending)}: one may be the token it made (its value was never received), the others were made by other clients with the same label at the same time. ${remedy}`
      : `${capitalize(object)}: its create had its answer lost, reading the account back did not settle what it made, and it was saved by an earlier version of the provider, which did not record when it ran. Token${candidates.length === 1 ? '' : 's'} ${ids} with this label appeared since it was sent: ${candidates.length === 1 ? 'it may be the token it made (its value was never received), or one another client made later' : 'one may be the token it made (its value was never received), the others were made by other clients'}, and nothing tells which. ${remedy}`,
  );
  return undefined;
}

/**
 * Names the tokens of the label created after the pending create's span. They are not taken for
 * it (another client's would be deleted), but an API that served the lost create late made one of
 * them, which nothing manages: said, so that it is not left unseen.
 */
function warnOfLaterTokens(ctx: Ctx, object: string, listed: readonly BearerToken[], label: string, pending: PendingCreate): void {
  if (pending.kind !== 'span') return;
  const later = tokensAfterSpan(listed, label, pending);
  if (later.length === 0) return;
  const ids = later.map((t) => `${t.id} (created ${t.createdAt.toISOString()})`).join(', ');
  ctx.diagnostics.addWarning(
    'Bearer tokens of this label created after a lost create',
    `${capitalize(object)}: token${later.length === 1 ? '' : 's'} ${ids} with this label ${later.length === 1 ? 'was' : 'were'} created after its lost create gave up, ${describeSpan(pending)}. ` +
      'They are not taken for it, since another client may have made them; but an API that served that create late made one of them, whose value nobody received and which nothing here manages. ' +
      'Delete such a token if nothing uses it (`proxyaccount drift` lists the tokens no state holds).',
  );
}

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

/** What a token call returns when the account's plan no longer allows token management. */
const PLAN_LIMIT = Symbol('plan without bearer tokens');

/**
 * Runs a read or delete; a 402 (the account's plan no longer includes bearer tokens) is a state,
 * not a failure that blocks every other change: a read keeps the recorded state, a delete drops
 * the resource from state, each with a warning saying so.
 */
async function withPlanLimit<T>(ctx: Ctx, object: string, operation: 'read' | 'delete', run: () => Promise<T>): Promise<T | typeof PLAN_LIMIT> {
  try {
    return await run();
  } catch (err) {
    if (!hasErrorCode(err, 'ERR_PAYMENT_REQUIRED')) throw err;
    const message = err instanceof Error ? err.message : String(err);
    ctx.diagnostics.addWarning(
      "The account's plan does not allow bearer tokens",
      operation === 'read'
        ? `${capitalize(object)}: the API refused to list tokens (${message}). The recorded state is kept as it is; after a plan downgrade the API deactivates every token.`
        : `${capitalize(object)}: the API refused to delete the token (${message}), so it is removed from the state only. A plan downgrade deactivates every token; delete it in the dashboard, or with Terraform after moving back to a plan with tokens.`,
    );
    return PLAN_LIMIT;
  }
}

/** True when the date `ymd` (YYYY-MM-DD) is after the UTC day of `now`. */
function afterToday(ymd: string, now: number): boolean {
  return ymd > today(now);
}

/** True when the start of day `ymd` (UTC), when the token stops working, is after `now`. */
function afterNow(ymd: string, now: number): boolean {
  return Date.parse(`${ymd}T00:00:00Z`) > now;
}

function today(now: number): string {
  return new Date(now).toISOString().slice(0, 10);
}

/**
 * Whether a refused activation is the API's refusal of an expired token. The API contract does not show
 * that status (the emulator sends 400), so any client error on a token that has an expiry date
 * counts when the message or the API's clock says it has passed.
 */
function refusedAsExpired(err: unknown, expiresAt: string | null, now: number): boolean {
  if (expiresAt === null) return false;
  if (!(['ERR_VALIDATION', 'ERR_FORBIDDEN', 'ERR_UNEXPECTED_STATUS'] as const).some((code) => hasErrorCode(err, code))) return false;
  return /expir/i.test(err instanceof Error ? err.message : '') || Date.parse(`${expiresAt}T00:00:00Z`) <= now;
}

/**
 * Runs a token call; the SDK's refusal to send one with a bearer-token provider becomes an
 * error saying how to configure the provider. Returns undefined after adding it.
 */
async function basicAuthOnly<T>(ctx: Ctx, object: string, run: () => Promise<T>): Promise<T | undefined> {
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
