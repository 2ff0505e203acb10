import path from 'node:path';
import express, { type Express } from 'express';
import { lazyAdmin } from './admin/mount.js';
import { ADMIN_PATH } from './admin/path.js';
import { paginatedRoutes, paginatedSite } from './sites/paginated.js';
import { csrfCookieEndpoint, TOKEN_SITE, tokenRoutes, tokenSite } from './sites/token.js';
import { listLinks, type RootLink } from './sites/api-root.js';
import { siteRouter, type SiteMount } from './routers.js';
import { docsRouter, DOCS_PATH } from './docs/router.js';
import { OPENAPI_DOCS, openApiRouter } from './openapi/router.js';
import type { DescriptionSources } from './openapi/document.js';
import { browserSession } from './auth/lazy-session.js';
import { BROWSER_LOGIN_PATH, sessionHashSecret } from './auth/sessions.js';
import { CSRF_SECRET } from './auth/csrf.js';
import { browserLoginRouter } from './sites/browser-login.js';
import { passwordChangeRouter, passwordUpdateRouter, PASSWORD_UPDATE_PATH } from './sites/password-change.js';
import { FORTIFY_LOGIN_PATH, FORTIFY_LOGOUT_PATH, fortifyRouter } from './sites/fortify.js';
import { FORTIFY_DOCS, PASSWORD_UPDATE_DOCS } from './sites/fortify-docs.js';
import type { Services } from './services.js';
import { staticDir } from './paths.js';
import { methodOverride } from './middleware/method-override.js';
import { corsHandler } from './middleware/cors.js';
import { HEALTH_DOCS, healthRoutes } from './middleware/health.js';
import { hostCheck } from './middleware/hosts.js';
import { requestLog } from './middleware/request-log.js';
import { closeOnUnreadBody } from './middleware/unread-body.js';
import { adminHeaders, productHeaders } from './middleware/security.js';

/** Laravel Fortify's routes at the root, where Laravel's method spoofing applies as on the token site. */
const FORTIFY_PATHS = [FORTIFY_LOGIN_PATH, FORTIFY_LOGOUT_PATH, PASSWORD_UPDATE_PATH];

export interface App extends Express {
  /** Loads what the first request of a site would otherwise wait for (the admin). */
  warm(): Promise<void>;
}

/** Every API site over the services' resources, the root site last (its 404 covers every other path). */
export function siteMounts(services: Services): SiteMount[] {
  const { config, accounts, registry, tokens, throttles } = services;
  const mounts: SiteMount[] = [];
  // What the root lists beside its own lists: the token site's lists, then where people read and administer.
  const elsewhere: RootLink[] = [];
  if (tokens) {
    const token = tokenSite(config, tokens, throttles);
    const routeServices = { config, registry, accounts, tokens, loginThrottle: throttles.login, bodyLimit: config.bodyLimit };
    mounts.push({ site: token, path: token.mountPath, routes: tokenRoutes(token, routeServices) });
    // Where Laravel Sanctum really serves it, besides the `/api` path the document lists.
    mounts.push({ site: token, path: '/sanctum', routes: [{ path: '/csrf-cookie', endpoint: csrfCookieEndpoint(config) }] });
    elsewhere.push(...listLinks(registry, token, `${token.mountPath.slice(1)}/`));
  }
  elsewhere.push({ name: DOCS_PATH.slice(1), path: DOCS_PATH }, { name: ADMIN_PATH.slice(1), path: ADMIN_PATH });
  const paginated = paginatedSite(config, accounts, throttles, tokens);
  mounts.push({ site: paginated, path: paginated.mountPath, routes: paginatedRoutes(paginated, registry, config.bodyLimit, elsewhere) });
  return mounts;
}

/**
 * What the API description documents: the sites' routes and the routes beside
 * them that machines call. Fortify's login and logout are served only with
 * the token site (createApp); its password update always.
 */
export function describedRoutes(mounts: readonly SiteMount[]): DescriptionSources {
  const fortify = mounts.some((mount) => mount.site.name === TOKEN_SITE) ? FORTIFY_DOCS : [];
  return { mounts, plainRoutes: [...fortify, PASSWORD_UPDATE_DOCS, ...HEALTH_DOCS, OPENAPI_DOCS] };
}

const STATIC_PATH = '/static';
const FAVICON_PATH = '/favicon.ico';

/**
 * The root site answers last: a resource of its own under a path the app
 * serves first (`/docs`, `/api`, …) would never be reached, so the app
 * refuses to start with one.
 */
function assertRootReachable(root: SiteMount, mounts: readonly SiteMount[], plainRoutes: readonly { path: string }[]): void {
  const taken = new Set([ADMIN_PATH, STATIC_PATH, FAVICON_PATH, BROWSER_LOGIN_PATH, DOCS_PATH, ...plainRoutes.map(({ path }) => path)]);
  for (const mount of mounts) if (mount !== root) taken.add(mount.path);
  for (const { path } of root.routes) {
    const first = `/${path.split('/')[1] ?? ''}`;
    if (first !== '/' && taken.has(first)) throw new Error(`the root site's ${path} is hidden by ${first}, which the app serves first`);
  }
}

