// Bearer tokens of the authenticated account or of one of its sub-accounts. The API accepts
// only HTTP Basic here, so a bearer-only client fails before sending anything.
import { BasicAuthRequiredError } from './errors';
import { TARGET_KEYS, targetSuffix } from './ips';
import { asArray, asObject, bool, count, dateTime, optDateTime, optStr, ShapeError, str, type JsonObject } from './parse';
import type { Transport } from './transport';
import type { BearerToken, BearerTokenCreated, CallOptions, TokenCreateInput, TokenIdInput, UsernameTarget } from './types';
import { checkExpiryDate, checkObject, checkOptionalUsername, checkTokenId, checkTokenLabel, keysOf } from './validation';

const CREATE_KEYS = keysOf<TokenCreateInput>({ label: true, expiresAt: true, username: true });
const ID_KEYS = keysOf<TokenIdInput>({ id: true, username: true });

function tokenFields(o: JsonObject): BearerToken {
  return {
    id: count(o.id, 'field "id"'),
    label: optStr(o, 'label') ?? '',
    isActive: bool(o, 'is_active'),
    expiresAt: optDateTime(o.expires_at, 'field "expires_at"'),
    createdAt: dateTime(o.created_at, 'field "created_at"'),
  };
}

/** Reads BearerToken metadata. */
export function parseBearerToken(body: unknown): BearerToken {
  return tokenFields(asObject(body, 'token'));
}

/** Reads a BearerTokenCreated body (metadata plus the raw token). */
export function parseBearerTokenCreated(body: unknown): BearerTokenCreated {
  const o = asObject(body, 'token');
  const token = str(o, 'token');
  if (token === '') throw new ShapeError('field "token" is empty');
  return { ...tokenFields(o), token };
}

/** Bearer-token management (HTTP Basic only). */
export class TokensApi {
  /** @internal */
  constructor(
    private readonly transport: Transport,
    private readonly basicAuth: boolean,
  ) {}

  /** Lists token metadata (never the raw tokens). */
  async list(input: UsernameTarget = {}, opts?: CallOptions): Promise<BearerToken[]> {
    const username = checkOptionalUsername(this.basic('list tokens', input, TARGET_KEYS, 'tokens.list', '{}').username);
    return this.transport.call(
      {
        method: 'GET',
        path: '/api/tokens/',
        operation: `list tokens${targetSuffix(username)}`,
        query: { username },
        repeatable: true,
        parse: (body) => asArray(asObject(body, 'response').tokens, 'field "tokens"').map((t, n) => tokenFields(asObject(t, `token ${n}`))),
      },
      opts,
    );
  }

  /**
   * Creates a token; the raw value is in the answer and never again. Not retried after the
   * request may have reached the server: a repeat would create a second token.
   */
  async create(input: TokenCreateInput = {}, opts?: CallOptions): Promise<BearerTokenCreated> {
    const i = this.basic('create token', input, CREATE_KEYS, 'tokens.create', '{}');
    const label = i.label === undefined ? undefined : checkTokenLabel(i.label);
    const expiresAt = i.expiresAt === undefined ? undefined : checkExpiryDate(i.expiresAt);
    const username = checkOptionalUsername(i.username);
    const named = label === undefined || label === '' ? '' : ` '${label}'`;
    return this.transport.call(
      {
        method: 'POST',
        path: '/api/token/create/',
        operation: `create token${named}${targetSuffix(username, 'for')}`,
        form: { label, expires_at: expiresAt, username },
        repeatable: false,
        parse: parseBearerTokenCreated,
      },
      opts,
    );
  }

  /** Deactivates a token. Idempotent, so retried. */
  async deactivate(input: TokenIdInput, opts?: CallOptions): Promise<BearerToken> {
    return this.setState('deactivate', input, opts);
  }

  /** Activates a token (refused by the server for an expired one). Idempotent, so retried. */
  async activate(input: TokenIdInput, opts?: CallOptions): Promise<BearerToken> {
    return this.setState('activate', input, opts);
  }

  /**
   * Deletes a token permanently. Not retried after the request may have reached the server:
   * a repeat of a delete that did succeed would fail.
   */
  async delete(input: TokenIdInput, opts?: CallOptions): Promise<void> {
    const i = this.basic('delete token', input, ID_KEYS, 'tokens.delete', '{ id }');
    const id = checkTokenId(i.id);
    const username = checkOptionalUsername(i.username);
    await this.transport.call(
      {
        method: 'POST',
        path: '/api/token/delete/',
        operation: `delete token ${id}${targetSuffix(username, 'of')}`,
        form: { id: String(id), username },
        repeatable: false,
      },
      opts,
    );
  }

  private async setState(action: 'activate' | 'deactivate', input: TokenIdInput, opts?: CallOptions): Promise<BearerToken> {
    const i = this.basic(`${action} token`, input, ID_KEYS, `tokens.${action}`, '{ id }');
    const id = checkTokenId(i.id);
    const username = checkOptionalUsername(i.username);
    return this.transport.call(
      {
        method: 'POST',
        path: `/api/token/${action}/`,
        operation: `${action} token ${id}${targetSuffix(username, 'of')}`,
        form: { id: String(id), username },
        repeatable: true,
        parse: parseBearerToken,
      },
      opts,
    );
  }

  /** Refuses a bearer-only client, then checks the input is an object of `keys` alone. */
  private basic(operation: string, input: unknown, keys: readonly string[], method: string, example: string): Record<string, unknown> {
    if (!this.basicAuth) throw new BasicAuthRequiredError(operation);
    return checkObject(input, 'input', keys, method, example);
  }
}
