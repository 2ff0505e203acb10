/**
 * The server's entry point (`npm start`). Its static imports stay light: a
 * cluster's primary only forks and watches, so the application (Express,
 * Sequelize, the resources) is imported only where it serves or prepares the
 * database. A test checks that the primary loads none of it.
 */
import { spawn } from 'node:child_process';
import cluster from 'node:cluster';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { adminPreload } from './admin/mount.js';
import { importAdminServerOnly } from './admin/server-imports.js';
import { checkServerConfig, ConfigError, describeConfigError, loadConfig, loadDotEnv, seedsDemoData, servingProcesses, type Config } from './config.js';
import type { Translate } from './i18n.js';
import { runPrimary } from './cluster.js';
import { applicationAt } from './paths.js';
import { createLogger, type Logger } from './logger.js';
import type { SeedOutcome } from './db/seeder.js';
import type { Services } from './services.js';
import { exitOnSignal, gracefulClose, SHUTDOWN_GRACE_MS, WORKER_SHUTDOWN_GRACE_MS } from './shutdown.js';

/** The argument of the short-lived process in which a cluster's primary has the database prepared. */
export const PREPARE_DATABASE_ARG = '--prepare-database';

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
  /** Start loading the admin as soon as the server listens (ADMIN_PRELOAD; default off). */
  preloadAdmin?: boolean;
}

/**
 * Says soon after the start what Django's runserver says (its system checks): declarations
 * changed with no migration made for them, migrations written but not
 * compiled, messages missing in a language; each would otherwise show only as
 * the requests that need them failing, or in the wrong words.
 */
async function warnOfChecks(services: Services): Promise<void> {
  const [{ applicationChecks }, { translator }] = await Promise.all([import('./checks.js'), import('./i18n.js')]);
  let found: ReturnType<typeof applicationChecks>;
  try {
    found = applicationChecks(services.application, services.registry.all().map(({ declaration }) => declaration));
  } catch (error) {
    // A warning that cannot be worked out (schema.json unreadable, say) stops nothing.
    services.logger.warn({ err: error }, 'could not run the system checks');
    return;
  }
  const t = translator('en', ['cli']);
  for (const { id, key, params } of found) services.logger.warn({ check: id }, `${t(`check.messages.${key}`, params)} (npm run manage -- check)`);
}

/** Migrations, then the demo data on an empty development database: what a cluster's preparing process does once for its workers. */
export async function prepareDatabase(config: Config): Promise<SeedOutcome | null> {
  const [{ createServices }, { seedEmptyDevelopmentDatabase }] = await Promise.all([import('./services.js'), import('./db/seeder.js')]);
  const services = await createServices(config);
  try {
    await warnOfChecks(services);
    return await seedEmptyDevelopmentDatabase(services);
  } finally {
    await services.close();
  }
}

/** The system checks and the admin's preload wait until the server has had no request for this long, or this long after it listens at the latest. */
const QUIET_AFTER_START_MS = 100;
const QUIET_AFTER_START_LATEST_MS = 5_000;

/** Serves every site on HOST:PORT, after preparing the database unless told not to. */
export async function startServer(config: Config, options: StartOptions = {}): Promise<RunningServer> {
  const prepare = options.prepareDatabase ?? true;
  const [{ createServices }, { createApp }, { listen, whenQuiet }] = await Promise.all([import('./services.js'), import('./app.js'), import('./http-server.js')]);
  const services = await createServices(config, { migrate: prepare, limitStatements: true });
  let demo: SeedOutcome | null = null;
  try {
    // The seeder (and the loaders it brings) only where demo data may be wanted.
    if (prepare && seedsDemoData(config)) demo = await (await import('./db/seeder.js')).seedEmptyDevelopmentDatabase(services);
  } catch (error) {
    await services.close();
    throw error;
  }
  const app = createApp(services);
  const server = await listen(app, config.port, config.host, config.requestTimeout);
  const closeServer = gracefulClose(server);
  // Whether preloaded or loaded by its first request, the admin needs neither its bundler nor its browser code here.
  importAdminServerOnly();
  // What can wait, once the first requests are answered (the process quiet for a moment), so that they do not wait for it.
  const quiet = whenQuiet(server, QUIET_AFTER_START_MS, QUIET_AFTER_START_LATEST_MS).then(() => !services.stopping);
  // The system checks only warn: a server serves as soon as it can, as Django's runserver checks but gunicorn does not.
  if (prepare) {
    void quiet
      .then((serving) => (serving ? warnOfChecks(services) : undefined))
      .catch((error: unknown) => services.logger.warn({ err: error }, 'could not run the system checks'));
  }
  if (options.preloadAdmin) {
    // A failure is logged by the loader, and the first admin request tries again.
    void quiet.then(async (serving) => {
      if (!serving) return;
      await app.warm().then(
        () => services.logger.info('admin site loaded'),
        () => undefined,
      );
    });
  }
  const { port } = server.address() as AddressInfo;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  const close = async (): Promise<void> => {
    services.stopping = true;
    await closeServer();
    await services.close();
  };
  return { server, services, url: `http://${host}:${port}/`, demo, close };
}

/** Workers share the database: an in-memory SQLite database would be a different one in each process. */
async function checkConcurrency(config: Config): Promise<void> {
  if (config.webConcurrency <= 1) return;
  const { parseDatabaseUrl } = await import('./db/database.js');
  const target = parseDatabaseUrl(config.databaseUrl);
  if (target.dialect === 'sqlite' && target.storage === ':memory:') {
    throw new ConfigError('WEB_CONCURRENCY', String(config.webConcurrency), 'single_in_memory');
  }
}

