import './env.js';
import path from 'node:path';
import { convertToExpressRoute } from '@adminjs/express';
import AdminJS, { ForbiddenError, NotFoundError, Router as AdminRoutes, ValidationError as AdminValidationError } from 'adminjs';
import express, { type NextFunction, type Request, type RequestHandler, type Response, type Router } from 'express';
import type { Store } from 'express-session';
import type { Accounts } from '../auth/accounts.js';
import { LoginStrategies } from '../auth/strategies.js';
import { bindSessionToPassword, sessionHashSecret, sessionMiddleware, sessionStillBound } from '../auth/sessions.js';
import type { Config } from '../config.js';
import { ApiError } from '../errors.js';
import { isDatabaseUnavailable } from '../db/unavailable.js';
import { translator, type Language } from '../i18n.js';
import type { Logger } from '../logger.js';
import { isThrottled, type LoginThrottle } from '../throttling.js';
import { bodyText, requestData } from '../parsers.js';
import { typeName } from '../cleaning.js';
import { allowInlineScripts } from '../middleware/security.js';
import { BUNDLE_FILE } from './env.js';
import { assertKnownAction, normalizeForm, type RouteTarget } from './requests.js';
import { adminLanguage, currentLanguage, withLanguage } from './locale.js';
import { DeclaredResource, DELETED } from './resource.js';
import { sendCsv } from './export.js';
import type { StaffMember } from './staff.js';
import type { Row } from '../types/rows.js';
import type { AuthUser } from '../types/auth.js';

/** The admin's own cookie: only ever sent to /admin, and never on a request another site starts. */
export const ADMIN_SESSION_COOKIE = 'admin_sessionid';
/** The translation key AdminJS's login page shows after a refusal (ours, in `admin.json`). */
const LOGIN_REFUSED = 'invalidCredentials';
const LOGIN_THROTTLED = 'throttled';
/** Keys that would reach an object's prototype through AdminJS's flattening of params. */
const POLLUTING = /(^|[.~[\]])(__proto__|constructor|prototype)($|[.~[\]])/;
const ASSET_MAX_AGE = '1h';
/** Where AdminJS's pages load our components from; `npm run build` made the file. */
const COMPONENTS_BUNDLE_PATH = '/frontend/assets/components.bundle.js';

declare module 'express-session' {
  interface SessionData {
    adminUserId?: number;
  }
}

export interface AdminRouterOptions {
  admin: AdminJS;
  accounts: Accounts;
  sessionStore: Store;
  loginThrottle: LoginThrottle;
  config: Config;
  logger: Logger;
}

interface StaffLocals {
  staff?: StaffMember;
}

/**
 * The body's fields under safe keys, their values as sent (normalizeForm
 * makes them the form's text). A JSON body that is no object of fields is
 * refused: taken as no field at all, an edit of nothing would be "saved".
 */
function safeFields(data: unknown): Record<string, unknown> {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    const message = translator(currentLanguage(), ['common'])('validation.invalid_data', { datatype: typeName(data) });
    throw new AdminValidationError({}, { message });
  }
  const fields: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(data)) {
    if (!POLLUTING.test(key)) fields[key] = value;
  }
  return fields;
}

/** The query string without keys that name a prototype; repeated keys keep their last value. */
function safeQuery(query: Request['query']): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [key, value] of Object.entries(query)) {
    const last = Array.isArray(value) ? value.at(-1) : value;
    if (typeof last === 'string' && !POLLUTING.test(key)) result[key] = last;
  }
  return result;
}

/** AdminJS's pages link Roboto from Google Fonts: the admin makes no request outside the product. */
function withoutExternalFonts(html: string): string {
  return html.replace(/<link[^>]*fonts\.googleapis\.com[^>]*>/g, '');
}

/** An AdminJS page as it leaves: no outside fonts, and a policy that runs its own inline scripts only. */
function sendPage(res: Response, html: string): void {
  const page = withoutExternalFonts(html);
  allowInlineScripts(res, page);
  if (!res.getHeader('Content-Type')) res.type('html');
  res.send(page);
}

