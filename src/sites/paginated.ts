import type { Accounts } from '../auth/accounts.js';
import { basicPasswordCheck } from '../auth/credential-cache.js';
import { BasicAuthentication, SessionAuthentication } from '../authentication.js';
import type { Config } from '../config.js';
import { requestUrl, type RequestContext } from '../context.js';
import { fieldErrorMessages, ValidationError, type ApiError } from '../errors.js';
import { isAuthenticated } from '../permissions.js';
import type { ResourceRegistry } from '../registry.js';
import { htmlRenderer, jsonRenderer } from '../renderers.js';
import { resourceRoutes, type Endpoint, type Route } from '../router.js';
import type { Site, SiteResponse } from '../site.js';
import type { Throttles } from '../throttling.js';
import { zonedTimestampFormatter } from '../timestamps.js';

export const PAGINATED_SITE = 'paginated';
/** Credentials remembered at once per process: about 200 bytes each. */
const BASIC_AUTH_CACHE_ENTRIES = 10_000;

/** The field errors of a 400, `{"<field>": ["<message>", …]}`, labels from the resource catalogue. */
function validationBody(ctx: RequestContext, error: ValidationError): Record<string, string[]> {
  return Object.fromEntries(fieldErrorMessages(ctx.t, error).map(({ field, messages }) => [field, messages]));
}

/**
 * The Django-REST-Framework-style site at the root: HTTP Basic, paginated
 * lists, `{"detail": …}` errors, JSON or the browsable page, Japanese first.
 */
export function paginatedSite(config: Config, accounts: Accounts, throttles: Throttles): Site {
  const passwords = basicPasswordCheck(accounts, { ttlSeconds: config.basicAuthCacheSeconds, maxEntries: BASIC_AUTH_CACHE_ENTRIES });
  const basic = new BasicAuthentication(passwords, throttles.login, 'api');
  // Django REST Framework's default order: the browser session first, so that a stale Basic header is never tried.
  const session = new SessionAuthentication(config.bodyLimit);
  return {
    name: PAGINATED_SITE,
    mountPath: '/',
    namespaces: ['paginated', 'common'],
    defaultLanguage: 'ja',
    authenticators: [session, basic],
    throttle: throttles.requests,
    renderers: [jsonRenderer, htmlRenderer],
    pageSizes: { pageSize: 2, maxPageSize: 5 },
    vary: 'Accept, Accept-Language, Cookie',
    formatTimestamp: zonedTimestampFormatter(config.timeZone),
    itemBody: (_ctx, _exposure, item) => item,
    listBody: (_ctx, _exposure, items, page) =>
      page ? { count: page.count, next: page.next, previous: page.previous, results: items } : items,
    currentBody: (_ctx, _exposure, item, included) => ({ ...item, ...included }),
    destroyedResponse: () => ({ status: 204 }),
    errorResponse(ctx, error: ApiError): SiteResponse {
      if (error instanceof ValidationError) {
        return { status: 400, data: validationBody(ctx, error) };
      }
      const headers = { ...error.headers };
      let status = error.status;
      if (status === 401) {
        // A browser asking for the page gets 403, so that it shows no password pop-up.
        if (error.code === 'not_authenticated' && ctx.renderer === htmlRenderer) status = 403;
        else headers['WWW-Authenticate'] = basic.challenge;
      }
      return { status, headers, data: { detail: ctx.t(error.messageKey, error.params) } };
    },
  };
}

/** The API root: a link to every list of the site, as Django REST Framework's DefaultRouter. */
function rootEndpoint(listPaths: readonly string[]): Endpoint {
  return {
    name: (ctx) => ctx.t('views.root'),
    permissions: [isAuthenticated],
    methods: {
      GET: {
        action: 'list',
        run: async (ctx) => {
          const base = requestUrl(ctx.req);
          const links: Record<string, string> = {};
          for (const path of listPaths) links[path] = new URL(`/${path}/`, base.origin).toString();
          return { status: 200, data: links };
        },
      },
    },
  };
}

export function paginatedRoutes(site: Site, registry: ResourceRegistry, bodyLimit: number): Route[] {
  const lists = registry
    .exposedOn(site.name)
    .filter(({ exposure }) => exposure.actions.includes('list'))
    .map(({ exposure }) => exposure.path);
  return [{ path: '/', endpoint: rootEndpoint(lists) }, ...resourceRoutes(site, registry, bodyLimit)];
}
