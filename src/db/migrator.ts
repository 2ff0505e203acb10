import path from 'node:path';
import type { QueryInterface, Sequelize } from 'sequelize';
import { SequelizeStorage, Umzug, type MigrationFn } from 'umzug';
import { migrationsDir } from '../paths.js';
import { MIGRATIONS_TABLE, migrationFiles, migrationName } from './migration-files.js';
import { withMigrationLock } from './migration-lock.js';
import { importApplicationModule } from '../application-code.js';

export type Migration = MigrationFn<QueryInterface>;

interface MigrationModule {
  up: Migration;
  down?: Migration;
}

export function createMigrator(sequelize: Sequelize, dirs: readonly string[] = [migrationsDir]): Umzug<QueryInterface> {
  const migrations = dirs.flatMap((dir) =>
    migrationFiles(dir).map((file) => {
      const fullPath = path.join(dir, file);
      const load = async (): Promise<MigrationModule> => (await importApplicationModule(fullPath)) as MigrationModule;
      return {
        name: migrationName(file),
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
    storage: new SequelizeStorage({ sequelize, tableName: MIGRATIONS_TABLE }),
    logger: undefined,
  });
}

/** Applies every pending migration; returns the names applied. */
export async function migrate(sequelize: Sequelize, dirs?: readonly string[]): Promise<string[]> {
  const applied = await withMigrationLock(sequelize, () => createMigrator(sequelize, dirs).up());
  return applied.map((migration) => migration.name);
}

/** The migration a `migrate <target>` leaves last applied: none (`zero`), or the one named (a unique prefix of its name will do). */
export type MigrationTarget = { kind: 'latest' } | { kind: 'zero' } | { kind: 'named'; prefix: string };

/** What `migrate` would do: apply pending migrations in order, or revert applied ones, newest first. */
export interface MigrationPlan {
  direction: 'up' | 'down';
  names: string[];
}

/** A target names no migration, or more than one: the names it could have meant. */
export class UnknownMigration extends Error {
  constructor(
    readonly target: string,
    readonly known: readonly string[],
  ) {
    super(`no single migration is named ${target}`);
    this.name = 'UnknownMigration';
  }
}

function resolveTarget(target: MigrationTarget, all: readonly string[]): number {
  if (target.kind === 'latest') return all.length - 1;
  if (target.kind === 'zero') return -1;
  const exact = all.indexOf(target.prefix);
  if (exact >= 0) return exact;
  const matching = all.filter((name) => name.startsWith(target.prefix));
  if (matching.length !== 1 || matching[0] === undefined) throw new UnknownMigration(target.prefix, matching.length > 1 ? matching : all);
  return all.indexOf(matching[0]);
}

/**
 * Django's `migrate [name]`: forward through `name` if it is pending, back to
 * it (reverting every later one) if it is applied; `zero` reverts them all.
 */
export async function migrationPlan(sequelize: Sequelize, dirs: readonly string[], target: MigrationTarget = { kind: 'latest' }): Promise<MigrationPlan> {
  const migrator = createMigrator(sequelize, dirs);
  const executed = (await migrator.executed()).map((migration) => migration.name);
  const pending = (await migrator.pending()).map((migration) => migration.name);
  const all = [...executed, ...pending];
  const last = resolveTarget(target, all);
  if (last >= executed.length - 1) return { direction: 'up', names: all.slice(executed.length, last + 1) };
  return { direction: 'down', names: executed.slice(last + 1).reverse() };
}

/** Carries out `migrationPlan`; returns what it did. */
export async function migrateTo(sequelize: Sequelize, dirs: readonly string[], target: MigrationTarget = { kind: 'latest' }): Promise<MigrationPlan> {
  return withMigrationLock(sequelize, async () => {
    const plan = await migrationPlan(sequelize, dirs, target);
    const migrator = createMigrator(sequelize, dirs);
    if (plan.direction === 'up') await migrator.up({ migrations: plan.names });
    else await migrator.down({ migrations: plan.names });
    return plan;
  });
}
