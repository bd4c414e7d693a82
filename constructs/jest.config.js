/**
 * Construct tests, run twice: `cdktf` (ts-jest against src/, as cdktf users build it) and `cdktn`
 * (the same test files against the jsii-compiled CDK Terrain build in cdktn/lib, with `cdktf` and
 * `constructs` resolved to cdktn's copies). test/flavor.ts tells a test which build it checks.
 */
const ts = (tsconfig) => ({ '^.+\\.ts$': ['ts-jest', { tsconfig }] });
const common = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  setupFilesAfterEnv: ['<rootDir>/test/setup.js'],
};

module.exports = {
  globalSetup: '<rootDir>/test/global-setup.js',
  globalTeardown: '<rootDir>/test/global-teardown.js',
  testTimeout: 60000,
  projects: [
    { ...common, displayName: 'cdktf', transform: ts('tsconfig.dev.json') },
    {
      ...common,
      displayName: 'cdktn',
      setupFiles: ['<rootDir>/test/flavor-cdktn.js'],
      // The cdktf run has type-checked these files already; here they are only transpiled.
      transform: ts('tsconfig.transpile.json'),
      moduleNameMapper: {
        '^cdktf$': '<rootDir>/cdktn/node_modules/cdktn',
        '^cdktf/(.*)$': '<rootDir>/cdktn/node_modules/cdktn/$1',
        '^constructs$': '<rootDir>/cdktn/node_modules/constructs',
        '^\\.\\./src$': '<rootDir>/cdktn/lib/index.js',
      },
    },
  ],
};
