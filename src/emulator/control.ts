// The control API under /_emulator/ (JSON in and out, `Authorization: Bearer <admin token>`):
// move the clock, record usage, change plans, inject, list and clear faults, reset, dump state.
import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { BanList } from './auth';
import { formatIso, MAX_CLOCK_OFFSET_SECONDS, type Clock } from './clock';
import type { AccountSeed } from './config';
import { FAULT_KEYS, parseFault } from './fault-spec';
import type { FaultList } from './faults';
import { bodyText, HttpError, readBody, type Reply } from './http';
import { isPlanName, PLAN_NAMES, PLANS } from './plans';
import type { Router } from './router';
import { accountDetails } from './routes/subaccounts';
import { snapshot } from './snapshot';
import type { Store } from './store';
import type { ExitPool } from './proxy/exits';

/** What the control API acts on. */
export interface ControlDeps {
  readonly adminToken: string;
  readonly store: Store;
  readonly clock: Clock;
  readonly bans: BanList;
  readonly faults: FaultList;
  /** The API's routes: a fault must name one of them. */
  readonly router: Router;
  /** Reads the accounts file again (or returns the defaults). */
  readonly loadSeeds: () => readonly AccountSeed[];
  /** The exit IPs of the emulated proxies. @default none (no proxies) */
  readonly exits?: ExitPool;
}

type Body = Record<string, unknown>;

/** Most usage one `POST /_emulator/usage` may record: a petabyte, far beyond any plan's limit. */
export const MAX_USAGE_GB = 1_000_000;
type Handler = (body: Body, deps: ControlDeps) => Reply;
type Method = 'GET' | 'POST' | 'DELETE';

/** One control endpoint: its handler and the keys its body may have. */
interface Endpoint {
  readonly handle: Handler;
  /** Any other key is a 400 naming it: a typo must not set nothing without a word. */
  readonly keys: readonly string[];
}

const HANDLERS: Readonly<Record<string, Partial<Record<Method, Endpoint>>>> = {
  '/_emulator/clock': { POST: { handle: advanceClock, keys: ['advanceSeconds'] } },
  '/_emulator/usage': { POST: { handle: recordUsage, keys: ['username', 'gb'] } },
  '/_emulator/plan': { POST: { handle: changePlan, keys: ['username', 'plan'] } },
  '/_emulator/faults': {
    POST: { handle: addFault, keys: FAULT_KEYS },
    GET: { handle: (_b, d) => ({ status: 200, json: { faults: d.faults.snapshot() } }), keys: [] },
    DELETE: {
      handle: (_b, d) => {
        d.faults.clear();
        return { status: 200, json: { faults: [] } };
      },
      keys: [],
    },
  },
  '/_emulator/limits': { POST: { handle: setLimits, keys: ['username', 'monthlyLimit', 'totalLimit'] } },
  '/_emulator/exits/retire': { POST: { handle: retireExit, keys: ['ip'] } },
  '/_emulator/reset': { POST: { handle: reset, keys: [] } },
  '/_emulator/state': {
    GET: { handle: (_b, d) => ({ status: 200, json: snapshot(d.store, d.bans, d.faults, d.clock.now(), d.clock.offsetMs()) }), keys: [] },
  },
};

/** Serves one control request; errors come back as `{"error": "..."}` with their status. */
export async function handleControl(req: IncomingMessage, path: string, deps: ControlDeps): Promise<Reply> {
  try {
    if (!isAdmin(req.headers.authorization, deps.adminToken)) throw new HttpError(401, 'admin token required');
    const entry = Object.hasOwn(HANDLERS, path) ? HANDLERS[path] : undefined;
    if (!entry) throw new HttpError(404, `unknown control endpoint; try ${Object.keys(HANDLERS).join(', ')}`);
    const method = (req.method ?? 'GET') as Method;
    const endpoint = Object.hasOwn(entry, method) ? entry[method] : undefined;
    if (!endpoint) {
      const allow = Object.keys(entry).join(', ');
      throw new HttpError(405, `use ${allow}`, { Allow: allow });
    }
    const body = parseJsonBody(bodyText(await readBody(req), 'body'));
    checkKeys(body, endpoint.keys, `${method} ${path}`);
    return endpoint.handle(body, deps);
  } catch (err) {
    if (err instanceof HttpError) return { status: err.status, json: { error: err.message }, headers: err.headers };
    throw err;
  }
}

function isAdmin(header: string | undefined, adminToken: string): boolean {
  const match = /^Bearer\s+(.+)$/i.exec(header ?? '');
  if (!match) return false;
  const given = Buffer.from(match[1]!.trim());
  const expected = Buffer.from(adminToken);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

function parseJsonBody(text: string): Body {
  if (text.trim() === '') return {};
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    throw new HttpError(400, 'body must be a JSON object');
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) throw new HttpError(400, 'body must be a JSON object');
  return data as Body;
}

function checkKeys(body: Body, keys: readonly string[], where: string): void {
  const unknown = Object.keys(body).find((key) => !keys.includes(key));
  if (unknown === undefined) return;
  const known = keys.length === 0 ? 'it takes none' : `known keys: ${keys.join(', ')}`;
  throw new HttpError(400, `unknown key ${JSON.stringify(unknown)} in ${where}; ${known}`);
}

