import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { createApp } from './app.js';
import { cliLanguage } from './cli/io.js';
import { checkServerConfig, ConfigError, describeConfigError, loadConfig, loadDotEnv, type Config } from './config.js';
import { translator } from './i18n.js';
import { seedEmptyDevelopmentDatabase, type SeedOutcome } from './db/seeder.js';
import { CommandFailed } from './cli/accounts.js';
import { seedFailure, seedLines } from './cli/seeding.js';
import { createServices, type Services } from './services.js';

export interface RunningServer {
  server: Server;
  services: Services;
  url: string;
  /** The demo data loaded because the development database was empty, or null. */
  demo: SeedOutcome | null;
  close(): Promise<void>;
}

/** Applies migrations, then serves every site on HOST:PORT. */
export async function startServer(config: Config): Promise<RunningServer> {
  const services = await createServices(config);
  let demo: SeedOutcome | null;
  try {
    demo = await seedEmptyDevelopmentDatabase(services);
  } catch (error) {
    await services.close();
    throw error;
  }
  const app = createApp(services);
  const server = await new Promise<Server>((resolve, reject) => {
    const listening = app.listen(config.port, config.host, (error?: Error) => (error ? reject(error) : resolve(listening)));
  });
  // Not awaited: requests are served meanwhile; an admin request waits for it.
  app.warm().catch((error: unknown) => services.logger.error({ err: error }, 'the admin site failed to load'));
  const { port } = server.address() as AddressInfo;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  const close = async (): Promise<void> => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await services.close();
  };
  return { server, services, url: `http://${host}:${port}/`, demo, close };
}

async function main(): Promise<void> {
  const t = translator(cliLanguage(process.env), ['cli', 'common']);
  let config: Config;
  try {
    loadDotEnv();
    config = loadConfig();
    checkServerConfig(config);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${describeConfigError(t, error)}\n`);
    process.exit(1);
  }
  let running: RunningServer;
  try {
    running = await startServer(config);
  } catch (error) {
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
  if (running.demo) process.stdout.write(`${[t('seed.demo_loaded'), ...seedLines(t, running.demo)].join('\n')}\n`);
  running.services.logger.info({ url: running.url }, `serving on ${running.url}`);
  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    running.services.logger.info({ signal }, 'shutting down');
    const force = setTimeout(() => process.exit(1), 10_000);
    force.unref();
    void running.close().then(() => process.exit(0));
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  });
}
