/**
 * A logged-in person changes their own password: Laravel Fortify's
 * `PUT /user/password` (JSON) and Django's `/api-auth/password_change/` form.
 * Both check the current password, the confirmation and the password rules,
 * then keep the current session logged in while every other one ends.
 */
import express, { type NextFunction, type Request, type RequestHandler, type Response, type Router } from 'express';
import type { Accounts } from '../auth/accounts.js';
import { csrfToken, enforceCsrf } from '../auth/csrf.js';
import type { AccessTokens } from '../auth/tokens.js';
import { bindSessionToPassword } from '../auth/sessions.js';
import { ApiError, asApiError, fieldErrorMessages, FieldErrors, ValidationError, type FieldError } from '../errors.js';
import { chooseLanguage, translator, type Translate } from '../i18n.js';
import type { Logger } from '../logger.js';
import { bodyField, bodyText, requestData } from '../parsers.js';
import type { LoginThrottle } from '../throttling.js';
import { pageTranslator, sendError, sendPage as sendAuthPage } from './browser-login.js';
import { errorStatus, laravelOptions, sendLaravelJson, validationBody } from './token.js';

/** Fortify's path, at the root. */
export const PASSWORD_UPDATE_PATH = '/user/password';

export interface PasswordChangeOptions {
  accounts: Accounts;
  tokens: AccessTokens | null;
  bodyLimit: number;
  /** The key of the session auth hash (src/auth/sessions.ts). */
  sessionSecret: string;
  logger: Logger;
  /** Counts wrong current passwords as failed logins: a session left open must not become a way to guess the password. */
  loginThrottle: LoginThrottle;
}

/** The three fields under each flow's own names. */
interface ChangeFields {
  current: string;
  password: string;
  confirmation: string;
}

/** What the field errors are called: Fortify's names, or Django's form's. */
interface FieldNames {
  current: string;
  password: string;
  confirmation: string;
}

const FORTIFY_FIELDS: FieldNames = { current: 'current_password', password: 'password', confirmation: 'password_confirmation' };
const DJANGO_FIELDS: FieldNames = { current: 'old_password', password: 'new_password1', confirmation: 'new_password2' };

/** Laravel's `boolean` rule's truthy values. */
function truthy(value: unknown): boolean {
  return value === true || value === 1 || value === '1' || value === 'true' || value === 'on' || value === 'yes';
}

function refusal(key: string): FieldError {
  return { code: 'refused', params: {}, key };
}

/**
 * Checks the fields and, when all is well, stores the new password and binds
 * this session to it. Returns the field errors, or null on success. Every
 * other session of the account ends at its next request: its auth hash no
 * longer matches.
 */
async function changeOwnPassword(options: PasswordChangeOptions, req: Request, t: Translate, fields: ChangeFields, names: FieldNames, messages: { current: string; mismatch: string }): Promise<ValidationError | null> {
  const { accounts } = options;
  const user = req.user;
  const row = user ? await accounts.findById(user.id, { withHidden: true }) : null;
  if (!row) throw new ApiError('not_authenticated');
  const errors = new FieldErrors();
  const collected: Record<string, FieldError[]> = {};
  if (fields.current === '') errors.add(names.current, 'required');
  // The current password is checked even when another field is wrong, as Fortify's validator does.
  else if (!(await options.loginThrottle.guard(req)(user?.username ?? '', () => accounts.verify(row, fields.current)))) {
    (collected[names.current] ??= []).push(refusal(messages.current));
  }
  if (fields.password === '') errors.add(names.password, 'required');
  else {
    if (fields.password !== fields.confirmation) (collected[names.password] ??= []).push(refusal(messages.mismatch));
    accounts.checkPasswordRules(fields.password, accounts.accountWords((name) => row.get(name)), errors, names.password, accounts.wordLabels(t));
  }
  try {
    errors.throwIfAny();
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    for (const [name, list] of Object.entries(error.fields)) (collected[name] ??= []).push(...list);
  }
  if (Object.keys(collected).length > 0) {
    // In the order of the form's fields.
    const ordered = Object.fromEntries([names.current, names.password, names.confirmation].filter((name) => name in collected).map((name) => [name, collected[name] ?? []]));
    return new ValidationError(ordered);
  }
  const hash = await accounts.replacePassword(row, fields.password);
  bindSessionToPassword(req, options.sessionSecret, hash);
  await new Promise<void>((resolve, reject) => req.session.save((error?: unknown) => (error ? reject(error) : resolve())));
  return null;
}

/** Fortify's answers are in English unless the client asks otherwise, as the token site's. */
function jsonTranslator(req: Request): Translate {
  return translator(chooseLanguage(req.headers['accept-language'], 'en'), ['token', 'common']);
}


