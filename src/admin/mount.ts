/**
 * Mounts the admin without importing AdminJS up front: loading it takes about
 * a second and a half of CPU and 50 to 130 MB of memory, which neither the API
 * nor a test of another site should pay for. The first admin request of a
 * process loads it; processes that never serve the admin never do. The import
 * holds the event loop for up to about half a second, once per process.
 */
import type { RequestHandler, Router } from 'express';
import type { Services } from '../services.js';

/** Where the admin site lives. */
export const ADMIN_PATH = '/admin';

export interface LazyAdmin {
  handler: RequestHandler;
  /** Loads AdminJS and builds the router (once). */
  load(): Promise<Router>;
}

export function lazyAdmin(services: Services): LazyAdmin {
  let loading: Promise<Router> | undefined;
  const load = (): Promise<Router> => {
    loading ??= (async () => {
      const { adminSite } = await import('./index.js');
      return adminSite(services);
    })().catch((error: unknown) => {
      // Logged once per attempt; the next admin request tries again.
      services.logger.error({ err: error }, 'the admin site failed to load');
      loading = undefined;
      throw error;
    });
    return loading;
  };
  const handler: RequestHandler = (req, res, next) => {
    load().then(
      (router) => router(req, res, next),
      (error: unknown) => next(error),
    );
  };
  return { handler, load };
}
