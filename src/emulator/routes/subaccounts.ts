// /api/sub/*: sub-accounts of the calling parent (sub-account callers are refused by the router).
import { HttpError, type Params } from '../http';
import type { Route, RouteContext } from '../router';
import { currentPeriodStart, type Account, type ProfileChanges, type Store } from '../store';
import { checkEmail, checkLimit, checkMaxLength, checkPassword, checkUsername, required } from '../validation';
import { ownSubAccount, parentOf, planOf } from './target';

/** Sub-account details as the API returns them (AccountDetails). */
export function accountDetails(store: Store, account: Account, now: number): Record<string, unknown> {
  const since = currentPeriodStart(parentOf(store, account).periodAnchor, now);
  const usage = store.accounts.usage(account.id, since);
  const details: Record<string, unknown> = {
    username: account.username,
    active: account.active,
    monthly_bandwidth: usage.periodBytes / 1e9,
    monthly_bandwidth_limit: account.monthlyLimit,
    total_bandwidth: usage.totalBytes / 1e9,
    total_bandwidth_limit: account.totalLimit,
  };
  if (account.firstName !== null) details['first_name'] = account.firstName;
  if (account.lastName !== null) details['last_name'] = account.lastName;
  if (account.email !== null) details['email'] = account.email;
  return details;
}

/**
 * Reads the optional fields of create/edit. Absent fields are left undefined (edit keeps the
 * current value); an empty text field clears it (null); an empty password or limit counts as absent.
 */
function readProfile(params: Params): ProfileChanges {
  const text = (field: string): string | null | undefined => {
    const value = params.get(field);
    if (value === undefined) return undefined;
    if (value === '') return null;
    return field === 'email' ? checkEmail(value) : checkMaxLength(value, field, 20);
  };
  const limit = (field: string): number | undefined => {
    const value = params.get(field);
    return value === undefined || value === '' ? undefined : checkLimit(value, field);
  };
  const password = params.get('password');
  return {
    password: password === undefined || password === '' ? undefined : checkPassword(password),
    firstName: text('first_name'),
    lastName: text('last_name'),
    email: text('email'),
    monthlyLimit: limit('monthly_limit'),
    totalLimit: limit('total_limit'),
  };
}

function create(ctx: RouteContext): { status: number; json: unknown } {
  const username = checkUsername(required(ctx.params, 'username'));
  const profile = readProfile(ctx.params);
  const parent = ctx.caller.account;
  return ctx.store.transaction(() => {
    if (ctx.store.accounts.byUsername(username)) throw new HttpError(400, 'username: username already taken');
    const plan = planOf(ctx.store, parent);
    const limit = parent.subAccountLimit ?? plan.limits.subAccounts;
    if (ctx.store.accounts.countSubAccounts(parent.id) >= limit) {
      throw new HttpError(402, `sub-account limit reached (${limit} on plan ${plan.name})`);
    }
    const account = ctx.store.accounts.createSubAccount(parent, username, profile, ctx.now);
    return { status: 200, json: accountDetails(ctx.store, account, ctx.now) };
  });
}

function edit(ctx: RouteContext): { status: number; json: unknown } {
  const username = checkUsername(required(ctx.params, 'username'));
  const profile = readProfile(ctx.params);
  const account = ownSubAccount(ctx, username);
  ctx.store.accounts.update(account.id, profile);
  return { status: 200, json: accountDetails(ctx.store, ctx.store.accounts.byId(account.id)!, ctx.now) };
}

/** The sub-account named by the required `username` parameter. */
function named(ctx: RouteContext): Account {
  return ownSubAccount(ctx, checkUsername(required(ctx.params, 'username')));
}

function setActive(active: boolean) {
  return (ctx: RouteContext): { status: number; json: unknown } => {
    const account = named(ctx);
    ctx.store.accounts.setActive(account.id, active);
    return { status: 200, json: accountDetails(ctx.store, ctx.store.accounts.byId(account.id)!, ctx.now) };
  };
}

/** The fields of create and edit. */
const PROFILE_FIELDS = ['username', 'password', 'first_name', 'last_name', 'email', 'monthly_limit', 'total_limit'];

/** The sub-account endpoints. */
export const subAccountRoutes: readonly Route[] = [
  { method: 'POST', path: '/api/sub/create/', parentOnly: true, fields: PROFILE_FIELDS, handle: create },
  { method: 'POST', path: '/api/sub/edit/', parentOnly: true, fields: PROFILE_FIELDS, handle: edit },
  {
    method: 'GET',
    path: '/api/sub/get/',
    parentOnly: true,
    fields: ['username'],
    handle: (ctx) => ({ status: 200, json: accountDetails(ctx.store, named(ctx), ctx.now) }),
  },
  { method: 'POST', path: '/api/sub/deactivate/', parentOnly: true, fields: ['username'], handle: setActive(false) },
  { method: 'POST', path: '/api/sub/activate/', parentOnly: true, fields: ['username'], handle: setActive(true) },
  {
    method: 'POST',
    path: '/api/sub/delete/',
    parentOnly: true,
    fields: ['username'],
    handle: (ctx) => {
      ctx.store.accounts.delete(named(ctx).id);
      return { status: 200, empty: true };
    },
  },
];
