/**
 * `POST /login` and `POST /logout` at the root, as Laravel Fortify answers a
 * single-page app: the SPA fetches `/sanctum/csrf-cookie`, sends its
 * credentials with `X-XSRF-TOKEN`, and its browser session then
 * authenticates `/api` (Sanctum's first-party clients). JSON clients get
 * Fortify's bodies in the token site's words; a plain form post is redirected.
 */
import express, { type NextFunction, type Request, type RequestHandler, type Response, type Router } from 'express';
import type { Accounts } from '../auth/accounts.js';
import { LoginStrategies } from '../auth/strategies.js';
import { enforceCsrf, rotateCsrfToken } from '../auth/csrf.js';
import { endSession } from '../auth/sessions.js';
import type { Site } from '../contracts.js';
import { queryValue } from '../context.js';
import { ApiError, FieldErrors, asApiError } from '../errors.js';
import { chooseLanguage, translator, type Translate } from '../i18n.js';
import type { Logger } from '../logger.js';
import { bodyField, requestData } from '../parsers.js';
import { isThrottled, type LoginThrottle } from '../throttling.js';
import { safeNext } from './browser-login.js';
import { expectsJson, laravelOptions, sendLaravelJson, setXsrfCookie } from './token.js';
import type { Row } from '../types/rows.js';

/** Fortify's paths, at the root. */
export const FORTIFY_LOGIN_PATH = '/login';
export const FORTIFY_LOGOUT_PATH = '/logout';

export interface FortifyOptions {
  /** The site whose languages, statuses and bodies these answers take: the token site. */
  site: Site;
  accounts: Accounts;
  loginThrottle: LoginThrottle;
  bodyLimit: number;
  sessionCookieAge: number;
  /** The browser session's middlewares (session and passport), as the browser login has them. */
  session: readonly RequestHandler[];
  /** Where a form post that failed goes back to: the browser login's form. */
  loginPage: string;
  logger: Logger;
}

/** Fortify's LoginResponse to a JSON client: no second factor is asked for. */
const LOGGED_IN = Object.freeze({ two_factor: false });
/** Bodies Fortify reads but cannot parse are missing credentials, as to Laravel. */
const UNREADABLE_BODY: ReadonlySet<string> = new Set(['parse_error_json', 'parse_error_form', 'unsupported_media_type']);
/** What Laravel's `$request->boolean()` takes for true. */
const TRUE_WORDS: ReadonlySet<string> = new Set(['1', 'true', 'on', 'yes']);

async function credentialsData(req: Request, bodyLimit: number): Promise<Record<string, unknown>> {
  try {
    const data = await requestData(req, bodyLimit);
    return typeof data === 'object' && data !== null && !Array.isArray(data) ? (data as Record<string, unknown>) : {};
  } catch (error) {
    if (error instanceof ApiError && UNREADABLE_BODY.has(error.code)) return {};
    throw error;
  }
}

function isTrue(value: unknown): boolean {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'number') return value === 1;
  return typeof value === 'string' && TRUE_WORDS.has(value.trim().toLowerCase());
}

/** Fortify's rules: `email` (its username field) and `password` are required strings. */
function credentials(data: Record<string, unknown>): { identifier: string; password: string } {
  const errors = new FieldErrors();
  const read = (name: string): string => {
    const value = bodyField(data, name);
    // Laravel's `required`: a string of white space only is none.
    if (value === undefined || value === null || (typeof value === 'string' && value.trim() === '')) errors.add(name, 'required');
    else if (typeof value !== 'string') errors.add(name, 'invalid_string');
    return typeof value === 'string' ? value : '';
  };
  const identifier = read('email').trim();
  const password = read('password');
  errors.throwIfAny();
  return { identifier, password };
}

/**
 * A refusal of the credentials, as Fortify throws it: a ValidationException
 * on `email` whose message is also the body's (422 on wrong credentials,
 * 429 with Retry-After when throttled).
 */
class CredentialsRefused extends Error {
  constructor(
    readonly status: number,
    readonly key: string,
    readonly params: Record<string, string | number> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(key);
    this.name = 'CredentialsRefused';
  }

  body(t: Translate): Record<string, unknown> {
    const message = t(this.key, this.params);
    return { message, errors: { email: [message] } };
  }
}

function throttledLogin(error: ApiError): CredentialsRefused {
  const seconds = Number(error.headers['Retry-After'] ?? 1);
  return new CredentialsRefused(429, 'auth.throttle', { seconds }, error.headers);
}

