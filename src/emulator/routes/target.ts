// Which account a request acts on: the caller, or one of its sub-accounts named by `username`.
import { HttpError } from '../http';
import { PLANS, type PlanLimits, type PlanName } from '../plans';
import type { RouteContext } from '../router';
import type { Account, Store } from '../store';
import { checkUsername } from '../validation';

/**
 * The account an IP, hostname or token request acts on. Without `username` it is the caller.
 * With it, the caller must be a parent (else 403), the name must be one (else 400: an empty one
 * too, since a script whose variable came out empty must not act on the parent), the account must
 * exist (else 404) and be one of the caller's sub-accounts (else 403).
 */
export function targetAccount(ctx: RouteContext): Account {
  const username = ctx.params.get('username');
  if (username === undefined) return ctx.caller.account;
  if (ctx.caller.account.parentId !== null) {
    throw new HttpError(403, 'username may only be passed when authenticated as the parent account');
  }
  return ownSubAccount(ctx, checkUsername(username));
}

/** One of the caller's sub-accounts: 404 when no account has that name, 403 when it is not the caller's. */
export function ownSubAccount(ctx: RouteContext, username: string): Account {
  const account = ctx.store.accounts.byUsername(username);
  if (!account) throw new HttpError(404, 'sub-account not found');
  if (account.parentId !== ctx.caller.account.id) {
    throw new HttpError(403, `${username} is not one of your sub-accounts`);
  }
  return account;
}

/** The parent of an account (itself when it is a parent). */
export function parentOf(store: Store, account: Account): Account {
  if (account.parentId === null) return account;
  const parent = store.accounts.byId(account.parentId);
  if (!parent) throw new Error(`sub-account ${account.id} has no parent`);
  return parent;
}

/** The plan that governs an account (its parent's, for a sub-account). */
export function planOf(store: Store, account: Account): { name: PlanName; limits: PlanLimits } {
  const name = parentOf(store, account).plan ?? 'trial';
  return { name, limits: PLANS[name] };
}
