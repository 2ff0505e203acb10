import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestHandler } from 'express';
import { pinoHttp } from 'pino-http';
import type { Logger } from '../logger.js';

/** A request id a proxy or client may hand us: short, and nothing that could garble a log line. */
const GIVEN_ID = /^[\w.:-]{1,128}$/;
const QUIET_PATHS = new Set(['/healthz', '/readyz']);

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
 * log. Credentials are redacted by the logger itself (src/logger.ts).
 */
export function requestLog(logger: Logger): RequestHandler {
  return pinoHttp({
    logger,
    genReqId: requestId,
    autoLogging: { ignore: (req) => QUIET_PATHS.has(req.url?.split('?')[0] ?? '') },
    customLogLevel: (_req, res, error) => (error || res.statusCode >= 500 ? 'error' : 'info'),
    // The client as Express sees it: behind a trusted proxy (TRUST_PROXY), from X-Forwarded-For.
    customProps: (req) => ({ clientAddress: (req as { ip?: string }).ip }),
  });
}
