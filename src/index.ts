// The public entry point of the `proxyaccount` package: the SDK.
export * from './sdk';
