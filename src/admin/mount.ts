/**
 * Mounts the admin without importing AdminJS up front: loading it takes CPU
 * and memory (measured in docs/performance.md, "Resident memory"), which
 * neither the API nor a test of another site should pay for. The import holds the event loop
 * for up to about half a second, once per process: the server starts it just
 * after it listens when ADMIN_PRELOAD is on (the default in production), so
 * that no admin request waits for it; otherwise the first admin request of a
 * process loads it, and processes that never serve the admin never do.
 */
import type { RequestHandler, Router } from 'express';
import { flag, type Config } from '../config.js';
import type { Services } from '../services.js';
import { beforeAdminImport } from './server-imports.js';

/**
 * ADMIN_PRELOAD: whether the server loads the admin as soon as it listens.
 * Unset, it is on in production, where the first admin request should not
 * wait, and off elsewhere (tests and development start faster without it).
 */
export function adminPreload(env: Record<string, string | undefined>, environment: Config['environment']): boolean {
  return flag(env, 'ADMIN_PRELOAD', environment === 'production');
}

export interface LazyAdmin {
  handler: RequestHandler;
  /** Loads AdminJS and builds the router (once). */
  load(): Promise<Router>;
}

export function lazyAdmin(services: Services): LazyAdmin {
  let loading: Promise<Router> | undefined;
  const load = (): Promise<Router> => {
    loading ??= (async () => {
      beforeAdminImport();
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
