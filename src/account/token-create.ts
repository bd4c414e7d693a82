// Creating a bearer token when answers may be lost. The raw value exists only in the create
// answer, so a token made by a request whose answer was lost can never be used: it is found by
// reading the account back, deleted, and a new one made. Finding it must never pick a token that
// another create made, so creates of one (account, label) run one at a time in this process and,
// through the client's lock on this machine (the store takes it), in this user's other processes
// too; the "before" listing is read fresh right before each send, and a token whose create this
// process was answered is never taken for a lost one. What stays out of reach: a client on another
// machine (or without a memory directory) creating a token of the same label while a request of
// ours that made nothing had its answer lost; the API offers nothing to tell the two apart, and
// the deletion is reported (`TokenWrite.discarded`).
// The create is sent again only once the read-back has shown the lost request was carried out:
// its token found (the one new token of the label no answer named) and deleted. A read-back that
// shows no such token proves nothing: a request that timed out may still wait at a proxy, a load
// balancer or the server and be served seconds later, and a create sent again then makes a second
// token, unseen. Nor is one sent when several such tokens appear (another client creates tokens of
// the label too): which one, if any, is ours cannot be told. In those cases, and when the
// read-back fails, nothing can be settled in this call: the error carries what a later reading
// needs to find the token that request may have made (`TokenCreateOutcomeUnknownError`): the span
// of the API's time in which the create ran, since a token it made was created then, and one
// another client makes later (hours later, at the next plan) was not. No other create of that
// (account, label) is sent by this process afterwards: sent right after, its token's creation time
// would fall in the margin a later reading allows around that span, and could not be told from
// the lost one.
import { ProxyAccountError, type BearerToken, type BearerTokenCreated } from '../sdk';
import { type AccountErrorCode, isUnknownOutcome, StoppedError, UnknownOutcomeError } from './outcome';
import type { TokenWrite } from './types';

/**
 * What reading the account back after a lost create answer showed, when it did not settle the
 * create: it failed (`error`), or it found no token of the label that no answer named, or several
 * (`strays`: their ids).
 */
export type TokenReadBack = { readonly error: unknown } | { readonly strays: readonly number[] };

/**
 * A token create whose answer was lost and whose read-back did not settle it: it failed, or it
 * showed no new token of the label (the request may still be carried out), or several (another
 * client creates tokens of the label too). A token with this label may now exist, or appear,
 * whose value nobody received. Once the account can be read again, a token of `account` with
 * `label` whose creation time (the API's) lies from `sentFrom` to `givenUpAt` is either one this
 * create made or one another client made while it ran; one created outside that span is not this
 * create's, unless the API served the request after `givenUpAt`. Both times are the API's clock as
 * its answers' `Date` headers told it (whole seconds, advanced by the local time elapsed since),
 * so a reader allows a margin.
 */
export class TokenCreateOutcomeUnknownError extends UnknownOutcomeError {
  /** The sub-account, or null for the authenticated account. */
  readonly account: string | null;
  /** The label as the API lists it ('' for none). */
  readonly label: string;
  /** The API's time (ms since the epoch) right before the first send of this create. */
  readonly sentFrom: number;
  /** The API's time (ms since the epoch) when the read-back ended and the outcome was given up. */
  readonly givenUpAt: number;
  /**
   * What the read-back showed: `failed` (`readBackError` says why); `none`, no new token of the
   * label yet; `several`, more than one (`strays`), none of them deleted.
   */
  readonly readBack: 'failed' | 'none' | 'several';
  /** The new tokens of the label that no answer named, found by the read-back (with `several`). */
  readonly strays: readonly number[];

  constructor(
    steps: Pick<TokenCreateSteps, 'op' | 'account' | 'label'>,
    span: { readonly sentFrom: number; readonly givenUpAt: number },
    cause: unknown,
    readBack: TokenReadBack,
  ) {
    const failed = 'error' in readBack;
    super(steps.op, cause, failed ? readBack.error : undefined, `${capitalize(aToken(steps.label))} may now exist whose value nobody received`);
    this.account = steps.account;
    this.label = steps.label;
    this.sentFrom = span.sentFrom;
    this.givenUpAt = span.givenUpAt;
    this.strays = failed ? [] : [...readBack.strays];
    this.readBack = failed ? 'failed' : this.strays.length === 0 ? 'none' : 'several';
    // The base message says the read-back failed: true only then.
    if (!failed) this.message = readBackMessage(steps, cause, this.strays);
  }
}

