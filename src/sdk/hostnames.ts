// Authorized hostnames of the authenticated account or of one of its sub-accounts.
import { TARGET_KEYS, targetSuffix } from './ips';
import { asObject, str, strings } from './parse';
import type { Transport } from './transport';
import type { CallOptions, HostnameInput, UsernameTarget } from './types';
import { checkDomain, checkObject, checkOptionalUsername, keysOf, shortName } from './validation';

const HOSTNAME_KEYS = keysOf<HostnameInput>({ domain: true, username: true });

/** Authorized hostnames. `username` targets a sub-account (parent credentials required). */
export class HostnamesApi {
  /** @internal */
  constructor(private readonly transport: Transport) {}

  /**
   * Authorizes a hostname. Not retried after the request may have reached the server:
   * repeating an add that did succeed would fail with "already authorized".
   */
  async add(input: HostnameInput, opts?: CallOptions): Promise<{ domain: string }> {
    const i = checkObject(input, 'input', HOSTNAME_KEYS, 'hostnames.add', '{ domain }');
    const domain = checkDomain(i.domain);
    const username = checkOptionalUsername(i.username);
    return this.transport.call(
      {
        method: 'POST',
        path: '/api/hostname/add/',
        operation: `add hostname '${shortName(domain)}'${targetSuffix(username, 'for')}`,
        form: { domain, username },
        repeatable: false,
        parse: (body) => ({ domain: str(asObject(body, 'response'), 'domain') }),
      },
      opts,
    );
  }

  /**
   * Removes an authorized hostname. Not retried after the request may have reached the server:
   * repeating a delete that did succeed would fail with 400 (not authorized).
   */
  async delete(input: HostnameInput, opts?: CallOptions): Promise<void> {
    const i = checkObject(input, 'input', HOSTNAME_KEYS, 'hostnames.delete', '{ domain }');
    const domain = checkDomain(i.domain);
    const username = checkOptionalUsername(i.username);
    await this.transport.call(
      {
        method: 'POST',
        path: '/api/hostname/delete/',
        operation: `delete hostname '${shortName(domain)}'${targetSuffix(username, 'for')}`,
        form: { domain, username },
        repeatable: false,
      },
      opts,
    );
  }

  /** Lists the authorized hostnames. */
  async list(input: UsernameTarget = {}, opts?: CallOptions): Promise<string[]> {
    const username = checkOptionalUsername(checkObject(input, 'input', TARGET_KEYS, 'hostnames.list', '{}').username);
    return this.transport.call(
      {
        method: 'GET',
        path: '/api/hostnames/',
        operation: `list hostnames${targetSuffix(username)}`,
        query: { username },
        repeatable: true,
        parse: (body) => strings(asObject(body, 'response'), 'domains'),
      },
      opts,
    );
  }
}
