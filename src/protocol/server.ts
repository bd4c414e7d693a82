// The provider process as go-plugin expects it: check the handshake environment, serve gRPC over
// mutual TLS on a Unix socket in a private directory (plugin-socket.ts; a loopback port where
// there is none), print the one handshake line, and leave promptly when Terraform calls
// plugin.GRPCController/Shutdown. What the run opened and did not close is released then, or
// when Terraform is gone or its graceful stop ran out of time: never while it may still use it.
import * as diagnosticsChannel from 'node:diagnostics_channel';
import { writeSync } from 'node:fs';
import type { Socket } from 'node:net';
import { isRunning } from '../util/process';
import { createSelfSignedCertificate } from '../util/x509';
import { GRPCControllerService } from './gen/grpc_controller';
import { ProviderService } from './gen/tfplugin6';
import type { GeneratedMethod } from './grpc-service';
import { listenUnary, type MutualTls, type UnaryRoute, type UnaryServer } from './h2-server';
import { checkHandshakeEnv, formatHandshakeLine } from './handshake';
import { createLogger, levelFromEnv, type LogLevel } from './log';
import { makePluginSocket, type PluginSocket } from './plugin-socket';
import { createProviderHandlers } from './provider-service';
import type { ProviderServer } from './types';

/** Options of {@link serve}. */
export interface ServeOptions {
  /** Where the handshake line goes; nothing else is ever written to it. @default file descriptor 1 (standard output) */
  stdout?: NodeJS.WritableStream;
  /** The environment go-plugin prepared. @default process.env */
  env?: NodeJS.ProcessEnv;
  /** Receives each log line (hclog JSON, no newline). @default writes to process.stderr */
  logger?: (line: string) => void;
  /** The level in force. @default from TF_LOG_PROVIDER_<NAME>, TF_LOG_PROVIDER, TF_LOG in `env` */
  logLevel?: LogLevel | 'off';
  /** Where the message for someone running the binary by hand goes. @default process.stderr */
  stderr?: NodeJS.WritableStream;
  /** Called with 1 when not started by Terraform, and with 0 after shutdown. @default process.exit */
  exit?: (code: number) => void;
  /**
   * Ignore SIGINT; on SIGTERM, serve on while Terraform is connected (it stops gracefully and calls
   * Shutdown), else shut down gracefully; exit when the parent process (Terraform) is gone; and log
   * (rather than die of) unhandled promise rejections, so that a stray rejection cannot kill an
   * apply in flight. Off for in-process use.
   * @default true
   */
  handleSignals?: boolean;
  /** Provider name for user-facing messages. @default 'proxyaccount' */
  providerName?: string;
  /**
   * After SIGTERM with no Terraform connected, how long calls in flight may run before the server
   * is closed hard. A connected Terraform has no deadline: it stops gracefully and calls Shutdown,
   * or closes its connection, or exits (watched), and a write it waits for is never cut. @default 60000
   */
  shutdownGraceMs?: number;
  /** Extra fields of the DEBUG "plugin serving" line (how the process started, e.g. its code cache). */
  startupFields?: Readonly<Record<string, string>>;
  /**
   * Called once the handshake line is written, in the next turn of the event loop: work every
   * process needs before its first call (loading the provider) then overlaps with Terraform's
   * connecting, instead of following it. @default none
   */
  afterHandshake?: () => void;
  /**
   * `unix`: a Unix domain socket in a new private directory, removed when the server closes (a
   * loopback port where a socket cannot be used, see plugin-socket.ts); `tcp`: a loopback port.
   * @default 'unix'
   */
  network?: 'unix' | 'tcp';
}

type UnaryHandler = (request: unknown) => Promise<unknown>;

/** Of go-plugin's 2 s between Shutdown and the kill, what releasing may take (the RPC answer still has to travel). */
const RELEASE_ON_SHUTDOWN_MS = 1_500;

