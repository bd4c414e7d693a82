// What one client knows about the API's ban on its address: a ban an answer announced, and the
// failed authentications this machine remembers for the API's origin (failure-memory.ts). The
// transport asks it before every attempt and tells it the outcome of each; it never sends anything.
import { AbortedError, ClientBannedError, CredentialsRememberedRejectedError, type RequestContext } from './errors';
import { AUTH_FAILURE_BUDGET, BAN_AFTER_FAILURES, type AuthFailureMemory, type MemoryCheck } from './failure-memory';
import type { AuthOutcome } from './auth-guard';

/** What one attempt taught about bans and credentials. */
export interface AttemptLesson {
  readonly auth: AuthOutcome;
  /** The answer said the client address is banned. */
  readonly banned?: boolean;
  /** `Retry-After` of that answer, in milliseconds. */
  readonly retryAfterMs?: number;
}

/** Bans and failed authentications for one client (one origin, one Authorization value). */
export class BanBudget {
  /** A ban an answer announced; its end is known when the server sent `Retry-After`. */
  private ban: { readonly untilMs: number | undefined } | undefined;
  /** What the memory said when the last probe read it (under the probe lock); undefined before. */
  private remembered: MemoryCheck | undefined;
  /** 401s the address is known to have had: this client's, plus the memory's. */
  private knownFailures = 0;
  /** Unanswered probes the memory holds for the origin, as the last probe read or wrote it. */
  private possibleFailures = 0;
  /** Why the last 401 could not be remembered, when it could not. */
  private notRemembered: string | undefined;
  private forgetDone = false;
  // True private fields, so inspecting a client never shows the Authorization header.
  readonly #origin: string;
  readonly #authorization: string;
  readonly #memory: AuthFailureMemory | undefined;
  readonly #note: (ctx: RequestContext, message: string) => void;

  /** `note` receives DEBUG-level notes (an untrusted memory file). */
  constructor(origin: string, authorization: string, memory: AuthFailureMemory | undefined, note: (ctx: RequestContext, message: string) => void) {
    this.#origin = origin;
    this.#authorization = authorization;
    this.#memory = memory;
    this.#note = note;
  }

  /**
   * Throws without sending when an earlier answer said this client's address is banned. `sent`:
   * an earlier attempt of the same call may have reached the server (the refusal says so).
   */
  refuseIfBanned(ctx: RequestContext, sent = false): void {
    if (this.ban === undefined) return;
    const { untilMs } = this.ban;
    // A ban of known length is over when the server said; one of unknown length lasts for the client.
    if (untilMs !== undefined && untilMs <= Date.now()) {
      this.ban = undefined;
      return;
    }
    throw new ClientBannedError(ctx, untilMs === undefined ? undefined : Math.ceil((untilMs - Date.now()) / 1000), sent);
  }

  /**
   * Throws without sending when the cross-process memory, as the last probe read it, holds a 401
   * for these credentials, or as many 401s and unanswered probes of this origin as the budget
   * allows, whatever the credentials. Reads nothing: every request before the credentials are
   * proven is a probe, and beforeProbe reads the memory. `sent` as for refuseIfBanned.
   */
  refuseIfRemembered(ctx: RequestContext, sent = false): void {
    const memory = this.#memory;
    if (memory !== undefined && this.remembered !== undefined) this.refuseFor(ctx, this.remembered, memory.file, sent);
  }