/** The HTTP application: every site over the same resources and database. */
export function createApp(services: Services): App {
  const { config, accounts, registry, logger, sessions, throttles } = services;
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  // `/API/…` is not `/api/…`: mount points match case-sensitively, as the routes do.
  app.set('case sensitive routing', true);
  app.set('trust proxy', config.trustProxy);
  app.use(requestLog(logger));
  app.use(closeOnUnreadBody());
  const mounts = siteMounts(services);
  // Before anything reads the request: a host not in ALLOWED_HOSTS is 400 (the health checks answer any host).
  app.use(hostCheck({ allowedHosts: config.allowedHosts, mounts, exempt: HEALTH_DOCS.map(({ path }) => path), logger }));
  // First the admin: it reads its own bodies, has its own session cookie and its own CSP.
  const admin = lazyAdmin(services);
  app.use(ADMIN_PATH, adminHeaders(), admin.handler);
  app.use(productHeaders());
  const described = describedRoutes(mounts);
  const root = mounts.find((mount) => mount.path === '/');
  if (!root) throw new Error('no site at the root');
  assertRootReachable(root, mounts, described.plainRoutes);
  // Anonymous visitors' CSRF tokens are signed with it (src/auth/csrf.ts): no session row for a login form.
  app.locals[CSRF_SECRET] = sessionHashSecret(config);
  // The browser session on every site; the API sites load it only for requests that bring its cookie.
  const session = browserSession({ config, sessions, accounts });
  const browser = session.always;
  // The sites under their own paths first: their requests pass no other router (none serves under their paths).
  const crossOrigin = corsHandler(config.corsAllowedOrigins);
  const spoofing = methodOverride(config.bodyLimit);
  // Fortify's routes at the root honour `_method` as Laravel's do (a Blade form's `@method('PUT')`); there a body that
  // cannot be read stays a POST, which Fortify's own handlers refuse.
  if (mounts.some((mount) => mount.site.name === TOKEN_SITE)) {
    app.use(FORTIFY_PATHS, (req, res, next) => (req.path === '/' ? spoofing(req, res, () => next()) : next()));
  }
  for (const mount of mounts.filter((other) => other !== root)) {
    // Laravel's CORS paths: the token site and Sanctum's cookie route, not the root site (DRF has none without django-cors-headers).
    const laravel = mount.site.name === TOKEN_SITE ? [...(crossOrigin ? [crossOrigin] : []), spoofing] : [];
    app.use(mount.path, siteRouter(mount.site, mount.routes, logger, session, laravel));
  }
  app.use(healthRoutes(services, logger));
  // The browsable page's script and nothing else: every page works without any external request.
  app.use(STATIC_PATH, express.static(staticDir, { index: false, maxAge: '1h' }));
  // Where browsers look for an icon when a page names none (the API description, a JSON answer opened in a tab).
  app.get(FAVICON_PATH, (_req, res) => res.sendFile(path.join(staticDir, 'favicon.svg'), { maxAge: '1d', headers: { 'Content-Type': 'image/svg+xml' } }));
  app.use(openApiRouter(described));
  app.use(DOCS_PATH, docsRouter());
  const [firstList] = registry.exposedOn(root.site.name);
  const passwordChange = { accounts, tokens: services.tokens, bodyLimit: config.bodyLimit, sessionSecret: sessionHashSecret(config), logger, loginThrottle: throttles.login };
  // Fortify's `PUT /user/password`, and Django's password change form beside the browser login.
  app.use(passwordUpdateRouter(passwordChange, browser));
  app.use(
    BROWSER_LOGIN_PATH,
    ...browser,
    browserLoginRouter({
      accounts,
      loginThrottle: throttles.login,
      bodyLimit: config.bodyLimit,
      sessionCookieAge: config.sessionCookieAge,
      defaultNext: firstList ? `/${firstList.exposure.path}/` : '/',
      logger,
    }),
    passwordChangeRouter(passwordChange),
  );
  // Laravel Fortify's `POST /login` and `POST /logout` for SPAs, in the token site's words (none without it).
  const token = mounts.find((mount) => mount.site.name === TOKEN_SITE);
  if (token) {
    app.use(
      fortifyRouter({
        site: token.site,
        accounts,
        loginThrottle: throttles.login,
        bodyLimit: config.bodyLimit,
        sessionCookieAge: config.sessionCookieAge,
        session: browser,
        loginPage: `${BROWSER_LOGIN_PATH}/login/`,
        logger,
      }),
    );
  }
  // The root site answers last: its 404 covers every path no other site claims.
  app.use(root.path, siteRouter(root.site, root.routes, logger, session));
  return Object.assign(app, { warm: async () => void (await admin.load()) });
}
