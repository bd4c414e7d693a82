// The SDK's request log: one DEBUG entry per attempt through the caller's logger (method, path,
// status or failure, duration, attempt), and the transport's notes (a memory file it would not
// trust, say). Never a header, a query or a body, so never a secret; and a logger that throws is
// ignored, since the log must not cost a call its answer.
import type { RequestContext } from './errors';
import type { RequestLogger } from './types';

/** How an attempt ended, as the log shows it: the HTTP status, or the failure's code. */
export type LoggedOutcome = { readonly status: number } | { readonly error: string };

export class RequestLog {
  constructor(
    private readonly logger: RequestLogger | undefined,
    private readonly maxRetries: number,
  ) {}

  /** Whether anything is logged (so that attempts need not be timed otherwise). */
  get enabled(): boolean {
    return this.logger !== undefined;
  }

  /** One attempt of `method path`, `attempt` 1-based, which took `ms`. */
  attempt(ctx: Pick<RequestContext, 'method' | 'path'>, outcome: LoggedOutcome, attempt: number, ms: number): void {
    this.debug('proxyaccount API request', {
      method: ctx.method,
      path: ctx.path,
      ...outcome,
      durationMs: Math.round(ms),
      attempt,
      maxRetries: this.maxRetries,
    });
  }

  /** A note about a call that is not an attempt (`error` names what it is about). */
  note(ctx: Pick<RequestContext, 'method' | 'path'>, message: string, error: string): void {
    this.debug(message, { method: ctx.method, path: ctx.path, error, durationMs: 0, attempt: 0, maxRetries: this.maxRetries });
  }

  private debug(message: string, fields: Parameters<RequestLogger['debug']>[1]): void {
    try {
      const returned: unknown = this.logger?.debug(message, fields);
      // An async logger that rejects must not end the process on an unhandled rejection either.
      if (typeof (returned as PromiseLike<unknown> | undefined)?.then === 'function') (returned as PromiseLike<unknown>).then(undefined, () => {});
    } catch {
      // The log is an aid; the call's result matters more.
    }
  }
}
