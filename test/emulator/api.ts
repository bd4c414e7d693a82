// A tiny raw HTTPS client for the emulator's own tests (they must not use src/sdk).
import type { IncomingHttpHeaders } from 'node:http';
import { request } from 'undici';
import type { RunningEmulator } from '../helpers/emulator';

/** How a test request authenticates. */
export type Auth = { basic: readonly [string, string] } | { bearer: string } | { header: string };

/** Options of {@link api}. */
export interface CallOptions {
  auth?: Auth;
  /** Form fields (POST), sent as application/x-www-form-urlencoded. */
  form?: Record<string, string>;
  /** Query parameters. */
  query?: Record<string, string>;
  /** A raw body (with `contentType`), instead of `form`. */
  body?: string;
  contentType?: string;
  headers?: Record<string, string>;
  /** Fail with undici's HeadersTimeoutError after this long. */
  headersTimeout?: number;
}

/** A response, body read as text. */
export interface ApiResponse {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  /** The body parsed as JSON, typed by the caller. */
  json<T>(): T;
}

/** AccountDetails on the wire. */
export interface SubDetails {
  username: string;
  active: boolean;
  monthly_bandwidth: number;
  monthly_bandwidth_limit: number;
  total_bandwidth: number;
  total_bandwidth_limit: number;
  first_name?: string;
  last_name?: string;
  email?: string;
}

/** BearerToken on the wire. */
export interface TokenMeta {
  id: number;
  label: string;
  is_active: boolean;
  expires_at: string | null;
  created_at: string;
}

/** BearerTokenCreated on the wire. */
export interface TokenCreated extends TokenMeta {
  token: string;
}

/** The parts of GET /_emulator/state the tests read. */
export interface EmulatorState {
  now: string;
  clockOffsetSeconds: number;
  accounts: Array<
    SubDetails & {
      plan: string;
      billingPeriodStart: string;
      ips: Array<{ ip: string; label: string }>;
      hostnames: string[];
      proxies: string[];
      tokens: TokenMeta[];
      subAccounts: Array<SubDetails & { ips: Array<{ ip: string; label: string }>; hostnames: string[]; tokens: TokenMeta[] }>;
    }
  >;
  bans: Array<{ address: string; until: string }>;
  faults: Array<{ path: string; remaining: number }>;
}

/** The default parent account. */
export const DEMO = { basic: ['demo', 'demo-password'] } as const satisfies Auth;

/** Basic credentials. */
export function basic(username: string, password: string): Auth {
  return { basic: [username, password] };
}

/** Sends one request to the emulator's HTTPS URL. */
export async function api(em: RunningEmulator, method: string, path: string, opts: CallOptions = {}): Promise<ApiResponse> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.auth && 'basic' in opts.auth) {
    headers['authorization'] = `Basic ${Buffer.from(`${opts.auth.basic[0]}:${opts.auth.basic[1]}`).toString('base64')}`;
  } else if (opts.auth && 'bearer' in opts.auth) {
    headers['authorization'] = `Bearer ${opts.auth.bearer}`;
  } else if (opts.auth) {
    headers['authorization'] = opts.auth.header;
  }
  let body: string | undefined = opts.body;
  if (opts.form) {
    body = new URLSearchParams(opts.form).toString();
    headers['content-type'] = 'application/x-www-form-urlencoded';
  }
  if (opts.contentType) headers['content-type'] = opts.contentType;
  const query = opts.query ? `?${new URLSearchParams(opts.query).toString()}` : '';
  const res = await request(`${em.url}${path}${query}`, {
    method: method as 'GET',
    headers,
    body,
    dispatcher: em.dispatcher,
    headersTimeout: opts.headersTimeout,
  });
  const text = await res.body.text();
  return {
    status: res.statusCode,
    headers: res.headers as IncomingHttpHeaders,
    text,
    json: <T>() => JSON.parse(text) as T,
  };
}

/** GET /_emulator/state. */
export async function emulatorState(em: RunningEmulator): Promise<EmulatorState> {
  const res = await api(em, 'GET', '/_emulator/state', { auth: { bearer: em.adminToken } });
  if (res.status !== 200) throw new Error(`state: ${res.status} ${res.text}`);
  return res.json<EmulatorState>();
}

/** Creates a sub-account of demo with a password and returns Basic credentials for it. */
export async function createSub(em: RunningEmulator, username: string, password = 'sub-password'): Promise<Auth> {
  const res = await api(em, 'POST', '/api/sub/create/', { auth: DEMO, form: { username, password } });
  if (res.status !== 200) throw new Error(`create ${username}: ${res.status} ${res.text}`);
  return basic(username, password);
}

/** Creates a token and returns its raw value and id. */
export async function createToken(
  em: RunningEmulator,
  auth: Auth,
  form: Record<string, string> = {},
): Promise<{ token: string; id: number; body: TokenCreated }> {
  const res = await api(em, 'POST', '/api/token/create/', { auth, form });
  if (res.status !== 200) throw new Error(`create token: ${res.status} ${res.text}`);
  const body = res.json<TokenCreated>();
  return { token: body.token, id: body.id, body };
}
