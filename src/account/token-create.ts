// Creating a bearer token when answers may be lost. The raw value exists only in the create
// answer, so a token made by a request whose answer was lost can never be used: it is found by
// reading the account back, deleted, and a new one made. Finding it must never pick a token that
// another create made, so creates of one (account, label) run one at a time in this process and,
// through the client's lock on this machine (the store takes it), in this user's other processes
// too; the "before" listing is read fresh right before each send, and a token whose create this
// process was answered is never taken for a lost one. What stays out of reach: a client on another
// machine (or without a memory directory) creating a token of the same label while a request of
// ours that made nothing had its answer lost; the API offers nothing to tell the two apart, and
// the deletion is reported (`TokenWrite.discarded`). When the read-back after a lost answer fails
// too, nothing can be settled in this call: the error carries what a later reading needs to find
// the token that request may have made (`TokenCreateOutcomeUnknownError`): the span of the API's
// time in which the create ran, since a token it made was created then, and one another client
// makes later (hours later, at the next plan) was not. No other create of that (account, label)
// is sent by this process afterwards: sent right after, its token's creation time would fall in
// the margin a later reading allows around that span, and could not be told from the lost one.
import { ProxyAccountError, type BearerToken, type BearerTokenCreated } from '../sdk';
import { type AccountErrorCode, isUnknownOutcome, StoppedError, UnknownOutcomeError } from './outcome';
import type { TokenWrite } from './types';

/**
 * A token create whose answer was lost and whose read-back failed too: a token with this label
 * may now exist, whose value nobody received. Once the account can be read again, a token of
 * `account` with `label` whose creation time (the API's) lies from `sentFrom` to `givenUpAt` is
 * either one this create made or one another client made while it ran; one created outside that
 * span is not this create's. Both times are the API's clock as its answers' `Date` headers told
 * it (whole seconds, advanced by the local time elapsed since), so a reader allows a margin.
 */
export class TokenCreateOutcomeUnknownError extends UnknownOutcomeError {
  /** The sub-account, or null for the authenticated account. */
  readonly account: string | null;
  /** The label as the API lists it ('' for none). */
  readonly label: string;
  /** The API's time (ms since the epoch) right before the first send of this create. */
  readonly sentFrom: number;
  /** The API's time (ms since the epoch) when the read-back failed and the outcome was given up. */
  readonly givenUpAt: number;

  constructor(
    steps: Pick<TokenCreateSteps, 'op' | 'account' | 'label'>,
    span: { readonly sentFrom: number; readonly givenUpAt: number },
    cause: unknown,
    readBackError: unknown,
  ) {
    const token = steps.label === '' ? 'a token without a label' : `a token labelled '${steps.label}'`;
    super(steps.op, cause, readBackError, `${capitalize(token)} may now exist whose value nobody received`);
    this.account = steps.account;
    this.label = steps.label;
    this.sentFrom = span.sentFrom;
    this.givenUpAt = span.givenUpAt;
  }
}

/**
 * A token create not sent: an earlier create of the same (account, label) in this process ended
 * with its outcome unknown, and a token made now could not be told from the one that create may
 * have made when the account is next read.
 */
export class UnsettledTokenCreateError extends ProxyAccountError<AccountErrorCode> {
  /** The write that was not sent. */
  readonly operation: string;

  constructor(operation: string, label: string) {
    const tokens = label === '' ? 'tokens without a label' : `tokens labelled '${label}'`;
    super(
      'ERR_UNSETTLED_CREATE',
      `${operation} was not sent: an earlier create of ${tokens} in this run had its answer lost and could not read the account back, so a token made now could not be told apart from the one it may have made. Run again once the account can be read`,
    );
    this.operation = operation;
  }
}

/** Sends of one create at most: the first, and a re-send after each of two lost answers. */
export const MAX_TOKEN_CREATE_SENDS = 3;

/**
 * The queues of token creates, one per (account, label), shared by every store of the process
 * (the provider's and its clean-up copy, the CLI's). Terraform runs each provider configuration,
 * aliases included, in a process of its own: those wait for each other on the machine's lock
 * (AccountStore), and creates on other machines are why every deletion is reported
 * (`TokenWrite.discarded`). Stores of different accounts that happen to share a key only wait for
 * each other.
 */
const QUEUES = new Map<string, Promise<void>>();

/**
 * What the store's token creates share: the process-wide queues, the ids of tokens whose create
 * answers this store received, and the (account, label) pairs whose create's outcome stayed
 * unknown. The store and its clean-up copy share one book.
 */
export class TokenCreateBook {
  private readonly answered = new Set<string>();
  private readonly unsettled = new Set<string>();

