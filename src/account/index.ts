// The account store: the one way the provider and the CLI's review, drift and export read and
// write an account. Knows no Terraform.
export { AccountStore } from './store';
export type { AccountLists, AccountStoreOptions, HostnameList, IpList, StoreClient, SubAccountWrite, TokenList, TokenWrite, WriteOutcome } from './store';
export { CoalescingCache, COLLECTIONS, type Collection } from './cache';
export { type AccountErrorCode, isUnknownOutcome, StoppedError, UnknownOutcomeError, UnseenCreateError, UnsettledChangeError } from './outcome';
export { EPHEMERAL_TOKEN_PREFIX, isEphemeralTokenLabel } from './ephemeral';
export {
  clientOptions,
  type ConnectionSettings,
  connectionFromEnv,
  MAX_REQUEST_TIMEOUT_SECONDS,
  PROVIDER_ENV,
  resolveConnection,
  type SettingProblem,
} from './connection-settings';