/** Text AdminJS writes into a script element as JSON: no markup may close it. */
function inert(text: string): string {
  return text.replace(/[<>&]/g, '');
}

function toStaffMember(user: AuthUser, language: Language): StaffMember {
  return {
    id: String(user.id),
    email: inert(user.username),
    // Under the name in the top bar: the staff member's role, in the page's language.
    title: translator(language, ['admin'])(user.isSuperuser ? 'roles.superuser' : 'roles.staff'),
    isSuperuser: user.isSuperuser,
    language,
  };
}

function isApiPath(req: Request): boolean {
  return req.path.startsWith('/api/');
}

/** A form posted from another site never reaches an admin action, even by a browser that ignores SameSite. */
function sameOrigin(req: Request): boolean {
  if (req.headers['sec-fetch-site'] === 'cross-site') return false;
  const origin = req.headers.origin;
  if (origin === undefined) return true;
  try {
    // req.host: the Host header, or X-Forwarded-Host behind a trusted proxy (TRUST_PROXY).
    return new URL(origin).host === req.host;
  } catch {
    return false;
  }
}

function regenerate(req: Request): Promise<void> {
  return new Promise((resolve, reject) => req.session.regenerate((error?: unknown) => (error ? reject(error) : resolve())));
}

function destroy(req: Request): Promise<void> {
  return new Promise((resolve, reject) => req.session.destroy((error?: unknown) => (error ? reject(error) : resolve())));
}

/**
 * `/admin`: AdminJS's pages and API behind its own login. The account is
 * loaded again on every request, so a staff member who is deactivated or
 * loses the staff right is out at once.
 */
