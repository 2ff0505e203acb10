/**
 * A throwaway SQLite database for a benchmark: migrated and given a user by
 * the real CLI (`node dist/src/cli/manage.js`), then seeded with comments
 * straight through the `sqlite3` module.
 */
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import path from 'node:path';
import sqlite3 from 'sqlite3';
import { BenchFailure, Interrupted, isInterrupted, progress, seconds, spawnTracked } from './processes.js';
import { baseEnv, MANAGE_SCRIPT, projectRoot } from './project.js';

export interface Account {
  username: string;
  email: string;
  password: string;
}

export interface BenchDatabase {
  file: string;
  /** DATABASE_URL of the server and the CLI. */
  url: string;
  account: Account;
  comments: number;
}

/** `node dist/src/cli/manage.js ARGS` with `input` on stdin; throws with its output when it fails. */
async function manage(args: readonly string[], databaseUrl: string, input = ''): Promise<void> {
  const child = spawnTracked(process.execPath, [MANAGE_SCRIPT, ...args], { cwd: projectRoot, env: baseEnv(databaseUrl), stdio: ['pipe', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.setEncoding('utf8').on('data', (text: string) => (output += text));
  child.stderr?.setEncoding('utf8').on('data', (text: string) => (output += text));
  child.stdin?.end(input);
  const status = await new Promise<number | null>((resolve) => {
    child.once('error', (error) => {
      output += String(error);
      resolve(null);
    });
    child.once('close', (code) => resolve(code));
  });
  if (status !== 0) throw new BenchFailure(`manage ${args.join(' ')} failed (status ${status ?? 'none'})`, output.trim());
}

export function openSqlite(file: string, readOnly = false): Promise<sqlite3.Database> {
  const mode = readOnly ? sqlite3.OPEN_READONLY : sqlite3.OPEN_READWRITE | sqlite3.OPEN_CREATE;
  return new Promise((resolve, reject) => {
    const db = new sqlite3.Database(file, mode, (error) => (error ? reject(error) : resolve(db)));
  });
}

function exec(db: sqlite3.Database, sql: string): Promise<void> {
  return new Promise((resolve, reject) => db.exec(sql, (error) => (error ? reject(error) : resolve())));
}

export function closeSqlite(db: sqlite3.Database): Promise<void> {
  return new Promise((resolve, reject) => db.close((error) => (error ? reject(error) : resolve())));
}

/** The first row of `sql`, or undefined. */
export function queryRow<T>(db: sqlite3.Database, sql: string, params: readonly unknown[] = []): Promise<T | undefined> {
  return new Promise((resolve, reject) => db.get<T>(sql, params, (error, row) => (error ? reject(error) : resolve(row))));
}

/** One multi-row INSERT per this many comments: a row per statement would take some 30 s for a million. */
const ROWS_PER_INSERT = 100;
const ROWS_PER_TRANSACTION = 50_000;
/** Comment i is updated at this instant plus i seconds: distinct, in id order, all in the past. */
const FIRST_TIMESTAMP = Date.UTC(2025, 0, 1);

function insertComments(rows: number): string {
  return `INSERT INTO comments (title, body, user_id, created_at, updated_at) VALUES ${Array(rows).fill('(?, ?, ?, ?, ?)').join(', ')}`;
}

/** As Sequelize stores a date in SQLite: `2025-01-01 00:00:01.000 +00:00`. */
function sqliteTimestamp(milliseconds: number): string {
  return new Date(milliseconds).toISOString().replace('T', ' ').replace('Z', ' +00:00');
}

/** Comments first…first+count-1: a title of at most 10 characters, a body of at most 15, the owner's. */
function commentValues(first: number, count: number, ownerId: number): (string | number)[] {
  const values: (string | number)[] = [];
  for (let i = first; i < first + count; i += 1) {
    const stamp = sqliteTimestamp(FIRST_TIMESTAMP + i * 1000);
    values.push(`title ${i % 10_000}`, `comment ${i % 1_000_000}`, ownerId, stamp, stamp);
  }
  return values;
}

function runStatement(statement: sqlite3.Statement, values: readonly (string | number)[]): Promise<void> {
  return new Promise((resolve, reject) => statement.run(values, (error: Error | null) => (error ? reject(error) : resolve())));
}

function prepare(db: sqlite3.Database, sql: string): Promise<sqlite3.Statement> {
  return new Promise((resolve, reject) => {
    const statement = db.prepare(sql, (error: Error | null) => (error ? reject(error) : resolve(statement)));
  });
}

function finalize(statement: sqlite3.Statement): Promise<void> {
  return new Promise((resolve) => statement.finalize(() => resolve()));
}

/** A statement run once (the last, shorter INSERT of a transaction). */
async function runOnce(db: sqlite3.Database, sql: string, values: readonly (string | number)[]): Promise<void> {
  const statement = await prepare(db, sql);
  try {
    await runStatement(statement, values);
  } finally {
    await finalize(statement);
  }
}

/**
 * `count` comments owned by `username`, in transactions of 50,000 rows with
 * synchronous=OFF (a throwaway database: a crash would only lose the seed).
 */
async function seedComments(file: string, username: string, count: number): Promise<void> {
  const db = await openSqlite(file);
  try {
    // Statements in order, so that ids follow the timestamps.
    db.serialize();
    await exec(db, 'PRAGMA journal_mode = WAL; PRAGMA synchronous = OFF');
    const owner = await queryRow<{ id: number }>(db, 'SELECT id FROM users WHERE username = ?', [username]);
    if (!owner) throw new BenchFailure(`no user ${username} to own the comments`);
    const fullInsert = await prepare(db, insertComments(ROWS_PER_INSERT));
    try {
      for (let first = 1; first <= count && !isInterrupted(); first += ROWS_PER_TRANSACTION) {
        const last = Math.min(first + ROWS_PER_TRANSACTION - 1, count);
        await exec(db, 'BEGIN');
        const inserts: Promise<void>[] = [];
        for (let start = first; start <= last; start += ROWS_PER_INSERT) {
          const rows = Math.min(ROWS_PER_INSERT, last - start + 1);
          const values = commentValues(start, rows, owner.id);
          inserts.push(rows === ROWS_PER_INSERT ? runStatement(fullInsert, values) : runOnce(db, insertComments(rows), values));
        }
        await Promise.all(inserts);
        await exec(db, 'COMMIT');
      }
    } finally {
      await finalize(fullInsert);
    }
    // The server opens the file as it would after a clean stop: no write-ahead log to replay.
    await exec(db, 'PRAGMA wal_checkpoint(TRUNCATE)');
  } finally {
    await closeSqlite(db);
  }
  if (isInterrupted()) throw new Interrupted();
}

/** A new SQLite database `name`.sqlite3 in `directory`: migrated, one user (`bench`, a random password at the default 600,000 PBKDF2 iterations), `comments` comments. */
export async function createDatabase(directory: string, name: string, comments: number): Promise<BenchDatabase> {
  const file = path.join(directory, `${name}.sqlite3`);
  const url = `sqlite:${file}`;
  const account: Account = { username: 'bench', email: 'bench@example.com', password: randomBytes(12).toString('hex') };
  const started = performance.now();
  await manage(['migrate'], url);
  await manage(['createuser', '--username', account.username, '--email', account.email, '--password-stdin'], url, `${account.password}\n`);
  const seeding = performance.now();
  await seedComments(file, account.username, comments);
  progress(`  ${name}: migrated and a user created in ${((seeding - started) / 1000).toFixed(1)} s; ${comments} comments seeded in ${seconds(seeding).toFixed(1)} s`);
  return { file, url, account, comments };
}

/** Removes the database's files (the write-ahead log's too) before the end of the run: they may be large. */
export function removeDatabase(database: BenchDatabase): void {
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${database.file}${suffix}`, { force: true });
}
