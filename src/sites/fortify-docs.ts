/**
 * What the API description says of Laravel Fortify's routes at the root
 * (`POST /login`, `POST /logout`, `PUT /user/password`): plain routes beside
 * the sites, whose answers are the token site's bodies. Texts are keys of
 * the `openapi` catalogue.
 */
import type { JsonSchema, Parameter, PlainResponse, PlainRouteDocs } from '../openapi/types.js';
import { FORTIFY_LOGIN_PATH, FORTIFY_LOGOUT_PATH } from './fortify.js';
import { PASSWORD_UPDATE_PATH } from './password-change.js';

/** Their own group in /docs: the session's flow reads apart from the token API's bearer tokens (docs/api.md). */
const TAG = 'fortify';
/** The browser session's scheme, as the sites describe it (its text says unsafe methods need the CSRF token). */
const SESSION_SCHEME = 'sessionCookie';

const TEXT: JsonSchema = { type: 'string' };
const MESSAGE: JsonSchema = { type: 'object', properties: { message: TEXT }, required: ['message'], additionalProperties: false };
const MESSAGES: JsonSchema = { type: 'array', items: TEXT, minItems: 1 };

/** Laravel's 422 body: the first message, and the messages of each field among `fields`. */
function fieldErrors(fields: readonly string[]): JsonSchema {
  return {
    type: 'object',
    properties: {
      message: TEXT,
      errors: { type: 'object', properties: Object.fromEntries(fields.map((field) => [field, MESSAGES])), minProperties: 1, additionalProperties: false },
    },
    required: ['message', 'errors'],
    additionalProperties: false,
  };
}

/** Laravel's truthy words, as a form sends them. */
const FORM_BOOLEAN: JsonSchema = { type: 'string', examples: ['1', 'on', 'true', 'yes'] };

const XSRF_HEADER: Parameter = { name: 'X-XSRF-TOKEN', in: 'header', required: false, description: 'fortify.xsrf_token', schema: TEXT };

const RETRY_AFTER = { 'Retry-After': { description: 'headers.retry_after', schema: { type: 'integer', minimum: 1 } } };
const CSRF_FAILED: PlainResponse = { status: 419, schema: MESSAGE, description: 'fortify.csrf_failed' };
const NOT_AUTHENTICATED: PlainResponse = { status: 401, schema: MESSAGE, description: 'fortify.not_authenticated' };
const TOO_LARGE: PlainResponse = { status: 413, schema: MESSAGE, description: 'fortify.payload_too_large' };
/** A client that does not ask for JSON (a form post) is redirected, whatever the outcome. */
const REDIRECT: PlainResponse = { status: 302, description: 'fortify.redirect', headers: { Location: { description: 'fortify.location', schema: TEXT } } };
/** What Express writes in a redirect's body, by the Accept header. */
const REDIRECT_BODIES = ['text/html', 'text/plain'];

/** A body or an answer with these fields (a body may carry others, which are ignored). */
function object(properties: Record<string, JsonSchema>, required: readonly string[]): JsonSchema {
  return { type: 'object', properties, required };
}

/** `email` takes a username too (the operation's text says so). */
const LOGIN_FIELDS = { email: TEXT, password: TEXT };

/** `POST /login` and `POST /logout`: served only beside the token site. */
export const FORTIFY_DOCS: readonly PlainRouteDocs[] = [
  {
    path: FORTIFY_LOGIN_PATH,
    method: 'post',
    tag: TAG,
    slashOptional: true,
    summary: 'fortify.login',
    description: 'fortify.login_description',
    parameters: [XSRF_HEADER],
    requestBody: object({ ...LOGIN_FIELDS, remember: { type: 'boolean' } }, ['email', 'password']),
    formBody: object({ ...LOGIN_FIELDS, remember: FORM_BOOLEAN, _token: TEXT, next: TEXT, redirect: TEXT }, ['email', 'password']),
    responses: [
      { status: 200, schema: { ...object({ two_factor: { type: 'boolean', const: false } }, ['two_factor']), additionalProperties: false }, description: 'fortify.logged_in' },
      REDIRECT,
      TOO_LARGE,
      CSRF_FAILED,
      { status: 422, schema: fieldErrors(['email', 'password']), description: 'fortify.login_refused' },
      { status: 429, schema: fieldErrors(['email']), description: 'fortify.login_throttled', headers: RETRY_AFTER },
    ],
    alsoRenders: REDIRECT_BODIES,
  },
  {
    path: FORTIFY_LOGOUT_PATH,
    method: 'post',
    tag: TAG,
    slashOptional: true,
    summary: 'fortify.logout',
    description: 'fortify.logout_description',
    parameters: [XSRF_HEADER],
    security: [SESSION_SCHEME],
    responses: [{ status: 204, description: 'fortify.logged_out' }, REDIRECT, NOT_AUTHENTICATED, CSRF_FAILED],
    alsoRenders: REDIRECT_BODIES,
  },
];

const PASSWORD_FIELDS = { current_password: TEXT, password: TEXT, password_confirmation: TEXT };
const PASSWORD_REQUIRED = ['current_password', 'password', 'password_confirmation'];

/** `PUT /user/password`: served by every app, always in JSON. */
export const PASSWORD_UPDATE_DOCS: PlainRouteDocs = {
  path: PASSWORD_UPDATE_PATH,
  method: 'put',
  tag: TAG,
  slashOptional: true,
  summary: 'fortify.password_update',
  description: 'fortify.password_update_description',
  parameters: [XSRF_HEADER],
  security: [SESSION_SCHEME],
  requestBody: object({ ...PASSWORD_FIELDS, revoke_tokens: { type: 'boolean' } }, PASSWORD_REQUIRED),
  formBody: object({ ...PASSWORD_FIELDS, revoke_tokens: FORM_BOOLEAN, _token: TEXT }, PASSWORD_REQUIRED),
  responses: [
    { status: 200, schema: { type: 'object', maxProperties: 0 }, description: 'fortify.password_updated' },
    { status: 400, schema: MESSAGE, description: 'fortify.unreadable_body' },
    NOT_AUTHENTICATED,
    TOO_LARGE,
    { status: 415, schema: MESSAGE, description: 'fortify.unsupported_media_type' },
    CSRF_FAILED,
    { status: 422, schema: fieldErrors(['current_password', 'password']), description: 'fortify.password_refused' },
    { status: 429, schema: MESSAGE, description: 'fortify.password_throttled', headers: RETRY_AFTER },
  ],
};