export function adminRouter(options: AdminRouterOptions): Router {
  const { admin, accounts, config, logger } = options;
  const strategies = new LoginStrategies(accounts, options.loginThrottle, logger);
  const hashSecret = sessionHashSecret(config);
  const rootPath = admin.options.rootPath;
  const loginPath = `${rootPath}/login`;
  const router = express.Router({ caseSensitive: true, strict: false });

  router.use((req, res, next) => {
    res.setHeader('Vary', 'Accept-Language, Cookie');
    withLanguage(adminLanguage(req.headers['accept-language']), next);
  });

  const assets = [...AdminRoutes.assets, { path: COMPONENTS_BUNDLE_PATH, src: BUNDLE_FILE }];
  for (const asset of assets) {
    const file = path.resolve(asset.src);
    router.get(asset.path, (_req, res, next) => res.sendFile(file, { maxAge: ASSET_MAX_AGE }, (error) => error && next(error)));
  }

  router.use((_req, res, next) => {
    res.setHeader('Cache-Control', 'no-store');
    next();
  });
  router.use(sessionMiddleware(config, options.sessionStore, { name: ADMIN_SESSION_COOKIE, path: rootPath, sameSite: 'strict' }));

  const renderLogin = async (res: Response, refusal: string | null): Promise<void> => {
    const html = await admin.renderLogin({ action: loginPath, errorMessage: refusal });
    sendPage(res, html);
  };

  router.get('/login', async (req, res, next) => {
    try {
      if (req.session.adminUserId !== undefined) return res.redirect(302, rootPath);
      await renderLogin(res, null);
    } catch (error) {
      next(error);
    }
  });

  router.post('/login', async (req, res, next) => {
    try {
      if (!sameOrigin(req)) throw new ForbiddenError('cross-site login');
      const data = await requestData(req, config.bodyLimit);
      const identifier = bodyText(data, 'email').trim();
      let row: Row | null;
      try {
        // One refusal for every failure, after the same single password check; a non-staff account is a failure.
        row = await strategies.check('admin', req, res, { identifier, password: bodyText(data, 'password') });
      } catch (error) {
        if (!isThrottled(error)) throw error;
        res.status(error.status).set(error.headers);
        return await renderLogin(res, LOGIN_THROTTLED);
      }
      if (!row) return await renderLogin(res, LOGIN_REFUSED);
      await regenerate(req);
      req.session.adminUserId = row.get('id') as number;
      // As the browser sessions: a new password (anywhere) ends this session.
      bindSessionToPassword(req, hashSecret, String(row.get('password')));
      await accounts.recordLogin(row);
      res.redirect(302, rootPath);
    } catch (error) {
      next(error);
    }
  });

  router.get('/logout', async (req, res, next) => {
    try {
      await destroy(req);
      res.clearCookie(ADMIN_SESSION_COOKIE, { path: rootPath });
      res.redirect(302, loginPath);
    } catch (error) {
      next(error);
    }
  });

  router.use(async (req, res: Response<unknown, StaffLocals>, next) => {
    try {
      const id = req.session.adminUserId;
      const row = id === undefined ? null : await accounts.findById(id, { withHidden: true });
      const bound = row !== null && Boolean(row.get('is_active')) && sessionStillBound(req, hashSecret, String(row.get('password')));
      const user = row && bound ? accounts.toAuthUser(row) : null;
      if (user?.isStaff) {
        res.locals.staff = toStaffMember(user, currentLanguage());
        return next();
      }
      if (id !== undefined) await destroy(req);
      if (isApiPath(req)) return res.status(401).json({ message: translator(currentLanguage(), ['paginated'])('errors.not_authenticated') });
      res.redirect(302, loginPath);
    } catch (error) {
      next(error);
    }
  });

  /**
   * A staff member who sets their own password here stays logged in here
   * (Django's update_session_auth_hash); their other sessions end.
   */
  const keepOwnSession: OwnSessionKeeper = async (req, staffId, recordId, run) => {
    if (recordId === undefined || recordId !== staffId) return run();
    const storedHash = async (): Promise<string | null> => {
      const row = await accounts.findById(Number(staffId), { withHidden: true });
      return row ? String(row.get('password')) : null;
    };
    const before = await storedHash();
    const result = await run();
    const after = await storedHash();
    if (after !== null && after !== before) bindSessionToPassword(req, hashSecret, after);
    return result;
  };

  // The export action's download (export.ts): a plain GET, so the browser streams it to disk.
  router.get('/export/:resourceId', async (req, res: Response<unknown, StaffLocals>, next) => {
    try {
      await sendCsv(admin, String(req.params.resourceId), safeQuery(req.query), res.locals.staff, res, req.log ?? logger);
    } catch (error) {
      next(error);
    }
  });

  for (const route of AdminRoutes.routes) {
    if (route.action === 'bundleComponents') continue;
    const routePath = convertToExpressRoute(route.path) || '/';
    const handler = routeHandler(admin, route, config.bodyLimit, keepOwnSession);
    if (route.method === 'GET') router.get(routePath, handler);
    else router.post(routePath, handler);
  }

  router.use((req, res) => {
    res.status(404);
    if (isApiPath(req)) res.json({ message: translator(currentLanguage(), ['admin'])('errors.not_found') });
    else res.type('text').send(translator(currentLanguage(), ['admin'])('errors.not_found'));
  });

  router.use((error: unknown, req: Request, res: Response, _next: NextFunction) => {
    const { status, key, params } = describeError(error);
    if (status >= 500) (req.log ?? logger).error({ err: error, path: req.path }, 'admin request failed');
    const message = error instanceof AdminValidationError && error.baseError?.message ? error.baseError.message : translator(currentLanguage(), ['admin', 'paginated', 'common'])(key, params);
    res.status(status);
    if (isApiPath(req) || req.method !== 'GET') res.json({ notice: { message, type: 'error' } });
    else res.type('text').send(message);
  });
  return router;
}

