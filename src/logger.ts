import { pino, type Logger } from 'pino';

export type { Logger };

/**
 * Where credentials could appear in a log line: request headers (should a
 * handler log them; the request log censors its own), cookies set in
 * answers, and any `password` field.
 */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-xsrf-token"]',
  'req.headers["x-csrftoken"]',
  'req.headers["proxy-authorization"]',
  'res.headers["set-cookie"]',
  'password',
  '*.password',
  '*.*.password',
];

/** Database errors carry their statement and its bound values, which may be a password hash: both stay out. */
const DATABASE_ERROR_FIELDS = ['sql', 'parameters', 'parent', 'original'];

function serializeError(error: Error): pino.SerializedError {
  const serialized = pino.stdSerializers.err(error);
  for (const field of DATABASE_ERROR_FIELDS) delete serialized[field];
  return serialized;
}

/**
 * Standard output written off the request's path: pino's own destination in
 * its asynchronous mode (the writes happen on libuv's threads), lines
 * gathered up to 4 kB and written at least every quarter second, and
 * everything flushed when the process exits.
 */
let stdoutDestination: pino.DestinationStream | undefined;
const GATHERED_BYTES = 4096;
const FLUSH_EVERY_MS = 250;

function asyncStdout(): pino.DestinationStream {
  if (!stdoutDestination) {
    const destination = pino.destination({ dest: 1, sync: false, minLength: GATHERED_BYTES });
    const flush = (): void => {
      try {
        destination.flush();
      } catch {
        // A write in flight: the next tick of the timer takes the rest.
      }
    };
    setInterval(flush, FLUSH_EVERY_MS).unref();
    process.once('exit', () => {
      try {
        destination.flushSync();
      } catch {
        // Nothing left to write, or the pipe is gone: nothing more can be said.
      }
    });
    stdoutDestination = destination;
  }
  return stdoutDestination;
}

/** Structured JSON logs. Request bodies are never passed to it. */
export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino({ level, redact: { paths: REDACTED_PATHS, censor: '[redacted]' }, serializers: { err: serializeError } }, destination ?? asyncStdout());
}

/**
 * A logger writing where `logger` writes, without its redaction (which walks
 * every path on every line): for lines made only of fields known to hold no
 * secret, such as the request log's.
 */
export function unredactedLogger(logger: Logger): Logger {
  const stream = (logger as unknown as Record<symbol, pino.DestinationStream>)[pino.symbols.streamSym];
  return pino({ level: logger.level, serializers: { err: serializeError } }, stream);
}
