// Connections opened before the requests that need them. Until an answer proves the credentials,
// the 401 guard (auth-guard.ts) lets one request out and the others wait; when it is answered they
// all go at once, and every one but the first needs a new connection. Against a distant API a new
// HTTPS connection costs two round trips (TCP, then TLS) before the request's own: opened while the
// probe is out, those round trips are paid in its shadow instead of after it. A connection carries
// no credentials until a request is sent on it, so opening one never counts as a failed
// authentication.
//
// The client's own agent connects through `connect` below: it hands undici a spare (or one still
// opening) for the same origin before opening another. A spare nobody takes is closed after
// `idleMs`, and all of them when the client closes or its credentials are rejected. One more kind:
// a connection opened before the first request (`preconnect`), which the probe itself may take.
import type { Socket } from 'node:net';
import type buildConnector from 'undici/types/connector';
import { markUnconnected } from './error-facts';

type Connector = buildConnector.connector;
type ConnectOptions = buildConnector.Options;
type Callback = buildConnector.Callback;

interface Spare {
  readonly key: string;
  /** Opened by `preconnect`: any request may take it, the probe included. */
  readonly forAnyone: boolean;
  /** Set once the connection is open; undefined while it opens. */
  socket?: Socket;
  /** The socket while it opens, when the connector returns it (undici's does). */
  opening?: Socket;
  /** Who took it while it was still opening. */
  taker?: Callback;
  timer?: NodeJS.Timeout;
  /** Stops watching the socket as a spare (its close and idle timer). */
  release(): void;
}

/** How long an unclaimed spare stays open. */
const DEFAULT_IDLE_MS = 10_000;
/** Most spares at once for one client, whatever the number of waiting callers. */
export const MAX_SPARES = 8;

const isSocket = (value: unknown): value is Socket =>
  typeof value === 'object' && value !== null && typeof (value as Socket).unref === 'function' && typeof (value as Socket).destroy === 'function';

const isConnectTimeout = (err: Error): boolean => (err as { code?: unknown }).code === 'UND_ERR_CONNECT_TIMEOUT';

const keyOf = (o: Pick<ConnectOptions, 'protocol' | 'hostname' | 'port'>): string => `${o.protocol}//${o.hostname}:${o.port}`;

/** What undici's Client passes its connector for `origin` (no servername of its own: the connector derives it). */
export function connectOptionsOf(origin: string): ConnectOptions {
  const url = new URL(origin);
  const hostname = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  return { host: url.host, hostname, protocol: url.protocol, port: url.port };
}

/**
 * `open`, marking every error it reports as proof that nothing was sent: a connector reports
 * errors only until it hands over the connection (for HTTPS, once the TLS handshake is done), and
 * undici fails the waiting requests with that same error (error-facts.ts).
 */
function markingFailures(open: Connector): Connector {
  return (options, callback) =>
    open(options, (...args) => {
      if (args[0] !== null) markUnconnected(args[0]);
      callback(...args);
    });
}

export class SpareConnections {
  private readonly spares: Spare[] = [];
  private closed = false;
  /**
   * Whether a connection asked for now may be a spare. The transport keeps spares from the probe
   * itself (it opens its own), so that each caller waiting for it finds one.
   */
  mayHandOut: () => boolean = () => true;

  private readonly open: Connector;

  constructor(
    open: Connector,
    private readonly idleMs = DEFAULT_IDLE_MS,
  ) {
    this.open = markingFailures(open);
  }