/**
 * `PUT /user/password`, Fortify's UpdateUserPassword: session-authenticated,
 * CSRF-checked (before the login, as Laravel's web middleware), answers 200
 * with `{}`, or 422 with the field errors. `revoke_tokens` (truthy) revokes
 * the account's API tokens too; otherwise they stay.
 */
export function passwordUpdateRouter(options: PasswordChangeOptions, session: RequestHandler[]): Router {
  const router = express.Router({ caseSensitive: true, strict: false });
  router.options(PASSWORD_UPDATE_PATH, laravelOptions('PUT'));
  router.put(PASSWORD_UPDATE_PATH, ...session, async (req: Request, res: Response) => {
    const t = jsonTranslator(req);
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('Vary', 'Accept-Language, Cookie');
    try {
      await enforceCsrf(req, options.bodyLimit);
      if (!req.user) throw new ApiError('not_authenticated');
      const data = await requestData(req, options.bodyLimit);
      const fields = { current: bodyText(data, 'current_password'), password: bodyText(data, 'password'), confirmation: bodyText(data, 'password_confirmation') };
      const invalid = await changeOwnPassword(options, req, t, fields, FORTIFY_FIELDS, {
        current: 'password_change.current_password',
        mismatch: 'password_change.confirmation',
      });
      if (invalid) return sendLaravelJson(res, 422, validationBody(t, invalid));
      if (truthy(bodyField(data, 'revoke_tokens')) && options.tokens) await options.tokens.revokeOthers(req.user, null);
      sendLaravelJson(res, 200, {});
    } catch (error) {
      const apiError = asApiError(error);
      if (apiError.status >= 500) (req.log ?? options.logger).error({ err: error, path: req.path }, 'password update failed');
      for (const [name, value] of Object.entries(apiError.headers)) res.setHeader(name, value);
      sendLaravelJson(res, errorStatus(apiError), { message: t(apiError.messageKey, apiError.params) });
    }
  });
  return router;
}

/** A page of the password change, with the chrome's log-in link as every page but the log-in and log-out ones. */
function sendPage(req: Request, res: Response, status: number, template: string, data: Record<string, unknown>): void {
  sendAuthPage(req, res, status, template, data, { loginLink: true });
}

/** The form again, with each field's messages. */
function formPage(req: Request, res: Response, status: number, invalid: ValidationError | null): void {
  const { t } = pageTranslator(req);
  const errors = Object.fromEntries((invalid ? fieldErrorMessages(t, invalid) : []).map(({ field: name, messages }) => [name, messages]));
  sendPage(req, res, status, 'password-change', { action: `${req.baseUrl}/password_change/`, csrfToken: csrfToken(req), errors });
}

/**
 * `/api-auth/password_change/` and `/api-auth/password_change/done/`,
 * Django's PasswordChangeView: a form (current, new, again) with a CSRF
 * token; a visitor who is not logged in goes to the login first, and comes back.
 */
export function passwordChangeRouter(options: PasswordChangeOptions): Router {
  const router = express.Router({ caseSensitive: true, strict: false });
  const loginFirst: RequestHandler = (req, res, next) => {
    if (req.user) return next();
    res.redirect(302, `${req.baseUrl}/login/?next=${encodeURIComponent(req.originalUrl)}`);
  };

  router.get('/password_change', loginFirst, (req, res) => formPage(req, res, 200, null));

  router.post('/password_change', async (req, res, next: NextFunction) => {
    try {
      await enforceCsrf(req, options.bodyLimit);
      if (!req.user) return loginFirst(req, res, next);
      const data = await requestData(req, options.bodyLimit);
      const fields = { current: bodyText(data, 'old_password'), password: bodyText(data, 'new_password1'), confirmation: bodyText(data, 'new_password2') };
      const invalid = await changeOwnPassword(options, req, pageTranslator(req).t, fields, DJANGO_FIELDS, {
        current: 'password_change.old_password_incorrect',
        mismatch: 'password_change.mismatch',
      });
      if (invalid) return formPage(req, res, 200, invalid);
      res.redirect(302, `${req.baseUrl}/password_change/done/`);
    } catch (error) {
      next(error);
    }
  });

  router.get('/password_change/done', loginFirst, (req, res) => sendPage(req, res, 200, 'password-change-done', {}));

  router.use((error: unknown, req: Request, res: Response, _next: NextFunction) => {
    const apiError = asApiError(error);
    if (apiError.status >= 500) (req.log ?? options.logger).error({ err: error, path: req.path }, 'password change failed');
    sendError(req, res, apiError, { loginLink: true });
  });
  return router;
}