/** The command line's messages, loaded only when there is something to say (they bring the prompts library). */
async function cliMessages(): Promise<Translate> {
  const [{ cliLanguage }, { translator }] = await Promise.all([import('./cli/io.js'), import('./i18n.js')]);
  return translator(cliLanguage(process.env), ['cli', 'common']);
}

async function configFailed(error: unknown): Promise<never> {
  if (!(error instanceof ConfigError)) throw error;
  process.stderr.write(`${describeConfigError(await cliMessages(), error)}\n`);
  process.exit(1);
}

interface ServerSettings {
  config: Config;
  preloadAdmin: boolean;
}

async function readSettings(): Promise<ServerSettings> {
  try {
    loadDotEnv();
    const config = loadConfig();
    checkServerConfig(config);
    return { config, preloadAdmin: adminPreload(process.env, config.environment) };
  } catch (error) {
    return configFailed(error);
  }
}

/** Why the server could not start, for people; then exit with status 1. */
async function startFailed(config: Config, error: unknown): Promise<never> {
  // A setting refused on the way (DATABASE_URL's form): said as every refused setting is.
  if (error instanceof ConfigError) await configFailed(error);
  const t = await cliMessages();
  const [{ seedFailure }, { CommandFailed }] = await Promise.all([import('./cli/seeding.js'), import('./cli/accounts.js')]);
  const seeding = seedFailure(t, error);
  if (seeding instanceof CommandFailed) {
    process.stderr.write(`${seeding.lines.join('\n')}\n`);
    process.exit(1);
  }
  const { code, message, name, hostname } = error as NodeJS.ErrnoException & { hostname?: string };
  // A HOST that names no address fails the listen's look-up (a database host's failure comes wrapped by its driver).
  const listening = code === 'EADDRINUSE' || code === 'EACCES' || code === 'EADDRNOTAVAIL' || (code === 'ENOTFOUND' && hostname === config.host);
  // By name: the services module (all of the application) is not loaded here to tell.
  const key = listening ? 'error.listen' : name === 'ApplicationError' ? 'error.application' : 'error.database';
  process.stderr.write(`${t(key, { address: `${config.host}:${config.port}`, message, root: applicationAt(config.appRoot).root })}\n`);
  process.exit(1);
}

async function printDemo(demo: SeedOutcome | null): Promise<void> {
  if (!demo) return;
  const [t, { seedLines }] = await Promise.all([cliMessages(), import('./cli/seeding.js')]);
  process.stdout.write(`${[t('seed.demo_loaded'), ...seedLines(t, demo)].join('\n')}\n`);
}

/**
 * The process a cluster's primary starts before it forks: it checks that the
 * workers can share the database, applies the migrations and loads the demo
 * data into an empty development database, says so, and exits (status 1 when
 * it could not, having said why on stderr).
 */
async function prepareAndExit(config: Config): Promise<void> {
  await checkConcurrency(config).catch(configFailed);
  await printDemo(await prepareDatabase(config).catch((error: unknown) => startFailed(config, error)));
  process.exit(0);
}

/**
 * Runs `prepareAndExit` in a child process and resolves with its exit status.
 * A SIGINT or SIGTERM meanwhile is passed on; the primary ends with the child.
 */
function prepareInChild(): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), PREPARE_DATABASE_ARG], { stdio: 'inherit' });
    const pass = (signal: NodeJS.Signals): void => void child.kill(signal);
    process.on('SIGINT', pass);
    process.on('SIGTERM', pass);
    child.on('error', reject);
    child.on('exit', (code) => {
      process.off('SIGINT', pass);
      process.off('SIGTERM', pass);
      resolve(code ?? 1);
    });
  });
}

/** Without Redis each process counts on its own: a site served by several (workers, machines) allows as many times the limits. */
function warnOfSeparateCounters(config: Config, logger: Logger): void {
  const processes = servingProcesses(config);
  if (processes === 1 || config.redisUrl) return;
  logger.warn(
    { processes, machines: config.siteMachines, workers: config.webConcurrency },
    'no REDIS_URL: each process counts login failures and rate limits on its own, so the limits are multiplied by the processes that serve the site',
  );
}

/**
 * WEB_CONCURRENCY=1: this process serves. More: this process is the primary,
 * which stays small (it imports neither the application nor the database
 * library): a short-lived child process prepares the database once, so that
 * workers never race on migrations or the demo data, then the primary forks
 * the workers, each of which serves.
 */
export async function serve(): Promise<void> {
  const { config, preloadAdmin } = await readSettings();
  if (process.argv.includes(PREPARE_DATABASE_ARG)) return prepareAndExit(config);
  if (cluster.isPrimary && config.webConcurrency > 1) {
    const status = await prepareInChild();
    if (status !== 0) process.exit(status);
    const logger = createLogger(config.logLevel);
    warnOfSeparateCounters(config, logger);
    runPrimary({ workers: config.webConcurrency, logger });
    return;
  }
  const running = await startServer(config, { prepareDatabase: cluster.isPrimary, preloadAdmin }).catch((error: unknown) => startFailed(config, error));
  await printDemo(running.demo);
  running.services.logger.info({ url: running.url }, `serving on ${running.url}`);
  if (cluster.isPrimary) warnOfSeparateCounters(config, running.services.logger);
  exitOnSignal(running.services.logger, () => running.close(), cluster.isPrimary ? SHUTDOWN_GRACE_MS : WORKER_SHUTDOWN_GRACE_MS);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  serve().catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  });
}