/**
 * What releasing may take when nobody waits for an answer: Terraform is gone, or its graceful stop
 * after SIGTERM ran out of time. Long enough to retry a delete the API failed a few times.
 */
const RELEASE_UNATTENDED_MS = 5_000;

/** How often the process looks for its parent: a Terraform killed with SIGKILL can say nothing. */
const PARENT_CHECK_MS = 1_000;

/** Calls the provider's release hook (ProviderServer.releaseOnShutdown), if it has one; never throws. */
async function releaseOpen(provider: ProviderServer, withinMs: number, log: (level: LogLevel, message: string) => void): Promise<void> {
  if (typeof provider.releaseOnShutdown !== 'function') return;
  try {
    await provider.releaseOnShutdown(withinMs, (message) => log('warn', message));
  } catch (err) {
    log('error', `releasing at shutdown failed: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/**
 * Calls `onGone` once the process that started this one (Terraform) has exited: this one was
 * given another parent (Unix), or its parent is no longer there (Windows keeps the number). The
 * check does not keep the process alive.
 */
function watchParent(onGone: () => void, everyMs: number = PARENT_CHECK_MS): () => void {
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid === parent && isRunning(parent)) return;
    clearInterval(timer);
    onGone();
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}

/** An error of stdout or stderr (EPIPE once Terraform is gone): nothing can be said about it anywhere. */
function ignoreStreamError(): void {
  // Deliberately nothing: the stream is closed, and the process goes on to release and exit.
}

/** The connections open to this process's servers. */
interface Connections {
  open(): number;
  stop(): void;
}

/**
 * Counts the connections open to this process's servers, calling `onNone` whenever the last one
 * closes. Node publishes every connection a server accepts on the `net.server.socket` diagnostics
 * channel; the provider process serves nothing but Terraform (a client refused for its
 * certificate is closed at once, and only adds to the count while it lasts).
 */
function countConnections(onNone: () => void): Connections {
  let open = 0;
  let stopped = false;
  const onSocket = (message: unknown): void => {
    const { socket } = message as { socket: Socket };
    open++;
    socket.once('close', () => {
      open--;
      if (open === 0 && !stopped) onNone();
    });
  };
  diagnosticsChannel.subscribe('net.server.socket', onSocket);
  return {
    open: () => open,
    stop: () => {
      stopped = true;
      diagnosticsChannel.unsubscribe('net.server.socket', onSocket);
    },
  };
}

/** Largest message either way: states of large accounts can exceed gRPC's usual 4 MiB. */
const MAX_MESSAGE_BYTES = 256 * 1024 * 1024;

/** Each generated service table with the handlers of its methods. */
type Services = ReadonlyArray<readonly [Readonly<Record<string, GeneratedMethod>>, Readonly<Record<string, UnaryHandler>>]>;

/** The services as routes for the unary server (h2-server.ts). */
function unaryRoutes(services: Services): Map<string, UnaryRoute> {
  const routes = new Map<string, UnaryRoute>();
  for (const [table, handlers] of services) {
    for (const [name, method] of Object.entries(table)) {
      const handle = handlers[name];
      if (handle === undefined || method.requestStream || method.responseStream) continue;
      routes.set(method.path, {
        decode: (b) => method.request.decode(b),
        encode: (v) => method.response.encode(v as never),
        handle,
      });
    }
  }
  return routes;
}

/**
 * go-plugin handshake (magic cookie check, AutoMTLS with PLUGIN_CLIENT_CERT, one handshake line),
 * gRPC services Provider + GRPCController (Shutdown), SIGINT ignored (Terraform sends StopProvider),
 * resolves when the server has shut down.
 */
export async function serve(provider: ProviderServer, opts: ServeOptions = {}): Promise<void> {
  const env = opts.env ?? process.env;
  const exit = opts.exit ?? ((code: number) => process.exit(code));
  const logger = createLogger(opts.logger, opts.logLevel ?? levelFromEnv(env, opts.providerName));
  const log = logger.log;
  const check = checkHandshakeEnv(env, opts.providerName);
  if (!check.ok) {
    (opts.stderr ?? process.stderr).write(`${check.message}\n`);
    exit(1);
    return;
  }

  let server: UnaryServer | undefined;
  let pluginSocket: PluginSocket | undefined;
  let stopping = false;
  let releasing: Promise<void> | undefined;
  /** SIGTERM came while Terraform was connected: it is stopping gracefully. */
  let terminating = false;
  let unwatchParent: (() => void) | undefined;
  let connections: Connections | undefined;
  let resolveDone!: () => void;
  const done = new Promise<void>((resolve) => (resolveDone = resolve));
  const signalHandlers: Array<[NodeJS.Signals, () => void]> = [];
  const onRejection = (reason: unknown): void => log('error', `unhandled promise rejection: ${reason instanceof Error ? reason.stack : String(reason)}`);

  const shutdown = (reason: string, graceMs: number): void => {
    if (stopping || server === undefined) return;
    stopping = true;
    log('debug', `shutting down: ${reason}`);
    unwatchParent?.();
    connections?.stop();
    const running = server;
    const force = setTimeout(() => running.destroy(), graceMs);
    force.unref();
    running.close(() => {
      clearTimeout(force);
      if (pluginSocket !== undefined) {
        pluginSocket.remove();
        process.off('exit', pluginSocket.remove);
      }
      for (const [sig, fn] of signalHandlers) process.off(sig, fn);
      process.off('unhandledRejection', onRejection);
      resolveDone();
      exit(0);
    });
  };

  // Once only, whichever comes first: a second release would send a delete again (a 401 must not be).
  const release = (withinMs: number): Promise<void> => (releasing ??= releaseOpen(provider, withinMs, log));

  /** Terraform will call nothing more (it is gone, or closed its connection after SIGTERM): release, then exit. */
  const endWithoutShutdown = (reason: string): void => {
    if (stopping) return;
    log('debug', `${reason}: releasing what the run left open, then exiting`);
    void release(RELEASE_UNATTENDED_MS).then(() => shutdown(reason, 250));
  };

  const handlers = createProviderHandlers(provider, { logger, providerName: opts.providerName }) as unknown as Record<string, UnaryHandler>;
  const controller: Record<string, UnaryHandler> = {
    Shutdown: async () => {
      // Terraform is done with us; go-plugin kills the process if it is still there 2 s later,
      // counted from this answer: what the run left open is released before it.
      await release(RELEASE_ON_SHUTDOWN_MS);
      setImmediate(() => shutdown('Shutdown called by Terraform', 250));
      return {};
    },
  };
  const services: Services = [
    [ProviderService, handlers],
    [GRPCControllerService, controller],
  ];

  let tls: MutualTls | undefined;
  let certDer: Uint8Array | undefined;
  if (check.clientCertPem) {
    const cert = createSelfSignedCertificate({ commonName: 'localhost', dnsNames: ['localhost'], validDays: 30 });
    certDer = cert.certDer;
    tls = { keyPem: cert.keyPem, certPem: cert.certPem, clientCertPem: check.clientCertPem };
  } else {
    log('warn', 'PLUGIN_CLIENT_CERT is not set: serving without TLS');
  }

  const listenOptions = {
    routes: unaryRoutes(services),
    tls,
    maxMessageBytes: MAX_MESSAGE_BYTES,
    onInternalError: (path: string, err: unknown) => log('error', `${path}: internal error: ${err instanceof Error ? err.stack : String(err)}`),
    onRefusedClient: (reason: string) => log('warn', `refused a connection: ${reason}`),
  };
  const socket = (opts.network ?? 'unix') === 'unix' ? makePluginSocket(env) : 'a loopback port was asked for';
  if (typeof socket === 'string') {
    log('debug', `serving on a loopback port: ${socket}`);
    server = await listenUnary(listenOptions);
  } else {
    try {
      server = await listenUnary({ ...listenOptions, socketPath: socket.path });
      pluginSocket = socket;
      if (opts.handleSignals ?? true) process.once('exit', socket.remove);
    } catch (err) {
      socket.remove();
      log('warn', `cannot listen on ${socket.path} (${(err as NodeJS.ErrnoException).code ?? String(err)}): serving on a loopback port`);
      server = await listenUnary(listenOptions);
    }
  }

  if (opts.handleSignals ?? true) {
    const graceMs = opts.shutdownGraceMs ?? 60_000;
    const onInt = (): void => log('debug', 'ignoring SIGINT: Terraform sends StopProvider and waits for in-flight work');
    const onTerm = (): void => {
      if (stopping || terminating) return;
      if (connections === undefined || connections.open() === 0) {
        // No Terraform connected: nobody is left to use what the run opened.
        void release(RELEASE_ON_SHUTDOWN_MS).then(() => shutdown('SIGTERM', graceMs));
        return;
      }
      // Terraform takes SIGTERM as it takes Ctrl-C (the whole process group gets it from a CI
      // runner's cancel or timeout(1)): it lets the operations in flight finish, another
      // provider's with the token this process opened among them, then calls Shutdown. Serve it
      // until then, however long its writes take (one cut off would leave an object no state
      // holds); release early only when it closes its connection or is gone.
      terminating = true;
      log('debug', 'SIGTERM: Terraform stops gracefully; serving until it calls Shutdown, closes its connection or exits');
    };
    signalHandlers.push(['SIGINT', onInt], ['SIGTERM', onTerm]);
    for (const [sig, fn] of signalHandlers) process.on(sig, fn);
    process.on('unhandledRejection', onRejection);
    // Terraform reads this process's stdout and stderr: once it is gone (killed), a write there
    // fails with EPIPE, which must not kill the process before it releases what the run opened.
    for (const stream of [process.stdout, process.stderr]) stream.on('error', ignoreStreamError);
    // A Terraform killed with SIGKILL calls no Shutdown: without this, the process would serve
    // nobody forever, holding what the run opened. Its parent is watched rather than its
    // connection: grpc-go may close an idle connection (channel idleness, 30 minutes by default)
    // and open another on the next call, which the token's provider in a long apply may see.
    unwatchParent = watchParent(() => endWithoutShutdown('Terraform, the parent process, is gone'));
    // After SIGTERM, though, a Terraform that closes its connection will not call Shutdown.
    connections = countConnections(() => {
      if (terminating) endWithoutShutdown('Terraform closed its connection after SIGTERM');
    });
  }

  const line = `${formatHandshakeLine(server.network, server.address, certDer)}\n`;
  if (opts.stdout !== undefined) opts.stdout.write(line);
  else if (!writeStandardOutput(line)) log('debug', 'standard output would block: the handshake line goes through process.stdout');
  log('debug', 'plugin serving', { network: server.network, address: server.address, tls: certDer !== undefined, ...opts.startupFields });
  if (opts.afterHandshake !== undefined) setImmediate(opts.afterHandshake);
  return done;
}

/**
 * Writes `text` to file descriptor 1 directly: process.stdout is a stream Node builds on first use
 * (about 1.5 ms of every start, for one line). Go's os/exec hands the plugin a blocking pipe; what
 * a standard output that would block (EAGAIN: non-blocking and full) did not take goes through
 * `stream`, which waits for room. Returns false in that case.
 * @param write the direct write @default node:fs writeSync
 * @param stream @default process.stdout
 */
export function writeStandardOutput(
  text: string,
  write: (fd: number, data: Uint8Array, offset: number) => number = writeSync,
  stream?: NodeJS.WritableStream,
): boolean {
  const bytes = Buffer.from(text);
  let written = 0;
  try {
    while (written < bytes.length) written += write(1, bytes, written);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EAGAIN') throw err;
    (stream ?? process.stdout).write(bytes.subarray(written));
    return false;
  }
}
