import { copyFileSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { Sequelize } from 'sequelize';
import { openDatabase } from '../../../src/db/database.js';
import { hasPendingMigrations, migrationFiles } from '../../../src/db/migration-files.js';
import { migrate } from '../../../src/db/migrator.js';
import { migrationsDir } from '../../../src/paths.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.js';

// A start on an up-to-date database asks the database alone, without loading the migration runner.
describe('whether a database has migrations to apply', () => {
  let sequelize: Sequelize;
  let database: TestDatabase;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'comments-migration-files-'));

  beforeAll(async () => {
    database = await createTestDatabase();
    sequelize = openDatabase(database.url);
  });
  afterAll(async () => {
    await sequelize.close();
    await database.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  test('a new database has every migration to apply', async () => {
    expect(await hasPendingMigrations(sequelize, [migrationsDir])).toBe(true);
  });

  test('a migrated database has none, and a migration added later is pending again', async () => {
    await migrate(sequelize);
    expect(await hasPendingMigrations(sequelize, [migrationsDir])).toBe(false);
    for (const file of migrationFiles(migrationsDir)) copyFileSync(path.join(migrationsDir, file), path.join(dir, file));
    const [first] = migrationFiles(dir);
    copyFileSync(path.join(dir, first as string), path.join(dir, `9999_added_later${path.extname(first as string)}`));
    expect(await hasPendingMigrations(sequelize, [dir])).toBe(true);
  });

  test('only migration sources count as migrations, not the schema beside them', () => {
    expect(readdirSync(migrationsDir)).toContain('schema.json');
    expect(migrationFiles(migrationsDir).every((file) => /\.(js|ts)$/.test(file))).toBe(true);
    expect(migrationFiles(migrationsDir)).not.toContain('schema.json');
  });
});
