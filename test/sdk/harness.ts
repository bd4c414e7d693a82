// A scripted API for the SDK's unit tests: undici's MockAgent (nock cannot see undici's own
// requests, see nock-undici.test.ts) with call history, plus an injected sleep and random so
// retry tests never wait.
import { MockAgent } from 'undici';
import { ProxyAccountClient, type ProxyAccountClientOptions } from '../../src/sdk';

export const BASE = 'https://api.example.test';
export const USER = 'acme';
export const PASSWORD = 'parent-Secret-42';
export const TOKEN = 'pxa_T0kenValue1234567890abcdef';

/** One request as the mock server saw it. */
export interface SeenRequest {
  readonly method: string;
  readonly path: string;
  readonly query: Record<string, string>;
  readonly body: string | undefined;
  readonly form: Record<string, string>;
  readonly formKeys: string[];
  readonly headers: Record<string, string>;
}

/** A scripted reply: a status with a body (objects are sent as JSON) or a connection error. */
export type Reply = { status: number; body?: unknown; headers?: Record<string, string>; delayMs?: number; until?: Promise<void> } | { error: Error };

export interface Harness {
  readonly client: ProxyAccountClient;
  readonly agent: MockAgent;
  /** Waits requested by the client between attempts, in order. */
  readonly sleeps: number[];
  /** Queues replies, consumed by the next requests in order. */
  reply(...replies: Reply[]): void;
  /** Every request that reached the mock, in order. */
  seen(): SeenRequest[];
  /** Closes client and agent; fails when a queued reply was never used. */
  done(): Promise<void>;
}

export function ok(body?: unknown): Reply {
  return { status: 200, body };
}

export function status(code: number, body?: unknown, headers?: Record<string, string>): Reply {
  return { status: code, body, headers };
}

export function netError(code: string, message = `connect ${code}`): Reply {
  return { error: Object.assign(new Error(message), { code }) };
}

export function harness(options: Partial<ProxyAccountClientOptions> = {}): Harness {
  const agent = new MockAgent({ enableCallHistory: true });
  agent.disableNetConnect();
  const sleeps: number[] = [];
  const client = new ProxyAccountClient({
    baseUrl: BASE,
    auth: { username: USER, password: PASSWORD },
    dispatcher: agent,
    // Unit tests must never read or write the user's real memory of rejected credentials.
    authFailureCache: false,
    random: () => 0.5,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    ...options,
  });
  const origin = new URL(options.baseUrl ?? BASE).origin;
  const pool = agent.get(origin);
  return {
    client,
    agent,
    sleeps,
    reply(...replies) {
      for (const r of replies) {
        const scope = pool.intercept({ path: () => true, method: () => true });
        if ('error' in r) {
          scope.replyWithError(r.error);
        } else {
          const data = r.body === undefined ? '' : typeof r.body === 'string' ? r.body : JSON.stringify(r.body);
          const headers: Record<string, string> = { ...(r.headers ?? {}) };
          if (typeof r.body === 'object' && r.body !== null && headers['content-type'] === undefined) {
            headers['content-type'] = 'application/json';
          }
          const until = r.until;
          // A function body lets a test hold the answer back until it says so.
          const replied = until === undefined ? scope.reply(r.status, data, { headers }) : scope.reply(r.status, () => until.then(() => data), { headers });
          if (r.delayMs !== undefined) replied.delay(r.delayMs);
        }
      }
    },
    seen() {
      const history = agent.getCallHistory();
      return (history?.calls() ?? []).map((c) => {
        const body = typeof c.body === 'string' ? c.body : undefined;
        const params = new URLSearchParams(body ?? '');
        const headers: Record<string, string> = {};
        for (const [k, v] of Object.entries((c.headers ?? {}) as Record<string, unknown>)) {
          headers[k.toLowerCase()] = String(v);
        }
        return {
          method: c.method,
          path: c.path,
          query: c.searchParams,
          body,
          form: Object.fromEntries(params),
          formKeys: [...params.keys()],
          headers,
        };
      });
    },
    async done() {
      await client.close();
      const pending = agent.pendingInterceptors();
      await agent.close();
      if (pending.length > 0) throw new Error(`${pending.length} scripted replies were never used`);
    },
  };
}

/** The expected Basic header for USER/PASSWORD. */
export const BASIC = `Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString('base64')}`;

/** Runs `fn` and returns what it threw (fails the test when it did not throw). */
export async function caught(fn: () => Promise<unknown>): Promise<Error & Record<string, unknown>> {
  try {
    await fn();
  } catch (e) {
    return e as Error & Record<string, unknown>;
  }
  throw new Error('expected the call to throw');
}

/** A promise with its resolve function, to release held answers or waits. */
export function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

/** Lets pending promise callbacks and I/O callbacks run. */
export async function settle(rounds = 5): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise((r) => setImmediate(r));
}