  /** The connector for undici's Agent: a spare for the same origin if there is one, else a new connection. */
  readonly connect: Connector = (options, callback) => {
    const key = keyOf(options);
    const any = this.mayHandOut();
    const spare = this.spares.find((s) => s.key === key && s.taker === undefined && (any || s.forAnyone));
    if (spare === undefined) {
      this.open(options, callback);
      return;
    }
    if (spare.socket === undefined) {
      // Still opening: it is this caller's when it opens. If it fails, a new one, unless it timed
      // out: the caller has then waited for that connection as it would have for its own, and a
      // new one would make it wait a whole timeout more (an API that drops packets).
      spare.opening?.ref();
      spare.taker = (...args) => (args[0] === null || isConnectTimeout(args[0]) ? callback(...args) : this.open(options, callback));
      return;
    }
    this.remove(spare);
    spare.release();
    const socket = spare.socket;
    socket.ref();
    // Never inside undici's own call: it expects its connector to answer later.
    process.nextTick(() => (socket.destroyed ? this.open(options, callback) : callback(null, socket)));
  };

  /** Number of spares, open or opening, not yet taken. */
  get size(): number {
    return this.spares.filter((s) => s.taker === undefined).length;
  }

  /**
   * Opens connections to `origin` until `count` spares for waiting callers (at most MAX_SPARES)
   * are open or opening. The preconnected one does not count: the probe takes it, and a caller
   * that starts waiting in the same turn as the probe starts comes before the probe's connection
   * is asked for. Should the probe find a connection elsewhere, one spare is left over and closes
   * unused.
   */
  fill(origin: string, count: number): void {
    const options = connectOptionsOf(origin);
    const key = keyOf(options);
    const target = Math.min(count, MAX_SPARES);
    const forWaiting = (): number => this.spares.filter((s) => s.key === key && s.taker === undefined && !s.forAnyone).length;
    while (!this.closed && forWaiting() < target) this.openSpare(key, options, false);
  }

  /**
   * Opens one connection to `origin` for whichever request comes first, the probe included,
   * unless a spare for it is open or opening already.
   */
  preconnect(origin: string): void {
    const options = connectOptionsOf(origin);
    const key = keyOf(options);
    if (!this.closed && !this.spares.some((s) => s.key === key && s.taker === undefined)) this.openSpare(key, options, true);
  }

  /** Closes every spare and opens no more. */
  close(): void {
    this.closed = true;
    this.discard();
  }

  /** Closes every spare that nobody took (the credentials were rejected, say). */
  discard(): void {
    for (const spare of this.spares.splice(0)) {
      spare.release();
      if (spare.taker !== undefined) {
        // Taken while opening: it stays the taker's.
        continue;
      }
      if (spare.socket !== undefined) spare.socket.destroy();
      else if (spare.opening !== undefined) spare.opening.destroy();
      else spare.taker = (...args) => args[1]?.destroy();
    }
  }

  private openSpare(key: string, options: ConnectOptions, forAnyone: boolean): void {
    let socket: Socket | undefined;
    const onClose = (): void => {
      this.remove(spare);
      spare.release();
    };
    const spare: Spare = {
      key,
      forAnyone,
      release: () => {
        clearTimeout(spare.timer);
        socket?.off('close', onClose);
      },
    };
    this.spares.push(spare);
    const returned: unknown = this.open(options, (...args) => {
      if (args[0] !== null) {
        this.remove(spare);
        // A failure to connect is the taker's to handle, through a connection of its own.
        spare.taker?.(...args);
        return;
      }
      socket = args[1];
      if (spare.taker !== undefined) {
        this.remove(spare);
        spare.taker(null, socket);
        return;
      }
      spare.socket = socket;
      // A spare keeps no process alive, and lives only so long.
      socket.unref();
      socket.once('close', onClose);
      spare.timer = setTimeout(() => {
        this.remove(spare);
        spare.release();
        socket?.destroy();
      }, this.idleMs);
      spare.timer.unref();
    });
    // undici's connector returns the socket it opens: one that is still connecting (to an API
    // that does not answer, say) must not keep the process alive either, and can be cut short.
    if (spare.socket === undefined && spare.taker === undefined && isSocket(returned)) {
      spare.opening = returned;
      returned.unref();
    }
  }

  private remove(spare: Spare): void {
    const i = this.spares.indexOf(spare);
    if (i >= 0) this.spares.splice(i, 1);
  }
}