/** The message of a create whose read-back answered but did not settle it (see the class above). */
function readBackMessage(steps: Pick<TokenCreateSteps, 'op' | 'label'>, cause: unknown, strays: readonly number[]): string {
  const lost = `${steps.op}: the request was sent but its answer was lost (${cause instanceof Error ? cause.message : String(cause)})`;
  if (strays.length === 0) {
    return (
      `${lost}; the account was read back and holds no new token ${ofLabel(steps.label)} yet, but the request may still be carried out ` +
      '(one whose answer never came can wait at a proxy or the server and be served later), so it was not sent again. ' +
      `${capitalize(aToken(steps.label))} may yet appear whose value nobody received`
    );
  }
  return (
    `${lost}; the account was read back and holds tokens ${strays.join(', ')} ${ofLabel(steps.label)} that no answer named: one may be the token ` +
    'this create made, whose value nobody received (or its request may still be carried out), the others were made by another client ' +
    'creating tokens of this label at the same time. ' +
    'Nothing tells which, so none was deleted and the create was not sent again'
  );
}

/**
 * A token create not sent: an earlier create of the same (account, label) in this process ended
 * with its outcome unknown, and a token made now could not be told from the one that create may
 * have made (or may still make) when the account is next read.
 */
export class UnsettledTokenCreateError extends ProxyAccountError<AccountErrorCode> {
  /** The write that was not sent. */
  readonly operation: string;

  constructor(operation: string, label: string) {
    const tokens = label === '' ? 'tokens without a label' : `tokens labelled '${label}'`;
    super(
      'ERR_UNSETTLED_CREATE',
      `${operation} was not sent: an earlier create of ${tokens} in this run had its answer lost, and reading the account back did not settle whether it made a token (it may still make one), so a token made now could not be told apart from that one. Run again later: the account is then read anew`,
    );
    this.operation = operation;
  }
}

/**
 * Sends of one create at most: the first, and a re-send after each of two lost answers whose
 * read-back found the token the lost request made and deleted it (proof that request was carried
 * out). A lost answer the read-back did not settle is never followed by a re-send.
 */
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
 * {@link MAX_TOKEN_CREATE_SENDS} times in all. No such token, or more than one (another client
 * creates tokens with this label at the same time: none is deleted), or a failed read-back leaves
 * the outcome unknown: the (account, label) is marked unsettled and
 * {@link TokenCreateOutcomeUnknownError} thrown, naming them.
 */
export async function createToken(book: TokenCreateBook, steps: TokenCreateSteps): Promise<TokenWrite> {
  if (steps.stopping()) throw new StoppedError(steps.op);
  if (book.isUnsettled(steps.account, steps.label)) throw new UnsettledTokenCreateError(steps.op, steps.label);
  let known = new Set((await steps.list()).map((t) => t.id));
  // Read after the listing's answer, so on the clock that answer set: no token this create makes
  // can be created before it.
  const sentFrom = steps.now();
  let recovered = false;
  const discarded: number[] = [];
  for (let sends = 1; ; sends++) {
    try {
      const token = await steps.send();
      book.remember(steps.account, token.id);
      return { token, outcome: recovered ? 'recovered' : 'done', discarded };
    } catch (err) {
      if (!isUnknownOutcome(err)) throw err;
      // From the first send: should the one token an earlier read-back deleted have been another
      // client's, that earlier request may still be carried out too.
      // The clock follows each answer's Date (whole seconds), so it may step back within one.
      const unsettled = (readBack: TokenReadBack): TokenCreateOutcomeUnknownError => {
        book.markUnsettled(steps.account, steps.label);
        return new TokenCreateOutcomeUnknownError(steps, { sentFrom, givenUpAt: Math.max(sentFrom, steps.now()) }, err, readBack);
      };
      let after: readonly BearerToken[];
      try {
        after = await steps.readBack();
      } catch (readErr) {
        throw unsettled({ error: readErr });
      }
      const strays = after.filter((t) => !known.has(t.id) && t.label === steps.label && !book.wasAnswered(steps.account, t.id));
      // Only the lost request's token, found, proves it was carried out; none may mean not yet.
      if (strays.length !== 1) throw unsettled({ strays: strays.map((t) => t.id) });
      await steps.discard(strays[0]!.id);
      discarded.push(strays[0]!.id);
      recovered = true;
      known = new Set(after.map((t) => t.id));
      if (sends >= MAX_TOKEN_CREATE_SENDS) throw err;
    }
  }
}

/** "labelled 'ci'", or "without a label" for ''. */
function ofLabel(label: string): string {
  return label === '' ? 'without a label' : `labelled '${label}'`;
}

/** "a token labelled 'ci'", or "a token without a label" for ''. */
function aToken(label: string): string {
  return `a token ${ofLabel(label)}`;
}

function capitalize(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** The key of a token id or a label of `account` in one of the book's sets. */
function bookKey(account: string | null, entry: number | string): string {
  // '\0' cannot occur in a username, so keys never collide.
  return `${account ?? ''}\u0000${entry}`;
}
