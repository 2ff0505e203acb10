import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestHandler } from 'express';
import { pinoHttp } from 'pino-http';
import type { Logger } from '../logger.js';

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

/** What pino's request serializer made, with the URL and the parsed query redacted alike. */
function redactedRequest(serialized: { url?: string; query?: unknown }): object {
  if (typeof serialized.url === 'string') serialized.url = redactedUrl(serialized.url);
  if (serialized.query && typeof serialized.query === 'object') {
    serialized.query = Object.fromEntries(Object.entries(serialized.query).map(([name, value]) => [name, SECRET_PARAMETER.test(name) ? CENSOR : value]));
  }
  return serialized;
}

/** The request's id: the X-Request-Id it came with, or a new one; echoed in the response. */
function requestId(req: IncomingMessage, res: ServerResponse): string {
  const given = req.headers['x-request-id'];
  const id = typeof given === 'string' && GIVEN_ID.test(given) ? given : randomUUID();
  res.setHeader('X-Request-Id', id);
  return id;
}

/**
 * One JSON line per answered request (method, URL, status, time, request id),
 * and `req.log`, a logger that adds the request id to whatever the handlers
 * log. Credentials are redacted by the logger itself (src/logger.ts), those
 * a client put in the URL's query here.
 */
export function requestLog(logger: Logger): RequestHandler {
  return pinoHttp({
    logger,
    genReqId: requestId,
    autoLogging: { ignore: (req) => QUIET_PATHS.has(req.url?.split('?')[0] ?? '') },
    customLogLevel: (_req, res, error) => (error || res.statusCode >= 500 ? 'error' : 'info'),
    serializers: { req: redactedRequest },
    // The client as Express sees it: behind a trusted proxy (TRUST_PROXY), from X-Forwarded-For.
    customProps: (req) => ({ clientAddress: (req as { ip?: string }).ip }),
  });
}
