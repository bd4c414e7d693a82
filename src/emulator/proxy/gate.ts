// The checks every proxied request goes through, HTTP or CONNECT: credentials, admission, exit
// country, target and exit IP. Returns the account, the checked target and the exit, or the
// refusal to send.
import type { IncomingMessage } from 'node:http';
import { admit, PROXY_STATUS, unmapIpv4, type Admitted } from './admission';
import { countryHeader, type ProxyContext } from './context';
import { readCredentials, type ProxyCredentials } from './credentials';
import { checkDestination, type Destination, DestinationError } from './target';

/** A request that may pass. */
export interface Passed {
  readonly ok: true;
  readonly who: Admitted;
  readonly exitIp: string;
  /** The header that carried the credentials: not forwarded to the target. */
  readonly credentialHeader: ProxyCredentials['header'] | undefined;
  /** Where to connect. */
  readonly dest: Destination;
}

/** A request that may not, with what to answer. */
export interface Stopped {
  readonly ok: false;
  readonly status: number;
  readonly message: string;
}

/** Runs the checks for a request to `host:port` received by the proxy of `proxyHost`. */
export async function gate(ctx: ProxyContext, proxyHost: string, req: IncomingMessage, host: string, port: number): Promise<Passed | Stopped> {
  const read = readCredentials(req.headers);
  if (read.kind === 'malformed') return { ok: false, status: 407, message: read.reason };
  let credentials = read.kind === 'ok' ? read.credentials : undefined;
  const now = ctx.clock.now();
  const admission = (c: ProxyCredentials | undefined) =>
    admit({ store: ctx.store, now, proxyHost, credentials: c, clientAddress: unmapIpv4(req.socket.remoteAddress ?? ''), resolve: ctx.resolve });
  let who = await admission(credentials);
  // Basic or Bearer in `Authorization` that no account knows may be the target's: a client its
  // address admits goes on, and the header is forwarded.
  if (!who.ok && who.status === PROXY_STATUS.authRequired && credentials?.header === 'authorization') {
    const byAddress = await admission(undefined);
    if (byAddress.ok) {
      who = byAddress;
      credentials = undefined;
    }
  }
  if (!who.ok) return who;
  const header = req.headers[countryHeader(ctx.settings.operator).toLowerCase()];
  let country: string | undefined;
  if (header !== undefined) {
    country = (Array.isArray(header) ? header[0]! : header).trim().toUpperCase();
    if (!/^[A-Z]{2}$/.test(country) || !ctx.exits.hasCountry(country)) {
      return { ok: false, status: 400, message: `${countryHeader(ctx.settings.operator)}: no exit IPs in that country (send an ISO code of the geo-IP map)` };
    }
  }
  let dest: Destination;
  try {
    dest = await checkDestination(host, port, ctx.settings.allowAnyTarget);
  } catch (err) {
    if (!(err instanceof DestinationError)) throw err;
    return { ok: false, status: err.status, message: err.message };
  }
  const session = who.ipHash === undefined ? undefined : `${who.account.id}\u0000${who.ipHash}`;
  return { ok: true, who, exitIp: ctx.exits.pick(country, session, now), credentialHeader: credentials?.header, dest };
}
