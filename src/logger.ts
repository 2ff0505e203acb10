import { pino, type Logger } from 'pino';

export type { Logger };

/** Structured JSON logs. Request bodies and credentials are never passed to it. */
export function createLogger(level: string): Logger {
  return pino({
    level,
    redact: { paths: ['req.headers.authorization', 'req.headers.cookie', 'password', '*.password'], censor: '[redacted]' },
  });
}
