// A bearer token create whose outcome stays unknown (its answer lost, and the read-back failed too)
// is kept in state as pending: tainted, no token id, and as its id the span of the API's time in
// which it ran (`pending:FROM/TO`). This is that record: its id's form, and which listed tokens it
// may have made. The resource (resources/bearer-token.ts) refreshes and deletes by it.
import type { BearerToken } from '../../sdk';
import type { PrivateState } from '../framework';

/** The largest token ID state may hold (IDs are positive integers; 15 digits, as import accepts). */
export const MAX_TOKEN_ID = 999_999_999_999_999;

/**
 * How far a token's creation time may lie outside a pending create's span and still count: the
 * span's ends are read from `Date` headers (whole seconds), and the API may give creation times in
 * whole seconds too.
 */
export const PENDING_MARGIN_MS = 2_000;

/** A time of a pending create's id: RFC 3339 in UTC, with milliseconds. */
const PENDING_TIME = String.raw`\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z`;

/** The id of a pending create: `pending:FROM/TO`, the span of the API's time in which it ran. */
const PENDING_ID = new RegExp(`^pending:(${PENDING_TIME})/(${PENDING_TIME})$`);

/**
 * A create whose outcome is unknown. Its id says from when to when it ran, on the API's clock; a
 * token it made was created then. The id is in the state itself, which every later call is given,
 * a delete too (private state is not handed to the delete of a tainted object's replacement).
 */
export interface PendingSpan {
  readonly kind: 'span';
  /** The API's time (ms since the epoch) right before the create was sent. */
  readonly from: number;
  /** The API's time (ms since the epoch) when its outcome was given up. */
  readonly to: number;
}

/**
 * A create whose outcome is unknown as an earlier version of the provider saved it: no id, and
 * in private state the tokens there before it. It says nothing of when the create ran, so a token
 * made since by another client cannot be told from one it made.
 */
export interface PendingLegacy {
  readonly kind: 'legacy';
  /** Ids of the account's tokens that were there before the create was sent. */
  readonly knownBefore: readonly number[];
}

export type PendingCreate = PendingSpan | PendingLegacy;

/** The state's id of a create that ran from `from` to `to` (the API's time, ms since the epoch). */
export function pendingId(from: number, to: number): string {
  return `pending:${new Date(from).toISOString()}/${new Date(to).toISOString()}`;
}

/** The span a pending create's `id` holds; undefined when `id` is not one. */
function pendingSpan(id: string | null): PendingSpan | undefined {
  const m = id === null ? null : PENDING_ID.exec(id);
  if (m === null) return undefined;
  const [from, to] = [Date.parse(m[1]!), Date.parse(m[2]!)];
  // Round-trips only for a real time (no 25:00, no 31 February); a span never runs backwards.
  if (Number.isNaN(from) || Number.isNaN(to) || new Date(from).toISOString() !== m[1] || new Date(to).toISOString() !== m[2] || from > to) {
    return undefined;
  }
  return { kind: 'span', from, to };
}

/** The private state's key of the record an earlier version kept. */
const LEGACY_PENDING_CREATE = 'create_pending';

/** An earlier version's record in `stored`, or undefined when there is none (or it is not one: a damaged record is none). */
function legacyPending(stored: PrivateState | undefined): PendingLegacy | undefined {
  const record: unknown = stored?.[LEGACY_PENDING_CREATE];
  if (typeof record !== 'object' || record === null) return undefined;
  const ids = (record as { readonly tokens_known_before?: unknown }).tokens_known_before;
  if (!Array.isArray(ids) || !ids.every((id) => Number.isSafeInteger(id) && id >= 1 && id <= MAX_TOKEN_ID)) return undefined;
  return { kind: 'legacy', knownBefore: ids as number[] };
}

/** The pending create a state naming no token stands for; undefined when it stands for none. */
export function pendingOf(
  state: { readonly id: string | null; readonly token_id: number | null },
  stored: PrivateState | undefined,
): PendingCreate | undefined {
  if (state.token_id !== null) return undefined;
  return state.id === null ? legacyPending(stored) : pendingSpan(state.id);
}

/** "from A to B (the API's time, give or take 2 s)" for a span. */
export function describeSpan(span: PendingSpan): string {
  return `from ${new Date(span.from).toISOString()} to ${new Date(span.to).toISOString()} (the API's time, give or take ${PENDING_MARGIN_MS / 1000} s)`;
}

/** The tokens of `label` in `listed` that the pending create may have made. */
export function pendingCandidates(listed: readonly BearerToken[], label: string, pending: PendingCreate): BearerToken[] {
  const ofLabel = listed.filter((t) => t.label === label);
  if (pending.kind === 'legacy') {
    const before = new Set(pending.knownBefore);
    return ofLabel.filter((t) => !before.has(t.id));
  }
  // createdAt is the SDK's reading of the API's created_at (UTC when it has no offset).
  return ofLabel.filter((t) => t.createdAt.getTime() >= pending.from - PENDING_MARGIN_MS && t.createdAt.getTime() <= pending.to + PENDING_MARGIN_MS);
}

/** The tokens of `label` created after a pending create's span: never taken for it (another client's), only named. */
export function tokensAfterSpan(listed: readonly BearerToken[], label: string, pending: PendingSpan): BearerToken[] {
  return listed.filter((t) => t.label === label && t.createdAt.getTime() > pending.to + PENDING_MARGIN_MS);
}
