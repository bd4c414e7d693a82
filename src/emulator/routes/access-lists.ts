// /api/ip*/ and /api/hostname*/: authorized IPs and hostnames of the caller or of one of its
// sub-accounts (`username`). Duplicate adds and deletes of absent entries are 400s (the API contract).
import { HttpError } from '../http';
import { MAX_AUTHORIZED_IPS } from '../plans';
import type { Route, RouteContext } from '../router';
import { checkHostname, checkIpv4, checkMaxLength, checkSafeText, MAX_IP_LABEL, required } from '../validation';
import { targetAccount } from './target';

function addIp(ctx: RouteContext): { status: number; json: unknown } {
  const ip = checkIpv4(required(ctx.params, 'ip'));
  const label = checkMaxLength(ctx.params.get('label') ?? '', 'label', MAX_IP_LABEL);
  const account = targetAccount(ctx);
  return ctx.store.transaction(() => {
    if (ctx.store.access.hasIp(account.id, ip)) throw new HttpError(400, 'ip: this IP address is already authorized');
    if (ctx.store.access.countIps(account.id) >= MAX_AUTHORIZED_IPS) {
      throw new HttpError(400, `ip: authorized IP limit (${MAX_AUTHORIZED_IPS}) reached`);
    }
    ctx.store.access.addIp(account.id, ip, label);
    return { status: 200, json: label === '' ? { ip } : { ip, label } };
  });
}

function deleteIp(ctx: RouteContext): { status: 204; empty: true } {
  const ip = checkIpv4(required(ctx.params, 'ip'));
  const account = targetAccount(ctx);
  if (!ctx.store.access.deleteIp(account.id, ip)) throw new HttpError(400, 'ip: this IP address is not authorized');
  return { status: 204, empty: true };
}

function addHostname(ctx: RouteContext): { status: number; json: unknown } {
  const domain = checkHostname(required(ctx.params, 'domain'));
  const account = targetAccount(ctx);
  if (!ctx.store.access.addHostname(account.id, domain)) {
    throw new HttpError(400, 'domain: this hostname is already authorized');
  }
  return { status: 200, json: { domain } };
}

/**
 * Removes a listed hostname, spelled exactly as listed, whatever the syntax rule says of it: a
 * state file from before the rule's last change can hold one it now refuses (`0x7f000001`), and
 * a name that authorizes must stay removable. The rule only explains a value that matches none.
 */
function deleteHostname(ctx: RouteContext): { status: 204; empty: true } {
  const domain = checkSafeText(required(ctx.params, 'domain'), 'domain');
  const account = targetAccount(ctx);
  if (ctx.store.access.deleteHostname(account.id, domain)) return { status: 204, empty: true };
  checkHostname(domain);
  throw new HttpError(400, 'domain: this hostname is not authorized');
}

/** The authorized-IP and hostname endpoints. */
export const accessListRoutes: readonly Route[] = [
  { method: 'POST', path: '/api/ip/add/', fields: ['ip', 'label', 'username'], handle: addIp },
  { method: 'POST', path: '/api/ip/delete/', fields: ['ip', 'username'], handle: deleteIp },
  {
    method: 'GET',
    path: '/api/ips/',
    fields: ['username'],
    handle: (ctx) => ({ status: 200, json: { ips: ctx.store.access.ips(targetAccount(ctx).id).map((e) => e.ip) } }),
  },
  {
    method: 'GET',
    path: '/api/ip_labels/',
    fields: ['username'],
    handle: (ctx) => ({ status: 200, json: ctx.store.access.ips(targetAccount(ctx).id) }),
  },
  { method: 'POST', path: '/api/hostname/add/', fields: ['domain', 'username'], handle: addHostname },
  { method: 'POST', path: '/api/hostname/delete/', fields: ['domain', 'username'], handle: deleteHostname },
  {
    method: 'GET',
    path: '/api/hostnames/',
    fields: ['username'],
    handle: (ctx) => ({ status: 200, json: { domains: ctx.store.access.hostnames(targetAccount(ctx).id) } }),
  },
];
