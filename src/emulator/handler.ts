// The HTTPS request pipeline: control API, body, injected faults, ban, route lookup, form,
// authentication, handler, faults that act on the answer. Every failure becomes a response; nothing a client sends can crash it.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { authenticate, type BanList, type Caller } from './auth';
import { handleControl, type ControlDeps } from './control';
import { actsAfterServing, replacesRequest, type Fault, type FaultList } from './faults';
import { InFlight } from './in-flight';
import {
  decodeFormBody,
  forbidsContent,
  HttpError,
  httpDate,
  IncompleteBodyError,
  parseForm,
  readBody,
  sendEmpty,
  sendReply,
  sendText,
  splitUrl,
  type Params,
  type Reply,
} from './http';
import { type ApiSettings, refuseUnknownFields, type Route } from './router';

/** Everything the pipeline needs. */
export interface HandlerDeps extends ControlDeps {
  readonly settings: ApiSettings;
  readonly bans: BanList;
  readonly faults: FaultList;
  /** Writes one log line (to stderr in the CLI). */
  readonly log: (line: string) => void;
  /** The requests being served, which a shutdown drains. @default one of the handler's own */
  readonly inFlight?: InFlight;
}

/**
 * What became of a request: the status it was answered with (or, its client gone before the
 * answer, would have been), `dropped` when a fault dropped its connection without an answer, or
 * `incomplete` when its connection ended before its body was whole: it was not served, and
 * whatever the client got came from Node's HTTP layer (server.ts answers a request not whole in
 * time with 408), not from here.
 */
type Outcome = number | 'dropped' | 'incomplete' | 'cut';

