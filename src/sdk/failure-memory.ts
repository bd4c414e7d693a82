// Remembers, across processes, which credentials the API rejected with 401. The API bans a client
// address after 4 failures (for 3 hours, correct credentials included), and the in-process guard
// only protects one run: a job that runs `terraform plan` every hour with a wrong password would
// fail 4 times and get its runner banned. With this memory the first run sends and fails, and the
// next runs refuse to send the same credentials until the memory expires.
//
// The file holds no secret: each entry is keyed by scrypt(origin + Authorization value) under a
// random salt created with the file, so equal passwords in two caches do not match and the key
// costs a brute-force attempt per guess. Hashing only happens when the file has live entries (a
// check) or after a 401 (remember), so the usual run pays one small file read.
import { randomBytes, scrypt } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

/** Default time a rejected credential is remembered: the API's 3-hour ban plus a margin. */
export const DEFAULT_AUTH_FAILURE_TTL_MS = (3 * 60 + 15) * 60 * 1000;
/** File name of the memory inside the cache directory. */
export const AUTH_FAILURE_FILE = 'auth-failures.json';

const FILE_VERSION = 1;
const SALT_BYTES = 16;
const KEY_BYTES = 32;
// Node's scrypt defaults (N=2^14, r=8, p=1): tens of milliseconds, paid only on a 401 or a check
// against a non-empty memory.
const SCRYPT_COST = { N: 16384, r: 8, p: 1 } as const;
// A file bigger than this is not ours (or is damaged): treated as empty rather than parsed.
const MAX_FILE_BYTES = 256 * 1024;

/** The per-user cache directory of proxyaccount, following each platform's convention. */
export function defaultCacheDir(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform, home: string = homedir()): string {
  if (platform === 'win32') {
    const base = env.LOCALAPPDATA !== undefined && env.LOCALAPPDATA !== '' ? env.LOCALAPPDATA : join(home, 'AppData', 'Local');
    return join(base, 'proxyaccount', 'Cache');
  }
  if (platform === 'darwin') return join(home, 'Library', 'Caches', 'proxyaccount');
  // XDG: a relative XDG_CACHE_HOME is invalid and must be ignored.
  const xdg = env.XDG_CACHE_HOME;
  const base = xdg?.startsWith('/') ? xdg : join(home, '.cache');
  return join(base, 'proxyaccount');
}

/** Default path of the memory file. */
export function defaultAuthFailureFile(env: NodeJS.ProcessEnv = process.env): string {
  return join(defaultCacheDir(env), AUTH_FAILURE_FILE);
}

/** What the file holds once read and checked. */
interface MemoryFile {
  readonly salt: Buffer;
  /** Hex key → expiry (ms since the epoch). */
  readonly failures: Map<string, number>;
}

/** A remembered rejection that still holds. */
export interface RememberedFailure {
  /** When the memory of it expires. */
  readonly until: Date;
}

/** The memory file of one client: read once, written after a 401 or a later success. */
export class AuthFailureMemory {
  /** Path of the JSON file. */
  readonly file: string;
  private readonly ttlMs: number;
  private readonly now: () => number;

  constructor(file: string, ttlMs: number, now: () => number = Date.now) {
    this.file = file;
    this.ttlMs = ttlMs;
    this.now = now;
  }

  /** The live failure remembered for `credential`, if any. Never throws. */
  async find(credential: string): Promise<RememberedFailure | undefined> {
    const mem = await this.read();
    if (mem === undefined) return undefined;
    const now = this.now();
    if (![...mem.failures.values()].some((until) => until > now)) return undefined;
    const key = await fingerprint(mem.salt, credential);
    const until = mem.failures.get(key);
    return until !== undefined && until > now ? { until: new Date(until) } : undefined;
  }

  /** Records a 401 for `credential` for the configured time. Returns its expiry. Never throws. */
  async remember(credential: string): Promise<Date> {
    const until = this.now() + this.ttlMs;
    try {
      const mem = (await this.read()) ?? { salt: randomBytes(SALT_BYTES), failures: new Map<string, number>() };
      mem.failures.set(await fingerprint(mem.salt, credential), until);
      await this.write(mem);
    } catch {
      // A read-only home or a full disk must not turn a 401 into a crash; this run's guard still holds.
    }
    return new Date(until);
  }

  /** Forgets `credential` after the API accepted it. Cheap when the memory is empty. Never throws. */
  async forget(credential: string): Promise<void> {
    try {
      const mem = await this.read();
      if (mem === undefined || mem.failures.size === 0) return;
      if (!mem.failures.delete(await fingerprint(mem.salt, credential))) return;
      await this.write(mem);
    } catch {
      // Forgetting is best effort: the entry expires anyway.
    }
  }

  /** The file's content, or undefined when it is absent, unreadable or not ours. */
  private async read(): Promise<MemoryFile | undefined> {
    let text: string;
    try {
      text = await readFile(this.file, 'utf8');
    } catch {
      return undefined;
    }
    if (text.length > MAX_FILE_BYTES) return undefined;
    try {
      const raw: unknown = JSON.parse(text);
      if (typeof raw !== 'object' || raw === null) return undefined;
      const o = raw as Record<string, unknown>;
      if (o.version !== FILE_VERSION || typeof o.salt !== 'string' || typeof o.failures !== 'object' || o.failures === null) {
        return undefined;
      }
      const salt = Buffer.from(o.salt, 'base64');
      if (salt.length < SALT_BYTES) return undefined;
      const failures = new Map<string, number>();
      for (const [k, v] of Object.entries(o.failures as Record<string, unknown>)) {
        if (/^[0-9a-f]{64}$/.test(k) && typeof v === 'number' && Number.isFinite(v)) failures.set(k, v);
      }
      return { salt, failures };
    } catch {
      return undefined;
    }
  }

  /** Writes the live entries atomically (temporary file, then rename), readable by the user only. */
  private async write(mem: MemoryFile): Promise<void> {
    const now = this.now();
    const failures: Record<string, number> = {};
    for (const [k, until] of mem.failures) if (until > now) failures[k] = until;
    const body = `${JSON.stringify({ version: FILE_VERSION, salt: mem.salt.toString('base64'), failures }, null, 2)}\n`;
    await mkdir(dirname(this.file), { recursive: true, mode: 0o700 });
    const tmp = `${this.file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    try {
      await writeFile(tmp, body, { mode: 0o600, flag: 'wx' });
      await rename(tmp, this.file);
    } catch (e) {
      await rm(tmp, { force: true });
      throw e;
    }
  }
}

/** scrypt of the credential under the file's salt, as hex. */
function fingerprint(salt: Buffer, credential: string): Promise<string> {
  return new Promise((resolve, reject) => {
    scrypt(credential, salt, KEY_BYTES, SCRYPT_COST, (err, key) => (err === null ? resolve(key.toString('hex')) : reject(err)));
  });
}
