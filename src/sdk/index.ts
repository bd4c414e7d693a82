// The SDK's public surface. Only names listed here are public; everything else in src/sdk is
// internal and may change.
export {
  DEFAULT_MAX_RETRIES,
  DEFAULT_RETRY_BASE_DELAY_MS,
  DEFAULT_RETRY_MAX_DELAY_MS,
  DEFAULT_TIMEOUT_MS,
  DEFAULT_USER_AGENT,
  ProxyAccountClient,
} from './client';
export type { SubAccountsApi } from './sub-accounts';
export type { IpsApi } from './ips';
export type { HostnamesApi } from './hostnames';
export type { ProxiesApi } from './proxies';
export type { TokensApi } from './tokens';
export type { GeoIpsApi } from './geoips';
export {
  AbortedError,
  ApiError,
  AuthenticationError,
  BannedError,
  BasicAuthRequiredError,
  ClientBannedError,
  ClientClosedError,
  CredentialsRejectedError,
  CredentialsUnprovenError,
  CredentialsRememberedRejectedError,
  ForbiddenError,
  InvalidArgumentError,
  isProxyAccountError,
  MethodNotAllowedError,
  NetworkError,
  NotFoundError,
  PaymentRequiredError,
  ProxyAccountError,
  RedirectError,
  RequestError,
  ResponseParseError,
  ServerError,
  ServiceUnavailableError,
  TimeoutError,
  UnexpectedStatusError,
  ValidationError,
} from './errors';
export type { ApiErrorDetails, ErrorFacts, ProxyAccountErrorCode, RequestContext } from './errors';
export type {
  AuthorizedIp,
  BasicAuth,
  BearerAuth,
  BearerToken,
  BearerTokenCreated,
  CallOptions,
  ClientAuth,
  GeoIpCounts,
  HostnameInput,
  IpAddInput,
  IpDeleteInput,
  LabeledIp,
  ProxyAccountClientOptions,
  RequestLogFields,
  RequestLogger,
  SubAccount,
  SubAccountInput,
  TokenCreateInput,
  TokenIdInput,
  UsernameTarget,
} from './types';
export { SDK_VERSION } from './version';
export { proxyDispatcher, proxyRefusal, type ProxyDispatcherOptions, type ProxyRefusal } from './proxy-dispatcher';
export { AUTH_FAILURE_CACHE_ENV, AUTH_FAILURE_TTL_ENV } from './auth-failure-options';
export { DEFAULT_AUTH_FAILURE_TTL_MS, defaultCacheDir } from './failure-memory';
// The SDK's own argument checks, exported so callers (e.g. a tool validating configuration early)
// can apply exactly the same rules; each returns the value or throws InvalidArgumentError.
export {
  checkDomain,
  checkEmail,
  checkExpiryDate,
  checkIpLabel,
  checkIpv4,
  checkLimit,
  checkName,
  checkPassword,
  checkProxy,
  checkSafeText,
  checkTokenId,
  checkTokenLabel,
  checkUsername,
  EMAIL_MAX,
  HOSTNAME_MAX,
  IP_LABEL_MAX,
  NAME_MAX,
  PASSWORD_MAX,
  TOKEN_LABEL_MAX,
  UNSAFE_TEXT_RE,
  USERNAME_MAX,
} from './validation';
