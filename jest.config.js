/** Jest runs the TypeScript sources as native ESM (AdminJS is ESM-only), transformed by swc. */
export default {
  testEnvironment: 'node',
  roots: ['<rootDir>/test', '<rootDir>/examples'],
  testMatch: ['**/*.test.ts'],
  // The browser tests need chromium: `npm run test:e2e`.
  testPathIgnorePatterns: ['/node_modules/', '/test/e2e/'],
  extensionsToTreatAsEsm: ['.ts'],
  transform: {
    '^.+\\.ts$': ['@swc/jest', {
      jsc: { parser: { syntax: 'typescript' }, target: 'es2022', keepClassNames: true },
      module: { type: 'es6' },
    }],
  },
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  setupFiles: ['<rootDir>/test/setup-env.ts'],
  // Servers a test left running are killed after its file (test/helpers/server.ts).
  setupFilesAfterEnv: ['<rootDir>/test/setup-after-env.ts'],
  testTimeout: 20000,
};
