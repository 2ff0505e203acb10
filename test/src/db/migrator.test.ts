import { existsSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { QueryTypes, type Sequelize } from 'sequelize';
import { openDatabase } from '../../../src/db/database.js';
import { createMigrator, migrate } from '../../../src/db/migrator.js';
import { createTestDatabase, onPostgres, type TestDatabase } from '../../helpers/database.js';

describe('migrations', () => {
  let sequelize: Sequelize;
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase();
    sequelize = openDatabase(database.url);
    await migrate(sequelize);
  });
  afterAll(async () => {
    await sequelize.close();
    await database.drop();
  });

  const select = <T extends object>(sql: string, replacements: unknown[] = []) =>
    sequelize.query<T>(sql, { type: QueryTypes.SELECT, replacements });

  // describeTable() of Sequelize's SQLite dialect trips over expression indexes; ask the database directly.
  const columns = async (table: string) => {
    const rows = onPostgres()
      ? await select<{ name: string }>('SELECT column_name AS name FROM information_schema.columns WHERE table_name = ?', [table])
      : await select<{ name: string }>(`PRAGMA table_info(${table})`);
    return rows.map((row) => row.name).sort();
  };

  const indexes = async (table: string) => {
    const rows = onPostgres()
      ? await select<{ name: string }>('SELECT indexname AS name FROM pg_indexes WHERE tablename = ?', [table])
      : await select<{ name: string }>(`PRAGMA index_list(${table})`);
    return rows.map((row) => row.name);
  };

  test('users has every column of the design', async () => {
    expect(await columns('users')).toEqual(
      [
        'id', 'username', 'name', 'first_name', 'last_name', 'email', 'password', 'is_superuser', 'is_staff',
        'is_active', 'email_verified_at', 'remember_token', 'last_login', 'created_at', 'updated_at',
      ].sort(),
    );
  });

  test('comments has every column of the design', async () => {
    expect(await columns('comments')).toEqual(['body', 'created_at', 'id', 'title', 'updated_at', 'user_id']);
  });

  test('personal_access_tokens has every column of the design', async () => {
    expect(await columns('personal_access_tokens')).toEqual(
      ['abilities', 'created_at', 'expires_at', 'id', 'last_used_at', 'name', 'token', 'tokenable_id', 'updated_at'],
    );
  });

  test('emails are unique regardless of letter case, in the database itself', async () => {
    const insert = (username: string, email: string) =>
      sequelize.query(
        "INSERT INTO users (username, email, password, created_at, updated_at) VALUES (?, ?, '!', '2026-01-01', '2026-01-01')",
        { replacements: [username, email] },
      );
    await insert('one', 'Same@Example.com');
    await expect(insert('two', 'same@example.COM')).rejects.toThrow();
  });

  test('the list ordering and the owner look-up have their indexes', async () => {
    expect(await indexes('comments')).toEqual(expect.arrayContaining(['comments_updated_at_id', 'comments_user_id_updated_at_id']));
    expect(await indexes('users')).toEqual(expect.arrayContaining(['users_email_lower_unique']));
  });

  test('every migration can be undone', async () => {
    const migrator = createMigrator(sequelize);
    await migrator.down({ to: 0 });
    expect(await sequelize.getQueryInterface().showAllTables()).toEqual(['schema_migrations']);
    await migrator.up();
    // SQLite's text index is a table of its own, with FTS5's shadow tables beside it.
    const text = sequelize.getDialect() === 'sqlite' ? ['comments_fts', 'comments_fts_config', 'comments_fts_data', 'comments_fts_docsize', 'comments_fts_idx'] : [];
    expect((await sequelize.getQueryInterface().showAllTables()).sort()).toEqual(
      ['admin_audit_log', 'comments', ...text, 'personal_access_tokens', 'row_counts', 'schema_migrations', 'sessions', 'users'],
    );
  });
});

describe('migrations started at once by two processes', () => {
  test('on a new database, both succeed and each migration is applied once: the second waits, then finds nothing left', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'comments-migrate-'));
    const database = await createTestDatabase(`sqlite:${path.join(dir, 'db.sqlite3')}`);
    const [first, second] = [openDatabase(database.url), openDatabase(database.url)];
    try {
      const [a, b] = await Promise.all([migrate(first), migrate(second)]);
      const all = (await createMigrator(first).executed()).map((migration) => migration.name);
      expect([...a, ...b].sort()).toEqual([...all].sort());
      expect(all.length).toBeGreaterThan(0);
    } finally {
      await first.close();
      await second.close();
      await database.drop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('a lock file a crashed migration left behind', () => {
  test.each([
    ['naming a process that is gone', (file: string) => writeFileSync(file, '2147483646')],
    ['empty, its maker killed before it wrote its number, long enough ago', (file: string) => {
      writeFileSync(file, '');
      const past = new Date(Date.now() - 60_000);
      utimesSync(file, past, past);
    }],
  ])('is taken over when %s', async (_case, leave) => {
    // A SQLite file's lock, whatever database the suite runs on (PostgreSQL's is an advisory lock, tested above).
    const dir = mkdtempSync(path.join(os.tmpdir(), 'comments-migrate-'));
    leave(path.join(dir, 'db.sqlite3.migrating'));
    const sequelize = openDatabase(`sqlite:${path.join(dir, 'db.sqlite3')}`);
    try {
      expect((await migrate(sequelize)).length).toBeGreaterThan(0);
      expect(existsSync(path.join(dir, 'db.sqlite3.migrating'))).toBe(false);
    } finally {
      await sequelize.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
