import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from '@jest/globals';
import sqlite3 from 'sqlite3';
import { isDatabaseUnavailable } from '../../../src/db/unavailable.js';
import { DatabaseClosing, WriteBatches, type BatchedConnection, type PlainRow, type SqliteDatabase } from '../../../src/db/write-batches.js';

type Database = InstanceType<typeof sqlite3.Database>;

function open(file: string): Promise<Database> {
  return new Promise((resolve, reject) => {
    const db: Database = new sqlite3.Database(file, (error) => (error ? reject(error) : resolve(db)));
  });
}

function all(db: Database | SqliteDatabase, sql: string, params: readonly unknown[] = []): Promise<PlainRow[]> {
  return new Promise((resolve, reject) => db.all(sql, params as unknown[], (error: Error | null, rows: PlainRow[]) => (error ? reject(error) : resolve(rows))));
}

function close(db: Database): Promise<void> {
  return new Promise((resolve) => db.close(() => resolve()));
}

/**
 * Writes to a SQLite file through WriteBatches, on a connection of their own
 * as the server's are, with another connection to read as requests do.
 */
describe('writes to a SQLite file, committed together', () => {
  let dir: string;
  let writer: Database;
  let reader: Database;
  /** Every statement the batches ran, in order. */
  let statements: string[];
  let discarded: number;
  /** Statements made to fail, as a broken disk or connection would. */
  let failing: Set<string>;
  /** What another process does once a statement has run (the first time). */
  let after: Map<string, () => Promise<unknown>>;
  let batches: WriteBatches;

  beforeEach(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'write-batches-'));
    const file = path.join(dir, 'db.sqlite3');
    writer = await open(file);
    for (const sql of [
      'PRAGMA journal_mode = WAL',
      'PRAGMA busy_timeout = 200',
      'CREATE TABLE notes (id INTEGER PRIMARY KEY, title TEXT NOT NULL UNIQUE)',
      "CREATE TRIGGER notes_refused BEFORE INSERT ON notes WHEN NEW.title = 'refused' BEGIN SELECT RAISE(ROLLBACK, 'refused by its trigger'); END",
    ]) {
      await all(writer, sql);
    }
    reader = await open(file);
    statements = [];
    discarded = 0;
    failing = new Set();
    after = new Map();
    const connection: BatchedConnection = {
      open: async () => writer as unknown as SqliteDatabase,
      run: (db, sql, params) => {
        statements.push(sql);
        const ran = failing.has(sql) ? Promise.reject(new Error(`SQLITE_IOERR: ${sql} failed`)) : all(db, sql, params);
        const then = after.get(sql);
        after.delete(sql);
        return then ? ran.finally(then) : ran;
      },
      inWriteOrder: (work) => work(),
      discard: async () => void (discarded += 1),
    };
    batches = new WriteBatches(connection);
  });

  afterEach(async () => {
    await close(reader);
    await close(writer);
    rmSync(dir, { recursive: true, force: true });
  });

  const insert = (title: string): Promise<PlainRow[]> => batches.run('INSERT INTO notes (title) VALUES (?) RETURNING id, title', [title], false);
  const titles = async (): Promise<string[]> => (await all(reader, 'SELECT title FROM notes ORDER BY id')).map((row) => String(row.title));

  test('a write alone runs in a transaction of its own', async () => {
    expect(await insert('alone')).toEqual([{ id: 1, title: 'alone' }]);
    expect(statements).toEqual(['INSERT INTO notes (title) VALUES (?) RETURNING id, title']);
  });

  test('writes that arrive while one is under way commit together, each answered its own row, in the order they came', async () => {
    const answers = await Promise.all(['a', 'b', 'c', 'd'].map(insert));
    expect(answers).toEqual([[{ id: 1, title: 'a' }], [{ id: 2, title: 'b' }], [{ id: 3, title: 'c' }], [{ id: 4, title: 'd' }]]);
    expect(statements.filter((sql) => sql === 'BEGIN IMMEDIATE')).toHaveLength(1);
    expect(statements.filter((sql) => sql === 'COMMIT')).toHaveLength(1);
    expect(await titles()).toEqual(['a', 'b', 'c', 'd']);
  });

  test('a write is answered once its batch has committed: a read that follows finds it', async () => {
    const found = await Promise.all(['a', 'b', 'c'].map(async (title) => (await insert(title), (await titles()).includes(title))));
    expect(found).toEqual([true, true, true]);
  });

  test('a write a constraint refuses fails alone; the others of its batch are written', async () => {
    await insert('taken');
    const outcomes = await Promise.allSettled(['x', 'taken', 'y'].map(insert));
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(String((outcomes[1] as PromiseRejectedResult).reason)).toMatch(/UNIQUE constraint failed/);
    expect(await titles()).toEqual(['taken', 'x', 'y']);
  });

  test("a trigger's rollback undoes the batch; its writes run again one by one and only the refused one fails", async () => {
    await insert('first');
    const outcomes = await Promise.allSettled(['x', 'refused', 'y'].map(insert));
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(String((outcomes[1] as PromiseRejectedResult).reason)).toMatch(/refused by its trigger/);
    expect(await titles()).toEqual(['first', 'x', 'y']);
    expect(discarded).toBe(0);
  });

  test('a batch that cannot have the write lock fails every write of it, and the writes after it go on', async () => {
    await insert('first');
    await all(reader, 'BEGIN IMMEDIATE');
    const outcomes = await Promise.allSettled(['x', 'y', 'z'].map(insert));
    await all(reader, 'ROLLBACK');
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['rejected', 'rejected', 'rejected']);
    for (const outcome of outcomes) expect(String((outcome as PromiseRejectedResult).reason)).toMatch(/SQLITE_BUSY|locked/);
    expect(await insert('after')).toEqual([{ id: 2, title: 'after' }]);
    expect(await titles()).toEqual(['first', 'after']);
  });

  test('writes that arrive while a write waits for the lock in vain fail with it, and start no wait of their own', async () => {
    await insert('first');
    await all(reader, 'BEGIN IMMEDIATE');
    statements = [];
    // x is alone under way when y and z arrive.
    const outcomes = await Promise.allSettled(['x', 'y', 'z'].map(insert));
    await all(reader, 'ROLLBACK');
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['rejected', 'rejected', 'rejected']);
    for (const outcome of outcomes) expect(String((outcome as PromiseRejectedResult).reason)).toMatch(/SQLITE_BUSY/);
    expect(statements).toEqual(['INSERT INTO notes (title) VALUES (?) RETURNING id, title']);
    expect(await insert('after')).toEqual([{ id: 2, title: 'after' }]);
  });

  test("the writes of a batch undone, run again one by one, fail together once one of them waits for the lock in vain", async () => {
    await insert('first');
    // Another process takes the lock as soon as the batch is undone.
    after.set('ROLLBACK', () => all(reader, 'BEGIN IMMEDIATE'));
    const outcomes = await Promise.allSettled(['x', 'refused', 'y'].map(insert));
    await all(reader, 'ROLLBACK');
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['rejected', 'rejected', 'rejected']);
    for (const outcome of outcomes) expect(String((outcome as PromiseRejectedResult).reason)).toMatch(/SQLITE_BUSY/);
    // Of the writes run again alone, the first waited; the others failed with it.
    const undone = statements.lastIndexOf('ROLLBACK');
    expect(statements.slice(undone + 1)).toEqual(['INSERT INTO notes (title) VALUES (?) RETURNING id, title']);
    expect(await titles()).toEqual(['first']);
  });

  test('a batch whose commit fails and which cannot be undone is refused whole, and its connection put away', async () => {
    await insert('first');
    failing = new Set(['COMMIT', 'ROLLBACK']);
    const outcomes = await Promise.allSettled(['x', 'y', 'z'].map(insert));
    failing = new Set();
    await all(writer, 'ROLLBACK');
    expect(statements.filter((sql) => sql === 'BEGIN IMMEDIATE')).toHaveLength(1);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['rejected', 'rejected', 'rejected']);
    for (const outcome of outcomes) expect(String((outcome as PromiseRejectedResult).reason)).toMatch(/COMMIT failed/);
    expect(discarded).toBe(1);
    expect(await titles()).toEqual(['first']);
  });

  test('closing waits for the batch under way and those waiting, which are written and answered; a write asked for after is refused', async () => {
    const writes = ['a', 'b', 'c', 'd'].map(insert);
    const closing = batches.close();
    const late = await insert('late').catch((error: unknown) => error);
    // Answered as a database that cannot answer now: 503 in the site's shape.
    expect(late).toBeInstanceOf(DatabaseClosing);
    expect(isDatabaseUnavailable(late)).toBe(true);
    await closing;
    expect((await Promise.all(writes)).map(([row]) => row?.title)).toEqual(['a', 'b', 'c', 'd']);
    expect(await titles()).toEqual(['a', 'b', 'c', 'd']);
  });
});