/** Where a form post came from and wants to go: `next` (Django's) or `redirect`, on this site only. */
function requestedTarget(req: Request, data: Record<string, unknown>): string | undefined {
  const asked = [bodyField(data, 'next'), bodyField(data, 'redirect'), queryValue(req, 'next'), queryValue(req, 'redirect')].find(
    (value): value is string => typeof value === 'string' && value !== '',
  );
  const safe = safeNext(asked, '');
  return safe === '' ? undefined : safe;
}

/**
 * Fortify's `POST /login` and `POST /logout` for SPAs (see the module's
 * comment). Both need the session's CSRF token (419 otherwise, as Laravel's
 * VerifyCsrfToken); the login checks username or email and password as the
 * browser login does, changes the session id and the CSRF token; the logout
 * ends the session.
 */
export function fortifyRouter(options: FortifyOptions): Router {
  const { site, accounts, loginThrottle, bodyLimit, loginPage } = options;
  const strategies = new LoginStrategies(accounts, loginThrottle, options.logger);
  const router = express.Router({ caseSensitive: true, strict: false });

  function t(req: Request): Translate {
    return translator(chooseLanguage(req.headers['accept-language'], site.defaultLanguage), site.namespaces);
  }

  function sendJson(res: Response, status: number, body: unknown, headers: Record<string, string> = {}): void {
    for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
    res.setHeader('Vary', site.vary);
    res.setHeader('Cache-Control', 'no-store');
    sendLaravelJson(res, status, body);
  }

  /** A JSON client gets the token site's error; a form post goes back to the login form (server errors aside). */
  function refuse(req: Request, res: Response, error: unknown, back: string | undefined): void {
    const json = expectsJson(req);
    if (error instanceof CredentialsRefused) {
      if (json) return sendJson(res, error.status, error.body(t(req)), error.headers);
      return void res.redirect(302, back ?? loginPage);
    }
    const apiError = asApiError(error);
    if (apiError.status >= 500) (req.log ?? options.logger).error({ err: error, path: req.path }, 'SPA login or logout failed');
    else if (!json) return void res.redirect(302, back ?? loginPage);
    sendJson(res, site.errorStatus(apiError), site.errorBody(t(req), apiError), apiError.headers);
  }

  function backToLogin(target: string | undefined): string {
    return target === undefined ? loginPage : `${loginPage}?next=${encodeURIComponent(target)}`;
  }

  for (const path of [FORTIFY_LOGIN_PATH, FORTIFY_LOGOUT_PATH]) router.options(path, laravelOptions('POST'));
  router.post(FORTIFY_LOGIN_PATH, ...options.session, async (req, res, next: NextFunction) => {
    let back: string | undefined;
    try {
      await enforceCsrf(req, bodyLimit);
      const data = await credentialsData(req, bodyLimit);
      const target = requestedTarget(req, data);
      back = backToLogin(target);
      const { identifier, password } = credentials(data);
      let row: Row | null;
      try {
        row = await strategies.check('fortify', req, res, { identifier, password });
      } catch (error) {
        throw isThrottled(error) ? throttledLogin(error) : error;
      }
      if (!row) throw new CredentialsRefused(422, 'errors.login_failed');
      await accounts.recordLogin(row);
      const remember = isTrue(bodyField(data, 'remember'));
      // passport 0.7 regenerates the session: the id a visitor had before is worthless after.
      req.logIn(accounts.toAuthUser(row), (error?: unknown) => {
        if (error) return next(error);
        // Without `remember` the cookie ends with the browser; the stored session still ends SESSION_COOKIE_AGE after login.
        if (!remember) req.session.cookie.expires = null;
        rotateCsrfToken(req);
        setXsrfCookie(req, res, options.sessionCookieAge);
        if (expectsJson(req)) sendJson(res, 200, LOGGED_IN);
        else res.redirect(302, target ?? '/');
      });
    } catch (error) {
      refuse(req, res, error, back);
    }
  });

  router.post(FORTIFY_LOGOUT_PATH, ...options.session, async (req, res) => {
    try {
      // CSRF before authentication, as Laravel's middleware run: a cross-site form may not even log a visitor "out".
      await enforceCsrf(req, bodyLimit);
      if (!req.user) throw new ApiError('not_authenticated');
      await endSession(req, res);
      if (expectsJson(req)) res.setHeader('Cache-Control', 'no-store').status(204).end();
      else res.redirect(302, '/');
    } catch (error) {
      refuse(req, res, error, undefined);
    }
  });

  return router;
}
