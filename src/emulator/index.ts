// The account-API emulator: an independent implementation of API.md for tests, demos and CI.
export { DEFAULT_OPERATOR, PortInUseError, startEmulator, tlsStorePath, type EmulatorOptions, type EmulatorServer, type ProxyServerOptions } from './server';
export { DEFAULT_ACCOUNTS, loadAccountsFile, parseAccounts, type AccountSeed } from './config';
export { PLAN_NAMES, PLANS, type PlanName, type PlanLimits } from './plans';
export { PROXY_CATALOGUE, DEFAULT_PROXY_DOMAIN } from './catalogue';