function num(body: Body, key: string, min: number): number {
  const value = body[key];
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min) {
    throw new HttpError(400, `${key} must be a number >= ${min}`);
  }
  return value;
}

function str(body: Body, key: string): string {
  const value = body[key];
  if (typeof value !== 'string' || value === '') throw new HttpError(400, `${key} must be a non-empty string`);
  return value;
}

function advanceClock(body: Body, deps: ControlDeps): Reply {
  const seconds = num(body, 'advanceSeconds', 0);
  const room = MAX_CLOCK_OFFSET_SECONDS - deps.clock.offsetMs() / 1000;
  if (seconds > room) {
    throw new HttpError(
      400,
      `advanceSeconds must be at most ${Math.floor(room)}: the clock may run at most ${MAX_CLOCK_OFFSET_SECONDS} s (100 years) ahead of real time, and is ${deps.clock.offsetMs() / 1000} s ahead now`,
    );
  }
  deps.clock.advance(seconds);
  deps.store.saveClock();
  return { status: 200, json: { now: formatIso(deps.clock.now()) } };
}

function recordUsage(body: Body, deps: ControlDeps): Reply {
  const username = str(body, 'username');
  const gb = num(body, 'gb', 0);
  if (gb > MAX_USAGE_GB) throw new HttpError(400, `gb must be at most ${MAX_USAGE_GB} (one record)`);
  const bytes = Math.round(gb * 1e9);
  const account = deps.store.accounts.byUsername(username);
  if (!account) throw new HttpError(404, `no account named ${username}`);
  const now = deps.clock.now();
  // Usage is summed in bytes: a total past 2^53 would lose precision in every later answer.
  for (const id of account.parentId === null ? [account.id] : [account.id, account.parentId]) {
    if (deps.store.accounts.usage(id, now).totalBytes + bytes > Number.MAX_SAFE_INTEGER) {
      throw new HttpError(400, `gb ${gb} would take the total usage past ${Math.floor(Number.MAX_SAFE_INTEGER / 1e9)} GB, the most the emulator counts`);
    }
  }
  deps.store.transaction(() => {
    deps.store.accounts.recordUsage(account.id, bytes, now);
    // Sub-account usage counts toward the parent's too (the API contract).
    if (account.parentId !== null) deps.store.accounts.recordUsage(account.parentId, bytes, now);
  });
  return { status: 200, json: accountDetails(deps.store, account, now) };
}

function changePlan(body: Body, deps: ControlDeps): Reply {
  const username = str(body, 'username');
  const plan = body['plan'];
  if (!isPlanName(plan)) throw new HttpError(400, `plan must be one of ${PLAN_NAMES.join(', ')}`);
  const account = deps.store.accounts.byUsername(username);
  if (!account) throw new HttpError(404, `no account named ${username}`);
  if (account.parentId !== null) throw new HttpError(400, `${username} is a sub-account; plans belong to parents`);
  const deactivatedTokens = deps.store.transaction(() => {
    deps.store.accounts.setPlan(account.id, plan);
    return PLANS[plan].tokens === 0 ? deps.store.tokens.deactivateFamily(account.id, deps.clock.now()) : 0;
  });
  return { status: 200, json: { username, plan, deactivatedTokens } };
}

/** Sets the bandwidth limits of any account (a parent's own limits have no API endpoint). */
function setLimits(body: Body, deps: ControlDeps): Reply {
  const username = str(body, 'username');
  const account = deps.store.accounts.byUsername(username);
  if (!account) throw new HttpError(404, `no account named ${username}`);
  const limit = (key: string): number | undefined => {
    if (body[key] === undefined) return undefined;
    const value = body[key];
    if (!Number.isSafeInteger(value) || (value as number) < 0) throw new HttpError(400, `${key} must be an integer >= 0 (GB, 0 = no limit)`);
    return value as number;
  };
  const monthlyLimit = limit('monthlyLimit');
  const totalLimit = limit('totalLimit');
  if (monthlyLimit === undefined && totalLimit === undefined) throw new HttpError(400, 'give monthlyLimit, totalLimit or both');
  deps.store.accounts.update(account.id, { monthlyLimit, totalLimit });
  return { status: 200, json: accountDetails(deps.store, deps.store.accounts.byId(account.id)!, deps.clock.now()) };
}

/** Takes an exit IP out of the proxies' pool, as when a real exit goes away. */
function retireExit(body: Body, deps: ControlDeps): Reply {
  const ip = str(body, 'ip');
  if (!deps.exits?.retire(ip)) throw new HttpError(404, 'not an exit IP of the pool');
  return { status: 200, json: { retired: ip } };
}

function addFault(body: Body, deps: ControlDeps): Reply {
  deps.faults.add(parseFault(body, deps.router.list()));
  return { status: 200, json: { faults: deps.faults.snapshot() } };
}

function reset(_body: Body, deps: ControlDeps): Reply {
  let seeds: readonly AccountSeed[];
  try {
    seeds = deps.loadSeeds();
  } catch (err) {
    throw new HttpError(500, `reset refused: ${(err as Error).message}`);
  }
  deps.store.reset(seeds);
  deps.bans.clear();
  deps.faults.clear();
  deps.exits?.reset();
  return { status: 200, json: { reset: true, now: formatIso(deps.clock.now()) } };
}
