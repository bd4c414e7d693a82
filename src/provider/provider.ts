// The proxyaccount provider: its configuration (each setting falls back to an environment
// variable), the one SDK client per process, and the explicit list of resource and data-source
// types. To add a type, import its module and add one line to RESOURCES or DATA_SOURCES.
import type { AccountStore } from '../account';
import { subAccountDataSource } from './data-sources/sub-account';
import { authorizedHostnamesDataSource } from './data-sources/authorized-hostnames';
import { authorizedIpsDataSource } from './data-sources/authorized-ips';
import { bearerTokensDataSource } from './data-sources/bearer-tokens';
import { geoIpsDataSource } from './data-sources/geoips';
import { proxiesDataSource } from './data-sources/proxies';
import { FrameworkServer, type ProviderDefinition } from './framework';
import { type ConfigureOptions, configure, verifyCredentials } from './configure';
import { bearerTokenEphemeral, deleteOpenTokens } from './ephemeral-resources/bearer-token';
import type { ProviderServer } from '../protocol/types';
import { describeProxyAccountError } from './errors';
import { providerSchema } from './settings';
import { subAccountResource } from './resources/sub-account';
import { authorizedHostnamesResource } from './resources/authorized-hostnames';
import { authorizedIpsResource } from './resources/authorized-ips';
import { authorizedProxiesResource } from './resources/authorized-proxies';
import { authorizedHostnameResource } from './resources/authorized-hostname';
import { authorizedIpResource } from './resources/authorized-ip';
import { authorizedProxyResource } from './resources/authorized-proxy';
import { bearerTokenResource } from './resources/bearer-token';

/** Every managed resource type of the provider, one line each. */
const RESOURCES: ProviderDefinition<typeof providerSchema, AccountStore>['resources'] = [
  subAccountResource,
  authorizedIpsResource,
  authorizedHostnamesResource,
  authorizedProxiesResource,
  authorizedIpResource,
  authorizedHostnameResource,
  authorizedProxyResource,
  bearerTokenResource,
];

/** Every ephemeral resource type of the provider, one line each (Terraform >= 1.10). */
const EPHEMERAL_RESOURCES: ProviderDefinition<typeof providerSchema, AccountStore>['ephemeralResources'] = [bearerTokenEphemeral];

/** Every data source type of the provider, one line each. */
const DATA_SOURCES: ProviderDefinition<typeof providerSchema, AccountStore>['dataSources'] = [
  subAccountDataSource,
  proxiesDataSource,
  geoIpsDataSource,
  authorizedIpsDataSource,
  authorizedHostnamesDataSource,
  bearerTokensDataSource,
];

export { PROVIDER_ENV, PROVIDER_VERSION } from './settings';
export { takeDeferredCa } from './deferred-ca';

/** Options of {@link createProvider}; for tests and tools, Terraform uses the defaults. */
export interface ProviderOptions extends ConfigureOptions {
  /** Where the environment fallbacks are read. @default process.env */
  readonly env?: NodeJS.ProcessEnv;
}

/** The provider definition (schema, configure step, registered types). */
export function createProvider(opts: ProviderOptions = {}): ProviderDefinition<typeof providerSchema, AccountStore> {
  const env = opts.env ?? process.env;
  return {
    typeName: 'proxyaccount',
    schema: providerSchema,
    configure: (ctx, config) => configure(ctx, config, env, opts),
    beforePlan: (store, signal) => verifyCredentials(store, signal),
    describeError: describeProxyAccountError,
    resources: RESOURCES,
    dataSources: DATA_SOURCES,
    ephemeralResources: EPHEMERAL_RESOURCES,
  };
}

/** The framework server of this provider: its data is the account store. */
export type ProxyAccountServer = FrameworkServer<AccountStore>;

/**
 * The ProviderServer the protocol layer serves. When the run ends (Shutdown, or Terraform gone) it
 * deletes the ephemeral tokens Terraform opened and did not close (a failed or interrupted run
 * skips close), and those whose create was still in flight.
 */
export function createProviderServer(opts: ProviderOptions = {}): FrameworkServer<AccountStore> & Required<Pick<ProviderServer, 'releaseOnShutdown'>> {
  return Object.assign(new FrameworkServer(createProvider(opts)), { releaseOnShutdown: deleteOpenTokens });
}
