// Where a proxied request may go. By default only to loopback addresses, so an emulator can never
// be used as an open proxy; the name is resolved once and the connection goes to the address that
// was checked (a second lookup could answer differently).
import { lookup } from 'node:dns/promises';
import { isIP, SocketAddress } from 'node:net';

/** A checked destination. */
export interface Destination {
  /** The address to connect to. */
  readonly address: string;
  readonly port: number;
}

/** Why a destination was refused: 400 for a malformed one, 403 for a forbidden one, 502 when it does not resolve. */
export class DestinationError extends Error {
  constructor(
    readonly status: 400 | 403 | 502,
    message: string,
  ) {
    super(message);
    this.name = 'DestinationError';
  }
}

/**
 * The IPv4 address an IPv4-mapped IPv6 address stands for, however it is spelled
 * (`::ffff:127.0.0.1`, `::FFFF:7f00:1` as WHATWG URL writes it, zeros written out); any other
 * address unchanged.
 */
export function unmappedAddress(address: string): string {
  const canonical = canonicalIpv6(address);
  const v4 = canonical?.startsWith('::ffff:') ? canonical.slice('::ffff:'.length) : '';
  return isIP(v4) === 4 ? v4 : address;
}

/** True for 127.0.0.0/8, ::1 and IPv4-mapped loopback, in any spelling. */
export function isLoopback(address: string): boolean {
  const ip = unmappedAddress(address);
  if (isIP(ip) === 4) return ip.startsWith('127.');
  return canonicalIpv6(ip) === '::1';
}

/** The system's text of an IPv6 address (lower case, shortest, mapped IPv4 dotted); undefined for another. */
function canonicalIpv6(address: string): string | undefined {
  if (isIP(address) !== 6) return undefined;
  try {
    return new SocketAddress({ address, family: 'ipv6' }).address;
  } catch {
    return undefined;
  }
}

/** Resolves `host` and checks the address against the policy. */
export async function checkDestination(host: string, port: number, allowAnyTarget: boolean): Promise<Destination> {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  if (bare === '' || !Number.isInteger(port) || port < 1 || port > 65535) throw new DestinationError(400, 'malformed target');
  let address: string;
  // One spelling for both ways in: a URL's `[::ffff:7f00:1]` and a CONNECT's `[::ffff:127.0.0.1]`
  // are the same IPv4 target, checked and connected to as such.
  if (isIP(bare) !== 0) address = unmappedAddress(bare);
  else {
    try {
      address = unmappedAddress((await lookup(bare)).address);
    } catch {
      throw new DestinationError(502, `target host ${bare} does not resolve`);
    }
  }
  if (!allowAnyTarget && !isLoopback(address)) {
    throw new DestinationError(403, 'this emulator forwards only to loopback targets (start it with --proxy-allow-any-target to allow more)');
  }
  return { address, port };
}

/** Splits a CONNECT authority `host:port` (`[v6]:port` too); undefined when malformed. */
export function parseAuthority(authority: string): { host: string; port: number } | undefined {
  const m = /^(\[[0-9A-Fa-f:.]+\]|[^:[\]/\s]+):([0-9]{1,5})$/.exec(authority);
  if (!m) return undefined;
  return { host: m[1]!, port: Number(m[2]) };
}
