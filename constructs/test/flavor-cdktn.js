// jest setupFiles of the `cdktn` project (jest.config.js): read by test/flavor.ts.
process.env.PROXYACCOUNT_CONSTRUCTS_FLAVOR = 'cdktn';
