/**
 * Mounts the admin without importing AdminJS up front: loading it takes about
 * a second and a half of CPU and 50 to 130 MB of memory, which neither the API
 * nor a test of another site should pay for. The import holds the event loop
 * for up to about half a second, once per process: the server starts it just
 * after it listens when ADMIN_PRELOAD is on (the default in production), so
 * that no admin request waits for it; otherwise the first admin request of a
 * process loads it, and processes that never serve the admin never do.
 */
import { register } from 'node:module';
import type { RequestHandler, Router } from 'express';
import { flag, type Config } from '../config.js';
import type { Services } from '../services.js';

/** Where the admin site lives. */
export const ADMIN_PATH = '/admin';

/**
 * ADMIN_PRELOAD: whether the server loads the admin as soon as it listens.
 * Unset, it is on in production, where the first admin request should not
 * wait, and off elsewhere (tests and development start faster without it).
 */
export function adminPreload(env: Record<string, string | undefined>, environment: Config['environment']): boolean {
  return flag(env, 'ADMIN_PRELOAD', environment === 'production');
}

/**
 * AdminJS imports its components bundler (rollup and Babel with its presets)
 * even with ADMIN_JS_SKIP_BUNDLE, though it then never runs it: that is about
 * half of the time the import holds the event loop. `npm run build` made our
 * bundle (bundle.ts, which imports the real bundler), so this resolve hook
 * gives AdminJS a stub instead, one that refuses to bundle.
 */
const SKIP_BUNDLER_HOOK = `
const BUNDLER = '/node_modules/adminjs/lib/backend/bundler/components.bundler.js';
const STUB = 'export default new Proxy({}, { get() { throw new Error("the admin components are bundled by npm run build, not by the server"); } });';
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  return resolved.url.endsWith(BUNDLER) ? { url: 'data:text/javascript,' + encodeURIComponent(STUB), shortCircuit: true } : resolved;
}`;
let bundlerSkipped = false;

/** For the built server (not the tests, which load AdminJS through Jest): call before the admin loads. */
export function skipAdminBundler(): void {
  if (bundlerSkipped) return;
  bundlerSkipped = true;
  register(`data:text/javascript,${encodeURIComponent(SKIP_BUNDLER_HOOK)}`);
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
