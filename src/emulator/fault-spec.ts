// Reads a fault definition given to `POST /_emulator/faults`. Strict on purpose: a chaos test
// whose fault is silently ignored (a typo in a key, a string where a boolean belongs, a path no
// request takes, a fault that does nothing) would pass without testing anything, so every key and
// value is checked and problems name the key.
import { faultPathMatches, type Fault } from './faults';
import { HttpError } from './http';

/** Longest delay a fault may ask for; beyond it a chaos test has a bug, and timers would overflow. */
export const MAX_FAULT_DELAY_MS = 10 * 60 * 1000;
/** Largest `count` of one fault. */
export const MAX_FAULT_COUNT = 1_000_000;
/** Largest `retryAfterSeconds` (one day). */
export const MAX_RETRY_AFTER_SECONDS = 86_400;

/** The keys a fault definition may have. */
export const FAULT_KEYS = [
  'path',
  'method',
  'count',
  'status',
  'retryAfterSeconds',
  'delayMs',
  'reset',
  'delayAfterMs',
  'dropResponse',
  'statusAfterServing',
  'pass',
] as const;

/** What a fault may name: the API's routes. */
export type RouteList = ReadonlyArray<{ readonly method: string; readonly path: string }>;

type Body = Record<string, unknown>;

function bad(message: string): HttpError {
  return new HttpError(400, message);
}

function integer(body: Body, key: string, min: number, max: number): number | undefined {
  const value = body[key];
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw bad(`${key} must be an integer from ${min} to ${max}`);
  }
  return value;
}

function flag(body: Body, key: string): boolean | undefined {
  const value = body[key];
  if (value === undefined) return undefined;
  if (typeof value !== 'boolean') throw bad(`${key} must be true or false`);
  return value;
}

/**
 * Validates a fault definition and returns the fault to add. Throws 400 naming the problem.
 * @param routes the API's routes: a fault must match at least one of them
 */
export function parseFault(body: Body, routes: RouteList): Fault {
  for (const key of Object.keys(body)) {
    if (!(FAULT_KEYS as readonly string[]).includes(key)) {
      throw bad(`unknown key ${JSON.stringify(key)} in fault; known keys: ${FAULT_KEYS.join(', ')}`);
    }
  }
  const path = body['path'];
  if (typeof path !== 'string' || !path.startsWith('/')) throw bad('path must be a string starting with /');
  const method = parseMethod(body['method'], routes);
  checkTarget(path, method, routes);
  const fault: Fault = {
    path,
    method,
    // 1xx is no final answer: the client would wait for one, or fail on a broken exchange.
    status: integer(body, 'status', 200, 599),
    retryAfterSeconds: integer(body, 'retryAfterSeconds', 0, MAX_RETRY_AFTER_SECONDS),
    delayMs: integer(body, 'delayMs', 0, MAX_FAULT_DELAY_MS),
    reset: flag(body, 'reset'),
    delayAfterMs: integer(body, 'delayAfterMs', 0, MAX_FAULT_DELAY_MS),
    dropResponse: flag(body, 'dropResponse'),
    statusAfterServing: integer(body, 'statusAfterServing', 400, 599),
    pass: flag(body, 'pass'),
    remaining: integer(body, 'count', 1, MAX_FAULT_COUNT) ?? 1,
  };
  checkEffect(fault);
  return fault;
}

/** The method in upper case; one the API's routes do not have could only ever meet a 405. */
function parseMethod(value: unknown, routes: RouteList): string | undefined {
  if (value === undefined) return undefined;
  const methods = [...new Set(routes.map((route) => route.method))].sort();
  const method = typeof value === 'string' ? value.toUpperCase() : undefined;
  if (method === undefined || !methods.includes(method)) {
    throw bad(`method must be ${methods.join(' or ')}, the API's methods (leave it out for any)`);
  }
  return method;
}

/** Refuses a path (and method) that no API request can match: such a fault would never fire. */
function checkTarget(path: string, method: string | undefined, routes: RouteList): void {
  if (path.startsWith('/_emulator')) {
    throw bad(`path ${path} is the control API's; faults apply to API requests only (paths under /api/)`);
  }
  const onPath = routes.filter((route) => faultPathMatches(path, route.path));
  if (onPath.length === 0) {
    const slashed = routes.some((route) => route.path === `${path}/`);
    throw bad(`path ${path} matches no API route${slashed ? ` (did you mean ${path}/?)` : ''}`);
  }
  if (method !== undefined && !onPath.some((route) => route.method === method)) {
    const methods = [...new Set(onPath.map((route) => route.method))].join(' and ');
    throw bad(`method ${method} matches no API route of path ${path} (${path.endsWith('*') ? 'they take' : 'it takes'} ${methods})`);
  }
}

/** Refuses a fault that would do nothing by mistake, and kinds that cannot go together. */
function checkEffect(fault: Fault): void {
  const replaces = fault.status !== undefined || fault.reset === true;
  const after = fault.delayAfterMs !== undefined || fault.dropResponse === true || fault.statusAfterServing !== undefined;
  if (fault.pass === true) {
    if (replaces || after || fault.delayMs !== undefined || fault.retryAfterSeconds !== undefined) {
      throw bad('"pass": true lets requests through untouched: give it with path, method and count only');
    }
    return;
  }
  if (!replaces && !after && fault.delayMs === undefined) {
    throw bad('give status, delayMs, "reset": true, delayAfterMs, "dropResponse": true, statusAfterServing or "pass": true');
  }
  // A fault that changes nothing still takes its turn, and holds back the faults after it.
  const acts = replaces || fault.dropResponse === true || fault.statusAfterServing !== undefined;
  if (!acts && (fault.delayMs ?? 0) === 0 && (fault.delayAfterMs ?? 0) === 0) {
    throw bad(
      'a delay of 0 ms alone does nothing, yet would use up a matching request; give a delay above 0, or "pass": true to let requests through on purpose',
    );
  }
  if (replaces && after) {
    throw bad('status and reset answer instead of serving the request; delayAfterMs, dropResponse and statusAfterServing act after serving it: give one kind');
  }
  if (fault.statusAfterServing !== undefined && fault.dropResponse === true) {
    throw bad('statusAfterServing answers, dropResponse answers nothing: give one');
  }
  if (fault.status !== undefined && fault.reset === true) {
    throw bad('status answers, "reset": true closes the connection without an answer: give one');
  }
  if (fault.retryAfterSeconds !== undefined && fault.status === undefined) {
    throw bad('retryAfterSeconds needs a status (e.g. 503) to send it with');
  }
}
