// Authorized proxies of the parent account (sub-account callers are refused by the API).
import { asObject, str, strings } from './parse';
import type { Transport } from './transport';
import type { CallOptions } from './types';
import { checkProxy, shortName } from './validation';

/** Authorized proxies. */
export class ProxiesApi {
  /** @internal */
  constructor(private readonly transport: Transport) {}

  /** Lists every proxy the account may use, as `domain:port` strings. */
  async list(opts?: CallOptions): Promise<string[]> {
    return this.transport.call(
      {
        method: 'GET',
        path: '/api/proxies/',
        operation: 'list proxies',
        repeatable: true,
        parse: (body) => strings(asObject(body, 'response'), 'proxies'),
      },
      opts,
    );
  }

  /**
   * Authorizes a proxy given as a bare host, a full domain or `domain:port`; returns the full
   * domain. Retried: the API contract says adding an authorized proxy changes nothing.
   */
  async add(proxy: string, opts?: CallOptions): Promise<{ proxy: string }> {
    const p = checkProxy(proxy);
    return this.transport.call(
      {
        method: 'POST',
        path: '/api/proxy/add/',
        operation: `add proxy '${shortName(p)}'`,
        form: { proxy: p },
        repeatable: true,
        parse: (body) => ({ proxy: str(asObject(body, 'response'), 'proxy') }),
      },
      opts,
    );
  }

  /** Removes a proxy. Retried: the API contract says deleting an unauthorized proxy changes nothing. */
  async delete(proxy: string, opts?: CallOptions): Promise<void> {
    const p = checkProxy(proxy);
    await this.transport.call(
      {
        method: 'POST',
        path: '/api/proxy/delete/',
        operation: `delete proxy '${shortName(p)}'`,
        form: { proxy: p },
        repeatable: true,
      },
      opts,
    );
  }
}
