import type { Request, Response } from 'express';
import Negotiator from 'negotiator';
import type { AccessTokens } from '../auth/tokens.js';
import { BearerAuthentication, SessionAuthentication } from '../authentication.js';
import type { Config } from '../config.js';
import { queryValue } from '../context.js';
import { fieldErrorMessages, ValidationError, type ApiError, type ErrorCode } from '../errors.js';
import { errorPageRenderer, htmlRenderer, jsonRenderer } from '../renderers.js';
import { resourceRoutes, type Route } from '../routers.js';
import type { Site, SiteDocs, SiteResponse } from '../contracts.js';
import type { Translate } from '../i18n.js';
import type { JsonSchema } from '../openapi/types.js';
import { fieldMessagesSchema, withRelatedLists } from '../openapi/fields.js';
import type { Throttles } from '../throttling.js';
import { EXAMPLE_TIME, parseTimestamp, utcTimestamp } from '../timestamps.js';
import { LaravelCursorPagination, LengthAwarePagination, type ListKey } from '../pagination/laravel.js';
import { CursorCodec } from '../pagination/cursor-codec.js';
import type { SitePagination } from '../pagination/types.js';
import { SpatieQueryDialect } from '../querying/spatie.js';
import { apiRootEndpoint, listLinks } from './api-root.js';
import { ownTokenRoutes } from './own-tokens.js';
import { sessionRoutes, type TokenRouteServices } from './token-endpoints.js';

// The endpoints of logging in and out live beside the site; the app and the browser login take them from here.
export { csrfCookieEndpoint, setXsrfCookie, type TokenRouteServices } from './token-endpoints.js';

export const TOKEN_SITE = 'token';

/** Laravel's wrapper key when a resource names none. */
const DEFAULT_WRAP = 'data';
const listKey: ListKey = (exposure) => exposure.wrap?.list ?? DEFAULT_WRAP;

/**
 * Lists are whole unless a client asks for pages (the document's list has
 * none): Laravel's paginate() by `page`/`per_page` (15 a page, as Eloquent's
 * default, at most 100) and cursorPaginate() by `cursor`, where an exposure offers them.
 */
function pagination(cursors: CursorCodec): SitePagination {
  return {
    default: 'none',
    sizes: { pageSize: 15, maxPageSize: 100 },
    paginators: {
      page: (sizes) => new LengthAwarePagination(sizes, listKey),
      cursor: (sizes) => new LaravelCursorPagination(sizes, listKey, cursors),
    },
  };
}
const JSON_MEDIA_TYPE = /[/+]json$/i;
const HTML_MEDIA_TYPES = new Set(['text/html', 'application/xhtml+xml']);

/**
 * Laravel's `expectsJson()`: an XMLHttpRequest, `?format=json`, or an Accept
 * header that names a JSON type and prefers no HTML type over it. Plain
 * clients (`*\/*`) and browsers get the HTML error page.
 */
export function expectsJson(req: Request): boolean {
  if (req.get('x-requested-with')?.toLowerCase() === 'xmlhttprequest') return true;
  if (queryValue(req, 'format') === 'json') return true;
  const accepted = new Negotiator(req).mediaTypes();
  const json = accepted.findIndex((type) => JSON_MEDIA_TYPE.test(type));
  const html = accepted.findIndex((type) => HTML_MEDIA_TYPES.has(type.toLowerCase()));
  return json >= 0 && (html < 0 || json < html);
}

/** What DEBUG adds to an error body: the exception's class, and its stack, as Laravel's debug JSON. */
function debugDetails(error: ApiError): Record<string, unknown> {
  const cause: unknown = error.cause;
  const shown = cause instanceof Error ? cause : error;
  const details: Record<string, unknown> = {
    exception: shown === error ? `ApiError(${error.code})` : shown.name,
    trace: (shown.stack ?? '').split('\n').slice(1).map((line) => line.trim()),
  };
  if (shown !== error) details.message = shown.message;
  else if (cause !== undefined) details.message = String(cause);
  return details;
}

/** `{"message": <first message>, "errors": {"<field>": ["…"]}}`, as Laravel's 422. */
export function validationBody(t: Translate, error: ValidationError): Record<string, unknown> {
  const fields = fieldErrorMessages(t, error);
  const messages = fields.flatMap((field) => field.messages);
  const [first = t(error.messageKey)] = messages;
  const more = messages.length - 1;
  return {
    message: more > 0 ? t('errors.validation_more', { message: first, count: more }) : first,
    errors: Object.fromEntries(fields.map(({ field, messages: list }) => [field, list])),
  };
}

const MESSAGE: JsonSchema = { type: 'string' };
const TIMESTAMP = '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{6}Z$';
/** Laravel answers these in JSON whatever the client asked for. */
const ALWAYS_JSON: ReadonlySet<ErrorCode> = new Set(['validation_failed', 'login_failed']);

/** The schema twins of the token site's bodies. */
const tokenDocs: SiteDocs = {
  trailingSlash: false,
  timestamp: { type: 'string', format: 'date-time', pattern: TIMESTAMP, example: utcTimestamp(EXAMPLE_TIME) },
  item: (exposure, item) => wrapped(exposure.wrap?.item ?? DEFAULT_WRAP, item),
  list: (exposure, item) => wrapped(listKey(exposure), { type: 'array', items: item }),
  // The related lists both inside the user and beside it, as currentBody writes them.
  current(exposure, item, included) {
    const { lists, row } = withRelatedLists(item, included);
    const key = exposure.wrap?.item ?? DEFAULT_WRAP;
    return { type: 'object', properties: { [key]: row, ...lists }, required: [key, ...Object.keys(lists)], additionalProperties: false };
  },
  // `exception` and `trace` (and the cause's message) only with DEBUG on.
  error: {
    type: 'object',
    properties: { message: MESSAGE, exception: MESSAGE, trace: { type: 'array', items: MESSAGE } },
    required: ['message'],
    additionalProperties: false,
  },
  validation: (fields) => ({
    type: 'object',
    properties: {
      message: MESSAGE,
      errors: {
        type: 'object',
        properties: fieldMessagesSchema(fields),
        additionalProperties: false,
      },
    },
    required: ['message', 'errors'],
    additionalProperties: false,
  }),
  destroyed: { type: 'array', maxItems: 0 },
  alwaysJson: ALWAYS_JSON,
};

