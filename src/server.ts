import cluster from 'node:cluster';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { createApp } from './app.js';
import { cliLanguage } from './cli/io.js';
import { checkServerConfig, ConfigError, describeConfigError, loadConfig, loadDotEnv, type Config } from './config.js';
import { translator, type Translate } from './i18n.js';
import { parseDatabaseUrl } from './db/database.js';
import { seedEmptyDevelopmentDatabase, type SeedOutcome } from './db/seeder.js';
import { CommandFailed } from './cli/accounts.js';
import { seedFailure, seedLines } from './cli/seeding.js';
import { runPrimary } from './cluster.js';
import { createLogger } from './logger.js';
import { createServices, type Services } from './services.js';
import { exitOnSignal, gracefulClose, SHUTDOWN_GRACE_MS, WORKER_SHUTDOWN_GRACE_MS } from './shutdown.js';

export interface RunningServer {
  server: Server;
  services: Services;
  url: string;
  /** The demo data loaded because the development database was empty, or null. */
  demo: SeedOutcome | null;
  /** Stops accepting connections, lets the requests in flight finish, then closes the database. */
  close(): Promise<void>;
}

export interface StartOptions {
  /**
   * Apply pending migrations and load the demo data into an empty development
   * database first (default). A cluster's workers do not: their primary did.
   */
  prepareDatabase?: boolean;
}

/** Migrations, then the demo data on an empty development database: what a cluster's primary does once for its workers. */
export async function prepareDatabase(config: Config): Promise<SeedOutcome | null> {
  const services = await createServices(config);
  try {
    return await seedEmptyDevelopmentDatabase(services);
  } finally {
    await services.close();
  }
}

/** Serves every site on HOST:PORT, after preparing the database unless told not to. */
export async function startServer(config: Config, options: StartOptions = {}): Promise<RunningServer> {
  const prepare = options.prepareDatabase ?? true;
  const services = await createServices(config, { migrate: prepare });
  let demo: SeedOutcome | null = null;
  try {
    if (prepare) demo = await seedEmptyDevelopmentDatabase(services);
  } catch (error) {
    await services.close();
    throw error;
  }
  const app = createApp(services);
  const server = await new Promise<Server>((resolve, reject) => {
    const listening = app.listen(config.port, config.host, (error?: Error) => (error ? reject(error) : resolve(listening)));
  });
  const closeServer = gracefulClose(server);
  const { port } = server.address() as AddressInfo;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  const close = async (): Promise<void> => {
    await closeServer();
    await services.close();
  };
  return { server, services, url: `http://${host}:${port}/`, demo, close };
}

/** Workers share the database: an in-memory SQLite database would be a different one in each process. */
function checkConcurrency(config: Config): void {
  const target = parseDatabaseUrl(config.databaseUrl);
  if (config.webConcurrency > 1 && target.dialect === 'sqlite' && target.storage === ':memory:') {
    throw new ConfigError('WEB_CONCURRENCY', String(config.webConcurrency), '1 with an in-memory SQLite database, which each process would have to itself');
  }
}

function readConfig(t: Translate): Config {
  try {
    loadDotEnv();
    const config = loadConfig();
    checkServerConfig(config);
    checkConcurrency(config);
    return config;
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${describeConfigError(t, error)}\n`);
    process.exit(1);
  }
}

/** Why the server could not start, for people; then exit with status 1. */
function startFailed(t: Translate, config: Config, error: unknown): never {
  const seeding = seedFailure(t, error);
  if (seeding instanceof CommandFailed) {
    process.stderr.write(`${seeding.lines.join('\n')}\n`);
    process.exit(1);
  }
  const { code, message } = error as NodeJS.ErrnoException;
  const key = code === 'EADDRINUSE' || code === 'EACCES' || code === 'EADDRNOTAVAIL' ? 'error.listen' : 'error.database';
  process.stderr.write(`${t(key, { address: `${config.host}:${config.port}`, message })}\n`);
  process.exit(1);
}

function printDemo(t: Translate, demo: SeedOutcome | null): void {
  if (demo) process.stdout.write(`${[t('seed.demo_loaded'), ...seedLines(t, demo)].join('\n')}\n`);
}

/**
 * WEB_CONCURRENCY=1: this process serves. More: this process is the primary;
 * it prepares the database once, so that workers never race on migrations or
 * the demo data, then forks the workers, each of which serves.
 */
async function main(): Promise<void> {
  const t = translator(cliLanguage(process.env), ['cli', 'common']);
  const config = readConfig(t);
  if (cluster.isPrimary && config.webConcurrency > 1) {
    printDemo(t, await prepareDatabase(config).catch((error: unknown) => startFailed(t, config, error)));
    const logger = createLogger(config.logLevel);
    if (!config.redisUrl) logger.warn({ workers: config.webConcurrency }, 'no REDIS_URL: each worker counts login failures on its own, so the limits are multiplied by the workers');
    runPrimary({ workers: config.webConcurrency, logger });
    return;
  }
  const running = await startServer(config, { prepareDatabase: cluster.isPrimary }).catch((error: unknown) =>
    startFailed(t, config, error),
  );
  printDemo(t, running.demo);
  running.services.logger.info({ url: running.url }, `serving on ${running.url}`);
  exitOnSignal(running.services.logger, () => running.close(), cluster.isPrimary ? SHUTDOWN_GRACE_MS : WORKER_SHUTDOWN_GRACE_MS);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  });
}
