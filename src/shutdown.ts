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
   * How long a connection accepted before the listening socket closed may take
   * to send its first request (it is usually already on its way). Node's close()
   * leaves such a connection open until its headers time out, longer than a
   * stopping process has: a browser's unused preconnection made it exit 1.
   */
  firstRequestGraceMs: number;
}

export const CLOSE_TIMINGS: CloseTimings = { drainQuietMs: 100, drainMaxMs: 1_000, firstRequestGraceMs: 2_000 };

/**
 * Makes `server` closable without cutting answers short. The returned function
 * drains (see `CloseTimings`), then stops accepting connections; closes the
 * keep-alive connections idle between requests at once and each busy one as
 * soon as its answer is sent; and resolves when no connection is left.
 */
export function gracefulClose(server: Server, timings: CloseTimings = CLOSE_TIMINGS): () => Promise<void> {
  const connections = new Set<Socket>();
  const awaitingFirstRequest = new Set<Socket>();
  const answering = new Map<Socket, ServerResponse>();
  let closing = false;
  let lastArrival = 0;
  // Told `Connection: close`, a keep-alive client opens a new connection for its
  // next request instead of sending it on one the server is about to close.
  const lastOnItsConnection = (res: ServerResponse): void => {
    if (!res.headersSent) res.setHeader('Connection', 'close');
  };
  const closeIfIdle = (socket: Socket): void => {
    if (!answering.has(socket) && !awaitingFirstRequest.has(socket)) socket.destroy();
  };
  server.on('connection', (socket: Socket) => {
    lastArrival = performance.now();
    connections.add(socket);
    awaitingFirstRequest.add(socket);
    socket.once('close', () => {
      connections.delete(socket);
      awaitingFirstRequest.delete(socket);
    });
  });
  server.prependListener('request', (req: IncomingMessage, res: ServerResponse) => {
    const { socket } = req;
    awaitingFirstRequest.delete(socket);
    answering.set(socket, res);
    if (closing) lastOnItsConnection(res);
    res.once('close', () => {
      if (answering.get(socket) === res) answering.delete(socket);
      // An answer whose headers were already out kept its connection alive.
      if (closing) closeIfIdle(socket);
    });
  });
  const stopListening = (resolve: () => void): void => {
    const cutLate = setTimeout(() => awaitingFirstRequest.forEach((socket) => socket.destroy()), timings.firstRequestGraceMs);
    server.close(() => {
      clearTimeout(cutLate);
      resolve();
    });
  };
  return () =>
    new Promise<void>((resolve) => {
      closing = true;
      answering.forEach(lastOnItsConnection);
      connections.forEach(closeIfIdle);
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
