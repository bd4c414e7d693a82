// The API's route table: which handler serves a method and path, what authentication it needs,
// and the 404/405 answers for everything else.
import type { Caller } from './auth';
import { HttpError, isPlainName, type Params, type Reply } from './http';
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
  /**
   * The names it takes (query parameters of a GET, form fields of a POST); any other is refused
   * with 400, so that a typo (`usernme=alice`) fails instead of acting on the caller.
   */
  readonly fields: readonly string[];
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

/**
 * 400 for the first name of `params` that `route` does not take. The name is quoted only when it
 * is plain, and never where the route takes a password: a password holding an unencoded `&`
 * leaves its tail as a name.
 */
export function refuseUnknownFields(route: Route, params: Params): void {
  const unknown = [...params.keys()].find((name) => !route.fields.includes(name));
  if (unknown === undefined) return;
  const takes = `${route.method} ${route.path} takes ${route.fields.length === 0 ? 'none' : route.fields.join(', ')}`;
  if (!isPlainName(unknown)) throw new HttpError(400, `unknown field, with a name of other characters than letters, digits and _ (${takes})`);
  if (route.fields.includes('password')) throw new HttpError(400, `unknown field, not named here since it may be part of a password (${takes})`);
  throw new HttpError(400, `${unknown}: unknown field (${takes})`);
}
