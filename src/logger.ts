import { pino, type Logger } from 'pino';

export type { Logger };

/**
 * Where credentials could appear in a log line: request headers (pino-http
 * logs them), cookies set in answers, and any `password` field.
 */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-xsrf-token"]',
  'req.headers["x-csrf-token"]',
  'req.headers["proxy-authorization"]',
  'res.headers["set-cookie"]',
  'password',
  '*.password',
  '*.*.password',
];

/** Structured JSON logs. Request bodies are never passed to it. */
export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino({ level, redact: { paths: REDACTED_PATHS, censor: '[redacted]' } }, destination);
}
