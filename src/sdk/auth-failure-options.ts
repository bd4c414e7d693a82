// Resolves where and for how long rejected credentials are remembered: the client option wins,
// then the environment (so a provider or CLI user can steer it without code), then the default.
import { isAbsolute } from 'node:path';
import { InvalidArgumentError } from './errors';
import { AuthFailureMemory, DEFAULT_AUTH_FAILURE_TTL_MS, defaultAuthFailureFile } from './failure-memory';

/** Environment variable: path of the memory file, or `off` to keep none. */
export const AUTH_FAILURE_CACHE_ENV = 'PROXYACCOUNT_AUTH_FAILURE_CACHE';
/** Environment variable: how long a 401 is remembered, in seconds. */
export const AUTH_FAILURE_TTL_ENV = 'PROXYACCOUNT_AUTH_FAILURE_TTL';

// A week is far beyond any ban; a longer memory would only hide a fixed password.
const MAX_TTL_MS = 7 * 24 * 3600 * 1000;
const OFF_VALUES = new Set(['off', 'false', '0', 'no', 'none']);

/** The memory configured by `cache`/`ttlMs` and the environment, or undefined when disabled. */
export function authFailureMemoryFrom(cache: unknown, ttlMs: unknown, env: NodeJS.ProcessEnv = process.env): AuthFailureMemory | undefined {
  const file = resolveFile(cache, env);
  if (file === undefined) {
    // A wrong value in code is refused even while the memory is off (it may be on elsewhere).
    if (ttlMs !== undefined) resolveTtl(ttlMs, env);
    return undefined;
  }
  return new AuthFailureMemory(file, resolveTtl(ttlMs, env));
}

function resolveFile(cache: unknown, env: NodeJS.ProcessEnv): string | undefined {
  if (cache === false) return undefined;
  if (cache !== undefined) {
    if (typeof cache !== 'string' || !isAbsolute(cache)) {
      throw new InvalidArgumentError('authFailureCache', 'must be an absolute file path, or false to keep no memory of rejected credentials');
    }
    return cache;
  }
  const fromEnv = env[AUTH_FAILURE_CACHE_ENV]?.trim() ?? '';
  if (fromEnv === '') return defaultAuthFailureFile(env);
  if (OFF_VALUES.has(fromEnv.toLowerCase())) return undefined;
  if (!isAbsolute(fromEnv)) {
    throw new InvalidArgumentError(AUTH_FAILURE_CACHE_ENV, 'must be an absolute file path, or "off" to keep no memory of rejected credentials');
  }
  return fromEnv;
}

function resolveTtl(ttlMs: unknown, env: NodeJS.ProcessEnv): number {
  if (ttlMs !== undefined) {
    if (typeof ttlMs !== 'number' || !Number.isSafeInteger(ttlMs) || ttlMs < 0 || ttlMs > MAX_TTL_MS) {
      throw new InvalidArgumentError('authFailureTtlMs', `must be a whole number of milliseconds from 0 to ${MAX_TTL_MS}`);
    }
    return ttlMs;
  }
  const fromEnv = env[AUTH_FAILURE_TTL_ENV]?.trim() ?? '';
  if (fromEnv === '') return DEFAULT_AUTH_FAILURE_TTL_MS;
  const seconds = /^\d+$/.test(fromEnv) ? Number(fromEnv) : Number.NaN;
  if (!(seconds * 1000 <= MAX_TTL_MS)) {
    throw new InvalidArgumentError(
      AUTH_FAILURE_TTL_ENV,
      `must be a whole number of seconds from 0 to ${MAX_TTL_MS / 1000} (got ${JSON.stringify(fromEnv.slice(0, 20))})`,
    );
  }
  return seconds * 1000;
}
