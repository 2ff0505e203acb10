import { availableParallelism } from 'node:os';

/** Jest runs the TypeScript sources as native ESM (AdminJS is ESM-only), transformed by swc. */
export default {
  testEnvironment: 'node',
  // Jest's default (cores − 1), but two at least: a test file spends much of its time waiting on a database or a child
  // process, and one worker left a 2-core machine's second core idle (the suites took 1.6–1.8× as long).
  maxWorkers: Math.max(2, availableParallelism() - 1),
  roots: ['<rootDir>/test', '<rootDir>/examples'],
  testMatch: ['**/*.test.ts'],
  // The browser tests need chromium: `npm run test:e2e`. `npm run bench` makes its own SQLite database whatever the suite
  // runs on: its test runs with the SQLite suite only, not again under test:pg.
  testPathIgnorePatterns: ['/node_modules/', '/test/e2e/', ...(process.env.TEST_DATABASE_URL ? ['/test/system/bench-http\\.test\\.ts$'] : [])],
  extensionsToTreatAsEsm: ['.ts'],
  transform: {
    '^.+\\.ts$': ['@swc/jest', {
      jsc: { parser: { syntax: 'typescript' }, target: 'es2022', keepClassNames: true },
      module: { type: 'es6' },
    }],
  },
  // Applications import the framework by its package name (package.json `exports`); under Jest, its sources.
  moduleNameMapper: {
    '^declarest$': '<rootDir>/src/index.ts',
    '^declarest/migrations$': '<rootDir>/src/migrations.ts',
    '^declarest/testing$': '<rootDir>/src/testing/index.ts',
    '^(\\.{1,2}/.*)\\.js$': '$1',
  },
  setupFiles: ['<rootDir>/test/setup-env.ts'],
  // Servers a test left running are killed after its file (test/helpers/server.ts).
  setupFilesAfterEnv: ['<rootDir>/test/setup-after-env.ts'],
  testTimeout: 20000,
};
