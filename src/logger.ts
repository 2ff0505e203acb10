import { createRequire } from 'node:module';
import { pino, type Logger } from 'pino';
import type PinoPretty from 'pino-pretty';

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
  'req.headers["x-csrf-token"]',
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

/** A request log line as a person reads it: `GET /invoices/?page=2 200 3 ms`, `POST (PUT) /api/invoices/1 200 4 ms` for a spoofed method; any other line, its message. */
export function readableMessage(log: Record<string, unknown>, messageKey: string): string {
  const req = log.req as { method?: string; methodOverride?: string; url?: string } | undefined;
  const res = log.res as { statusCode?: number } | undefined;
  if (req && res && typeof log.responseTime === 'number') {
    const method = req.methodOverride ? `${req.method ?? ''} (${req.methodOverride})` : (req.method ?? '');
    return `${method} ${req.url ?? ''} ${res.statusCode ?? '-'} ${log.responseTime} ms`;
  }
  return String(log[messageKey] ?? '');
}

/**
 * How a terminal shows the logs (pino-pretty): one line each, the time, the
 * level and the message, other fields after it; the request's own fields are
 * in the message already.
 */
export function readableLogOptions(colorize: boolean): PinoPretty.PrettyOptions {
  return {
    colorize,
    singleLine: true,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname,req,res,responseTime,clientAddress',
    messageFormat: readableMessage,
  };
}

/** JSON lines, unless standard output is a terminal: then one readable line each (pino-pretty, loaded only then). */
function standardOutput(): pino.DestinationStream {
  if (!process.stdout.isTTY) return asyncStdout();
  const pretty = createRequire(import.meta.url)('pino-pretty') as typeof PinoPretty;
  return pretty({ ...readableLogOptions(true), sync: true });
}

/** Structured JSON logs (readable lines at a terminal). Request bodies are never passed to it. */
export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino({ level, redact: { paths: REDACTED_PATHS, censor: '[redacted]' }, serializers: { err: serializeError } }, destination ?? standardOutput());
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
