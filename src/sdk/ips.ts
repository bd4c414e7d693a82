// Authorized IP addresses of the authenticated account or of one of its sub-accounts.
import { asArray, asObject, optStr, str, strings } from './parse';
import type { Transport } from './transport';
import type { AuthorizedIp, CallOptions, IpAddInput, IpDeleteInput, LabeledIp, UsernameTarget } from './types';
import { checkIpLabel, checkIpv4, checkObject, checkOptionalUsername, keysOf } from './validation';

/** Keys of an input that only targets an account (the list methods). */
export const TARGET_KEYS = keysOf<UsernameTarget>({ username: true });
const ADD_KEYS = keysOf<IpAddInput>({ ip: true, label: true, username: true });
const DELETE_KEYS = keysOf<IpDeleteInput>({ ip: true, username: true });

/** ` of sub-account 'x'` when a sub-account is targeted, for operation descriptions. */
export function targetSuffix(username: string | undefined, word = 'of'): string {
  return username === undefined ? '' : ` ${word} sub-account '${username}'`;
}

/** Authorized IPs. `username` targets a sub-account (parent credentials required). */
export class IpsApi {
  /** @internal */
  constructor(private readonly transport: Transport) {}

  /**
   * Authorizes an IPv4 address, with an optional label. Not retried after the request may have
   * reached the server: repeating an add that did succeed would fail with "already authorized".
   */
  async add(input: IpAddInput, opts?: CallOptions): Promise<AuthorizedIp> {
    const i = checkObject(input, 'input', ADD_KEYS, 'ips.add', '{ ip }');
    const ip = checkIpv4(i.ip);
    const label = i.label === undefined ? undefined : checkIpLabel(i.label);
    const username = checkOptionalUsername(i.username);
    return this.transport.call(
      {
        method: 'POST',
        path: '/api/ip/add/',
        operation: `add IP '${ip}'${targetSuffix(username, 'for')}`,
        form: { ip, label, username },
        repeatable: false,
        parse: (body) => {
          const o = asObject(body, 'response');
          const out: AuthorizedIp = { ip: str(o, 'ip') };
          const l = optStr(o, 'label');
          if (l !== undefined) out.label = l;
          return out;
        },
      },
      opts,
    );
  }

  /**
   * Removes an authorized IP. Not retried after the request may have reached the server:
   * repeating a delete that did succeed would fail with 400 (not authorized).
   */
  async delete(input: IpDeleteInput, opts?: CallOptions): Promise<void> {
    const i = checkObject(input, 'input', DELETE_KEYS, 'ips.delete', '{ ip }');
    const ip = checkIpv4(i.ip);
    const username = checkOptionalUsername(i.username);
    await this.transport.call(
      {
        method: 'POST',
        path: '/api/ip/delete/',
        operation: `delete IP '${ip}'${targetSuffix(username, 'for')}`,
        form: { ip, username },
        repeatable: false,
      },
      opts,
    );
  }

  /** Lists the authorized IPs (without labels). */
  async list(input: UsernameTarget = {}, opts?: CallOptions): Promise<string[]> {
    const username = checkOptionalUsername(checkObject(input, 'input', TARGET_KEYS, 'ips.list', '{}').username);
    return this.transport.call(
      {
        method: 'GET',
        path: '/api/ips/',
        operation: `list IPs${targetSuffix(username)}`,
        query: { username },
        repeatable: true,
        parse: (body) => strings(asObject(body, 'response'), 'ips'),
      },
      opts,
    );
  }

  /** Lists the authorized IPs with their labels (`''` when none). */
  async listWithLabels(input: UsernameTarget = {}, opts?: CallOptions): Promise<LabeledIp[]> {
    const username = checkOptionalUsername(checkObject(input, 'input', TARGET_KEYS, 'ips.listWithLabels', '{}').username);
    return this.transport.call(
      {
        method: 'GET',
        path: '/api/ip_labels/',
        operation: `list IP labels${targetSuffix(username)}`,
        query: { username },
        repeatable: true,
        parse: (body) =>
          asArray(body, 'response').map((item, n) => {
            const o = asObject(item, `item ${n}`);
            return { ip: str(o, 'ip'), label: optStr(o, 'label') ?? '' };
          }),
      },
      opts,
    );
  }
}
