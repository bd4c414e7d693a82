// The account the CLI's drift, export and prune commands read: the same PROXYACCOUNT_* variables,
// read by the same rules as the provider's (src/account/connection-settings.ts), so a CI job
// configures both once and a typo in one is an error in both.
import { AccountStore, clientOptions, connectionFromEnv } from '../account';
import { ProxyAccountClient } from '../sdk';

/** Builds the account store from the environment; throws a message naming each variable at fault. */
export function storeFromEnv(env: NodeJS.ProcessEnv = process.env, opts: { readonly signal?: AbortSignal } = {}): AccountStore {
  const options = { ...clientOptions(connectionFromEnv(env)), userAgent: 'proxyaccount-cli' };
  return new AccountStore(new ProxyAccountClient(options), opts.signal !== undefined ? { signal: opts.signal } : {});
}
