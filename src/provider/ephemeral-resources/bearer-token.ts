// ephemeral "proxyaccount_bearer_token": a bearer token that lives for one Terraform run and never
// lands in plan or state. Open creates it (labelled with EPHEMERAL_TOKEN_PREFIX, expiring by
// default tomorrow so a token nobody deleted dies on its own); close deletes it. Terraform skips
// close when anything upstream of it failed (an error elsewhere, Ctrl-C) and then shuts the
// provider down: the shutdown deletes the tokens still open, and those being created then
// (deleteOpenTokens). Leftovers (a killed provider, a delete that failed) show in `proxyaccount
// drift` and are deleted by `proxyaccount tokens prune`. Dates are judged on the API's clock, as
// the API judges them: "tomorrow" on this machine's clock can be the API's today.
import { EPHEMERAL_TOKEN_PREFIX, isEphemeralTokenLabel } from '../../resource-types/ephemeral-tokens';
import { labelValidators } from '../access/labels';
import { reportDiscardedTokens } from '../access/token-discards';
import { usernameValidators } from '../access/usernames';
import { hasErrorCode } from '../errors';
import { attr, capitalize, dateYmd, defineSchema, type EphemeralResourceDefinition } from '../framework';
import type { AccountStore, TokenList, TokenWrite } from '../../account';

/** Longest label the user gives: the API's 100 characters less the prefix. */
const LABEL_MAX = 100 - EPHEMERAL_TOKEN_PREFIX.length;

/**
 * How close to the API's midnight the default expiry moves one day on: the API's time is known to
 * the second at best, and the create arrives a moment later, maybe on the API's next day, whose
 * "tomorrow" is the date the default would be.
 */
const MIDNIGHT_MARGIN_MS = 5 * 60_000;
const DAY_MS = 86_400_000;

const schema = defineSchema({
  description: `A bearer token for one Terraform run (Terraform 1.10 or later): created when the run opens it, deleted when the run ends, failed or interrupted runs included (Terraform then skips closing it, and the provider deletes it when Terraform shuts it down, or when Terraform is gone; a delete that still fails then is only in the provider's log), never written to plan or state. Its label is \`${EPHEMERAL_TOKEN_PREFIX}\` followed by \`label\`, so leftovers are recognisable: \`proxyaccount drift\` reports them and \`proxyaccount tokens prune\` deletes them. Use it only for what acts during the run: a second \`proxyaccount\` provider (least privilege: a bearer token cannot manage tokens), another provider's configuration, a provisioner. Not for anything that keeps it, such as a write-only argument that stores it in a secret manager: the stored token stops working when the run ends. Needs username and password credentials; each open counts against the account's token allowance.`,
  markdown: true,
  attributes: {
    label: attr.string({
      description: `What the token is for, 1–${LABEL_MAX} characters; the API label is \`${EPHEMERAL_TOKEN_PREFIX}<label>\`.`,
      markdown: true,
      required: true,
      validators: labelValidators(LABEL_MAX),
    }),
    username: attr.string({
      description: 'The sub-account the token belongs to; omit it for the authenticated account.',
      optional: true,
      validators: usernameValidators(),
    }),
    expires_at: attr.string({
      description:
        "Expiry date, `YYYY-MM-DD` (UTC), after today on the API's clock (checked when the token is opened). Default: tomorrow on the API's clock (the day after in the last five minutes of its day), the nearest date the API accepts, so a token whose close never ran expires on its own.",
      markdown: true,
      optional: true,
      computed: true,
      validators: [dateYmd()],
    }),
    token: attr.string({ description: 'The raw token, for this run only.', computed: true, sensitive: true }),
    token_id: attr.number({ description: "The token's numeric identifier.", computed: true }),
  },
});

/** What close needs to find the token again (Terraform keeps these bytes for the run). */
interface Opened {
  readonly id: number;
  readonly username: string | null;
  /** Absent in the bytes of an earlier version. */
  readonly expiresAt?: string;
}

