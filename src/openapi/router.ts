import express, { type Router } from 'express';
import type { SiteMount } from '../app.js';
import type { Services } from '../services.js';

export const OPENAPI_PATH = '/openapi.json';

/** `GET /openapi.json`: the OpenAPI description of every site (placeholder). */
export function openApiRouter(_services: Services, _mounts: readonly SiteMount[]): Router {
  const router = express.Router({ caseSensitive: true });
  router.get(OPENAPI_PATH, (_req, res) => {
    res.json({ openapi: '3.1.0', info: { title: 'placeholder', version: '0' }, paths: {} });
  });
  return router;
}
