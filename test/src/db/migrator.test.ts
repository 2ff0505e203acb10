import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { Sequelize } from 'sequelize';
import { openDatabase } from '../../../src/db/database.js';
import { createMigrator, migrate } from '../../../src/db/migrator.js';

describe('migrations', () => {
  let sequelize: Sequelize;

  beforeAll(async () => {
    sequelize = openDatabase('sqlite::memory:');
    await migrate(sequelize);
  });
  afterAll(() => sequelize.close());

  // describeTable() of Sequelize's SQLite dialect trips over expression indexes; ask SQLite directly.
  const columns = async (table: string) => {
    const [rows] = (await sequelize.query(`PRAGMA table_info(${table})`)) as [{ name: string }[], unknown];
    return rows.map((row) => row.name).sort();
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

  test('the list ordering is served by an index on (updated_at, id)', async () => {
    const [plan] = await sequelize.query(
      'EXPLAIN QUERY PLAN SELECT id FROM comments ORDER BY updated_at DESC, id DESC LIMIT 2 OFFSET 10',
    );
    expect(JSON.stringify(plan)).toContain('comments_updated_at_id');
  });

  test('every migration can be undone', async () => {
    const migrator = createMigrator(sequelize);
    await migrator.down({ to: 0 });
    expect(await sequelize.getQueryInterface().showAllTables()).toEqual(['schema_migrations']);
    await migrator.up();
    expect((await sequelize.getQueryInterface().showAllTables()).sort()).toEqual(
      ['comments', 'personal_access_tokens', 'schema_migrations', 'users'],
    );
  });
});
