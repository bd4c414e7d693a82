// Entry point of the provider binary (terraform-provider-proxyaccount). Terraform starts it 3-4
// times per command, so start-up is the main cost: only the protocol layer loads before the
// handshake; provider code loads on the first RPC, and the SDK only when the provider is configured.
import { serve } from './protocol/server';
import type { ProviderServer } from './protocol/types';

/** A ProviderServer that loads the real one on first use. */
export function lazyProviderServer(load: () => ProviderServer = loadProvider): ProviderServer {
  let server: ProviderServer | undefined;
  const get = (): ProviderServer => (server ??= load());
  return {
    getProviderSchema: () => get().getProviderSchema(),
    validateProviderConfig: (req) => get().validateProviderConfig(req),
    validateResourceConfig: (req) => get().validateResourceConfig(req),
    validateDataResourceConfig: (req) => get().validateDataResourceConfig(req),
    upgradeResourceState: (req) => get().upgradeResourceState(req),
    configureProvider: (req) => get().configureProvider(req),
    readResource: (req) => get().readResource(req),
    planResourceChange: (req) => get().planResourceChange(req),
    applyResourceChange: (req) => get().applyResourceChange(req),
    importResourceState: (req) => get().importResourceState(req),
    readDataSource: (req) => get().readDataSource(req),
    stopProvider: () => get().stopProvider(),
    validateEphemeralResourceConfig: (req) => get().validateEphemeralResourceConfig!(req),
    openEphemeralResource: (req) => get().openEphemeralResource!(req),
    renewEphemeralResource: (req) => get().renewEphemeralResource!(req),
    closeEphemeralResource: (req) => get().closeEphemeralResource!(req),
  };
}

function loadProvider(): ProviderServer {
  // A plain require keeps this synchronous and lets a bundler inline the module.
  const mod = require('./provider/provider') as typeof import('./provider/provider');
  return mod.createProviderServer();
}

/** What the executable's launcher (scripts/provider-launcher.js) tells the provider. */
export interface LaunchInfo {
  /** How the bundle was compiled: with the code cache (`hit`), without one yet (`miss`), with one V8 refused (`rejected`), or with the cache `off`. */
  readonly codeCache?: 'hit' | 'miss' | 'rejected' | 'off' | 'untrusted';
  /** Why the code cache was not used (`untrusted`: its directory is another user's, or shared, or a link). */
  readonly codeCacheNote?: string;
}

/** Serves the provider until Terraform shuts it down, then exits. */
export function main(launch: LaunchInfo = {}): void {
  const startupFields = {
    ...(launch.codeCache === undefined ? {} : { code_cache: launch.codeCache }),
    ...(launch.codeCacheNote === undefined ? {} : { code_cache_note: launch.codeCacheNote }),
  };
  serve(lazyProviderServer(), { startupFields }).then(
    () => process.exit(0),
    (err: unknown) => {
      process.stderr.write(`terraform-provider-proxyaccount: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    },
  );
}

if (require.main === module) main();
