/**
 * A throwaway SQLite database file for a benchmark (database.ts): the CLI
 * migrates it and creates the user, then the owners and the comments go in
 * through the `sqlite3` module (the server's own driver), in big
 * transactions, and the planner gets its statistics.
 */
import { rmSync } from 'node:fs';
import path from 'node:path';
import sqlite3 from 'sqlite3';
import { migrateWithUser, newAccount, ownerIds, ownersInsert, type BenchDatabase, type SqlClient, type SqlParameter } from './database.js';
import { Interrupted, isInterrupted, progress, seconds } from './processes.js';
import { countComment, emptySummary, OWNERS, ownerUsername, seedComment, type SeedSummary } from './seed.js';

type Value = string | number;

function openSqlite(file: string, readOnly: boolean): Promise<sqlite3.Database> {
  const mode = readOnly ? sqlite3.OPEN_READONLY : sqlite3.OPEN_READWRITE | sqlite3.OPEN_CREATE;
  return new Promise((resolve, reject) => {
    const db = new sqlite3.Database(file, mode, (error) => (error ? reject(error) : resolve(db)));
  });
}

function exec(db: sqlite3.Database, sql: string): Promise<void> {
  return new Promise((resolve, reject) => db.exec(sql, (error) => (error ? reject(error) : resolve())));
}

function run(db: sqlite3.Database, sql: string, values: readonly Value[]): Promise<void> {
  return new Promise((resolve, reject) => db.run(sql, values, (error: Error | null) => (error ? reject(error) : resolve())));
}

function client(db: sqlite3.Database): SqlClient {
  return {
    rows: <T>(sql: string, params: readonly SqlParameter[] = []) => new Promise<T[]>((resolve, reject) => db.all<T>(sql, params, (error, rows) => (error ? reject(error) : resolve(rows)))),
    close: () => new Promise<void>((resolve, reject) => db.close((error) => (error ? reject(error) : resolve()))),
  };
}

/** A connection of the harness's own to `file`; read-only while the server writes to it. */
export async function connectSqlite(file: string, readOnly = true): Promise<SqlClient> {
  return client(await openSqlite(file, readOnly));
}

/** One multi-row INSERT per this many comments: a row per statement would take some 30 s for a million. */
const ROWS_PER_INSERT = 100;
const ROWS_PER_TRANSACTION = 50_000;

/** As Sequelize stores a date in SQLite: `2025-01-01 00:00:01.000 +00:00`. */
function sqliteTimestamp(milliseconds: number): string {
  return new Date(milliseconds).toISOString().replace('T', ' ').replace('Z', ' +00:00');
}

function insertComments(rows: number): string {
  return `INSERT INTO comments (title, body, user_id, created_at, updated_at) VALUES ${Array(rows).fill('(?, ?, ?, ?, ?)').join(', ')}`;
}

/** Comments first…first+count-1 as the INSERT's values, counted into `summary`. */
function commentValues(first: number, count: number, summary: SeedSummary): Value[] {
  const values: Value[] = [];
  for (let i = first; i < first + count; i += 1) {
    const comment = seedComment(i);
    countComment(summary, comment);
    values.push(comment.title, comment.body, summary.ownerIds[comment.owner] ?? 0, sqliteTimestamp(comment.createdMs), sqliteTimestamp(comment.updatedMs));
  }
  return values;
}

/** The comments, in order (ids follow the seed's numbering), one transaction per 50,000. */
async function insertAllComments(db: sqlite3.Database, count: number, summary: SeedSummary): Promise<void> {
  for (let first = 1; first <= count && !isInterrupted(); first += ROWS_PER_TRANSACTION) {
    const last = Math.min(first + ROWS_PER_TRANSACTION - 1, count);
    await exec(db, 'BEGIN');
    for (let start = first; start <= last; start += ROWS_PER_INSERT) {
      const rows = Math.min(ROWS_PER_INSERT, last - start + 1);
      await run(db, insertComments(rows), commentValues(start, rows, summary));
    }
    await exec(db, 'COMMIT');
  }
}

/**
 * The owners and `count` comments, with synchronous=OFF (a throwaway
 * database: a crash would only lose the seed); then ANALYZE, as
 * `PRAGMA optimize` would in a database that has served a while.
 */
async function seed(file: string, count: number): Promise<SeedSummary> {
  const db = await openSqlite(file, false);
  try {
    await exec(db, 'PRAGMA journal_mode = WAL; PRAGMA synchronous = OFF');
    const usernames = Array.from({ length: OWNERS }, (_, owner) => ownerUsername(owner));
    const owners = ownersInsert(usernames, sqliteTimestamp(Date.now()));
    await run(db, owners.sql, owners.values);
    const summary = emptySummary(await ownerIds(client(db), usernames));
    await insertAllComments(db, count, summary);
    if (isInterrupted()) throw new Interrupted();
    await exec(db, 'ANALYZE; PRAGMA optimize');
    // The server opens the file as it would after a clean stop: no write-ahead log to replay.
    await exec(db, 'PRAGMA wal_checkpoint(TRUNCATE)');
    return summary;
  } finally {
    await client(db).close();
  }
}

async function sqliteVersion(file: string): Promise<string> {
  const db = await connectSqlite(file);
  try {
    const [row] = await db.rows<{ version: string }>('SELECT sqlite_version() AS version');
    return `SQLite ${row?.version ?? '?'}`;
  } finally {
    await db.close();
  }
}

/** A new SQLite database `name`.sqlite3 in `directory`: migrated, the user `bench`, the owners and `comments` comments. */
export async function createSqliteDatabase(directory: string, name: string, comments: number): Promise<BenchDatabase> {
  const file = path.join(directory, `${name}.sqlite3`);
  const url = `sqlite:${file}`;
  const account = newAccount();
  const remove = async (): Promise<void> => {
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true });
  };
  const started = performance.now();
  await migrateWithUser(url, account);
  const seeding = performance.now();
  const seeded = await seed(file, comments);
  const seedSeconds = seconds(seeding);
  progress(`  ${name} (SQLite): migrated and a user created in ${((seeding - started) / 1000).toFixed(1)} s; ${comments} comments seeded and analysed in ${seedSeconds.toFixed(1)} s`);
  const engine = await sqliteVersion(file);
  return { dialect: 'sqlite', engine, url, account, comments, seeded, seedSeconds, connect: () => connectSqlite(file), remove };
}
