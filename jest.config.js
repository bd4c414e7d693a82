/**
 * Jest runs the TypeScript tests through ts-jest with `isolatedModules` (each file transpiled
 * alone: no type checking, several times faster); `npm test` type-checks sources and tests
 * beforehand with `npm run typecheck`, so a type error still fails it.
 */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: {
    '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.test.json', isolatedModules: true }],
  },
  testTimeout: 30000,
  setupFiles: ['<rootDir>/test/helpers/no-auth-failure-memory.ts'],
};
