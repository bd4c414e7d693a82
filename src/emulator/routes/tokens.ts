// /api/tokens/ and /api/token/*: bearer tokens of the caller or of one of its sub-accounts.
// Basic authentication only (the router refuses Bearer with 403).
import { formatApiDateTime } from '../clock';
import { HttpError } from '../http';
import type { Route, RouteContext } from '../router';
import { hashToken, newRawToken } from '../secrets';
import { isExpired, type Account, type Token } from '../store';
import { checkExpiryDate, checkId, checkMaxLength, MAX_TOKEN_LABEL, required } from '../validation';
import { planOf, targetAccount } from './target';

/** Token metadata as the API returns it; `is_active` is false once the token has expired. */
export function tokenMetadata(token: Token, now: number): Record<string, unknown> {
  return {
    id: token.id,
    label: token.label,
    is_active: token.active && !isExpired(token, now),
    expires_at: token.expiresAt === null ? null : formatApiDateTime(token.expiresAt),
    created_at: formatApiDateTime(token.createdAt),
  };
}

/** 402 unless the plan governing `account` has bearer tokens; returns the allowance. */
function requireTokenPlan(ctx: RouteContext, account: Account): number {
  const plan = planOf(ctx.store, account);
  if (plan.limits.tokens === 0) throw new HttpError(402, `plan ${plan.name} does not include bearer tokens`);
  return plan.limits.tokens;
}

/** The token named by the required `id`, in the target account; 404 when it has none such. */
function namedToken(ctx: RouteContext): Token {
  const id = checkId(required(ctx.params, 'id'));
  const token = ctx.store.tokens.byId(targetAccount(ctx).id, id);
  if (!token) throw new HttpError(404, 'token not found');
  return token;
}

function create(ctx: RouteContext): { status: number; json: unknown } {
  const label = checkMaxLength(ctx.params.get('label') ?? '', 'label', MAX_TOKEN_LABEL);
  const expiresText = ctx.params.get('expires_at') ?? '';
  const expiresAt = expiresText === '' ? null : checkExpiryDate(expiresText, ctx.now);
  const account = targetAccount(ctx);
  const allowance = requireTokenPlan(ctx, account);
  return ctx.store.transaction(() => {
    if (ctx.store.tokens.count(account.id) >= allowance) {
      throw new HttpError(402, `token limit reached (${allowance} per account on plan ${planOf(ctx.store, account).name})`);
    }
    const raw = newRawToken(ctx.settings.tokenPrefix);
    const token = ctx.store.tokens.create(account.id, label, hashToken(raw), expiresAt, ctx.now);
    return { status: 200, json: { ...tokenMetadata(token, ctx.now), token: raw } };
  });
}

function activate(ctx: RouteContext): { status: number; json: unknown } {
  const token = namedToken(ctx);
  if (isExpired(token, ctx.now)) throw new HttpError(400, 'token has expired and cannot be activated');
  requireTokenPlan(ctx, ctx.store.accounts.byId(token.accountId)!);
  ctx.store.tokens.setActive(token.id, true, ctx.now);
  return { status: 200, json: tokenMetadata({ ...token, active: true }, ctx.now) };
}

function deactivate(ctx: RouteContext): { status: number; json: unknown } {
  const token = namedToken(ctx);
  ctx.store.tokens.setActive(token.id, false, ctx.now);
  return { status: 200, json: tokenMetadata({ ...token, active: false }, ctx.now) };
}

/** The bearer-token endpoints. */
export const tokenRoutes: readonly Route[] = [
  {
    method: 'GET',
    path: '/api/tokens/',
    basicOnly: true,
    fields: ['username'],
    handle: (ctx) => {
      const account = targetAccount(ctx);
      requireTokenPlan(ctx, account);
      return { status: 200, json: { tokens: ctx.store.tokens.list(account.id).map((t) => tokenMetadata(t, ctx.now)) } };
    },
  },
  { method: 'POST', path: '/api/token/create/', basicOnly: true, fields: ['label', 'expires_at', 'username'], handle: create },
  { method: 'POST', path: '/api/token/deactivate/', basicOnly: true, fields: ['id', 'username'], handle: deactivate },
  { method: 'POST', path: '/api/token/activate/', basicOnly: true, fields: ['id', 'username'], handle: activate },
  {
    method: 'POST',
    path: '/api/token/delete/',
    basicOnly: true,
    fields: ['id', 'username'],
    handle: (ctx) => {
      ctx.store.tokens.delete(namedToken(ctx).id);
      return { status: 204, empty: true };
    },
  },
];
