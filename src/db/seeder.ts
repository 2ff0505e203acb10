import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { Transaction } from 'sequelize';
import { SequelizeStorage, Umzug } from 'umzug';
import { seedsDemoData } from '../config.js';
import type { Services } from '../services.js';
import { loadDataFiles } from '../userdata/load.js';
import type { Seeder, SeedResult } from './seeders.js';
import { importApplicationModule } from '../application-code.js';

export interface SeedOutcome {
  applied: { name: string; result: SeedResult }[];
  /** Development seeders left pending because this is production. */
  skipped: string[];
}

export interface SeedOptions {
  dir?: string;
  dataDir?: string;
}

interface SeederFile {
  name: string;
  load(): Promise<Seeder>;
}

/** Which seeders ran. Its own model name: SequelizeStorage reuses a model of the same name, the migrations' SequelizeMeta. */
function seederStorage(services: Services): SequelizeStorage {
  return new SequelizeStorage({ sequelize: services.sequelize, tableName: 'schema_seeders', modelName: 'SchemaSeeder' });
}

function seederFiles(dir: string): SeederFile[] {
  // An application need not have seeders: only resources/ is required.
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isFile() && /\.(js|ts)$/.test(entry.name) && !entry.name.endsWith('.d.ts'))
    .map((entry) => entry.name)
    .sort()
    .map((file) => ({
      name: file.replace(/\.(js|ts)$/, ''),
      load: async () => {
        const module = (await importApplicationModule(path.join(dir, file))) as { default?: Seeder };
        if (typeof module.default?.run !== 'function') throw new Error(`${file} has no default export made by defineSeeder()`);
        return module.default;
      },
    }));
}

/**
 * Applies the seeders of `seeders/` not applied before, in name order, each in
 * its own transaction; which ran is kept in the `schema_seeders` table, as
 * migrations are in `schema_migrations`.
 */
export async function seed(services: Services, options: SeedOptions = {}): Promise<SeedOutcome> {
  const dataDir = options.dataDir ?? services.application.seedData;
  const files = seederFiles(options.dir ?? services.application.seeders);
  const results = new Map<string, SeedResult>();
  const umzug = new Umzug({
    migrations: files.map((file) => ({
      name: file.name,
      up: async () => {
        const seeder = await file.load();
        // IMMEDIATE: a running server's writes wait for the seeder instead of failing it with SQLITE_BUSY.
        const result = await services.sequelize.transaction({ type: Transaction.TYPES.IMMEDIATE }, async (transaction) =>
          seeder.run({
            services,
            transaction,
            dataFile: (name) => path.join(dataDir, name),
            loadUsers: (...paths) => loadDataFiles(services.registry, services.accounts.hasher, paths, { transaction }),
          }),
        );
        results.set(file.name, result ?? {});
      },
    })),
    context: {},
    storage: seederStorage(services),
    logger: undefined,
  });
  const pending = (await umzug.pending()).map((seeder) => seeder.name);
  const production = services.config.environment === 'production';
  const allowed: string[] = [];
  const skipped: string[] = [];
  for (const name of pending) {
    const seeder = await files.find((file) => file.name === name)?.load();
    (production && seeder?.development ? skipped : allowed).push(name);
  }
  if (allowed.length > 0) await umzug.up({ migrations: allowed });
  return { applied: allowed.map((name) => ({ name, result: results.get(name) ?? {} })), skipped };
}

/**
 * `npm start` on an empty development database: the seeders run, so a
 * newcomer has accounts and comments to look at. Null when nothing was done
 * (production or test, DEMO_DATA=false, any row in any table, seeders run before).
 */
export async function seedEmptyDevelopmentDatabase(services: Services, options: SeedOptions = {}): Promise<SeedOutcome | null> {
  if (!seedsDemoData(services.config)) return null;
  for (const resource of services.registry.all()) {
    if ((await resource.model.count()) > 0) return null;
  }
  if ((await seederStorage(services).executed()).length > 0) return null;
  return seed(services, options);
}
