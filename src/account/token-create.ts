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
import type { BearerToken, BearerTokenCreated } from '../sdk';
import { isUnknownOutcome, StoppedError, UnknownOutcomeError } from './outcome';
import type { TokenWrite } from './types';

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
 * What the store's token creates share: the process-wide queues, and the ids of tokens whose
 * create answers this store received. The store and its clean-up copy share one book.
 */
export class TokenCreateBook {
  private readonly answered = new Set<string>();

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
  let known = new Set((await steps.list()).map((t) => t.id));
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
        throw new UnknownOutcomeError(steps.op, err, readErr);
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

function bookKey(account: string | null, id: number): string {
  // '\0' cannot occur in a username, so keys never collide.
  return `${account ?? ''}\u0000${id}`;
}
