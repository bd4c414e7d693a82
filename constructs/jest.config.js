/** Construct tests: ts-jest against the sources, plus a check of the assembly `npm run build` made. */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  setupFilesAfterEnv: ['<rootDir>/test/setup.js'],
  globalSetup: '<rootDir>/test/global-setup.js',
  globalTeardown: '<rootDir>/test/global-teardown.js',
  transform: {
    '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.dev.json' }],
  },
  testTimeout: 60000,
};