  /** Runs `run` once every earlier run of the same `key` in this process has settled. */
  serial<T>(key: string, run: () => Promise<T>): Promise<T> {
    const previous = QUEUES.get(key) ?? Promise.resolve();
    const result = previous.then(run);
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    QUEUES.set(key, tail);
    void tail.then(() => {
      if (QUEUES.get(key) === tail) QUEUES.delete(key);
    });
    return result;
  }

  /** Records that this process was answered for token `id` of `account`. */
  remember(account: string | null, id: number): void {
    this.answered.add(bookKey(account, id));
  }

  /** True when this process was answered for token `id` of `account` (it belongs to a resource). */
  wasAnswered(account: string | null, id: number): boolean {
    return this.answered.has(bookKey(account, id));
  }

  /** Records that a create of `label` for `account` ended with its outcome unknown. */
  markUnsettled(account: string | null, label: string): void {
    this.unsettled.add(bookKey(account, label));
  }

  /** True when a create of `label` for `account` ended with its outcome unknown in this process. */
  isUnsettled(account: string | null, label: string): boolean {
    return this.unsettled.has(bookKey(account, label));
  }
}

/** How {@link createToken} reaches the account; the store supplies each. */
export interface TokenCreateSteps {
  /** The write, e.g. "create bearer token 'ci' for sub-account 'alice'". */
  readonly op: string;
  /** The sub-account, or null for the authenticated account. */
  readonly account: string | null;
  /** The label as the API lists it ('' for none). */
  readonly label: string;
  /** True when the run is stopping (no new write may start). */
  readonly stopping: () => boolean;
  /** The API's time (ms since the epoch) as its latest answer told it, else the local clock's. */
  readonly now: () => number;
  /** The token list read anew (not from the cache), before a send. */
  readonly list: () => Promise<readonly BearerToken[]>;
  /** The token list read anew after a lost answer; a stop does not cancel it. */
  readonly readBack: () => Promise<readonly BearerToken[]>;
  /** Sends the create (refused when the run is stopping). */
  readonly send: () => Promise<BearerTokenCreated>;
  /** Deletes a token a lost create made; a stop does not refuse it (it settles a sent write). */
  readonly discard: (id: number) => Promise<unknown>;
}

/**
 * Creates one token, serialized with the other creates of the same (account, label) by the
 * caller. After a lost answer the account is read back: a new token with this label that no
 * answer named is the lost one (deleted), then the create is sent again, at most
 * {@link MAX_TOKEN_CREATE_SENDS} times in all. More than one such token means another client
 * creates tokens with this label at the same time: none is deleted, and the result names them.
 */
export async function createToken(book: TokenCreateBook, steps: TokenCreateSteps): Promise<TokenWrite> {
  if (steps.stopping()) throw new StoppedError(steps.op);
  if (book.isUnsettled(steps.account, steps.label)) throw new UnsettledTokenCreateError(steps.op, steps.label);
  let known = new Set((await steps.list()).map((t) => t.id));
  // Read after the listing's answer, so on the clock that answer set: no token this create makes
  // can be created before it.
  const sentFrom = steps.now();
  let recovered = false;
  const undecided: number[] = [];
  const discarded: number[] = [];
  for (let sends = 1; ; sends++) {
    try {
      const token = await steps.send();
      book.remember(steps.account, token.id);
      return { token, outcome: recovered ? 'recovered' : 'done', undecided, discarded };
    } catch (err) {
      if (!isUnknownOutcome(err)) throw err;
      let after: readonly BearerToken[];
      try {
        after = await steps.readBack();
      } catch (readErr) {
        book.markUnsettled(steps.account, steps.label);
        // From the first send: a token an earlier lost answer left undecided may be this create's too.
        // The clock follows each answer's Date (whole seconds), so it may step back within one.
        throw new TokenCreateOutcomeUnknownError(steps, { sentFrom, givenUpAt: Math.max(sentFrom, steps.now()) }, err, readErr);
      }
      const strays = after.filter((t) => !known.has(t.id) && t.label === steps.label && !book.wasAnswered(steps.account, t.id));
      if (strays.length === 1) {
        await steps.discard(strays[0]!.id);
        discarded.push(strays[0]!.id);
        recovered = true;
      } else {
        undecided.push(...strays.map((t) => t.id));
      }
      known = new Set(after.map((t) => t.id));
      if (sends >= MAX_TOKEN_CREATE_SENDS) throw err;
    }
  }
}

function capitalize(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** The key of a token id or a label of `account` in one of the book's sets. */
function bookKey(account: string | null, entry: number | string): string {
  // '\0' cannot occur in a username, so keys never collide.
  return `${account ?? ''}\u0000${entry}`;
}
