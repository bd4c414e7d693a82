// The checks every proxied request goes through, HTTP or CONNECT: credentials, admission, exit
// country, target and exit IP. Returns the account, the checked target and the exit, and a way to
// run the same admission again (an open tunnel does), or the refusal to send.
import type { IncomingMessage } from 'node:http';
import { admit, type HostResolver, PROXY_STATUS, sameAccount, unmapIpv4, type Admitted } from './admission';
import { accessChanges, countryHeader, type ProxyContext } from './context';
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
  /** The store's change count (accessChanges) and the emulator time just before the admission read it. */
  readonly admittedAt: { readonly changes: number; readonly time: number };
  /**
   * Runs the admission that let this request pass again, now: the same credentials (those it
   * finally used), client address and proxy; a client an authorized hostname admitted, by that
   * hostname without resolving it again. Undefined while it admits the very same account, else why
   * not (never quoting a credential).
   */
  readmit(): Promise<string | undefined>;
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
  // Read now: a socket that is gone no longer has its address, and a re-admission needs it.
  const clientAddress = unmapIpv4(req.socket.remoteAddress ?? '');
  const admittedAt = { changes: accessChanges(ctx.store), time: ctx.clock.now() };
  const now = admittedAt.time;
  const admission = (c: ProxyCredentials | undefined, at: number, resolve: HostResolver = ctx.resolve) =>
    admit({ store: ctx.store, now: at, proxyHost, credentials: c, clientAddress, resolve });
  let who = await admission(credentials, now);
  // Basic or Bearer in `Authorization` that no account knows may be the target's: a client its
  // address admits goes on, and the header is forwarded.
  if (!who.ok && who.status === PROXY_STATUS.authRequired && credentials?.header === 'authorization') {
    const byAddress = await admission(undefined, now);
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
  const admitted = who;
  const used = credentials;
  const resolveAgain = admitted.hostname === undefined ? ctx.resolve : resolvedOnce(admitted.hostname, clientAddress);
  const readmit = async (): Promise<string | undefined> => {
    const again = await admission(used, ctx.clock.now(), resolveAgain);
    if (!again.ok) return again.message;
    return sameAccount(admitted.account, again.account) ? undefined : 'it would now act as another account';
  };
  return { ok: true, who, exitIp: ctx.exits.pick(country, session, now), credentialHeader: credentials?.header, dest, admittedAt, readmit };
}

/**
 * The resolver that re-admits a client admitted by an authorized hostname. The name is not looked up
 * again (a lookup per check flooded the resolver, and one that failed cut a working tunnel): it
 * answers the address it resolved to, and no other name resolves, so the store alone decides
 * whether it still admits the same account (a new connection is resolved again).
 */
function resolvedOnce(hostname: string, clientAddress: string): HostResolver {
  return async (name) => (name === hostname ? [clientAddress] : []);
}
