/**
 * Route building, as Django REST Framework's routers: the paths of a site
 * from its resource declarations, and the express router that serves them.
 */
import express, { type NextFunction, type Request, type RequestHandler, type Response, type Router } from 'express';
import type { BrowserSession } from './auth/lazy-session.js';
import { createContext } from './context.js';
import type { RequestContext, Site } from './contracts.js';
import { ApiError, resourceLabel } from './errors.js';
import type { Logger } from './logger.js';
import { selectRenderer } from './negotiation.js';
import type { ResourceRegistry } from './registry.js';
import { endpointHandler, errorResponse, send, type Endpoint } from './views.js';
import { ModelViewSet } from './viewsets.js';
import { actionRoutes, pageActions } from './actions/endpoints.js';
import { resourceSite, userDirectory } from './policies.js';

/** The list and detail endpoints of a viewset, with the methods its actions allow. */
export function viewsetEndpoints(viewset: ModelViewSet): { list: Endpoint; detail: Endpoint; current: Endpoint } {
  const actions = new Set(viewset.exposure.actions);
  const label = (ctx: RequestContext): string => resourceLabel(ctx.t, viewset.resource);
  const list: Endpoint = {
    name: (ctx) => ctx.t('views.list', { name: label(ctx) }),
    permissions: viewset.permissions,
    methods: {},
    viewset,
  };
  const detail: Endpoint = {
    name: (ctx) => ctx.t('views.detail', { name: label(ctx) }),
    parentName: (ctx) => list.name(ctx),
    permissions: viewset.permissions,
    methods: {},
    viewset,
  };
  if (actions.has('list')) list.methods.GET = { action: 'list', run: (ctx) => viewset.list(ctx) };
  if (actions.has('create')) list.methods.POST = { action: 'create', run: (ctx) => viewset.create(ctx) };
  list.methods.OPTIONS = { action: 'metadata', run: (ctx) => viewset.metadata(ctx, 'list', list.name(ctx)) };
  if (actions.has('retrieve')) detail.methods.GET = { action: 'retrieve', run: (ctx) => viewset.retrieve(ctx) };
  if (actions.has('update')) detail.methods.PUT = { action: 'update', run: (ctx) => viewset.update(ctx) };
  if (actions.has('partial_update')) {
    detail.methods.PATCH = { action: 'partial_update', run: (ctx) => viewset.partialUpdate(ctx) };
  }
  if (actions.has('destroy')) detail.methods.DELETE = { action: 'destroy', run: (ctx) => viewset.destroy(ctx) };
  detail.methods.OPTIONS = { action: 'metadata', run: (ctx) => viewset.metadata(ctx, 'detail', detail.name(ctx)) };
  if (viewset.resource.declaration.actions) {
    list.pageActions = pageActions(viewset, false);
    detail.pageActions = pageActions(viewset, true);
  }
  const current: Endpoint = {
    name: (ctx) => ctx.t('views.current', { name: label(ctx) }),
    permissions: viewset.permissions,
    methods: { GET: { action: 'current', run: (ctx) => viewset.current(ctx) } },
    viewset,
  };
  return { list, detail, current };
}

const LIST_ACTIONS = new Set(['list', 'create']);
const DETAIL_ACTIONS = new Set(['retrieve', 'update', 'partial_update', 'destroy']);

/**
 * The routes of every resource a site exposes: `/<path>` for the list (or, for
 * the `current` action, the user's own row) and `/<path>/:pk` for one row.
 */
export function resourceRoutes(site: Site, registry: ResourceRegistry, bodyLimit: number): Route[] {
  const routes: Route[] = [];
  const users = userDirectory(registry);
  for (const { resource, exposure } of registry.exposedOn(site.name)) {
    // The site with the resource's own authenticators, renderers and parsers, if it declares any (src/policies.ts).
    const viewset = new ModelViewSet(resourceSite(site, resource.declaration, exposure, users), resource, exposure, { bodyLimit, registry });
    const { list, detail, current } = viewsetEndpoints(viewset);
    const path = `/${exposure.path}`;
    // Before the row's path: a list action's `/<path>/<action>` is no row id.
    for (const action of actionRoutes(viewset)) routes.push({ path: `${path}${action.path}`, endpoint: action.endpoint });
    if (exposure.actions.includes('current')) routes.push({ path, endpoint: current });
    else if (exposure.actions.some((action) => LIST_ACTIONS.has(action))) routes.push({ path, endpoint: list });
    if (exposure.actions.some((action) => DETAIL_ACTIONS.has(action))) routes.push({ path: `${path}/:pk`, endpoint: detail });
  }
  return routes;
}

export interface Route {
  path: string;
  endpoint: Endpoint;
}

/** A site's routes under one mount point: what the app serves and the API description documents. */
export interface SiteMount {
  site: Site;
  path: string;
  routes: Route[];
}

/**
 * A site's router: every path answers with or without its trailing slash,
 * for every method, without redirecting; unknown paths get the site's 404.
 * The browser session is loaded per route, after the path matched.
 */
/** `before`: middleware every request of the site goes through first, whose failures the site answers in its own shape. */
export function siteRouter(site: Site, routes: readonly Route[], logger: Logger, session?: BrowserSession, before: readonly RequestHandler[] = []): Router {
  const router = express.Router({ caseSensitive: true, strict: false });
  if (before.length > 0) router.use(...before);
  for (const route of routes) {
    const sessionHandlers = session ? (route.endpoint.opensSession ? session.always : [session.ifCookie]) : [];
    router.all(route.path, ...sessionHandlers, endpointHandler(site, route.endpoint, logger));
  }
  const notFound = (req: Request, res: Response): void => {
    const ctx = createContext(site, req, res);
    res.setHeader('Vary', site.vary);
    try {
      ctx.renderer = selectRenderer(req, site.renderers);
    } catch {
      // An unknown ?format= on an unknown path: still a 404, in JSON.
    }
    void send(ctx, site.errorResponse(ctx, new ApiError('not_found')), { name: '' }, logger);
  };
  router.use(notFound);
  // Express's own failures before a handler ran, such as a path that does not percent-decode.
  router.use((error: unknown, req: Request, res: Response, _next: NextFunction) => {
    if (!(error instanceof ApiError) && (error as { status?: number }).status === 400) return notFound(req, res);
    const ctx = createContext(site, req, res);
    void send(ctx, errorResponse(ctx, error, logger), { name: '' }, logger);
  });
  return router;
}
