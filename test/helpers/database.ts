export { createTestDatabase, onPostgres, type TestDatabase } from '../../src/testing/database.js';
