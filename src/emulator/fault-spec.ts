// Reads a fault definition given to `POST /_emulator/faults`. Strict on purpose: a chaos test
// whose fault is silently ignored (a typo in a key, a string where a boolean belongs) would pass
// without testing anything, so every key and value is checked and problems name the key.
import type { Fault } from './faults';
import { HttpError } from './http';

/** Longest delay a fault may ask for; beyond it a chaos test has a bug, and timers would overflow. */
export const MAX_FAULT_DELAY_MS = 10 * 60 * 1000;
/** Largest `count` of one fault. */
export const MAX_FAULT_COUNT = 1_000_000;
/** Largest `retryAfterSeconds` (one day). */
export const MAX_RETRY_AFTER_SECONDS = 86_400;

const KNOWN_KEYS = [
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
] as const;

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

/** Validates a fault definition and returns the fault to add. Throws 400 naming the problem. */
export function parseFault(body: Body): Fault {
  for (const key of Object.keys(body)) {
    if (!(KNOWN_KEYS as readonly string[]).includes(key)) {
      throw bad(`unknown key "${key}" in fault; known keys: ${KNOWN_KEYS.join(', ')}`);
    }
  }
  const path = body['path'];
  if (typeof path !== 'string' || !path.startsWith('/')) throw bad('path must be a string starting with /');
  const rawMethod = body['method'];
  if (rawMethod !== undefined && (typeof rawMethod !== 'string' || !/^[A-Za-z]{1,16}$/.test(rawMethod))) {
    throw bad('method must be an HTTP method such as POST');
  }
  const fault: Fault = {
    path,
    method: rawMethod === undefined ? undefined : rawMethod.toUpperCase(),
    status: integer(body, 'status', 100, 599),
    retryAfterSeconds: integer(body, 'retryAfterSeconds', 0, MAX_RETRY_AFTER_SECONDS),
    delayMs: integer(body, 'delayMs', 0, MAX_FAULT_DELAY_MS),
    reset: flag(body, 'reset'),
    delayAfterMs: integer(body, 'delayAfterMs', 0, MAX_FAULT_DELAY_MS),
    dropResponse: flag(body, 'dropResponse'),
    statusAfterServing: integer(body, 'statusAfterServing', 400, 599),
    remaining: integer(body, 'count', 1, MAX_FAULT_COUNT) ?? 1,
  };
  const replaces = fault.status !== undefined || fault.reset === true;
  const after = fault.delayAfterMs !== undefined || fault.dropResponse === true || fault.statusAfterServing !== undefined;
  if (!replaces && !after && fault.delayMs === undefined) {
    throw bad('give status, delayMs, "reset": true, delayAfterMs, "dropResponse": true or statusAfterServing');
  }
  if (replaces && after) {
    throw bad('status and reset answer instead of serving the request; delayAfterMs, dropResponse and statusAfterServing act after serving it: give one kind');
  }
  if (fault.statusAfterServing !== undefined && fault.dropResponse === true) {
    throw bad('statusAfterServing answers, dropResponse answers nothing: give one');
  }
  if (fault.retryAfterSeconds !== undefined && fault.status === undefined) {
    throw bad('retryAfterSeconds needs a status (e.g. 503) to send it with');
  }
  return fault;
}
