import type { Accounts } from '../auth/accounts.js';
import { basicPasswordCheck } from '../auth/credential-cache.js';
import type { AccessTokens } from '../auth/tokens.js';
import { BasicAuthentication, SessionAuthentication, TokenAuthentication } from '../authentication.js';
import type { Config } from '../config.js';
import { fieldErrorMessages, ValidationError, type ApiError, type ErrorCode } from '../errors.js';
import type { ResourceRegistry } from '../registry.js';
import { htmlRenderer, jsonRenderer } from '../renderers.js';
import { resourceRoutes, type Route } from '../routers.js';
import type { Site, SiteDocs, SiteResponse } from '../contracts.js';
import type { Translate } from '../i18n.js';
import { fieldMessagesSchema, withRelatedLists } from '../openapi/fields.js';
import type { Throttles } from '../throttling.js';
import { EXAMPLE_TIME, parseZonedTimestamp, zonedTimestampFormatter } from '../timestamps.js';
import { CursorPagination } from '../pagination/cursor.js';
import { CursorCodec } from '../pagination/cursor-codec.js';
import { LimitOffsetPagination } from '../pagination/limit-offset.js';
import { PageNumberPagination } from '../pagination/page-number.js';
import type { SitePagination } from '../pagination/types.js';
import { DrfQueryDialect } from '../querying/drf.js';
import { apiRootEndpoint, listLinks, type RootLink } from './api-root.js';

export const PAGINATED_SITE = 'paginated';
/** Credentials remembered at once per process: about 200 bytes each. */
const BASIC_AUTH_CACHE_ENTRIES = 10_000;

/** The field errors of a 400, `{"<field>": ["<message>", …]}`, labels from the resource catalogue. */
function validationBody(t: Translate, error: ValidationError): Record<string, string[]> {
  return Object.fromEntries(fieldErrorMessages(t, error).map(({ field, messages }) => [field, messages]));
}

function errorStatus(error: ApiError): number {
  return error instanceof ValidationError ? 400 : error.status;
}

function errorBody(t: Translate, error: ApiError): Record<string, unknown> {
  return error instanceof ValidationError ? validationBody(t, error) : { detail: t(error.messageKey, error.params) };
}

const TIMESTAMP = '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{6}$';

/** Django REST Framework's three paginators; page numbers of 2, up to 5, as the document says. */
function pagination(cursors: CursorCodec): SitePagination {
  return {
    default: 'page',
    sizes: { pageSize: 2, maxPageSize: 5 },
    paginators: {
      page: (sizes) => new PageNumberPagination(sizes),
      limitOffset: (sizes) => new LimitOffsetPagination(sizes),
      cursor: (sizes) => new CursorPagination(sizes, cursors),
    },
  };
}
const BROWSER_STATUS: Readonly<Partial<Record<ErrorCode, number>>> = { not_authenticated: 403 };

/** The schema twins of the paginated site's bodies. */
function paginatedDocs(formatTimestamp: (date: Date) => string): SiteDocs {
  return {
    trailingSlash: true,
    // In the configured time zone, without offset: not an RFC 3339 date-time.
    timestamp: { type: 'string', pattern: TIMESTAMP, example: formatTimestamp(EXAMPLE_TIME) },
    item: (_exposure, item) => item,
    list: (_exposure, item) => ({ type: 'array', items: item }),
    current: (_exposure, item, included) => withRelatedLists(item, included).row,
    error: { type: 'object', properties: { detail: { type: 'string' } }, required: ['detail'], additionalProperties: false },
    validation: (fields) => ({ type: 'object', properties: fieldMessagesSchema(fields), additionalProperties: false, minProperties: 1 }),
    browserStatus: BROWSER_STATUS,
  };
}

/**
 * The Django-REST-Framework-style site at the root: HTTP Basic (and DRF's
 * `Token` keys when the application keeps tokens), paginated lists,
 * `{"detail": …}` errors, JSON or the browsable page, Japanese first.
 */
export function paginatedSite(config: Config, accounts: Accounts, throttles: Throttles, tokens: AccessTokens | null = null): Site {
  const passwords = basicPasswordCheck(accounts, { ttlSeconds: config.basicAuthCacheSeconds, maxEntries: BASIC_AUTH_CACHE_ENTRIES });
  const basic = new BasicAuthentication(passwords, throttles.login, 'api');
  // Django REST Framework's default order: the browser session first, so that a stale Basic header is never tried.
  const session = new SessionAuthentication(config.bodyLimit);
  // After the two, as a DRF project adds TokenAuthentication to its defaults.
  const keys = tokens ? [new TokenAuthentication(tokens)] : [];
  const formatTimestamp = zonedTimestampFormatter(config.timeZone);
  return {
    name: PAGINATED_SITE,
    mountPath: '/',
    namespaces: ['paginated', 'common'],
    defaultLanguage: 'ja',
    authenticators: [session, basic, ...keys],
    throttle: throttles.requests,
    renderers: [jsonRenderer, htmlRenderer],
    pagination: pagination(new CursorCodec(config.secretKey, PAGINATED_SITE)),
    querying: new DrfQueryDialect((text) => parseZonedTimestamp(text, config.timeZone)),
    vary: 'Accept, Accept-Language, Cookie',
    numbersAsText: true,
    structuredJson: false,
    uniqueSetErrors: 'non_field_errors',
    formatTimestamp,
    itemBody: (_ctx, _exposure, item) => item,
    listBody: (_ctx, _exposure, items) => items,
    currentBody: (_ctx, _exposure, item, included) => ({ ...item, ...included }),
    destroyed: Object.freeze({ status: 204 }),
    errorStatus,
    errorBody,
    errorResponse(ctx, error: ApiError): SiteResponse {
      const headers = { ...error.headers };
      let status = errorStatus(error);
      // A browser asking for the page gets 403 for missing credentials, so that it shows no password pop-up.
      const browser = BROWSER_STATUS[error.code];
      if (browser !== undefined && ctx.renderer === htmlRenderer) status = browser;
      // A refused `Token` key brings its own challenge; every other 401 asks for Basic.
      else if (status === 401) headers['WWW-Authenticate'] ??= basic.challenge;
      return { status, headers, data: errorBody(ctx.t, error) };
    },
    docs: paginatedDocs(formatTimestamp),
  };
}

/** The API root, with the site's own lists first and then `elsewhere` (other sites' lists, the description, the admin). */
export function paginatedRoutes(site: Site, registry: ResourceRegistry, bodyLimit: number, elsewhere: readonly RootLink[] = []): Route[] {
  const links = [...listLinks(registry, site), ...elsewhere];
  return [{ path: '/', endpoint: apiRootEndpoint(links) }, ...resourceRoutes(site, registry, bodyLimit)];
}
