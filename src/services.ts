import { existsSync } from 'node:fs';
import type { Sequelize } from 'sequelize';
import { Accounts } from './auth/accounts.js';
import { PasswordHasher } from './auth/hashers.js';
import { AccessTokens } from './auth/tokens.js';
import { createSessionStore, type SessionStore } from './auth/sessions.js';
import type { Config } from './config.js';
import { openDatabase } from './db/database.js';
import { hasPendingMigrations } from './db/migration-files.js';
import { describeMissing, missingQueryIndexes } from './db/query-indexes.js';
import { useApplicationLocales } from './i18n.js';
import { createLogger, type Logger } from './logger.js';
import { applicationAt, type ApplicationPaths } from './paths.js';
import { applicationDeclarations, ResourceRegistry } from './registry.js';
import { createThrottles, type Throttles } from './throttling.js';
import type { ResourceDeclaration } from './types/resource.js';

/** What the app, the CLI and the tests share: one database, its resources and accounts. */
export interface Services {
  config: Config;
  /** The application served: where its declarations, migrations, seeders and messages are. */
  application: ApplicationPaths;
  logger: Logger;
  sequelize: Sequelize;
  registry: ResourceRegistry;
  accounts: Accounts;
  /** API tokens; null when no resource declares the token model. */
  tokens: AccessTokens | null;
  /** Where browser sessions live (the `sessions` table). */
  sessions: SessionStore;
  /** Rate limits: in memory, or in Redis when REDIS_URL is set. */
  throttles: Throttles;
  /** Set when the server begins to stop: /readyz answers 503 from then on, so that a load balancer sends nothing more. */
  stopping: boolean;
  close(): Promise<void>;
}

export interface ServiceOptions {
  /** The application served; default: the one at APP_ROOT (the comment service). */
  application?: ApplicationPaths;
  /** Declarations to serve; default: every file of the application's `resources/`. */
  declarations?: readonly ResourceDeclaration[];
  /** Apply pending migrations first (npm start and the CLI do). */
  migrate?: boolean;
  /** Default: the application's `resources/migrations/`. */
  migrationDirs?: readonly string[];
  /** Limit each statement to DATABASE_TIMEOUT_SECONDS (the server does; migrations are never limited). */
  limitStatements?: boolean;
  logger?: Logger;
}

/** Django's system checks, for list queries: what a declaration filters, orders or searches by has its index. */
async function warnOfMissingIndexes(sequelize: Sequelize, registry: ResourceRegistry, logger: Logger): Promise<void> {
  try {
    for (const missing of await missingQueryIndexes(sequelize.getQueryInterface(), registry.all().map(({ declaration }) => declaration))) {
      logger.warn({ table: missing.table, field: missing.field }, describeMissing(missing));
    }
  } catch (error) {
    // A database not migrated yet (the CLI's own `migrate`): its tables come later.
    logger.debug({ err: error }, 'indexes of list queries not checked');
  }
}

/** The application's declarations could not be loaded: a mistake in one, or APP_ROOT naming no application. Not the database's doing. */
export class ApplicationError extends Error {
  override readonly name = 'ApplicationError';
}

async function loadRegistry(sequelize: Sequelize, application: ApplicationPaths, declarations: readonly ResourceDeclaration[] | undefined): Promise<ResourceRegistry> {
  try {
    return new ResourceRegistry(sequelize, declarations ?? (await applicationDeclarations(application.resources)));
  } catch (error) {
    throw new ApplicationError((error as Error).message, { cause: error });
  }
}

export async function createServices(config: Config, options: ServiceOptions = {}): Promise<Services> {
  const logger = options.logger ?? createLogger(config.logLevel);
  const application = options.application ?? applicationAt(config.appRoot);
  // Before the migrations, which would fail to find theirs in words about the database.
  if (!existsSync(application.resources)) throw new ApplicationError(`no compiled resources at ${application.resources}: APP_ROOT names no application of this project`);
  useApplicationLocales(application.locales);
  const limits = options.limitStatements ? { statementTimeoutMs: config.databaseTimeout * 1000 } : null;
  const sequelize = openDatabase(config.databaseUrl, limits);
  try {
    const migrationDirs = options.migrationDirs ?? [application.migrations];
    const pending = await hasPendingMigrations(sequelize, migrationDirs);
    // The runner (umzug) is loaded only when there is something to run.
    if ((options.migrate ?? true) && pending) {
      const { migrate } = await import('./db/migrator.js');
      // An index built on a large table may take longer than any request should.
      const migrating = limits && sequelize.getDialect() === 'postgres' ? openDatabase(config.databaseUrl) : sequelize;
      try {
        const applied = await migrate(migrating, migrationDirs);
        if (applied.length > 0) logger.info({ migrations: applied }, 'applied migrations');
      } finally {
        if (migrating !== sequelize) await migrating.close();
      }
    }
    const registry = await loadRegistry(sequelize, application, options.declarations);
    // Left unapplied (`migrate --plan`, `migrate 0003`): the indexes their migrations make are not there yet, and no mistake.
    if (!pending || (options.migrate ?? true)) await warnOfMissingIndexes(sequelize, registry, logger);
    const accounts = new Accounts(registry, new PasswordHasher(config.passwordIterations));
    const tokenModel = registry.tokens();
    const tokens = tokenModel
      ? new AccessTokens(tokenModel, accounts, { expirationMinutes: config.tokenExpirationMinutes })
      : null;
    const sessions = createSessionStore(sequelize, config.sessionCookieAge);
    // Made on first use: the CLI never needs them, nor a connection to Redis.
    let throttles: Throttles | undefined;
    const close = async (): Promise<void> => {
      sessions.close();
      await throttles?.close();
      await sequelize.close();
    };
    return {
      config,
      application,
      logger,
      sequelize,
      registry,
      accounts,
      tokens,
      sessions,
      get throttles() {
        return (throttles ??= createThrottles(config, logger));
      },
      stopping: false,
      close,
    };
  } catch (error) {
    await sequelize.close();
    throw error;
  }
}
