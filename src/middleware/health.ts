import express, { type Router } from 'express';
import type { Logger } from '../logger.js';
import type { JsonSchema, PlainRouteDocs } from '../openapi/types.js';
import type { Services } from '../services.js';

const STATUS = (value: string): JsonSchema => ({
  type: 'object',
  properties: { status: { type: 'string', const: value } },
  required: ['status'],
  additionalProperties: false,
});

/** The health routes as the API description shows them. */
export const HEALTH_DOCS: readonly PlainRouteDocs[] = [
  { path: '/healthz', summary: 'operations.healthz', responses: [{ status: 200, schema: STATUS('ok') }], slashOptional: true },
  {
    path: '/readyz',
    slashOptional: true,
    summary: 'operations.readyz',
    responses: [
      { status: 200, schema: STATUS('ok') },
      { status: 503, schema: STATUS('unavailable') },
    ],
  },
];

/** How long /readyz waits for the database before it answers 503. */
const READY_TIMEOUT_MS = 2000;

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * `GET /healthz`: the process answers (a liveness probe restarts it if not).
 * `GET /readyz`: the database answers too, and the process is not stopping (a
 * load balancer sends traffic only then).
 * Neither needs credentials, is cached, or says more than its status.
 */
export function healthRoutes(services: Pick<Services, 'sequelize' | 'stopping'>, log: Logger): Router {
  const router = express.Router({ caseSensitive: true });
  router.get('/healthz', (_req, res) => {
    res.setHeader('Cache-Control', 'no-store');
    res.json({ status: 'ok' });
  });
  router.get('/readyz', async (_req, res) => {
    res.setHeader('Cache-Control', 'no-store');
    if (services.stopping) return void res.status(503).json({ status: 'unavailable' });
    try {
      await withTimeout(services.sequelize.query('SELECT 1'), READY_TIMEOUT_MS);
      res.json({ status: 'ok' });
    } catch (error) {
      log.warn({ err: error }, 'readiness check failed: the database does not answer');
      res.status(503).json({ status: 'unavailable' });
    }
  });
  return router;
}
