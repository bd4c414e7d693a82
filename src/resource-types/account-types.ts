// The account types: a sub-account (the account itself) and a bearer token of an account.
import { isEphemeralTokenLabel, LEFTOVER_NOT_ADOPTED } from './ephemeral-tokens';
import { entryIdFormat, SUB_ACCOUNT_ID } from './import-ids';
import type { ChangeView, ExportValue, Owner, ResourceTypeDescriptor, Risk } from './types';
import { accountPhrase, activeChange, activeNotShown, activeRisks, forgetRisk, gb, str, subjectValues, verb } from './words';

/** The attributes that set a sub-account's password: a change of any sends a new one. */
const PASSWORD_ATTRIBUTES = ['password', 'password_wo', 'password_wo_version'] as const;

function describeSubAccount(c: ChangeView): string {
  const { kind, before, after } = c;
  if (kind === 'create') return `sub-account created (${createdParts(c).join(', ')})`;
  if (kind === 'delete') return 'sub-account deleted';
  // Under another username it is a new sub-account: the old one's deletion is listed under its own name.
  const old = kind === 'replace' ? renamedFrom(c) : undefined;
  if (old !== undefined) return `sub-account created (${createdParts(c).join(', ')}), replacing sub-account '${old}'`;
  if (kind === 'replace') return 'sub-account replaced (deleted and created again)';
  if (kind === 'import') return 'sub-account imported';
  if (kind === 'forget') return `sub-account ${verb(kind)}`;
  const parts: string[] = [];
  for (const [attr, name] of [
    ['monthly_limit', 'monthly limit'],
    ['total_limit', 'total limit'],
  ] as const) {
    if (before[attr] !== after[attr]) parts.push(`${name} ${gb(before[attr])} → ${gb(after[attr])}`);
  }
  const active = activeChange(c);
  if (active !== undefined) parts.push(active === 'unknown' || active === 'hidden' ? activeNotShown(active) : active);
  for (const attr of ['first_name', 'last_name', 'email'] as const) {
    if (before[attr] !== after[attr]) parts.push(`${attr.replace('_', ' ')} ${str(before[attr]) ?? '(none)'} → ${str(after[attr]) ?? '(none)'}`);
  }
  if (PASSWORD_ATTRIBUTES.some((k) => c.secretsChanged.has(k))) parts.push('password changed');
  return parts.length > 0 ? parts.join(', ') : 'sub-account changed';
}

/** What a new sub-account is given: its limits, and whether it starts inactive. */
function createdParts(c: ChangeView): string[] {
  const parts = [`monthly limit ${gb(c.after.monthly_limit)}`, `total limit ${gb(c.after.total_limit)}`];
  if (c.unknown.has('active')) parts.push(activeNotShown('unknown'));
  else if (c.hidden.has('active')) parts.push(activeNotShown('hidden'));
  else if (c.after.active === false) parts.push('inactive');
  return parts;
}

/** The old username of a sub-account whose change gives it another, both shown; undefined otherwise. */
function renamedFrom(c: ChangeView): string | undefined {
  const before = str(c.before.username);
  const after = str(c.after.username);
  return before !== undefined && after !== undefined && before !== after ? before : undefined;
}

function subAccountRisks(c: ChangeView, owner: Owner): Risk[] {
  const who = owner.phrase;
  const out: Risk[] = [];
  if (c.kind === 'delete') {
    out.push({
      kind: 'sub_account_deleted',
      message: `${who} is deleted: its usage history and credentials are lost for good, and its authorized IPs, hostnames and tokens are deleted with it`,
    });
  }
  if (c.kind === 'forget') {
    // The API cannot list sub-accounts: one no state names is out of every later drift scan.
    out.push(forgetRisk(who, 'its credentials and access lists keep working, and drift runs no longer scan it'));
  }
  if (c.kind === 'replace') {
    const renamed = typeof c.before.username === 'string' && c.before.username !== owner.username;
    const subject = renamed ? `sub-account '${c.before.username}' is replaced by '${owner.username}'` : `${who} is replaced`;
    // Under the same name, the entries this configuration manages plan no change (their username
    // stays): the state keeps them while the API has deleted them, until the next plan sees it.
    const entries = renamed
      ? 'its authorized IPs, hostnames and tokens are deleted with it'
      : 'its authorized IPs, hostnames and tokens are deleted with it, and those this configuration manages come back only on the next apply (this plan shows them unchanged)';
    // The provider forces it when the configuration stops declaring a password the API cannot clear.
    const why =
      c.replacedBy.has('password') || c.replacedBy.has('password_wo_version')
        ? ' because its password is removed from the configuration (the API cannot clear a password)'
        : '';
    out.push({ kind: 'sub_account_replaced', message: `${subject}${why}: deleted and created again, losing its usage history and credentials; ${entries}` });
  }
  if (c.kind === 'update') out.push(...activeRisks(c, who, 'its proxy requests get 402', 'its credentials work again'));
  // A new password replaces the old one at once: a rotation cuts off whoever still uses the old.
  // Not for a create (no one used it before), nor a replacement (flagged as such).
  if (c.kind === 'update' && PASSWORD_ATTRIBUTES.some((k) => c.secretsChanged.has(k))) {
    out.push({
      kind: 'password_changed',
      message: `${who} gets a new password: proxy clients and API callers still using the old one are refused once this is applied`,
    });
  }
  const usage = owner.usage;
  if (c.kind === 'update' && usage !== undefined) {
    for (const [attr, used, name] of [
      ['monthly_limit', usage.monthly, 'monthly'],
      ['total_limit', usage.total, 'total'],
    ] as const) {
      const limit = c.after[attr];
      if (typeof limit === 'number' && limit > 0 && limit !== c.before[attr] && limit < used) {
        out.push({
          kind: 'limit_below_usage',
          message: `${who}: ${name} limit ${limit} GB is below the ${used} GB already used; its proxy requests get 509 at once`,
        });
      }
    }
  }
  return out;
}