/** The `proxyaccount_bearer_token` ephemeral resource. */
export const bearerTokenEphemeral = {
  typeName: 'proxyaccount_bearer_token',
  displayName: 'ephemeral bearer token',
  schema,

  // No date check at validation: "today" is the API's, and only open can ask it.
  async open(ctx, { config }) {
    const tokens = ctx.data.account(config.username).tokens;
    const now = await apiNow(ctx.data, tokens);
    if (config.expires_at !== null && config.expires_at <= today(now)) {
      ctx.diagnostics.addAttributeError(
        'expires_at',
        'Expiry date not in the future',
        `expires_at ${config.expires_at} is not after today (${today(now)}, UTC, on the API's clock): the API would refuse the token. Set a later date, or omit expires_at (the default is tomorrow).`,
      );
      return undefined;
    }
    const expiresAt = config.expires_at ?? today(now + MIDNIGHT_MARGIN_MS + DAY_MS);
    let created: TokenWrite;
    try {
      created = await createTracked(ctx.data, tokens, EPHEMERAL_TOKEN_PREFIX + config.label, config.username, expiresAt);
    } catch (err) {
      if (hasErrorCode(err, 'ERR_PAYMENT_REQUIRED')) {
        ctx.diagnostics.addError('Token allowance reached', await allowanceDetail(ctx.data, config.username, err));
        return undefined;
      }
      // The create may have made a token nobody received: say what remains and how it goes.
      if (outcomeUnknown(err)) throw withLeftoverAdvice(err, leftoverAdvice(undefined, EPHEMERAL_TOKEN_PREFIX + config.label, config.username, expiresAt));
      throw err;
    }
    reportDiscardedTokens(ctx.diagnostics, `ephemeral bearer token '${config.label}'`, created);
    const opened: Opened = { id: created.token.id, username: config.username, expiresAt };
    return {
      result: { label: config.label, username: config.username, expires_at: expiresAt, token: created.token.token, token_id: created.token.id },
      private: Buffer.from(JSON.stringify(opened)),
    };
  },

  async close(ctx, req) {
    const opened = parseOpened(req.private);
    if (opened === undefined) {
      ctx.diagnostics.addWarning(
        'Ephemeral token not closed',
        'Terraform handed back no record of the token; if one was made, it expires on its own and `proxyaccount tokens prune` deletes it.',
      );
      return;
    }
    // Close owns it now: the shutdown does not send this delete again (a 401 must not be resent).
    untrackOpenToken(opened.id, opened.username);
    // A stop must not keep the token alive: close runs after Ctrl-C too. Already gone is closed.
    try {
      await ctx.data.forCleanup().account(opened.username).tokens.delete(opened.id);
    } catch (err) {
      throw withLeftoverAdvice(err, leftoverAdvice(opened.id, undefined, opened.username, opened.expiresAt));
    }
  },
} satisfies EphemeralResourceDefinition<typeof schema, AccountStore>;

function parseOpened(bytes: Uint8Array | undefined): Opened | undefined {
  if (bytes === undefined || bytes.length === 0) return undefined;
  try {
    const v = JSON.parse(Buffer.from(bytes).toString('utf8')) as Partial<Opened>;
    if (typeof v.id !== 'number' || !(v.username === null || typeof v.username === 'string')) return undefined;
    return { id: v.id, username: v.username ?? null, ...(typeof v.expiresAt === 'string' ? { expiresAt: v.expiresAt } : {}) };
  } catch {
    return undefined;
  }
}

/**
 * What to do about a token that may remain: which one (its ID when known, else its label), until
 * when it works, and the commands that report and delete it. Never its value.
 */
