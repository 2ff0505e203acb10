import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Logger } from './logger.js';

/** How long a stopping process may take before it exits anyway, with status 1. */
export const SHUTDOWN_GRACE_MS = 10_000;
/** A worker's: shorter, so that it is done before its primary's grace ends and kills it. */
export const WORKER_SHUTDOWN_GRACE_MS = SHUTDOWN_GRACE_MS - 1_000;

export interface CloseTimings {
  /**
   * Once a stop is asked for, the server keeps accepting until no connection has
   * arrived for this long: connections the kernel completed, or a cluster's
   * primary queued, before the stop are answered instead of reset when the
   * listening socket closes. Each answer then says `Connection: close`.
   */
  drainQuietMs: number;
  /** …however steadily connections keep arriving, no longer than this. */
  drainMaxMs: number;
  /**
   * How long a connection with no answer under way may stay once the listening
   * socket has closed: its request (a first one, usually already on its way,
   * or one still arriving) is answered if it comes in time. Node's close()
   * leaves such a connection open until its request times out, and stops
   * checking that timeout: a browser's unused preconnection, or a slow client,
   * held the stop until its grace ended in status 1.
   */
  requestGraceMs: number;
}

export const CLOSE_TIMINGS: CloseTimings = { drainQuietMs: 100, drainMaxMs: 1_000, requestGraceMs: 2_000 };

/**
 * Makes `server` closable without cutting answers short. The returned function
 * drains (see `CloseTimings`), then stops accepting connections; closes the
 * keep-alive connections idle between requests at once and each busy one as
 * soon as its answers are sent; and resolves when no connection is left.
 */
export function gracefulClose(server: Server, timings: CloseTimings = CLOSE_TIMINGS): () => Promise<void> {
  const connections = new Set<Socket>();
  const inFlight = new Set<ServerResponse>();
  let closing = false;
  let lastArrival = 0;
  // Told `Connection: close`, a keep-alive client opens a new connection for its
  // next request instead of sending it on one the server is about to close.
  const lastOnItsConnection = (res: ServerResponse): void => {
    if (!res.headersSent) res.setHeader('Connection', 'close');
  };
  server.on('connection', (socket: Socket) => {
    lastArrival = performance.now();
    connections.add(socket);
    socket.once('close', () => connections.delete(socket));
  });
  server.prependListener('request', (_req: IncomingMessage, res: ServerResponse) => {
    inFlight.add(res);
    if (closing) lastOnItsConnection(res);
    res.once('close', () => {
      inFlight.delete(res);
      // An answer whose headers were already out kept its connection alive.
      // Node's own test of idleness: a request still arriving is not idle.
      if (closing) server.closeIdleConnections();
    });
  });
  const stopListening = (resolve: () => void): void => {
    const cutLate = setTimeout(() => {
      const answering = new Set([...inFlight].map((res) => res.socket));
      connections.forEach((socket) => answering.has(socket) || socket.destroy());
    }, timings.requestGraceMs);
    server.close(() => {
      clearTimeout(cutLate);
      resolve();
    });
  };
  return () =>
    new Promise<void>((resolve) => {
      closing = true;
      inFlight.forEach(lastOnItsConnection);
      server.closeIdleConnections();
      const started = performance.now();
      // Checked after a poll (setImmediate), not in the timer: a process that was
      // paused runs its timers before it accepts what arrived meanwhile.
      const drained = (): void => {
        const now = performance.now();
        const quietFor = now - Math.max(lastArrival, started);
        if (quietFor >= timings.drainQuietMs || now - started >= timings.drainMaxMs) return stopListening(resolve);
        setTimeout(() => setImmediate(drained), timings.drainQuietMs - quietFor);
      };
      setTimeout(() => setImmediate(drained), timings.drainQuietMs);
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
