import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
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
 * A database of its own for one test: in-memory SQLite by default; a SQLite
 * file in a folder of its own with TEST_SQLITE_FILES=1 (as in production:
 * a second connection, the batched writes of db/write-batches.ts); or a fresh
 * PostgreSQL database on the server named by TEST_DATABASE_URL (npm run test:pg).
 * Dropped afterwards.
 */
export async function createTestDatabase(sqliteUrl = 'sqlite::memory:'): Promise<TestDatabase> {
  const server = process.env.TEST_DATABASE_URL;
  if (!server && process.env.TEST_SQLITE_FILES === '1' && sqliteUrl === 'sqlite::memory:') {
    const dir = mkdtempSync(path.join(tmpdir(), 'test-db-'));
    return { url: `sqlite:${path.join(dir, 'db.sqlite3')}`, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  if (!server) return { url: sqliteUrl, drop: async () => undefined };
  const name = `test_${process.pid}_${randomBytes(6).toString('hex')}`;
  const admin = (sql: string): Promise<void> => runOnServer(server, sql);
  await admin(`CREATE DATABASE ${name}`);
  const url = new URL(server);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

export const onPostgres = (): boolean => Boolean(process.env.TEST_DATABASE_URL);