function leftoverAdvice(id: number | undefined, label: string | undefined, username: string | null, expiresAt: string | undefined): string {
  const which = id !== undefined ? `Bearer token ${id}` : `A bearer token labelled '${label}'`;
  const owner = username === null ? '' : ` of sub-account '${username}'`;
  const until = expiresAt === undefined ? 'until it expires' : `until it expires on ${expiresAt} (UTC, on the API's clock)`;
  const user = username === null ? '' : ` --username ${username}`;
  return `${which}${owner} may remain active ${until}. \`proxyaccount drift\` reports it; \`proxyaccount tokens prune${user}\` deletes it (with \`--older-than 0s\` once no run is using ephemeral tokens).`;
}

/**
 * The SDK's and the store's errors say whether the request may have taken effect; read here
 * without loading the SDK (account's isUnknownOutcome does), which this module must not at start.
 */
function outcomeUnknown(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { outcomeUnknown?: unknown }).outcomeUnknown === true;
}

/** `err` with `advice` after its message: the diagnostic built from it then carries both. */
function withLeftoverAdvice(err: unknown, advice: string): unknown {
  if (err instanceof Error) err.message = `${err.message}${/[.!?]$/.test(err.message) ? '' : '.'}\n\n${advice}`;
  return err;
}

/** "the allowance is reached", and which ephemeral leftovers hold it. */
async function allowanceDetail(store: AccountStore, username: string | null, err: unknown): Promise<string> {
  const why = err instanceof Error ? err.message : String(err);
  let leftovers = '';
  try {
    const found = (await store.account(username).tokens.fresh()).filter((t) => isEphemeralTokenLabel(t.label));
    leftovers =
      found.length === 0
        ? ' No leftover ephemeral tokens were found.'
        : ` ${found.length} leftover ephemeral token(s) hold part of it: ${found.map((t) => `${t.id} '${t.label}'`).join(', ')}. Delete them with \`proxyaccount tokens prune --older-than 1h\`.`;
  } catch {
    // The listing itself may be refused on a plan without tokens; the 402 says enough.
  }
  return `${capitalize(username === null ? "the provider's account" : `sub-account '${username}'`)} cannot have another bearer token: the plan's token allowance is reached (${why}).${leftovers}`;
}

/**
 * The API's time: it decides whether a date is after today. An open can be the first call of
 * its process, before any answer told it: the token listing is read first then (one request
 * more; any answer tells the time, a refusal too). This machine's clock only when none came.
 */
async function apiNow(store: AccountStore, tokens: TokenList): Promise<number> {
  if (store.apiNow() === undefined) await tokens.list().catch(() => undefined);
  return store.now();
}

/** The UTC date of `now`, YYYY-MM-DD. */
function today(now: number): string {
  return new Date(now).toISOString().slice(0, 10);
}

// The tokens this process opened and Terraform has not closed. Terraform skips close when
// anything upstream of it failed (a failing data source, a refused create, Ctrl-C), then shuts
// the provider down: the shutdown deletes what is still here, so a failed run leaves no working
// credential behind. A create is known from before it is sent (CREATING): one still unanswered
// when the run ends is waited for, and its token deleted too. One provider per process (as
// Terraform runs it), so one list.

/** One token to delete, and the store of the configuration that opened it. */
interface OpenToken {
  readonly store: AccountStore;
  readonly id: number;
  readonly username: string | null;
  readonly expiresAt: string;
}

const OPEN = new Map<string, OpenToken>();

/** A create sent and not yet answered: what the log says of the token it may make. */
interface Creating {
  readonly label: string;
  readonly username: string | null;
  readonly expiresAt: string;
}

/** Creates sent and not yet settled, by a promise that settles once the token is in OPEN or the create failed. */
const CREATING = new Map<Promise<void>, Creating>();

function key(id: number, username: string | null): string {
  return `${username ?? ''}\u0000${id}`;
}

