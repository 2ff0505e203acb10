/** `npm run test:e2e`: the browser tests, a real chromium against the built server. */
import base from './jest.config.js';

export default {
  ...base,
  testMatch: ['**/test/e2e/**/*.test.ts'],
  testPathIgnorePatterns: [],
  testTimeout: 60000,
};
