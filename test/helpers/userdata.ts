import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeEach } from '@jest/globals';
import request from 'supertest';
import { createApp } from '../../src/app.js';
import { createServices, type Services } from '../../src/services.js';
import { testConfig, TEST_ITERATIONS } from './app.js';
import { cli, type CliRun } from './cli.js';
import { createTestDatabase, type TestDatabase } from './database.js';

const fixturesDir = path.join(path.dirname(fileURLToPath(import.meta.url)), '../fixtures');

/** The real Django and Laravel exports, copied unchanged from the migration's source systems. */
export const DJANGO_USERS = path.join(fixturesDir, 'django_users_shared.json');
export const LARAVEL_USERS = path.join(fixturesDir, 'laravel_users_shared.json');

/** The passwords of those exports' users, by login (Django: username; Laravel: email). */
export const PASSWORDS = {
  yamada: 'yamada-pass-1',
  suzuki: 'suzuki-pass-2',
  retired: 'retired-pass-3',
  'nakamura@example.jp': 'nakamura-pass-4',
  'kobayashi@example.jp': 'kobayashi-pass-5',
} as const;

export interface DataWorkspace {
  /** The database of the current test (a file, or a PostgreSQL database under test:pg): the CLI opens it itself. */
  readonly url: string;
  /** Writes a file into the test's folder; returns its path. */
  file(name: string, content: string | Buffer): string;
  /** Runs `npm run manage -- …` on the current database (fast hashes unless `env` says otherwise). */
  manage(args: string[], env?: Record<string, string>): Promise<CliRun>;
  /** Services over the current database, closed after `use`. */
  withServices<T>(use: (services: Services) => Promise<T>, env?: Record<string, string>): Promise<T>;
  /** Both sites over the current database; `env` as the server's settings. */
  withHttp<T>(use: (http: ReturnType<typeof request>, services: Services) => Promise<T>, env?: Record<string, string>): Promise<T>;
  /** Every column of every user, in id order: equal before and after means the load left nothing behind. */
  users(): Promise<Record<string, unknown>[]>;
  /** A second, empty database for the same test (a round trip's destination). */
  another(): Promise<DataWorkspace>;
}

/** A fresh database and folder for each test of the calling describe block. */
export function useDataWorkspace(): DataWorkspace {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'comments-userdata-'));
  let databases: TestDatabase[] = [];
  let current: DataWorkspace | undefined;
  let counter = 0;

  const open = async (): Promise<DataWorkspace> => {
    counter += 1;
    const database = await createTestDatabase(`sqlite:${path.join(dir, `db${counter}.sqlite3`)}`);
    databases.push(database);
    const withServices = async <T>(use: (services: Services) => Promise<T>, env: Record<string, string> = {}) => {
      const services = await createServices(testConfig({ DATABASE_URL: database.url, ...env }));
      try {
        return await use(services);
      } finally {
        await services.close();
      }
    };
    return {
      url: database.url,
      file(name, content) {
        const file = path.join(dir, name);
        writeFileSync(file, content);
        return file;
      },
      manage: (args, env = {}) =>
        cli(args, { env: { DATABASE_URL: database.url, PASSWORD_HASH_ITERATIONS: String(TEST_ITERATIONS), ...env } }),
      withServices,
      withHttp: (use, env = {}) => withServices((services) => use(request(createApp(services)), services), env),
      users: () =>
        withServices(async (services) =>
          (await services.registry.users().model.scope('withHidden').findAll({ order: [['id', 'ASC']], raw: true })) as unknown as Record<
            string,
            unknown
          >[],
        ),
      another: open,
    };
  };

  beforeEach(async () => {
    current = await open();
  });
  afterEach(async () => {
    await Promise.all(databases.map((database) => database.drop()));
    databases = [];
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const workspace = (): DataWorkspace => {
    if (!current) throw new Error('the workspace is used outside its describe block');
    return current;
  };
  return {
    get url() {
      return workspace().url;
    },
    file: (name, content) => workspace().file(name, content),
    manage: (args, env) => workspace().manage(args, env),
    withServices: (use, env) => workspace().withServices(use, env),
    withHttp: (use, env) => workspace().withHttp(use, env),
    users: () => workspace().users(),
    another: () => workspace().another(),
  };
}
