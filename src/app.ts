import express, { type Express } from 'express';
import { paginatedRoutes, paginatedSite } from './sites/paginated.js';
import { csrfCookieEndpoint, tokenRoutes, tokenSite } from './sites/token.js';
import { siteRouter } from './router.js';
import type { Services } from './services.js';

/** The HTTP application: every site over the same resources and database. */
export function createApp(services: Services): Express {
  const { config, accounts, registry, tokens, logger } = services;
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  // `/API/…` is not `/api/…`: mount points match case-sensitively, as the routes do.
  app.set('case sensitive routing', true);

  if (tokens) {
    const token = tokenSite(config, tokens);
    const services = { registry, accounts, tokens, bodyLimit: config.bodyLimit };
    app.use(token.mountPath, siteRouter(token, tokenRoutes(token, services), logger));
    // Where Laravel Sanctum really serves it, besides the `/api` path the document lists.
    app.use('/sanctum', siteRouter(token, [{ path: '/csrf-cookie', endpoint: csrfCookieEndpoint() }], logger));
  }
  const paginated = paginatedSite(config, accounts);
  // The root site answers last: its 404 covers every path no other site claims.
  app.use(paginated.mountPath, siteRouter(paginated, paginatedRoutes(paginated, registry, config.bodyLimit), logger));
  return app;
}
