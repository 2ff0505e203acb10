/**
 * What a file of an application's `seeders/` declares (Laravel's seeders,
 * Django's data migrations for demo data): light, so that loading the
 * declarations never loads the seeding machinery (umzug) into a serving process.
 */
import type { Transaction } from 'sequelize';
import type { Services } from '../services.js';
import type { FileReport } from '../userdata/load.js';

/** An account a seeder made for people to try the service with; `npm start` prints them. */
export interface DemoAccount {
  username: string;
  password: string;
  role: 'superuser' | 'staff' | 'user';
}

export interface SeedResult {
  accounts?: DemoAccount[];
}

/** What a seeder works with: everything it writes goes through `transaction`. */
export interface SeedContext {
  services: Services;
  transaction: Transaction;
  /** The path of a file of `seeders/data/`. */
  dataFile(name: string): string;
  /** `loaddata` of data files (users, their tokens, any resource's rows), inside the seeder's transaction. */
  loadUsers(...files: string[]): Promise<FileReport[]>;
}

export interface Seeder {
  /** Development data: never applied when NODE_ENV=production. */
  development?: boolean;
  run(context: SeedContext): Promise<SeedResult | void>;
}

/** The default export of a file of `seeders/`. */
export function defineSeeder(seeder: Seeder): Seeder {
  return seeder;
}

