// The account the CLI's drift, export and prune commands read: the same PROXYACCOUNT_* variables
// the provider falls back to, so a CI job configures both once.
import { readFileSync } from 'node:fs';
import { AccountStore } from '../account';
import { ProxyAccountClient, type ProxyAccountClientOptions } from '../sdk';

/** Builds the account store from the environment; throws a message naming the missing variable. */
export function storeFromEnv(env: NodeJS.ProcessEnv = process.env): AccountStore {
  const get = (name: string): string | undefined => {
    const v = env[name];
    return v === undefined || v === '' ? undefined : v;
  };
  const baseUrl = get('PROXYACCOUNT_BASE_URL');
  if (baseUrl === undefined)
    throw new Error('PROXYACCOUNT_BASE_URL is not set: set it and the credentials (PROXYACCOUNT_USERNAME and PROXYACCOUNT_PASSWORD, or PROXYACCOUNT_TOKEN)');
  const token = get('PROXYACCOUNT_TOKEN');
  const username = get('PROXYACCOUNT_USERNAME');
  const password = get('PROXYACCOUNT_PASSWORD');
  if (token === undefined && (username === undefined || password === undefined)) {
    throw new Error('credentials are missing: set PROXYACCOUNT_USERNAME and PROXYACCOUNT_PASSWORD (bearer tokens cannot list tokens), or PROXYACCOUNT_TOKEN');
  }
  const caFile = get('PROXYACCOUNT_CA_CERT_FILE');
  const timeout = get('PROXYACCOUNT_REQUEST_TIMEOUT');
  const seconds = timeout === undefined ? undefined : Number(timeout);
  if (seconds !== undefined && !(seconds > 0 && seconds <= 3600))
    throw new Error(`PROXYACCOUNT_REQUEST_TIMEOUT must be a number of seconds from 0 to 3600, got ${JSON.stringify(timeout)}`);
  const options: ProxyAccountClientOptions = {
    baseUrl,
    auth: token !== undefined ? { token } : { username: username!, password: password! },
    userAgent: 'proxyaccount-cli',
    ...(caFile !== undefined ? { caCert: readFileSync(caFile) } : {}),
    ...(/^(1|true)$/i.test(get('PROXYACCOUNT_INSECURE') ?? '') ? { insecure: true } : {}),
    ...(seconds !== undefined ? { timeoutMs: Math.round(seconds * 1000) } : {}),
  };
  return new AccountStore(new ProxyAccountClient(options));
}
