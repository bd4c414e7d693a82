/** Jest runs the TypeScript tests through ts-jest; type errors are caught by `npm run typecheck`. */
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