/** Creates the HTTPS request listener. */
export function createRequestHandler(deps: HandlerDeps): (req: IncomingMessage, res: ServerResponse) => void {
  const inFlight = deps.inFlight ?? new InFlight();
  return (req, res) => {
    const started = process.hrtime.bigint();
    const { path, query } = splitUrl(req.url);
    inFlight.begin(res, req.method ?? '-', path, started);
    let note = '';
    // Every answer is dated by the emulator's clock, not Node's: clients judge expiry by it.
    res.setHeader('Date', httpDate(deps.clock.now()));
    // Logged when the request is done with, not when its connection closes: a request whose client
    // stopped waiting is still served, and its line must say with what (someone counting writes
    // in the log looks for the one that made an orphan).
    serve(req, res, path, query, deps, inFlight)
      .catch((err: unknown): Outcome => {
        if (err instanceof IncompleteBodyError && !canAnswer(res)) return 'incomplete';
        if (err instanceof HttpError) return send(res, err);
        note = ' (internal error, see above)';
        deps.log(`error: ${req.method ?? '-'} ${path}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
        if (!res.headersSent) return send(res, new HttpError(500, 'internal server error'));
        res.destroy();
        return res.statusCode;
      })
      .then((outcome) => {
        // Cut by a shutdown, which wrote its line.
        if (!inFlight.end(res)) return;
        const ms = Number(process.hrtime.bigint() - started) / 1e6;
        // An answer never written although the request came to a status: its client had gone.
        const gone = typeof outcome === 'number' && !res.headersSent ? ' (client gone)' : '';
        // Path only: query strings and bodies stay out of the log.
        deps.log(`${req.method ?? '-'} ${path} ${outcome} ${ms.toFixed(1)}ms${gone}${note}`);
      });
  };
}

async function serve(req: IncomingMessage, res: ServerResponse, path: string, query: string, deps: HandlerDeps, inFlight: InFlight): Promise<Outcome> {
  const method = req.method ?? 'GET';
  if (path.startsWith('/_emulator/')) return send(res, await handleControl(req, path, deps));
  // The body is read before any fault: Node's request timeout counts until the body has arrived,
  // so a delayed request must not leave it unread.
  const body = await readBody(req);
  const fault = deps.faults.take(method, path);
  if (fault && replacesRequest(fault)) return replaceWithFault(fault, req, res, inFlight);
  // A request that has arrived is served even when its client has stopped waiting meanwhile, as a
  // real server does: a client that gives up on a sent write must find it made.
  if (fault?.delayMs !== undefined && fault.delayMs > 0) await sleep(fault.delayMs, undefined, { ref: false });
  // A shutdown cut it while it waited: it is not served (the store may be closed).
  if (inFlight.isCut(res)) return 'cut';
  let answer: Reply | HttpError;
  try {
    answer = answerRequest(req, method, path, query, body, deps);
  } catch (err) {
    if (!(err instanceof HttpError)) throw err;
    answer = err;
  }
  inFlight.served(res);
  if (fault && actsAfterServing(fault)) {
    // The change (if any) is committed: what follows only loses or delays the answer.
    if (fault.delayAfterMs !== undefined && fault.delayAfterMs > 0) await sleep(fault.delayAfterMs, undefined, { ref: false });
    if (inFlight.isCut(res)) return 'cut';
    if (fault.dropResponse === true) {
      req.socket.destroy();
      return 'dropped';
    }
    if (fault.statusAfterServing !== undefined) answer = new HttpError(fault.statusAfterServing, 'injected fault after serving the request');
  }
  return send(res, answer);
}

/**
 * Writes `answer` unless the client has gone (then nothing can be written); returns its status
 * either way.
 */
function send(res: ServerResponse, answer: Reply | HttpError): number {
  if (canAnswer(res)) {
    if (answer instanceof HttpError) sendText(res, answer.status, answer.message, answer.headers);
    else sendReply(res, answer);
  }
  return answer.status;
}

/** Whether an answer can still be written: the connection is open and nothing was sent on it. */
function canAnswer(res: ServerResponse): boolean {
  return !res.destroyed && !res.headersSent;
}

/** Ban, route, form, authentication and the endpoint itself; throws {@link HttpError}. */
function answerRequest(req: IncomingMessage, method: string, path: string, query: string, body: Buffer, deps: HandlerDeps): Reply {
  const address = clientAddress(req);
  const banLeft = deps.bans.banSecondsLeft(address);
  if (banLeft !== undefined) {
    throw new HttpError(429, `client address banned after repeated authentication failures; retry in ${banLeft} s`, {
      'Retry-After': String(banLeft),
    });
  }
  const route = deps.router.match(method, path);
  const params = requestParams(req, method, query, body);
  refuseUnknownFields(route, params);
  const caller = authorize(req, route, address, deps);
  return route.handle({ store: deps.store, now: deps.clock.now(), caller, params, settings: deps.settings });
}

/**
 * The parameters of a request: its query string on a GET, its form body on a POST. A POST's
 * query string is refused, not ignored: `POST /api/ip/add/?username=alice` would otherwise act on
 * the caller, as if `username` had not been given.
 */
function requestParams(req: IncomingMessage, method: string, query: string, body: Buffer): Params {
  if (method !== 'POST') return parseForm(query, 'query string');
  if (query !== '') throw new HttpError(400, 'query string on a POST: parameters of a POST go in its form body (application/x-www-form-urlencoded)');
  return decodeFormBody(req.headers['content-type'], body);
}

/** Answers with a fault instead of serving the request (after its `delayMs`, if any). */
async function replaceWithFault(fault: Fault, req: IncomingMessage, res: ServerResponse, inFlight: InFlight): Promise<Outcome> {
  if (fault.delayMs !== undefined && fault.delayMs > 0) await sleep(fault.delayMs, undefined, { ref: false });
  if (inFlight.isCut(res)) return 'cut';
  if (fault.reset === true) {
    req.socket.destroy();
    return 'dropped';
  }
  const status = fault.status ?? 500;
  // Its client gone during the delay: nothing to write, and the line says so.
  if (res.destroyed) return status;
  const text = status === 503 ? 'subscription plan lookup failed; retry after a few minutes' : 'injected fault';
  const headers: Record<string, string> = fault.retryAfterSeconds === undefined ? {} : { 'Retry-After': String(fault.retryAfterSeconds) };
  if (forbidsContent(status)) sendEmpty(res, status, headers);
  else sendText(res, status, text, headers);
  return status;
}

/** Authenticates the request and applies the route's policy (401, 403). */
function authorize(req: IncomingMessage, route: Route, address: string, deps: HandlerDeps): Caller {
  const result = authenticate(req.headers.authorization, deps.store, deps.clock.now());
  if (!result.ok) {
    if (result.counted) deps.bans.recordFailure(address);
    throw new HttpError(401, result.message, { 'WWW-Authenticate': 'Basic realm="proxyaccount", Bearer' });
  }
  const { caller } = result;
  if (route.basicOnly && caller.scheme === 'bearer') {
    throw new HttpError(403, 'token endpoints require Basic authentication');
  }
  if (route.parentOnly && caller.account.parentId !== null) {
    throw new HttpError(403, 'sub-account credentials cannot use this endpoint');
  }
  return caller;
}

function clientAddress(req: IncomingMessage): string {
  const address = req.socket.remoteAddress ?? 'unknown';
  return address.startsWith('::ffff:') ? address.slice(7) : address;
}