/** Laravel's statuses where they differ from the catalogue's: a CSRF mismatch is 419, on which SPA clients refresh their token. */
const LARAVEL_STATUS: Partial<Record<ErrorCode, number>> = { csrf_failed: 419 };

/** OPTIONS on one of Laravel's routes at the root: 200, no body, the methods it takes in `Allow`, as Laravel's router answers it (Express's own answer has the methods as an HTML body). */
export function laravelOptions(allow: string): (req: Request, res: Response) => void {
  return (_req, res) => {
    res.setHeader('Allow', allow);
    res.status(200).end();
  };
}

/** A JSON answer as Laravel's JsonResponse sends it: `application/json` without a charset, as the token site's renderer (Express's `res.json` adds one). */
export function sendLaravelJson(res: Response, status: number, body: unknown): void {
  // setHeader: Express's res.set and res.type add the charset back.
  res.status(status).setHeader('Content-Type', 'application/json');
  res.send(Buffer.from(JSON.stringify(body)));
}

export function errorStatus(error: ApiError): number {
  return error instanceof ValidationError ? 422 : (LARAVEL_STATUS[error.code] ?? error.status);
}

function errorBody(t: Translate, error: ApiError): Record<string, unknown> {
  if (error instanceof ValidationError) return validationBody(t, error);
  if (error.code === 'login_failed') return { message: [t(error.messageKey)] };
  return { message: t(error.messageKey, error.params) };
}

function wrapped(key: string, schema: JsonSchema): JsonSchema {
  return { type: 'object', properties: { [key]: schema }, required: [key], additionalProperties: false };
}

/**
 * The Laravel-Sanctum-style site under `/api`: bearer tokens, wrapped bodies,
 * English first. Errors are JSON for clients that expect JSON and an HTML
 * page for the others; login failures and validation errors are always JSON.
 */
export function tokenSite(config: Config, tokens: AccessTokens, throttles: Throttles): Site {
  const bearer = new BearerAuthentication(tokens);
  /*
   * A bearer token first: a client that names one in its Authorization header
   * (which no other origin's page can make a browser send for it) means it,
   * whatever cookie it also carries; a token that does not check out leaves
   * the session to decide. Sanctum gets there by starting the session only
   * for its stateful domains: a script with a stale session cookie and its
   * token was refused 419 on writes for want of the session's CSRF token.
   */
  const session = new SessionAuthentication(config.bodyLimit);
  return {
    name: TOKEN_SITE,
    mountPath: '/api',
    namespaces: ['token', 'common'],
    defaultLanguage: 'en',
    authenticators: [bearer, session],
    throttle: throttles.requests,
    // JSON first: API clients that name no type get JSON; a browser asking for HTML gets the browsable page.
    renderers: [jsonRenderer, htmlRenderer],
    pagination: pagination(new CursorCodec(config.secretKey, TOKEN_SITE)),
    querying: new SpatieQueryDialect(parseTimestamp),
    // Origin too where another origin's request gets CORS headers (middleware/cors.ts) that the same request without it does not.
    vary: `Accept, Accept-Language, Cookie, X-Requested-With${config.corsAllowedOrigins === null ? '' : ', Origin'}`,
    numbersAsText: false,
    structuredJson: true,
    uniqueSetErrors: 'first_field',
    formatTimestamp: utcTimestamp,
    itemBody: (_ctx, exposure, item) => ({ [exposure.wrap?.item ?? DEFAULT_WRAP]: item }),
    listBody: (_ctx, exposure, items) => ({ [listKey(exposure)]: items }),
    // GET /api/user: the related lists both inside the user and beside it, as the original answered.
    currentBody: (_ctx, exposure, item, included) => ({
      [exposure.wrap?.item ?? DEFAULT_WRAP]: { ...item, ...included },
      ...included,
    }),
    destroyed: Object.freeze({ status: 200, data: Object.freeze([]) }),
    errorStatus,
    errorBody,
    errorResponse(ctx, error): SiteResponse {
      const status = errorStatus(error);
      const data = errorBody(ctx.t, error);
      if (ALWAYS_JSON.has(error.code)) return { status, data, renderer: jsonRenderer };
      const headers = { ...error.headers };
      if (status === 401) headers['WWW-Authenticate'] = bearer.challenge;
      if (config.debug) Object.assign(data, debugDetails(error));
      const json = config.apiForceJson || expectsJson(ctx.req);
      return { status, headers, data, renderer: json ? jsonRenderer : errorPageRenderer };
    },
    docs: tokenDocs,
  };
}

/** The site's root (its lists), logging in and out, the caller's own tokens, then every resource the site exposes. */
export function tokenRoutes(site: Site, services: TokenRouteServices): Route[] {
  const root = { path: '/', endpoint: apiRootEndpoint(listLinks(services.registry, site)) };
  return [root, ...sessionRoutes(site, services), ...ownTokenRoutes(site, services), ...resourceRoutes(site, services.registry, services.bodyLimit)];
}
