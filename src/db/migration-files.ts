/**
 * Which migrations an application has and which of them a database has
 * applied, read without the migration runner: a serving process whose
 * database is up to date (every start in production) never loads umzug.
 */
import { existsSync, readdirSync } from 'node:fs';
import type { Sequelize } from 'sequelize';

/** Where applied migrations are recorded (umzug's SequelizeStorage, column `name`). */
export const MIGRATIONS_TABLE = 'schema_migrations';

/** Source files in tests, compiled ones under dist/: whichever this tree holds; none when there is no such folder (yet). */
export function migrationFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((name) => /\.(js|ts)$/.test(name) && !name.endsWith('.d.ts'))
    .sort();
}

/** A migration's name: its file's, without the extension. */
export const migrationName = (file: string): string => file.replace(/\.(js|ts)$/, '');

/** Whether some migration of `dirs` is not recorded as applied (also when nothing is recorded yet). */
export async function hasPendingMigrations(sequelize: Sequelize, dirs: readonly string[]): Promise<boolean> {
  let applied: Set<string>;
  try {
    const rows = (await sequelize.query(`SELECT name FROM ${sequelize.getQueryInterface().quoteIdentifier(MIGRATIONS_TABLE)}`, { type: 'SELECT' })) as { name: string }[];
    applied = new Set(rows.map((row) => row.name));
  } catch {
    return true; // no table: a new database
  }
  return dirs.some((dir) => migrationFiles(dir).some((file) => !applied.has(migrationName(file))));
}
