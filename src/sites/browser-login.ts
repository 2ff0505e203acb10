import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import type { Accounts } from '../auth/accounts.js';
import { LoginStrategies } from '../auth/strategies.js';
import { csrfToken, enforceCsrf, rotateCsrfToken } from '../auth/csrf.js';
import { endSession } from '../auth/sessions.js';
import { ApiError, asApiError } from '../errors.js';
import { chooseLanguage, translator, type Translate } from '../i18n.js';
import type { Logger } from '../logger.js';
import { bodyText, requestData } from '../parsers.js';
import { pageChrome, renderPage } from '../renderers.js';
import { isThrottled, type LoginThrottle } from '../throttling.js';
import { setXsrfCookie } from './token.js';
import type { Row } from '../types/rows.js';

export interface BrowserLoginOptions {
  accounts: Accounts;
  loginThrottle: LoginThrottle;
  bodyLimit: number;
  sessionCookieAge: number;
  /** Where a login without `next` lands: the first page of the paginated site. */
  defaultNext: string;
  logger: Logger;
}

const ORIGIN = 'http://same-site.invalid';

/**
 * `next` only when it stays on this site: a path, not `//host`, `/\host`, a
 * scheme or control characters (Django's url_has_allowed_host_and_scheme).
 */
export function safeNext(next: unknown, fallback: string): string {
  const isLocalPath = (path: string): boolean =>
    path.startsWith('/') && !path.startsWith('//') && !/[\u0000-\u001f\u007f\\]/.test(path);
  if (typeof next !== 'string' || !isLocalPath(next)) return fallback;
  try {
    const url = new URL(next, ORIGIN);
    const normalised = `${url.pathname}${url.search}${url.hash}`;
    // Dot segments can normalise into `//host` (`/.//evil`): the result is checked again.
    return url.origin === ORIGIN && isLocalPath(normalised) ? normalised : fallback;
  } catch {
    return fallback;
  }
}

/** The pages of `/api-auth/` speak Japanese unless the browser prefers English, as the root site does. */
export function pageTranslator(req: Request): { t: Translate; language: 'ja' | 'en' } {
  const language = chooseLanguage(req.headers['accept-language'], 'ja');
  return { t: translator(language, ['paginated', 'common']), language };
}

/** A page of `/api-auth/`, never cached; `loginLink`: whether its chrome offers a log-in link (not on the ways to log in or out). */
export function sendPage(req: Request, res: Response, status: number, template: string, data: Record<string, unknown>, { loginLink = false } = {}): void {
  const { t, language } = pageTranslator(req);
  res.status(status);
  res.setHeader('Vary', 'Accept-Language, Cookie');
  res.setHeader('Cache-Control', 'no-store');
  const chrome = pageChrome(req, req.user ?? null);
  res.type('html').send(renderPage(template, { t, language, ...chrome, ...(loginLink ? {} : { loginUrl: undefined }), ...data }));
}

/** The error page of `/api-auth/`, in the page's language. */
export function sendError(req: Request, res: Response, error: ApiError, { loginLink = false } = {}): void {
  const { t } = pageTranslator(req);
  sendPage(req, res, error.status, 'error', {
    status: error.status,
    statusText: t(`page.status.${error.status}`),
    message: t(error.messageKey, error.params),
    trace: [],
  }, { loginLink });
}

/** The login form, again with the refusal's message (a failure or a throttled attempt). */
function loginPage(req: Request, res: Response, status: number, fields: { next: string; username?: string; refusal?: ApiError | 'failed' }): void {
  const { t } = pageTranslator(req);
  const { refusal } = fields;
  if (refusal instanceof ApiError) for (const [name, value] of Object.entries(refusal.headers)) res.setHeader(name, value);
  sendPage(req, res, status, 'login', {
    action: req.baseUrl + '/login/',
    csrfToken: csrfToken(req),
    next: fields.next,
    username: fields.username ?? '',
    error: refusal === undefined ? undefined : refusal === 'failed' ? t('login.failed') : t(refusal.messageKey, refusal.params),
  });
}

/**
 * `/api-auth/login/` and `/api-auth/logout/`, Django REST Framework's browser
 * login: a form with a CSRF token; username or email and password checked by
 * the account store (one password hashing whatever the outcome); the session
 * id changes at login and the session ends at logout.
 */
export function browserLoginRouter(options: BrowserLoginOptions): Router {
  const { accounts, loginThrottle, bodyLimit, defaultNext } = options;
  const strategies = new LoginStrategies(accounts, loginThrottle, options.logger);
  const router = express.Router({ caseSensitive: true, strict: false });

  router.get('/login', (req, res) => {
    loginPage(req, res, 200, { next: safeNext(req.query.next, defaultNext) });
  });

  router.post('/login', async (req, res, next: NextFunction) => {
    try {
      await enforceCsrf(req, bodyLimit);
      const data = await requestData(req, bodyLimit);
      const target = safeNext(bodyText(data, 'next') || req.query.next, defaultNext);
      const username = bodyText(data, 'username').trim();
      let row: Row | null;
      try {
        row = await strategies.check('browser', req, res, { identifier: username, password: bodyText(data, 'password') });
      } catch (error) {
        if (!isThrottled(error)) throw error;
        return loginPage(req, res, error.status, { next: target, username, refusal: error });
      }
      if (!row) return loginPage(req, res, 200, { next: target, username, refusal: 'failed' });
      await accounts.recordLogin(row);
      // passport 0.7 regenerates the session: the id a visitor had before is worthless after.
      req.logIn(accounts.toAuthUser(row), (error?: unknown) => {
        if (error) return next(error);
        rotateCsrfToken(req);
        setXsrfCookie(req, res, options.sessionCookieAge);
        res.redirect(302, target);
      });
    } catch (error) {
      next(error);
    }
  });

  router.get('/logout', (req, res) => {
    sendPage(req, res, 200, 'logout', {
      action: req.baseUrl + '/logout/',
      csrfToken: csrfToken(req),
      next: safeNext(req.query.next, req.baseUrl + '/login/'),
    });
  });

  router.post('/logout', async (req, res, next: NextFunction) => {
    try {
      // Django's logout is CSRF-protected for everyone: a cross-site form may not even log a visitor "out".
      await enforceCsrf(req, bodyLimit);
      const data = await requestData(req, bodyLimit).catch(() => ({}));
      const target = safeNext(bodyText(data, 'next') || req.query.next, req.baseUrl + '/login/');
      await endSession(req, res);
      res.redirect(302, target);
    } catch (error) {
      next(error);
    }
  });

  router.use((error: unknown, req: Request, res: Response, _next: NextFunction) => {
    const apiError = asApiError(error);
    if (apiError.status >= 500) (req.log ?? options.logger).error({ err: error, path: req.path }, 'browser login failed');
    sendError(req, res, apiError);
  });
  return router;
}