/** Sends the create, known to the shutdown from before it is sent until its token is in OPEN. */
function createTracked(store: AccountStore, tokens: TokenList, label: string, username: string | null, expiresAt: string): Promise<TokenWrite> {
  const creating = tokens.create({ label, expiresAt }).then((created) => {
    OPEN.set(key(created.token.id, username), { store, id: created.token.id, username, expiresAt });
    return created;
  });
  const settled = creating.then(
    () => undefined,
    () => undefined,
  );
  CREATING.set(settled, { label, username, expiresAt });
  void settled.then(() => CREATING.delete(settled));
  return creating;
}

/** Forgets a token: close deleted it (or is about to). */
function untrackOpenToken(id: number, username: string | null): void {
  OPEN.delete(key(id, username));
}

/** How many tokens are open, and how many creates are in flight: for tests. */
export function openTokenCount(): number {
  return OPEN.size + CREATING.size;
}

/** The first wait before a delete is sent again; each next one is twice as long. */
const RETRY_FIRST_MS = 200;

/**
 * Deletes every token still open, and those whose create is in flight once it is answered,
 * waiting at most `withinMs` (go-plugin kills the process 2 s after Shutdown). Through the cleanup
 * store: a stop (Ctrl-C) must not keep them alive; a lost answer is settled by reading the list
 * back; a failure that leaves the outcome unknown (a 5xx) is sent again while time remains (a
 * delete is idempotent); a refusal (401 included) is not sent again. What is not deleted in time
 * or fails is logged by id, never by value: Terraform shows nothing after Shutdown, so the
 * provider's log is the only place; `proxyaccount drift` reports it and `proxyaccount tokens
 * prune` deletes it.
 */
export async function deleteOpenTokens(withinMs: number, log: (message: string) => void = () => {}): Promise<void> {
  if (OPEN.size === 0 && CREATING.size === 0) return;
  const deadline = Date.now() + withinMs;
  const failed = new Set<string>();
  // One after the other: after a 401 the client's failure memory sends no further request (four
  // failed authentications ban the address); a run opens one token or two.
  const deletes = (async () => {
    for (;;) {
      const next = [...OPEN.entries()].find(([k]) => !failed.has(k));
      if (next !== undefined) {
        const [k, t] = next;
        const err = await deleteOne(t, deadline);
        if (err === undefined) OPEN.delete(k);
        else {
          failed.add(k);
          log(
            `ephemeral bearer token ${t.id} not deleted at shutdown (${err instanceof Error ? err.message : String(err)}). ${leftoverAdvice(t.id, undefined, t.username, t.expiresAt)}`,
          );
        }
      } else if (CREATING.size > 0) await Promise.race(CREATING.keys());
      else return;
    }
  })();
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, withinMs);
    timer.unref();
  });
  await Promise.race([deletes, late]);
  clearTimeout(timer);
  for (const [k, t] of OPEN)
    if (!failed.has(k)) log(`ephemeral bearer token ${t.id} not deleted at shutdown in time. ${leftoverAdvice(t.id, undefined, t.username, t.expiresAt)}`);
  for (const c of CREATING.values())
    log(`an ephemeral bearer token create was still unanswered at shutdown. ${leftoverAdvice(undefined, c.label, c.username, c.expiresAt)}`);
}

/** Deletes `t`, sending it again while the outcome is unknown and time remains; the last error, or undefined once deleted. */
async function deleteOne(t: OpenToken, deadline: number): Promise<unknown> {
  for (let wait = RETRY_FIRST_MS; ; wait *= 2) {
    try {
      await t.store.forCleanup().account(t.username).tokens.delete(t.id);
      return undefined;
    } catch (err) {
      if (!worthSendingAgain(err) || Date.now() + wait >= deadline) return err;
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }
}

/** A failure that may be passing (a 5xx, a lost answer not settled), with credentials the API did not refuse. */
function worthSendingAgain(err: unknown): boolean {
  if (!outcomeUnknown(err)) return false;
  const facts = err as { credentialsRejected?: unknown; clientRefusesRequests?: unknown };
  return facts.credentialsRejected !== true && facts.clientRefusesRequests !== true;
}
