/**
 * Jest runs the TypeScript tests through ts-jest with `isolatedModules` (set in
 * tsconfig.test.json, where ts-jest 29.4 reads it: each file transpiled alone, no type checking,
 * several times faster); `npm test` type-checks sources and tests beforehand with
 * `npm run typecheck`, so a type error still fails it.
 */
module.exports = {
  // Jest's node environment, whose worker processes end at once (see the file).
  testEnvironment: '<rootDir>/test/helpers/quick-exit-environment.js',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: {
    '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.test.json' }],
  },
  testTimeout: 30000,
  setupFiles: ['<rootDir>/test/helpers/no-auth-failure-memory.ts'],
  // Long suites first on a fresh clone, so that no worker idles at the end (see the file).
  testSequencer: '<rootDir>/test/helpers/long-first-sequencer.js',
};
