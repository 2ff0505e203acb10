import { randomBytes } from 'node:crypto';
import pg from 'pg';

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

/** One statement on a PostgreSQL server, in a connection of its own (CREATE and DROP DATABASE cannot share one). */
export async function runOnServer(server: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: server });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/**
 * A database of its own for one test: in-memory SQLite by default, or a fresh
 * PostgreSQL database on the server named by TEST_DATABASE_URL (npm run test:pg),
 * dropped afterwards.
 */
export async function createTestDatabase(sqliteUrl = 'sqlite::memory:'): Promise<TestDatabase> {
  const server = process.env.TEST_DATABASE_URL;
  if (!server) return { url: sqliteUrl, drop: async () => undefined };
  const name = `test_${process.pid}_${randomBytes(6).toString('hex')}`;
  const admin = (sql: string): Promise<void> => runOnServer(server, sql);
  await admin(`CREATE DATABASE ${name}`);
  const url = new URL(server);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

export const onPostgres = (): boolean => Boolean(process.env.TEST_DATABASE_URL);
