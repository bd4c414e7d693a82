// Where a proxied request may go. By default only to loopback addresses, so an emulator can never
// be used as an open proxy; the name is resolved once and the connection goes to the address that
// was checked (a second lookup could answer differently).
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';

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

/** True for 127.0.0.0/8, ::1 and IPv4-mapped loopback. */
export function isLoopback(address: string): boolean {
  const v4 = address.startsWith('::ffff:') ? address.slice(7) : address;
  if (isIP(v4) === 4) return v4.startsWith('127.');
  return address === '::1';
}

/** Resolves `host` and checks the address against the policy. */
export async function checkDestination(host: string, port: number, allowAnyTarget: boolean): Promise<Destination> {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  if (bare === '' || !Number.isInteger(port) || port < 1 || port > 65535) throw new DestinationError(400, 'malformed target');
  let address: string;
  if (isIP(bare) !== 0) address = bare;
  else {
    try {
      address = (await lookup(bare)).address;
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
