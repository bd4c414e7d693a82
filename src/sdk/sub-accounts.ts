// Sub-accounts: create, edit, get, deactivate, activate, delete (parent credentials only).
import { asObject, bool, count, nonNegative, optStr, str } from './parse';
import type { Transport } from './transport';
import type { CallOptions, SubAccount, SubAccountInput } from './types';
import { checkEmail, checkLimit, checkName, checkObject, checkPassword, checkUsername, keysOf } from './validation';

const SUB_ACCOUNT_KEYS = keysOf<SubAccountInput>({
  username: true,
  password: true,
  firstName: true,
  lastName: true,
  email: true,
  monthlyLimit: true,
  totalLimit: true,
});

/** Reads an AccountDetails body. */
export function parseSubAccount(body: unknown): SubAccount {
  const o = asObject(body, 'sub-account details');
  const out: SubAccount = {
    username: str(o, 'username'),
    active: bool(o, 'active'),
    monthlyBandwidth: nonNegative(o, 'monthly_bandwidth'),
    monthlyBandwidthLimit: count(o.monthly_bandwidth_limit, 'field "monthly_bandwidth_limit"'),
    totalBandwidth: nonNegative(o, 'total_bandwidth'),
    totalBandwidthLimit: count(o.total_bandwidth_limit, 'field "total_bandwidth_limit"'),
  };
  const firstName = optStr(o, 'first_name');
  const lastName = optStr(o, 'last_name');
  const email = optStr(o, 'email');
  if (firstName !== undefined) out.firstName = firstName;
  if (lastName !== undefined) out.lastName = lastName;
  if (email !== undefined) out.email = email;
  return out;
}

/** Validates create/edit input and returns the form (only the fields given). */
function subAccountForm(input: SubAccountInput, method: string): Record<string, string | undefined> {
  const i = checkObject(input, 'input', SUB_ACCOUNT_KEYS, method, '{ username }');
  const opt = <T>(v: unknown, check: (v: unknown) => T): T | undefined => (v === undefined ? undefined : check(v));
  const form = {
    username: checkUsername(i.username),
    password: opt(i.password, (v) => checkPassword(v)),
    first_name: opt(i.firstName, (v) => checkName(v, 'firstName')),
    last_name: opt(i.lastName, (v) => checkName(v, 'lastName')),
    email: opt(i.email, (v) => checkEmail(v)),
    monthly_limit: opt(i.monthlyLimit, (v) => String(checkLimit(v, 'monthlyLimit'))),
    total_limit: opt(i.totalLimit, (v) => String(checkLimit(v, 'totalLimit'))),
  };
  return form;
}

/** Sub-account management. Refused by the API for sub-account callers. */
export class SubAccountsApi {
  /** @internal */
  constructor(private readonly transport: Transport) {}

  /**
   * Creates an active sub-account. Not retried after the request may have reached the server:
   * a repeat of a create that did succeed would fail with "username already taken".
   */
  async create(input: SubAccountInput, opts?: CallOptions): Promise<SubAccount> {
    const form = subAccountForm(input, 'subAccounts.create');
    return this.transport.call(
      {
        method: 'POST',
        path: '/api/sub/create/',
        operation: `create sub-account '${form.username}'`,
        form,
        repeatable: false,
        secrets: secretsOf(input),
        parse: parseSubAccount,
      },
      opts,
    );
  }

  /**
   * Edits a sub-account, sending exactly the fields given (omitted fields are not sent). Retried
   * like a read: setting the same values twice has the same effect as once.
   */
  async edit(input: SubAccountInput, opts?: CallOptions): Promise<SubAccount> {
    const form = subAccountForm(input, 'subAccounts.edit');
    return this.transport.call(
      {
        method: 'POST',
        path: '/api/sub/edit/',
        operation: `edit sub-account '${form.username}'`,
        form,
        repeatable: true,
        secrets: secretsOf(input),
        parse: parseSubAccount,
      },
      opts,
    );
  }

  /** Reads a sub-account's details and usage. */
  async get(username: string, opts?: CallOptions): Promise<SubAccount> {
    const name = checkUsername(username);
    return this.transport.call(
      {
        method: 'GET',
        path: '/api/sub/get/',
        operation: `get sub-account '${name}'`,
        query: { username: name },
        repeatable: true,
        parse: parseSubAccount,
      },
      opts,
    );
  }

  /** Deactivates a sub-account (its proxy requests then get 402). Idempotent, so retried. */
  async deactivate(username: string, opts?: CallOptions): Promise<SubAccount> {
    return this.setState('deactivate', username, opts);
  }

  /** Reactivates a sub-account. Idempotent, so retried. */
  async activate(username: string, opts?: CallOptions): Promise<SubAccount> {
    return this.setState('activate', username, opts);
  }

  /**
   * Deletes a sub-account and all its data, permanently. Not retried after the request may have
   * reached the server: a repeat of a delete that did succeed would fail with 404.
   */
  async delete(username: string, opts?: CallOptions): Promise<void> {
    const name = checkUsername(username);
    await this.transport.call(
      {
        method: 'POST',
        path: '/api/sub/delete/',
        operation: `delete sub-account '${name}'`,
        form: { username: name },
        repeatable: false,
      },
      opts,
    );
  }

  private async setState(action: 'activate' | 'deactivate', username: string, opts?: CallOptions): Promise<SubAccount> {
    const name = checkUsername(username);
    return this.transport.call(
      {
        method: 'POST',
        path: `/api/sub/${action}/`,
        operation: `${action} sub-account '${name}'`,
        form: { username: name },
        repeatable: true,
        parse: parseSubAccount,
      },
      opts,
    );
  }
}

function secretsOf(input: SubAccountInput): string[] {
  return typeof input.password === 'string' && input.password !== '' ? [input.password] : [];
}
