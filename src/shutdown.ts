import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Logger } from './logger.js';

/** How long a stopping process may take before it exits anyway, with status 1. */
export const SHUTDOWN_GRACE_MS = 10_000;
/** A worker's: shorter, so that it is done before its primary's grace ends and kills it. */
export const WORKER_SHUTDOWN_GRACE_MS = SHUTDOWN_GRACE_MS - 1_000;

/**
 * Makes `server` closable without cutting answers short. The returned function
 * stops accepting connections, closes the idle keep-alive ones at once and each
 * busy one as soon as its answer is sent, and resolves when none is left.
 */
export function gracefulClose(server: Server): () => Promise<void> {
  const inFlight = new Set<ServerResponse>();
  let closing = false;
  // Told `Connection: close`, a keep-alive client opens a new connection for its
  // next request instead of sending it on one the server is about to close.
  const lastOnItsConnection = (res: ServerResponse): void => {
    if (!res.headersSent) res.setHeader('Connection', 'close');
  };
  server.prependListener('request', (_req: IncomingMessage, res: ServerResponse) => {
    inFlight.add(res);
    if (closing) lastOnItsConnection(res);
    res.once('close', () => {
      inFlight.delete(res);
      // An answer whose headers were already out kept its connection alive.
      if (closing) server.closeIdleConnections();
    });
  });
  return () =>
    new Promise<void>((resolve) => {
      closing = true;
      inFlight.forEach(lastOnItsConnection);
      // Node's close() also closes the connections idle right now.
      server.close(() => resolve());
    });
}

/**
 * Runs `stop` once, on the first SIGTERM or SIGINT, then exits: 0 when it
 * resolves, 1 when it fails or is still running after `graceMs`.
 */
export function exitOnSignal(logger: Logger, stop: (signal: NodeJS.Signals) => Promise<void>, graceMs = SHUTDOWN_GRACE_MS): void {
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    // Not unref'd: whatever `stop` waits for, the process ends by one of these exits.
    setTimeout(() => {
      logger.error({ graceMs }, 'shutdown took too long; exiting anyway');
      process.exit(1);
    }, graceMs);
    stop(signal).then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}
