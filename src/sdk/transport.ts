// Sends one API operation over undici: builds the request, enforces the per-attempt timeout,
// maps the response to a value or an error (attempt.ts), retries what is safe to retry, and goes
// through the 401 guard and the ban budget (ban-budget.ts) before every attempt. undici is loaded
// on the first request, not at import time: short-lived processes (plugins, CLIs) load the SDK on
// every start and often send nothing.
import { setMaxListeners } from 'node:events';
import type { Dispatcher } from 'undici';
import { answerAttempt, type Attempt, failedAttempt } from './attempt';
import type { Operation } from './operation';
import type { SpareConnections } from './spare-connections';
import { AuthGuard, CredentialsRejectedSignal, CredentialsUnprovenSignal, type AuthOutcome } from './auth-guard';
import { type BaseUrl, formBody, requestUrl } from './base-url';
import { AbortedError, ClientClosedError, CredentialsRejectedError, CredentialsUnprovenError, type ProxyAccountError, type RequestContext } from './errors';
import { statusMayHideTheAnswer } from './error-facts';
import { BanBudget } from './ban-budget';
import type { AuthFailureMemory } from './failure-memory';
import { wireForms } from './redact';
import { RequestLog } from './request-log';
import type { CallOptions, RequestLogger } from './types';
import { ServerClock } from './server-clock';
import { checkCallOptions } from './validation';

/** Settings of a {@link Transport}, already validated by the client. */
export interface TransportConfig {
  readonly base: BaseUrl;
  readonly authorization: string;
  /** Values to mask in any server text: password, token, encoded credentials. */
  readonly secrets: readonly string[];
  readonly timeoutMs: number;
  readonly maxRetries: number;
  readonly retryBaseDelayMs: number;
  readonly retryMaxDelayMs: number;
  readonly userAgent: string;
  readonly random: () => number;
  readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  /**
   * A caller-owned dispatcher, or a factory for the client's own agent, with the spare connections
   * it connects through (opened while callers wait for the credential probe).
   */
  readonly dispatcher: Dispatcher | ((undici: typeof import('undici')) => { agent: Dispatcher; spares?: SpareConnections });
  /** Whether certificate checks are off already (then suggesting `insecure` would be wrong). */
  readonly insecure: boolean;
  /** The cross-process memory of rejected credentials; undefined = none. */
  readonly authFailures: AuthFailureMemory | undefined;
  /** Request log sink; undefined = nothing measured or formatted. */
  readonly logger: RequestLogger | undefined;
}

let undiciModule: typeof import('undici') | undefined;
function loadUndici(): typeof import('undici') {
  undiciModule ??= require('undici') as typeof import('undici');
  return undiciModule;
}

/** Executes operations for one client. */
export class Transport {
  private readonly guard = new AuthGuard();
  private dispatcher: Dispatcher | undefined;
  private ownDispatcher = false;
  /** The own agent's spare connections (none with a caller's dispatcher). */
  private spares: SpareConnections | undefined;
  private closed = false;
  private closing: Promise<void> | undefined;
  /** Aborted by close(): ends the waits of every call (the probe, the machine's lock, a backoff). */
  readonly #closer = new AbortController();
  /** The API's clock, from the `Date` header of its answers. */
  readonly serverClock = new ServerClock();

  // True private fields, so inspecting a client never shows the Authorization header.
  readonly #cfg: TransportConfig;
  /** The configured secrets in every form they may take on the wire. */
  readonly #secrets: readonly string[];
  /** Bans and failed authentications: what this client knows and what the memory remembers. */
  readonly #bans: BanBudget;
  readonly #log: RequestLog;

