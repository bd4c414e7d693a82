// The failed-authentication memory's file (failure-memory.ts): what it holds, how its text is
// read (anything damaged, too big or of an unknown version counts as no memory) and written (only
// the entries still live), and the key of a credential in it: scrypt under the file's random
// salt, so that the file holds no secret and equal passwords in two files do not match.
import { randomBytes, scrypt } from 'node:crypto';

// Unanswered probes (`unanswered`) were added without a new version: a version-2 reader that
// predates them ignores them (it counts 401s only, as before) and drops them when it rewrites the file.
const FILE_VERSION = 2;
// Version 1 (credentials only) is still read, so an upgrade keeps what an older run learnt.
const READABLE_VERSIONS = new Set([1, 2]);
const SALT_BYTES = 16;
const KEY_BYTES = 32;
// Node's scrypt defaults (N=2^14, r=8, p=1): tens of milliseconds, paid only on a 401 or a check
// against a non-empty memory.
const SCRYPT_COST = { N: 16384, r: 8, p: 1 } as const;
// A file bigger than this is not ours (or is damaged): treated as empty rather than parsed.
export const MAX_FILE_BYTES = 256 * 1024;

/** What the file holds once read and checked. */
export interface MemoryFile {
  readonly salt: Buffer;
  /** Hex key → expiry (ms since the epoch). */
  readonly failures: Map<string, number>;
  /** API origin → the expiry of each 401 it gave. */
  readonly origins: Map<string, number[]>;
  /** API origin → each probe that got no answer: its expiry and the credential's key. */
  readonly unanswered: Map<string, UnansweredProbe[]>;
}

/** A probe that got no answer, as the file keeps it. */
export interface UnansweredProbe {
  readonly until: number;
  /** The credential's fingerprint, so that an answer accepting it forgets the probe. */
  readonly key: string;
}

/** The memory a file's text holds, or undefined when there is none (absent, damaged, not ours). */
export function parseMemory(text: string | undefined): MemoryFile | undefined {
  if (text === undefined) return undefined;
  try {
    const raw: unknown = JSON.parse(text);
    if (typeof raw !== 'object' || raw === null) return undefined;
    const o = raw as Record<string, unknown>;
    if (!READABLE_VERSIONS.has(o.version as number) || typeof o.salt !== 'string' || typeof o.failures !== 'object' || o.failures === null) {
      return undefined;
    }
    const salt = Buffer.from(o.salt, 'base64');
    if (salt.length < SALT_BYTES) return undefined;
    const failures = new Map<string, number>();
    for (const [k, v] of Object.entries(o.failures as Record<string, unknown>)) {
      if (/^[0-9a-f]{64}$/.test(k) && typeof v === 'number' && Number.isFinite(v)) failures.set(k, v);
    }
    const origins = new Map<string, number[]>();
    if (typeof o.origins === 'object' && o.origins !== null) {
      for (const [k, v] of Object.entries(o.origins as Record<string, unknown>)) {
        if (Array.isArray(v))
          origins.set(
            k,
            v.filter((t): t is number => typeof t === 'number' && Number.isFinite(t)),
          );
      }
    }
    const unanswered = new Map<string, UnansweredProbe[]>();
    if (typeof o.unanswered === 'object' && o.unanswered !== null) {
      for (const [k, v] of Object.entries(o.unanswered as Record<string, unknown>)) {
        if (Array.isArray(v))
          unanswered.set(
            k,
            v.filter(isUnansweredProbe).map((p) => ({ until: p.until, key: p.key })),
          );
      }
    }
    return { salt, failures, origins, unanswered };
  } catch {
    return undefined;
  }
}

/** A new memory with a new salt. */
export function emptyMemory(): MemoryFile {
  return { salt: randomBytes(SALT_BYTES), failures: new Map(), origins: new Map(), unanswered: new Map() };
}

/** The file's text for `mem`: its entries still live at `now`. */
export function serializeMemory(mem: MemoryFile, now: number): string {
  const failures: Record<string, number> = {};
  for (const [k, until] of mem.failures) if (until > now) failures[k] = until;
  const origins: Record<string, number[]> = {};
  for (const [k, times] of mem.origins) {
    const live = times.filter((t) => t > now);
    if (live.length > 0) origins[k] = live;
  }
  const unanswered: Record<string, UnansweredProbe[]> = {};
  for (const [k, probes] of mem.unanswered) {
    const live = probes.filter((p) => p.until > now);
    if (live.length > 0) unanswered[k] = live;
  }
  return `${JSON.stringify({ version: FILE_VERSION, salt: mem.salt.toString('base64'), failures, origins, unanswered }, null, 2)}\n`;
}

/** True when the memory is absent or holds no credential and no unanswered probe. */
export function isEmpty(mem: MemoryFile | undefined): boolean {
  return mem === undefined || (mem.failures.size === 0 && mem.unanswered.size === 0);
}

function isUnansweredProbe(v: unknown): v is UnansweredProbe {
  if (typeof v !== 'object' || v === null) return false;
  const p = v as Record<string, unknown>;
  return typeof p.until === 'number' && Number.isFinite(p.until) && typeof p.key === 'string' && /^[0-9a-f]{64}$/.test(p.key);
}

/** scrypt of the credential under the file's salt, as hex. */
export function scryptKey(salt: Buffer, credential: string): Promise<string> {
  return new Promise((resolve, reject) => {
    scrypt(credential, salt, KEY_BYTES, SCRYPT_COST, (err, key) => (err === null ? resolve(key.toString('hex')) : reject(err)));
  });
}
