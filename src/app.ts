import express, { type Express } from 'express';
import { paginatedRoutes, paginatedSite } from './sites/paginated.js';
import { siteRouter } from './router.js';
import type { Services } from './services.js';

/** The HTTP application: every site over the same resources and database. */
export function createApp(services: Services): Express {
  const { config, accounts, registry, logger } = services;
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);

  const paginated = paginatedSite(config, accounts);
  // The root site answers last: its 404 covers every path no other site claims.
  app.use(paginated.mountPath, siteRouter(paginated, paginatedRoutes(paginated, registry, config.bodyLimit), logger));
  return app;
}
