// Exit IPs of the emulated proxies. Each country of the geo-IP map has exactly as many exit IPs
// as the world pool's count for it (the open pool is the first `open` of them), all in the IPv6
// documentation range 2001:db8::/32, so the counts the API reports are the pool the proxies use.
// Sticky sessions (`ip_hash`) keep their exit IP while requests come within STICKY_IDLE_MS of each
// other; an exit taken out of the pool (control API) is replaced, and the replacement kept.
import { randomInt } from 'node:crypto';
import { geoCountries } from '../catalogue';

/** How long a sticky exit survives without requests. */
export const STICKY_IDLE_MS = 5 * 60 * 1000;

/** Sticky sessions kept at most; the least recently used goes first beyond this. */
const MAX_STICKY = 10_000;

interface Country {
  readonly code: string;
  readonly size: number;
}

interface Sticky {
  ip: string;
  lastUsed: number;
}

/** The exit-IP address of index `n` (0-based) of a country: 2001:db8:<code>::<n>. */
export function exitAddress(code: string, n: number): string {
  const prefix = Buffer.from(code, 'ascii').toString('hex');
  return `2001:db8:${prefix}::${Math.floor(n / 0x10000).toString(16)}:${(n % 0x10000).toString(16)}`;
}

/** The exit pools and the sticky sessions, on the emulator clock. In memory only. */
export class ExitPool {
  private readonly countries: readonly Country[];
  private readonly total: number;
  private readonly retired = new Set<string>();
  private readonly sticky = new Map<string, Sticky>();

  constructor() {
    this.countries = geoCountries().map((c) => ({ code: c.code, size: c.world }));
    this.total = this.countries.reduce((sum, c) => sum + c.size, 0);
  }

  /** True when `code` (upper-case ISO code) has exit IPs. */
  hasCountry(code: string): boolean {
    return this.countries.some((c) => c.code === code);
  }

  /**
   * The exit IP of one request. With `sessionKey` (account and ip_hash) the session's exit is
   * reused while it is fresh and still in the pool; otherwise, and for a new session, a random
   * exit of `country` (any country, weighted by its size, when undefined) is drawn.
   */
  pick(country: string | undefined, sessionKey: string | undefined, now: number): string {
    if (sessionKey === undefined) return this.draw(country, undefined);
    const key = `${country ?? '*'}\u0000${sessionKey}`;
    const held = this.sticky.get(key);
    let ip: string;
    if (held !== undefined && now - held.lastUsed < STICKY_IDLE_MS && !this.retired.has(held.ip)) ip = held.ip;
    else ip = this.draw(country, held?.ip);
    this.sticky.delete(key);
    this.sticky.set(key, { ip, lastUsed: now });
    if (this.sticky.size > MAX_STICKY) this.sticky.delete(this.sticky.keys().next().value as string);
    return ip;
  }

  /** Takes an exit IP out of the pool (sessions holding it move to a new one); false when unknown. */
  retire(ip: string): boolean {
    if (!this.contains(ip)) return false;
    this.retired.add(ip);
    return true;
  }

  /** Puts every retired exit back and forgets every session. */
  reset(): void {
    this.retired.clear();
    this.sticky.clear();
  }

  /** True when `ip` is one of the pool's addresses (retired or not). */
  contains(ip: string): boolean {
    const m = /^2001:db8:([0-9a-f]{4})::([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(ip);
    if (!m) return false;
    const code = Buffer.from(m[1]!, 'hex').toString('ascii');
    const n = Number.parseInt(m[2]!, 16) * 0x10000 + Number.parseInt(m[3]!, 16);
    const country = this.countries.find((c) => c.code === code);
    return country !== undefined && n < country.size && exitAddress(code, n) === ip;
  }

  /** A random exit that is in the pool and is not `avoid`. */
  private draw(country: string | undefined, avoid: string | undefined): string {
    for (;;) {
      const ip = country === undefined ? this.anyCountry() : exitAddress(country, randomInt(this.sizeOf(country)));
      if (ip !== avoid && !this.retired.has(ip)) return ip;
    }
  }

  private anyCountry(): string {
    let n = randomInt(this.total);
    for (const c of this.countries) {
      if (n < c.size) return exitAddress(c.code, n);
      n -= c.size;
    }
    throw new Error('internal: exit index out of range');
  }

  private sizeOf(code: string): number {
    const country = this.countries.find((c) => c.code === code);
    if (!country) throw new Error(`internal: no exits in ${code}`);
    return country.size;
  }
}
