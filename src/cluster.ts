import cluster, { type Worker } from 'node:cluster';
import { randomBytes } from 'node:crypto';
import type { Logger } from './logger.js';
import { exitOnSignal } from './shutdown.js';

/** The pause before a dead worker is replaced, so that a worker crashing at once does not make the primary spin. */
export const RESTART_DELAY_MS = 1_000;
/** The pause doubles with each worker in a row that dies before it serves, up to this. */
const MAX_RESTART_DELAY_MS = 30_000;
/** Workers in a row that die before they serve: then something is wrong that restarting will not mend. */
const MAX_FAILED_STARTS = 5;

/**
 * glibc gives each thread that allocates while another holds an arena an arena
 * of its own, up to eight per core, and keeps what each arena once held: the
 * libuv threads that run SQLite's work and V8's helper threads made a worker
 * some 15–20 MiB larger after load than two arenas do, at the same throughput.
 * The variable is read when a process starts, so the primary can set it for
 * the workers it forks; elsewhere (macOS, Windows) it means nothing.
 */
export const DEFAULT_MALLOC_ARENA_MAX = '2';

/**
 * What a worker's environment adds to the primary's: glibc's arena cap,
 * unless the primary's environment sets one; and, where SECRET_KEY is unset
 * (outside production), one key for all of them (`generated`, made once by
 * the primary), so that a session, a CSRF token or a cursor one worker made
 * is good at the others: each would otherwise make a key of its own.
 */
export function workerEnvironment(env: NodeJS.ProcessEnv, generated: string): Record<string, string> {
  return { MALLOC_ARENA_MAX: env.MALLOC_ARENA_MAX || DEFAULT_MALLOC_ARENA_MAX, ...(env.SECRET_KEY ? {} : { SECRET_KEY: generated }) };
}

export interface ClusterOptions {
  workers: number;
  logger: Logger;
  restartDelayMs?: number;
}

function identify(worker: Worker): { worker: number; workerPid: number | undefined } {
  return { worker: worker.id, workerPid: worker.process.pid };
}

/**
 * The primary process of WEB_CONCURRENCY > 1, once the database is ready:
 * forks the workers, which share its listening socket (node:cluster hands each
 * new connection to the next worker), replaces a worker that dies, and on
 * SIGTERM or SIGINT passes the signal on and exits once every worker has.
 * A worker that dies before any has served is a start failure: everything stops
 * with status 1, as a single process does (the worker said why on stderr).
 */
export function runPrimary({ workers, logger, restartDelayMs = RESTART_DELAY_MS }: ClusterOptions): void {
  // Replacements too: a session made by a worker that died stays good.
  const environment = workerEnvironment(process.env, randomBytes(32).toString('hex'));
  const live = new Set<Worker>();
  const listened = new WeakSet<Worker>();
  let serving = false;
  let failedStarts = 0;
  let stopping: Promise<void> | null = null;
  let unclean = false;
  let allExited = (): void => undefined;

  const stop = (signal: NodeJS.Signals): Promise<void> =>
    (stopping ??= new Promise<void>((resolve, reject) => {
      allExited = () => (unclean ? reject(new Error('a worker did not stop cleanly')) : resolve());
      if (live.size === 0) allExited();
      for (const worker of live) worker.process.kill(signal);
    }));

  const onExit = (worker: Worker, code: number | null, signal: NodeJS.Signals | null): void => {
    live.delete(worker);
    const detail = { ...identify(worker), code, signal };
    if (stopping) {
      // Killed by the signal passed on: the worker had not yet set up its own shutdown.
      unclean ||= signal === null && code !== 0;
      logger.info(detail, 'worker exited');
      if (live.size === 0) allExited();
      return;
    }
    failedStarts = listened.has(worker) ? 0 : failedStarts + 1;
    if (!serving || failedStarts >= MAX_FAILED_STARTS) {
      logger.error({ ...detail, failedStarts }, 'workers fail to start; stopping');
      const fail = (): never => process.exit(1);
      stop('SIGTERM').then(fail, fail);
      return;
    }
    const delay = Math.min(restartDelayMs * 2 ** failedStarts, MAX_RESTART_DELAY_MS);
    logger.warn({ ...detail, restartInMs: delay }, 'worker exited unexpectedly; replacing it');
    setTimeout(() => stopping ?? fork(), delay);
  };

  const fork = (): void => {
    const worker = cluster.fork(environment);
    live.add(worker);
    worker.once('online', () => logger.info(identify(worker), 'worker started'));
    worker.once('listening', () => {
      serving = true;
      listened.add(worker);
    });
    worker.once('exit', (code: number | null, signal: NodeJS.Signals | null) => onExit(worker, code, signal));
  };

  for (let i = 0; i < workers; i += 1) fork();
  exitOnSignal(logger, stop);
  // However the primary ends (a shutdown past its grace period too), no worker outlives it.
  process.on('exit', () => live.forEach((worker) => worker.process.kill('SIGKILL')));
}