  /**
   * Before a request whose credentials are not yet proven: takes this machine's probe lock for
   * the origin (another process may be probing it with the same wrong password) and reads the
   * memory under it, refusing as refuseIfRemembered does. Resolves with the release, to call once
   * the attempt's outcome is learnt; undefined without a memory, or when no lock can be made (the
   * memory is read all the same).
   */
  async beforeProbe(ctx: RequestContext, sent: boolean, signal?: AbortSignal): Promise<(() => Promise<void>) | undefined> {
    const memory = this.#memory;
    if (memory === undefined) return undefined;
    // What an earlier probe of this client read already refuses: no lock, no read (a caller that
    // waited for that probe).
    this.refuseIfRemembered(ctx, sent);
    let unlock: (() => Promise<void>) | undefined;
    try {
      unlock = await memory.lockProbe(this.#origin, signal);
    } catch (e) {
      throw new AbortedError(ctx, e, sent);
    }
    try {
      const check = await memory.check(this.#origin, this.credentialKey());
      if (this.remembered === undefined && check.untrusted !== undefined)
        this.#note(ctx, `proxyaccount: failed-authentication memory not used: ${check.untrusted}`);
      this.remembered = check;
      this.knownFailures = Math.max(this.knownFailures, check.origin.count);
      this.possibleFailures = check.origin.unanswered;
      this.refuseFor(ctx, check, memory.file, sent);
    } catch (e) {
      await unlock?.();
      throw e;
    }
    return unlock;
  }

  private refuseFor(ctx: RequestContext, check: MemoryCheck, file: string, sent: boolean): void {
    if (check.credential !== undefined) throw new CredentialsRememberedRejectedError(ctx, check.credential.until, file, undefined, sent);
    if (check.origin.budgetBackAt !== undefined) {
      const budget = { origin: this.#origin, failures: check.origin.count, unanswered: check.origin.unanswered, banAfter: BAN_AFTER_FAILURES };
      throw new CredentialsRememberedRejectedError(ctx, check.origin.budgetBackAt, file, budget, sent);
    }
  }

  /** What a 401 risks: how many more failures would ban the address, and what is sent no more. */
  warning(): string {
    // An unanswered probe may have been counted: the margin left assumes it was.
    const left = Math.max(0, BAN_AFTER_FAILURES - this.knownFailures - this.possibleFailures);
    const memory = this.#memory;
    if (memory !== undefined && this.notRemembered !== undefined) {
      // Said plainly: a message that claimed the memory protects the next run would be false.
      return `the API bans the client address for 3 hours after ${BAN_AFTER_FAILURES} failed authentications: this failure could not be remembered (${this.notRemembered}), so the next run will send these credentials again; ${left} more failures would ban the address`;
    }
    const unseen = this.possibleFailures === 0 ? '' : ` (and ${this.possibleFailures} requests that got no answer, which the API may have counted)`;
    const known = memory === undefined ? 'this client has had 1' : `${this.knownFailures} from this machine are remembered${unseen}`;
    const after =
      memory === undefined
        ? ''
        : `; these credentials are not sent again, and nothing is sent to ${this.#origin} once ${AUTH_FAILURE_BUDGET} failures and unanswered requests, together, are remembered (in ${memory.file})`;
    return `the API bans the client address for 3 hours after ${BAN_AFTER_FAILURES} failed authentications: ${known}, so ${left} more would ban it${after}`;
  }

  /**
   * Updates what the client knows from one attempt: a ban, a 401 or an unanswered probe to
   * remember, a success to forget. A stop (`signal`) ends the wait for the memory's lock: the
   * change is then made without it, never dropped.
   */
  async learn(lesson: AttemptLesson, signal?: AbortSignal): Promise<void> {
    if (lesson.banned === true) {
      this.ban = { untilMs: lesson.retryAfterMs === undefined ? undefined : Date.now() + lesson.retryAfterMs };
    }
    const memory = this.#memory;
    if (memory === undefined) {
      if (lesson.auth === 'rejected') this.knownFailures += 1;
      return;
    }
    if (lesson.auth === 'rejected') {
      const r = await memory.remember(this.#origin, this.credentialKey(), signal);
      this.notRemembered = r.notRemembered;
      this.knownFailures = r.notRemembered === undefined ? r.originCount : this.knownFailures + 1;
    } else if (lesson.auth === 'unanswered') {
      // Not a rejection of these credentials: a possible failure of the origin (failure-memory.ts).
      const r = await memory.rememberUnanswered(this.#origin, this.credentialKey(), signal);
      if (r.notRemembered === undefined) this.possibleFailures = r.unanswered;
    } else if (lesson.auth === 'accepted' && !this.forgetDone) {
      this.forgetDone = true;
      await memory.forget(this.credentialKey(), signal);
    }
  }

  /** What the memory keys a credential by: the API's origin and the exact Authorization value. */
  private credentialKey(): string {
    return `${this.#origin}\n${this.#authorization}`;
  }
}