/**
 * The risk of a `removed` block forgetting an object of `owner`'s account (`what`): it stays in the
 * account with nothing managing it (`stays`: what that leaves), unless the plan deletes or replaces
 * the sub-account, which the API deletes it with, whatever the removed block says.
 */
export function forgottenRisk(what: string, owner: Owner, stays: string): Risk {
  const gone = owner.deletedBy;
  if (gone === undefined) return forgetRisk(what, stays);
  const verb = gone.kind === 'delete' ? 'deletes' : 'replaces';
  return {
    kind: 'no_longer_managed',
    message:
      `${what} is no longer managed by Terraform, and does not stay in the account: this plan ${verb} ${owner.phrase} (${gone.address}), ` +
      'and the API deletes its IPs, hostnames and tokens with it, whatever the removed block says',
  };
}

const SUB_ACCOUNT: ResourceTypeDescriptor = {
  typeName: 'proxyaccount_sub_account',
  noun: { one: 'sub-account', many: 'sub-accounts' },
  shape: 'account',
  collection: 'subAccounts',
  ownerAttribute: 'username',
  importId: SUB_ACCOUNT_ID,
  managedKeys: (v) => (typeof v.username === 'string' ? [v.username] : []),
  keyAttributes: ['username'],
  describeChange: describeSubAccount,
  name: (v) => (typeof v.username === 'string' ? `sub-account '${v.username}'` : 'sub-account'),
  summarize: (v) => {
    const parts = [`monthly ${gb(v.monthly_limit)}`, `total ${gb(v.total_limit)}`];
    if (v.active === false) parts.push('inactive');
    return parts.join(', ');
  },
  risks: subAccountRisks,
  export: {
    lists: 'any',
    blocks: (a) => {
      const d = a.details;
      if (d === undefined) return [];
      const attrs: Array<readonly [string, ExportValue]> = [['username', d.username]];
      if (d.firstName !== undefined) attrs.push(['first_name', d.firstName]);
      if (d.lastName !== undefined) attrs.push(['last_name', d.lastName]);
      if (d.email !== undefined) attrs.push(['email', d.email]);
      attrs.push(['monthly_limit', d.monthlyBandwidthLimit], ['total_limit', d.totalBandwidthLimit]);
      if (!d.active) attrs.push(['active', false]);
      return [
        {
          name: [d.username],
          importId: SUB_ACCOUNT_ID.format(d.username, d.username),
          attributes: attrs,
          comments: [
            'The password cannot be read back from the API. To manage it, set password_wo and',
            'password_wo_version (Terraform >= 1.11), or password; left out, the current one is kept.',
          ],
        },
      ];
    },
  },
};

const TOKEN_ID = entryIdFormat('TOKEN_ID', '42');

/**
 * "token 'ci'", or "token 8 'ci'" given its ID (not a secret); a label the plan does not show is
 * said to be hidden, not absent: "(no label)" would tell the reviewer the token has none.
 */
function tokenName(c: ChangeView, label: string | undefined, id?: unknown): string {
  const token = typeof id === 'number' ? `token ${id}` : 'token';
  if (label !== undefined) return `${token} '${label}'`;
  if (c.hidden.has('label') || c.hidden.has('*')) return `${token} (label marked sensitive)`;
  if (c.unknown.has('label') || c.unknown.has('*')) return `${token} (label known only after apply)`;
  return `${token} '(no label)'`;
}

