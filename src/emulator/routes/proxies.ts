// /api/proxies/ and /api/proxy/*: authorized proxies of the calling parent, chosen from the
// catalogue. Duplicate adds and deletes of absent proxies change nothing (the API contract).
import { fullProxyDomain, lookupProxy, PROXY_CATALOGUE, type CatalogueProxy } from '../catalogue';
import { HttpError } from '../http';
import type { Route, RouteContext } from '../router';
import { checkSafeText, required } from '../validation';
import { planOf } from './target';

function resolve(ctx: RouteContext): CatalogueProxy {
  // Checked before the lookup, which trims: "us-ny\n" must be refused, not read as us-ny.
  const found = lookupProxy(checkSafeText(required(ctx.params, 'proxy'), 'proxy'), ctx.settings.proxyDomain);
  if (!found.ok) throw new HttpError(400, `proxy: not recognized: ${found.reason}`);
  return found.proxy;
}

function list(ctx: RouteContext): { status: number; json: unknown } {
  const hosts = ctx.store.access.proxies(ctx.caller.account.id);
  const proxies = hosts.map((host) => {
    const port = PROXY_CATALOGUE.find((p) => p.host === host)?.port ?? 0;
    return `${fullProxyDomain(host, ctx.settings.proxyDomain)}:${port}`;
  });
  return { status: 200, json: { proxies } };
}

function add(ctx: RouteContext): { status: number; json: unknown } {
  const proxy = resolve(ctx);
  const account = ctx.caller.account;
  return ctx.store.transaction(() => {
    if (!ctx.store.access.hasProxy(account.id, proxy.host)) {
      const plan = planOf(ctx.store, account);
      if (ctx.store.access.proxies(account.id).length >= plan.limits.proxies) {
        throw new HttpError(402, `plan ${plan.name} allows at most ${plan.limits.proxies} proxies`);
      }
      ctx.store.access.addProxy(account.id, proxy.host);
    }
    return { status: 200, json: { proxy: fullProxyDomain(proxy.host, ctx.settings.proxyDomain) } };
  });
}

/** The authorized-proxy endpoints. */
export const proxyRoutes: readonly Route[] = [
  { method: 'GET', path: '/api/proxies/', parentOnly: true, fields: [], handle: list },
  { method: 'POST', path: '/api/proxy/add/', parentOnly: true, fields: ['proxy'], handle: add },
  {
    method: 'POST',
    path: '/api/proxy/delete/',
    parentOnly: true,
    fields: ['proxy'],
    handle: (ctx) => {
      ctx.store.access.deleteProxy(ctx.caller.account.id, resolve(ctx).host);
      return { status: 204, empty: true };
    },
  },
];
