import { readdirSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { QueryInterface, Sequelize } from 'sequelize';
import { SequelizeStorage, Umzug, type MigrationFn } from 'umzug';
import { migrationsDir } from '../paths.js';

export type Migration = MigrationFn<QueryInterface>;

interface MigrationModule {
  up: Migration;
  down?: Migration;
}

/** Source files in tests, compiled ones under dist/: whichever this tree holds. */
function migrationFiles(dir: string): string[] {
  return readdirSync(dir)
    .filter((name) => /\.(js|ts)$/.test(name) && !name.endsWith('.d.ts'))
    .sort();
}

export function createMigrator(sequelize: Sequelize, dirs: readonly string[] = [migrationsDir]): Umzug<QueryInterface> {
  const migrations = dirs.flatMap((dir) =>
    migrationFiles(dir).map((file) => {
      const fullPath = path.join(dir, file);
      const load = async (): Promise<MigrationModule> => import(pathToFileURL(fullPath).href) as Promise<MigrationModule>;
      return {
        name: file.replace(/\.(js|ts)$/, ''),
        path: fullPath,
        up: async ({ context }: { context: QueryInterface }) => (await load()).up({ name: file, path: fullPath, context }),
        down: async ({ context }: { context: QueryInterface }) => {
          const migration = await load();
          await migration.down?.({ name: file, path: fullPath, context });
        },
      };
    }),
  );
  return new Umzug({
    migrations,
    context: sequelize.getQueryInterface(),
    storage: new SequelizeStorage({ sequelize, tableName: 'schema_migrations' }),
    logger: undefined,
  });
}

/** Applies every pending migration; returns the names applied. */
export async function migrate(sequelize: Sequelize, dirs?: readonly string[]): Promise<string[]> {
  const applied = await createMigrator(sequelize, dirs).up();
  return applied.map((migration) => migration.name);
}
