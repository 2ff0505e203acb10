import { randomUUID } from 'node:crypto';
import { IncomingMessage, type ServerResponse } from 'node:http';
import type { RequestHandler } from 'express';
import { unredactedLogger, type Logger } from '../logger.js';

/** A request id a proxy or client may hand us: short, and nothing that could garble a log line. */
const GIVEN_ID = /^[\w.:-]{1,128}$/;
const QUIET_PATHS = new Set(['/healthz', '/readyz']);
/** Query parameters whose values are credentials when a client puts them in a URL (`?password=`, `?api_key=`, `?token=` …). */
const SECRET_PARAMETER = /pass|token|secret|key|auth|signature|code/i;
const CENSOR = '[redacted]';

function parameterName(part: string): string {
  const name = part.split('=', 1)[0] ?? '';
  try {
    return decodeURIComponent(name.replace(/\+/g, ' '));
  } catch {
    return name;
  }
}

/** A URL as the log keeps it: the values of credential-like query parameters replaced, the rest as sent. */
export function redactedUrl(url: string): string {
  const start = url.indexOf('?');
  if (start < 0) return url;
  const parts = url.slice(start + 1).split('&').map((part) => (part.includes('=') && SECRET_PARAMETER.test(parameterName(part)) ? `${part.split('=', 1)[0]}=${CENSOR}` : part));
  return `${url.slice(0, start)}?${parts.join('&')}`;
}

/** Request headers worth a log line; credentials among them show only that they were sent. */
const LOGGED_HEADERS = ['host', 'user-agent', 'accept', 'accept-language', 'content-type', 'content-length', 'referer', 'x-requested-with'];
const CREDENTIAL_HEADERS = ['authorization', 'proxy-authorization', 'cookie', 'x-csrftoken', 'x-xsrf-token', 'x-csrf-token'];

function loggedHeaders(req: IncomingMessage): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = {};
  for (const name of LOGGED_HEADERS) {
    const value = req.headers[name];
    if (value !== undefined) headers[name] = value;
  }
  for (const name of CREDENTIAL_HEADERS) if (req.headers[name] !== undefined) headers[name] = CENSOR;
  return headers;
}

/** The request's id: the X-Request-Id it came with, or a new one; echoed in the response. */
function requestId(req: IncomingMessage, res: ServerResponse): string {
  const given = req.headers['x-request-id'];
  const id = typeof given === 'string' && GIVEN_ID.test(given) ? given : randomUUID();
  res.setHeader('X-Request-Id', id);
  return id;
}

/** What `req.log` is made from, kept on the request as an ordinary property. */
interface RequestLogger {
  readonly logger: Logger;
  readonly id: string;
  readonly url: string;
  child?: Logger;
}

const REQUEST_LOGGER = Symbol('request logger');

declare module 'http' {
  interface IncomingMessage {
    /** A logger whose lines carry the request's id, method and URL. */
    log?: Logger;
    [REQUEST_LOGGER]?: RequestLogger;
  }
  interface ServerResponse {
    /** An error that ended the answer early (a stream cut short): its request is logged as errored. */
    err?: Error;
  }
}

/**
 * `req.log`, made when a handler first logs: most requests never do, and a
 * child logger costs a redaction pass. One accessor on the prototype, not one
 * defined on each request: V8 gives an object whose accessor has a getter of
 * its own a hidden class of its own, so a getter made per request turned every
 * request object into a dictionary, and every later read of it (Express's,
 * Node's, ours) into a lookup by name.
 */
Object.defineProperty(IncomingMessage.prototype, 'log', {
  configurable: true,
  get(this: IncomingMessage): Logger | undefined {
    const made = this[REQUEST_LOGGER];
    if (!made) return undefined;
    return (made.child ??= made.logger.child({ req: { id: made.id, method: this.method, url: made.url } }));
  },
  set(this: IncomingMessage, value: Logger | undefined) {
    Object.defineProperty(this, 'log', { configurable: true, enumerable: true, writable: true, value });
  },
});

/**
 * One JSON line per answered request (method, URL, a few headers, status,
 * time, request id, client address), and `req.log`, a logger that adds the
 * request to whatever the handlers log. Credentials never reach it: headers
 * that carry them are shown as sent, not what they hold, and the values of
 * credential-like query parameters are redacted from the URL.
 *
 * Written here rather than with pino-http, which serializes every header of
 * the request and the answer into child loggers on every request: that was a
 * tenth of a small read's time.
 */
export function requestLog(logger: Logger): RequestHandler {
  // Its lines hold no secret (credential headers are censored above): no redaction pass over each.
  const lines = unredactedLogger(logger);
  return (req, res, next) => {
    const started = Date.now();
    // As it came: Laravel's method spoofing (middleware/method-override.ts) may change req.method later.
    const method = req.method;
    const id = requestId(req, res);
    const url = redactedUrl(req.url);
    req[REQUEST_LOGGER] = { logger, id, url };
    if (QUIET_PATHS.has(url.split('?', 1)[0] ?? '')) return next();
    let logged = false;
    const done = (): void => {
      if (logged) return;
      logged = true;
      const failed = res.err !== undefined || res.statusCode >= 500;
      const line = {
        req: {
          id,
          method,
          ...(req.method !== method ? { methodOverride: req.method } : {}),
          url,
          headers: loggedHeaders(req),
          remoteAddress: req.socket.remoteAddress,
          remotePort: req.socket.remotePort,
        },
        clientAddress: req.ip,
        // An answer never begun has no status (Node's default 200 was never sent).
        res: { statusCode: res.headersSent ? res.statusCode : null },
        responseTime: Date.now() - started,
        ...(res.err ? { err: res.err } : {}),
      };
      if (failed) lines.error(line, 'request errored');
      else lines.info(line, res.writableEnded ? 'request completed' : 'request aborted');
    };
    res.once('finish', done);
    res.once('close', done);
    next();
  };
}