const BEARER_TOKEN: ResourceTypeDescriptor = {
  typeName: 'proxyaccount_bearer_token',
  noun: { one: 'token', many: 'tokens' },
  shape: 'entry',
  collection: 'tokens',
  ownerAttribute: 'username',
  importId: TOKEN_ID,
  managedKeys: (v) => (typeof v.token_id === 'number' ? [String(v.token_id)] : []),
  keyAttributes: ['token_id'],
  // The API reports a token past its expiry date as inactive (from 00:00 UTC of that day).
  changedByItself: (before, after, at) =>
    before.active === true &&
    after.active === false &&
    typeof after.expires_at === 'string' &&
    at !== undefined &&
    Date.parse(`${after.expires_at}T00:00:00Z`) <= at.getTime()
      ? ['active']
      : [],
  describeChange: (c) => {
    const v = subjectValues(c);
    const name = tokenName(c, str(v.label) ?? str(c.before.label));
    if (c.kind === 'update') {
      const active = activeChange(c);
      if (active === 'unknown' || active === 'hidden') return `${name}: ${activeNotShown(active)}`;
      return `${name} ${active ?? 'changed'}`;
    }
    if (c.kind === 'create') return `${name} created${typeof v.expires_at === 'string' ? ` (expires ${v.expires_at})` : ''}`;
    // A replacement under another label (a count index shifted onto another token) deletes the
    // token of the old label: named beside the new, as an IP's old address is.
    const before = str(c.before.label);
    const after = str(c.after.label);
    if (c.kind === 'replace' && before !== undefined && after !== undefined && before !== after) return `token '${before}' → '${after}' replaced`;
    return `${name} ${verb(c.kind)}`;
  },
  summarize: (v) => {
    const parts = [typeof v.expires_at === 'string' ? `expires ${v.expires_at}` : 'no expiry'];
    if (v.active === false) parts.push('inactive');
    return parts.join(', ');
  },
  name: (v, c) => tokenName(c, str(v.label), v.token_id),
  risks: (c, owner) => {
    // A replacement deletes the token of the account it leaves, and creates one in its own.
    const name = `${tokenName(c, str(c.before.label) ?? str(c.after.label))} of ${(owner.leaving ?? owner).phrase}`;
    if (c.kind === 'delete' && c.deposed === true) {
      // Two tokens share the address and label: the ID says which one goes.
      const old = `${tokenName(c, str(c.before.label), c.before.token_id)} of ${owner.phrase}`;
      return [
        {
          kind: 'token_deleted',
          message: `${old}, the old token of a create_before_destroy replacement an earlier apply did not finish, is deleted: clients still using it stop working and must be given the new one`,
        },
      ];
    }
    if (c.kind === 'delete') return [{ kind: 'token_deleted', message: `${name} is deleted: clients using it stop working` }];
    if (c.kind === 'forget') return [forgottenRisk(name, owner, 'clients holding it keep using the proxies')];
    if (c.kind === 'replace') {
      // A create whose outcome was unknown (provider's `pending:` id): nobody holds its value.
      if (typeof c.before.id === 'string' && c.before.id.startsWith('pending:')) {
        return [
          {
            kind: 'token_replaced',
            message: `${name}: the token a lost create may have made (its value was never received) is deleted and a new one created; the plan's warnings name the token the apply deletes`,
          },
        ];
      }
      const where = owner.leaving === undefined ? '' : ` in ${owner.phrase}`;
      return [{ kind: 'token_replaced', message: `${name} is replaced by a new token${where}: clients using it must be given the new one` }];
    }
    return c.kind === 'update' ? activeRisks(c, name, 'clients using it stop working', 'clients holding it can use the proxies again') : [];
  },
  export: {
    lists: 'any',
    // Leftovers of the ephemeral resource are not adopted: drift reports them and prune deletes them.
    leftOut: (a) => a.tokens.filter((t) => isEphemeralTokenLabel(t.label)).map((t) => `token ${t.id} of ${accountPhrase(a.username)}: ${LEFTOVER_NOT_ADOPTED}`),
    blocks: (a) =>
      a.tokens
        .filter((t) => !isEphemeralTokenLabel(t.label))
        .map((t) => {
          const attrs: Array<readonly [string, ExportValue]> = [];
          if (t.label !== '') attrs.push(['label', t.label]);
          if (t.expiresAt !== null) attrs.push(['expires_at', t.expiresAt.toISOString().slice(0, 10)]);
          if (!t.isActive) attrs.push(['active', false]);
          if (a.username !== null) attrs.push(['username', a.username]);
          return {
            name: [a.username ?? 'self', 'token', String(t.id)],
            importId: TOKEN_ID.format(a.username, String(t.id)),
            attributes: attrs,
            comments: ['The raw token cannot be read back: after import, its `token` attribute is null.'],
          };
        }),
  },
};

/** The sub-account and bearer-token types. */
export const ACCOUNT_TYPES: readonly ResourceTypeDescriptor[] = [SUB_ACCOUNT, BEARER_TOKEN];
