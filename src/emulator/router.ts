// The API's route table: which handler serves a method and path, what authentication it needs,
// and the 404/405 answers for everything else.
import type { Caller } from './auth';
import { HttpError, type Params, type Reply } from './http';
import type { Store } from './store';

/** Settings the handlers need from the command line. */
export interface ApiSettings {
  /** Domain of the proxy catalogue, e.g. `proxy.example.net`. */
  readonly proxyDomain: string;
  /** Prefix of raw bearer tokens, e.g. `pxa_`. */
  readonly tokenPrefix: string;
}

/** What a handler gets. */
export interface RouteContext {
  readonly store: Store;
  /** Emulator time of this request (ms). */
  readonly now: number;
  readonly caller: Caller;
  /** Query parameters for GET, form fields for POST. */
  readonly params: Params;
  readonly settings: ApiSettings;
}

/** One endpoint of the API. */
export interface Route {
  readonly method: 'GET' | 'POST';
  /** Exact path, with its trailing slash. */
  readonly path: string;
  /** Refuse Bearer authentication (token endpoints). */
  readonly basicOnly?: boolean;
  /** Refuse sub-account callers (sub-account and proxy endpoints). */
  readonly parentOnly?: boolean;
  /** Serves the request; errors are thrown as {@link HttpError}. */
  handle(ctx: RouteContext): Reply;
}

/** Looks routes up by path, then method. */
export class Router {
  private readonly byPath = new Map<string, Map<string, Route>>();

  constructor(private readonly routes: readonly Route[]) {
    for (const route of routes) {
      const methods = this.byPath.get(route.path) ?? new Map<string, Route>();
      if (methods.has(route.method)) throw new Error(`duplicate route ${route.method} ${route.path}`);
      methods.set(route.method, route);
      this.byPath.set(route.path, methods);
    }
  }

  /** The route for `method` and `path`; throws 404 for an unknown path, 405 for a wrong method. */
  match(method: string, path: string): Route {
    const methods = this.byPath.get(path);
    if (!methods) {
      const hint = path.startsWith('/api/') && !path.endsWith('/') && this.byPath.has(`${path}/`) ? ` (did you mean ${path}/?)` : '';
      throw new HttpError(404, `not found${hint}`);
    }
    const route = methods.get(method);
    if (!route) {
      const allow = [...methods.keys()].join(', ');
      throw new HttpError(405, `method ${method} not allowed here; use ${allow}`, { Allow: allow });
    }
    return route;
  }

  /** Every route's method and path (what a fault may name). */
  list(): ReadonlyArray<{ readonly method: string; readonly path: string }> {
    return this.routes.map(({ method, path }) => ({ method, path }));
  }
}
