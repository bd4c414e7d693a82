// What `configure` hands to every resource and data source: one SDK client per process and
// the coalescing reader in front of it. Type-only imports: loading a resource loads no SDK.
import type { ProxyAccountClient } from '../../sdk';
import type { Reader } from '../reader';

/** The configured provider, shared by every resource and data source of the process. */
export interface ProviderData {
  /** The process's one SDK client (one 401 stops it, see the SDK's CredentialsRejectedError). */
  readonly client: ProxyAccountClient;
  /** Cached, coalesced reads; writes go through `reader.write` so the cache stays true. */
  readonly reader: Reader;
}