  constructor(cfg: TransportConfig) {
    this.#cfg = cfg;
    this.#secrets = cfg.secrets.flatMap(wireForms);
    this.#log = new RequestLog(cfg.logger, cfg.maxRetries);
    this.#bans = new BanBudget(cfg.base.origin, cfg.authorization, cfg.authFailures, (ctx, message) => this.#log.note(ctx, message, 'ERR_UNTRUSTED_FILE'));
    // Callers waiting for the probe go out together once it is answered, each on a spare opened
    // meanwhile (the probe opens its own; if it is free again in time, one spare is left over and
    // closes unused).
    this.guard.onWait = (waiting) => this.spareConnections()?.fill(cfg.base.origin, waiting);
    // Every call waiting on the client listens to it: many parallel calls are not a leak.
    setMaxListeners(0, this.#closer.signal);
  }

  /** What the 401 guard knows about the credentials. */
  get credentialState(): AuthGuard['credentialState'] {
    return this.guard.credentialState;
  }

  /** Runs `op`, retrying as its `repeatable` flag and the failure allow. */
  async call<T>(op: Operation<T>, opts: CallOptions = {}): Promise<T> {
    const ctx: RequestContext = { method: op.method, path: op.path, operation: op.operation };
    const { signal } = checkCallOptions(opts);
    // The waits end when the caller stops or the client closes; the request itself, only when the caller stops.
    const waits = this.waitSignal(signal);
    try {
      return await this.run(op, ctx, signal, waits.signal);
    } finally {
      waits.done();
    }
  }

  /**
   * A signal for the waits of one call: it fires when the caller's `signal` does or the client
   * closes. `done` unhooks it from both.
   */
  private waitSignal(signal: AbortSignal | undefined): { signal: AbortSignal; done: () => void } {
    const closer = this.#closer.signal;
    if (signal === undefined) return { signal: closer, done: () => {} };
    const both = new AbortController();
    const onCaller = (): void => both.abort(signal.reason);
    const onClose = (): void => both.abort(closer.reason);
    if (signal.aborted) onCaller();
    else signal.addEventListener('abort', onCaller, { once: true });
    if (closer.aborted) onClose();
    else closer.addEventListener('abort', onClose, { once: true });
    return {
      signal: both.signal,
      done: () => {
        signal.removeEventListener('abort', onCaller);
        closer.removeEventListener('abort', onClose);
      },
    };
  }

  /** A wait of a call ended by `reason`: the client closed, or the caller stopped. */
  private stopped(ctx: RequestContext, reason: unknown, sent: boolean): ProxyAccountError {
    return this.closed ? new ClientClosedError(ctx, sent) : new AbortedError(ctx, reason, sent);
  }

  private async run<T>(op: Operation<T>, ctx: RequestContext, signal: AbortSignal | undefined, waitSignal: AbortSignal): Promise<T> {
    const secrets = op.secrets === undefined ? this.#secrets : [...this.#secrets, ...op.secrets.flatMap(wireForms)];
    // Whether an earlier attempt may have reached the server: then the call's outcome is open
    // whatever later attempts say.
    let sent = false;
    for (let attempt = 1; ; attempt++) {
      if (this.closed) throw new ClientClosedError(ctx, sent);
      if (signal?.aborted) throw new AbortedError(ctx, signal.reason, sent);
      // A refusal of a retry keeps the fact that an earlier attempt may have reached the server.
      this.#bans.refuseIfBanned(ctx, sent);
      this.#bans.refuseIfRemembered(ctx, sent);
      let release: (outcome: AuthOutcome) => void;
      try {
        release = await this.guard.acquire(waitSignal);
      } catch (e) {
        if (e instanceof CredentialsRejectedSignal) throw new CredentialsRejectedError(ctx, sent);
        if (e instanceof CredentialsUnprovenSignal) throw new CredentialsUnprovenError(ctx, sent);
        throw this.stopped(ctx, e, sent);
      }
      // Decided after acquiring: a probe that was out meanwhile has settled the question.
      if (op.onlyToProveCredentials === true && this.guard.credentialState === 'accepted') {
        release('unknown');
        return undefined as T;
      }
      let result: Attempt<T> | undefined;
      const started = this.#log.enabled ? performance.now() : 0;
      // The probe: a lost answer may have been a 401 (see auth-guard.ts), so only so many may be lost.
      const probing = this.guard.credentialState === 'unverified';
      let unanswered = false;
      // Held from before the probe is sent until its outcome is in the memory (ban-budget.ts).
      let unlock: (() => Promise<void>) | undefined;
      try {
        if (this.closed) throw new ClientClosedError(ctx, sent);
        // Callers that waited for the probe must not go out after the probe was told of a ban.
        this.#bans.refuseIfBanned(ctx, sent);
        if (probing) {
          try {
            unlock = await this.#bans.beforeProbe(ctx, sent, waitSignal);
          } catch (e) {
            // A close() while this call waited for another process's probe: nothing is sent.
            throw e instanceof AbortedError && this.closed ? new ClientClosedError(ctx, sent) : e;
          }
        }
        // A stop or a close() while the lock was taken or the memory read (a hash may take tens of
        // ms) sends nothing.
        if (this.closed) throw new ClientClosedError(ctx, sent);
        if (signal?.aborted) throw new AbortedError(ctx, signal.reason, sent);
        result = await this.attempt(op, ctx, secrets, signal);
        // A gateway's 502 or 504 may hide the API's 401 as a dropped connection does.
        unanswered = probing && !result.ok && result.sent && (result.status === undefined || statusMayHideTheAnswer(result.status));
      } catch (e) {
        await unlock?.();
        throw e;
      } finally {
        release(unanswered ? 'unanswered' : (result?.auth ?? 'unknown'));
        // Nobody may use a connection opened for callers that will now fail unsent.
        if (this.guard.credentialState === 'rejected' || this.guard.credentialState === 'unanswered') this.spares?.discard();
      }
      if (this.#log.enabled) {
        const outcome = result.status !== undefined ? { status: result.status } : { error: result.ok ? 'unknown' : (result.failure ?? 'unknown') };
        this.#log.attempt(ctx, outcome, attempt, performance.now() - started);
      }
      try {
        // An unanswered probe is remembered under the probe lock, as a 401 is.
        await this.#bans.learn(result.ok ? { auth: result.auth } : unanswered ? { ...result, auth: 'unanswered' } : result, waitSignal);
      } finally {
        await unlock?.();
      }
      if (result.ok) return result.value;
      if (!result.retryable || this.guard.credentialState === 'unanswered' || attempt > this.#cfg.maxRetries) {
        throw result.error(attempt, sent, result.auth === 'rejected' ? this.#bans.warning() : undefined);
      }
      sent ||= result.sent;
      try {
        await this.#cfg.sleep(this.backoff(attempt, result.retryAfterMs), waitSignal);
      } catch (e) {
        throw this.stopped(ctx, e, sent);
      }
    }
  }

  /**
   * Opens a connection for the first request ahead of it (the own agent only). Nothing is sent on
   * it, so it never counts as a failed authentication; after a 401 there is nothing to open it for.
   */
  preconnect(): void {
    if (this.guard.credentialState === 'rejected' || this.guard.credentialState === 'unanswered') return;
    this.spareConnections()?.preconnect(this.#cfg.base.origin);
  }

  /** Closes the client's own agent (never a caller's dispatcher); later calls fail. */
  close(): Promise<void> {
    this.closed = true;
    // Calls waiting for the probe, the machine's lock or a backoff fail now, unsent.
    this.#closer.abort(new Error('client closed'));
    this.spares?.close();
    // Idempotent: closing an undici Agent twice throws, and a client may be closed by several owners.
    this.closing ??= this.ownDispatcher && this.dispatcher !== undefined ? this.dispatcher.close() : Promise.resolve();
    return this.closing;
  }

  /** Wait before retry number `retry` (1-based): full jitter, or `Retry-After`, both capped. */
  private backoff(retry: number, retryAfterMs: number | undefined): number {
    const cap = this.#cfg.retryMaxDelayMs;
    if (retryAfterMs !== undefined) return Math.min(retryAfterMs, cap);
    const ceiling = Math.min(cap, this.#cfg.retryBaseDelayMs * 2 ** (retry - 1));
    return Math.floor(this.#cfg.random() * ceiling);
  }

  private getDispatcher(): Dispatcher {
    if (this.dispatcher === undefined) {
      // An agent made after close() would be one nobody closes.
      if (this.closed) throw new Error('the client is closed');
      const d = this.#cfg.dispatcher;
      if (typeof d === 'function') {
        const own = d(loadUndici());
        this.dispatcher = own.agent;
        this.spares = own.spares;
        // Until an answer proves the credentials, the one request out is the probe.
        if (this.spares !== undefined) this.spares.mayHandOut = () => this.guard.credentialState === 'accepted';
        this.ownDispatcher = true;
      } else {
        this.dispatcher = d;
      }
    }
    return this.dispatcher;
  }

  /** The own agent's spare connections (making the agent if need be); none with a caller's dispatcher. */
  private spareConnections(): SpareConnections | undefined {
    if (this.closed) return undefined;
    this.getDispatcher();
    return this.spares;
  }

  private async attempt<T>(op: Operation<T>, ctx: RequestContext, secrets: readonly string[], signal?: AbortSignal): Promise<Attempt<T>> {
    const url = requestUrl(this.#cfg.base, op.path, op.query);
    const body = op.method === 'POST' ? formBody(op.form) : undefined;
    const headers: Record<string, string> = {
      authorization: this.#cfg.authorization,
      'user-agent': this.#cfg.userAgent,
      accept: 'application/json',
    };
    if (body !== undefined) headers['content-type'] = 'application/x-www-form-urlencoded';

    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort(new Error('attempt timed out'));
    }, this.#cfg.timeoutMs);
    const onCallerAbort = (): void => controller.abort(signal?.reason);
    // A listener added to a signal that has fired is never called: such a request starts aborted.
    if (signal?.aborted) onCallerAbort();
    else signal?.addEventListener('abort', onCallerAbort, { once: true });
    try {
      const res = await loadUndici().request(url, {
        method: op.method,
        headers,
        body,
        dispatcher: this.getDispatcher(),
        signal: controller.signal,
        headersTimeout: this.#cfg.timeoutMs,
        bodyTimeout: this.#cfg.timeoutMs,
      });
      this.serverClock.observe(res.headers.date);
      return await answerAttempt(op, ctx, res, secrets, this.#cfg.base);
    } catch (e) {
      if (signal?.aborted === true) {
        // Aborted in flight: the request may have gone out.
        return { ok: false, error: () => new AbortedError(ctx, signal.reason, true), sent: true, retryable: false, auth: 'unknown', failure: 'ERR_ABORTED' };
      }
      if (this.closed) {
        // Closed while this request was in flight: it may have gone out.
        return { ok: false, error: () => new ClientClosedError(ctx, true), sent: true, retryable: false, auth: 'unknown', failure: 'ERR_CLIENT_CLOSED' };
      }
      return failedAttempt(op, ctx, e, timedOut, secrets, this.#cfg);
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onCallerAbort);
    }
  }
}