function describeError(error: unknown): { status: number; key: string; params?: Record<string, string | number> } {
  if (error instanceof NotFoundError) return { status: 404, key: 'errors.not_found' };
  // AdminJS says this when a resource id names no resource.
  if (error instanceof Error && error.message.startsWith('There are no resources')) return { status: 404, key: 'errors.not_found' };
  // AdminJS's new action says this to a GET.
  if (error instanceof Error && error.message.includes('only via `post`')) return { status: 405, key: 'errors.method_not_allowed' };
  if (error instanceof ForbiddenError) return { status: 403, key: 'errors.forbidden' };
  if (error instanceof AdminValidationError) return { status: 400, key: 'errors.validation_failed' };
  if (error instanceof ApiError) return { status: error.status, key: error.messageKey, params: error.params };
  if (isDatabaseUnavailable(error)) return { status: 503, key: 'errors.database_unavailable' };
  // Express's own refusals, e.g. a path with a broken percent-escape.
  const status = (error as { status?: unknown } | null)?.status;
  if (typeof status === 'number' && status >= 400 && status < 500) return { status, key: 'errors.bad_request' };
  return { status: 500, key: 'errors.server_error' };
}

interface RecordActionAnswer {
  record?: { id?: unknown; baseError?: { message: string; type: string } | null };
  notice?: { message: string; type: string };
}

/**
 * An edit form saved after its row was deleted: AdminJS answers with an
 * English notice naming the id and a record without one; the staff member
 * reads, in their language, that the row was deleted meanwhile, and the
 * edit form (ui/edit.jsx) sees the `deleted` type and offers the list.
 */
async function reportDeleted(admin: AdminJS, target: RouteTarget, recordId: string | undefined, result: unknown): Promise<unknown> {
  const answer = result as RecordActionAnswer | null;
  if (typeof answer !== 'object' || answer === null || answer.notice?.type !== 'error' || !answer.record || answer.record.id !== undefined) return result;
  if (recordId === undefined || target.resourceId === undefined) return result;
  const resource = admin.findResource(target.resourceId);
  if (!(resource instanceof DeclaredResource) || (await resource.findById(recordId)) !== null) return result;
  const message = translator(currentLanguage(), ['admin'])('conflict.deleted');
  return { ...answer, record: { ...answer.record, baseError: { message, type: DELETED } }, notice: { ...answer.notice, message } };
}

type AdminRoute = (typeof AdminRoutes.routes)[number];
/** Runs an action on a record; keeps the session bound when the record is the staff member's own account and its password changed. */
type OwnSessionKeeper = (req: Request, staffId: string, recordId: string | undefined, run: () => Promise<unknown>) => Promise<unknown>;
type Controller = Record<string, (request: unknown, response: Response) => Promise<unknown>>;

/** One AdminJS controller action, with the staff member the session holds and a sanitised payload. */
function routeHandler(admin: AdminJS, route: AdminRoute, bodyLimit: number, keepOwnSession: OwnSessionKeeper): RequestHandler {
  return async (req, res: Response<unknown, StaffLocals>, next) => {
    try {
      const method = req.method.toLowerCase();
      if (method === 'post' && !sameOrigin(req)) throw new ForbiddenError('cross-site request');
      // AdminJS sends deletions as a POST with no body at all.
      const hasForm = method === 'post' && req.headers['content-type'] !== undefined;
      const params = req.params as RouteTarget;
      assertKnownAction(admin, route.path, params);
      const form = hasForm ? safeFields(await requestData(req, bodyLimit)) : {};
      const payload = normalizeForm(admin, params.resourceId, form, currentLanguage());
      const controller = new route.Controller({ admin }, res.locals.staff) as unknown as Controller;
      const action = controller[route.action];
      if (!action) throw new NotFoundError(`No action ${route.action}`, 'admin');
      const run = (): Promise<unknown> => action.call(controller, { params, query: safeQuery(req.query), payload, method }, res);
      const staffId = res.locals.staff?.id;
      const recordId = (req.params as { recordId?: string }).recordId;
      let result = method === 'post' && staffId !== undefined ? await keepOwnSession(req, staffId, recordId, run) : await run();
      if (method === 'post' && route.action === 'recordAction' && params.action === 'edit') result = await reportDeleted(admin, params, recordId, result);
      if (route.contentType) res.type(route.contentType);
      if (typeof result === 'string') sendPage(res, result);
      else res.json(result);
    } catch (error) {
      next(error);
    }
  };
}
