/**
 * The request pipeline, as Django REST Framework's views: an endpoint names
 * its actions by method, and every request to it is negotiated, authenticated,
 * throttled, checked, dispatched and rendered in the same order here.
 */
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Request, RequestHandler, Response } from 'express';
import { authenticateRequest } from './authentication.js';
import { checkAbility, resourceAbility } from './auth/abilities.js';
import { createContext } from './context.js';
import type { BrowsableForm, PageAction, RequestContext, RowLink, Site, SiteResponse, ViewInfo } from './contracts.js';
import { ApiError, asApiError } from './errors.js';
import type { Logger } from './logger.js';
import { selectRenderer } from './negotiation.js';
import { checkPermissions } from './permissions.js';
import { baseMetadata } from './metadata.js';
import { jsonRenderer } from './renderers.js';
import type { FieldDescription } from './serializers.js';
import type { ActionDocs } from './openapi/types.js';
import { parsedRequestData } from './parsers.js';
import { entityTag, noneMatch } from './conditional.js';
import type { ModelViewSet } from './viewsets.js';
import type { Permission, PermissionAction } from './types/resource.js';

const METHOD_ORDER = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'] as const;
export type AnyMethod = (typeof METHOD_ORDER)[number];
/** The methods an endpoint may name; HEAD is always its GET. */
export type Method = Exclude<AnyMethod, 'HEAD'>;

export interface EndpointAction {
  /** The action the permissions are asked about. */
  action: PermissionAction;
  /** The API-token ability it needs (null: none); default: its viewset resource's for the action. */
  ability?: string | null;
  run(ctx: RequestContext): Promise<SiteResponse>;
  /** What the API description says of it, unless the endpoint's viewset tells. */
  docs?: ActionDocs;
}

/** One path of a site: its methods, its permissions and the name its pages and metadata show. */
export interface Endpoint {
  name(ctx: RequestContext): string;
  permissions: readonly Permission[];
  /** HEAD is answered by GET without a body; OPTIONS by the metadata unless given. */
  methods: Partial<Record<Method, EndpointAction>>;
  /** Starts a browser session for requests that bring none (else only a session cookie loads one). */
  opensSession?: boolean;
  /** The viewset whose actions these are: the API description derives their bodies from it. */
  viewset?: ModelViewSet;
  /** The custom actions the browsable page offers here as buttons. */
  pageActions?(ctx: RequestContext): PageAction[];
  /** The name of the page one level up (a row's list), for the page's breadcrumbs. */
  parentName?(ctx: RequestContext): string;
}

/** The action answering a method: its own, OPTIONS' default metadata, or none (405). */
function actionFor(endpoint: Endpoint, method: string): EndpointAction | undefined {
  const own = Object.hasOwn(endpoint.methods, method) ? endpoint.methods[method as Method] : undefined;
  if (own || method !== 'OPTIONS') return own;
  return { action: 'metadata', run: async (ctx) => ({ status: 200, data: baseMetadata(ctx, endpoint.name(ctx)) }) };
}

/** The API-token ability a method of the endpoint needs (HEAD: its GET's), or null. */
export function requiredAbility(endpoint: Endpoint, method: AnyMethod): string | null {
  const asked = method === 'HEAD' ? 'GET' : method;
  const entry = Object.hasOwn(endpoint.methods, asked) ? endpoint.methods[asked] : undefined;
  if (!entry) return null;
  if (entry.ability !== undefined) return entry.ability;
  return endpoint.viewset ? resourceAbility(endpoint.viewset.resource.declaration, entry.action, asked) : null;
}

/** Every method an endpoint answers, in the `Allow` header's order: OPTIONS always, HEAD wherever GET is. */
export function allowedMethods(endpoint: Endpoint): AnyMethod[] {
  const methods = new Set<string>([...Object.keys(endpoint.methods), 'OPTIONS']);
  if (methods.has('GET')) methods.add('HEAD');
  return METHOD_ORDER.filter((method) => methods.has(method));
}

export function allowHeader(endpoint: Endpoint): string {
  return allowedMethods(endpoint).join(', ');
}

export async function send(ctx: RequestContext, response: SiteResponse, view: ViewInfo, logger: Logger): Promise<void> {
  const { res } = ctx;
  let renderer = response.renderer ?? ctx.renderer;
  if (response.streamed && renderer.renderStream) return sendStream(ctx, response, renderer.contentType, renderer.renderStream(ctx, response, view), logger);
  let body: Buffer | undefined;
  if (response.data !== undefined) {
    try {
      body = renderer.render(ctx, response, view);
    } catch (error) {
      (ctx.req.log ?? logger).error({ err: error, method: ctx.req.method, path: ctx.req.path }, 'renderer failed');
      ctx.renderer = renderer = jsonRenderer;
      response = ctx.site.errorResponse(ctx, new ApiError('server_error', {}, {}, { cause: error }));
      body = jsonRenderer.render(ctx, response, view);
    }
  }
  const html = renderer.mediaType === 'text/html';
  let headers = response.headers;
  let status = response.status;
  if (html && headers?.ETag) {
    // A page also shows who is logged in and a CSRF token: no validator, or a browser would keep an old one.
    const { ETag: _omitted, ...rest } = headers;
    headers = rest;
  } else if (body !== undefined && status === 200 && !html && !headers?.ETag && (ctx.req.method === 'GET' || ctx.req.method === 'HEAD')) {
    const tag = entityTag(body);
    headers = { ...headers, ETag: tag };
    if (noneMatch(ctx.req.headers['if-none-match'], tag)) {
      status = 304;
      body = undefined;
    }
  }
  res.status(status);
  for (const [name, value] of Object.entries(headers ?? {})) res.setHeader(name, value);
  if (body === undefined) {
    res.end();
    return;
  }
  res.setHeader('Content-Type', renderer.contentType);
  res.setHeader('Content-Length', body.length);
  res.end(body);
}

/**
 * A body written as it is read, with the socket's backpressure: no length is
 * known, so it goes chunked. A piece is read only once the one before is
 * written out (or buffered up to the socket's high-water mark), so a slow
 * client holds one piece and the batch it came from, never the list. A
 * failure after the first bytes can only cut the answer short (the
 * connection is destroyed before the final chunk, so no client takes the
 * body for complete) and is logged; a client that leaves stops the reading.
 */
async function sendStream(ctx: RequestContext, response: SiteResponse, contentType: string, chunks: AsyncIterable<string>, logger: Logger): Promise<void> {
  const { req, res } = ctx;
  res.status(response.status);
  for (const [name, value] of Object.entries(response.headers ?? {})) res.setHeader(name, value);
  res.setHeader('Content-Type', contentType);
  if (req.method === 'HEAD') {
    res.end();
    return;
  }
  try {
    await pipeline(Readable.from(chunks, { highWaterMark: 1 }), res);
  } catch (error) {
    if ((error as { code?: string }).code === 'ERR_STREAM_PREMATURE_CLOSE') return;
    (req.log ?? logger).error({ err: error, method: req.method, path: req.path }, 'streaming failed');
    // The request log then logs the request as errored, not as aborted by the client.
    res.err = error as Error;
    res.destroy();
  }
}

export function errorResponse(ctx: RequestContext, error: unknown, logger: Logger): SiteResponse {
  const apiError = asApiError(error);
  if (apiError.status >= 500) {
    // req.log adds the request.
    (ctx.req.log ?? logger).error({ err: error, method: ctx.req.method, path: ctx.req.path }, 'request failed');
  }
  return ctx.site.errorResponse(ctx, apiError);
}

/**
 * The request pipeline of every endpoint, in Django REST Framework's order:
 * negotiate, authenticate, check permissions, dispatch by method (405 if
 * none), and render the answer or the error with the site's renderer.
 */
export function endpointHandler(mounted: Site, endpoint: Endpoint, logger: Logger): RequestHandler {
  const site = servingSite(mounted, endpoint);
  const allow = allowHeader(endpoint);
  // What a 405 message lists: the methods that do something here.
  const supported = allow.split(', ').filter((method) => method !== 'OPTIONS').join(', ');
  return async (req: Request, res: Response) => {
    const ctx = createContext(site, req, res);
    res.setHeader('Allow', allow);
    res.setHeader('Vary', site.vary);
    let response: SiteResponse;
    try {
      ctx.renderer = selectRenderer(req, site.renderers);
      await authenticateRequest(ctx);
      await site.throttle?.allow(req, res, ctx.user?.id ?? null);
      const entry = actionFor(endpoint, req.method === 'HEAD' ? 'GET' : req.method);
      checkPermissions(ctx, endpoint.permissions, entry?.action ?? null);
      if (!entry) throw new ApiError('method_not_allowed', { method: req.method, allowed: supported });
      // Sanctum's abilities middleware: a token must hold what the action needs.
      checkAbility(ctx, requiredAbility(endpoint, req.method as AnyMethod));
      response = await entry.run(ctx);
    } catch (error) {
      response = errorResponse(ctx, error, logger);
    }
    const html = ctx.renderer.mediaType === 'text/html';
    // Only a page shows the endpoint's name.
    const page = (response.renderer ?? ctx.renderer).mediaType === 'text/html';
    const name = page ? endpoint.name(ctx) : '';
    const parentName = page ? endpoint.parentName?.(ctx) : undefined;
    const listPage = html && req.method === 'GET' && endpoint.methods.GET?.action === 'list';
    const query = listPage ? endpoint.viewset?.queryForm(ctx) : undefined;
    const actions = html && ctx.user && req.method === 'GET' && response.status < 400 ? endpoint.pageActions?.(ctx) : undefined;
    const rowLink = listPage ? listRowLink(ctx, endpoint) : undefined;
    // Only a page asked as HTML offers a form: no promise to wait for otherwise.
    const form = html ? await browsableForm(ctx, endpoint, response) : undefined;
    // A refused write's page (400, 412) shows no row: its forms keep the version the write was sent with, so a save from it is checked again, never taken unchecked.
    const sentVersion = html && req.method !== 'GET' && response.status >= 400 ? req.headers['if-match'] : undefined;
    const view = { name, parentName, allow, form, query, actions, version: response.version, formVersion: response.version ?? sentVersion, rowLink };
    await send(ctx, response, view, logger);
  };
}

/** The site whose policies serve an endpoint: its viewset's (with the resource's own authenticators, renderers, parsers), else the one it is mounted on. */
export function servingSite(mounted: Site, endpoint: Endpoint): Site {
  return endpoint.viewset?.site ?? mounted;
}

/** How a list's rows link to their pages, under the path the list was asked by (with or without its trailing slash). */
function listRowLink(ctx: RequestContext, endpoint: Endpoint): RowLink | undefined {
  const viewset = endpoint.viewset;
  if (!viewset?.exposure.actions.includes('retrieve')) return undefined;
  const listPath = ctx.req.originalUrl.split('?')[0] ?? '';
  const slash = listPath.endsWith('/') ? '/' : '';
  const base = listPath.replace(/\/+$/, '');
  return { key: viewset.resource.model.primaryKeyAttribute, href: (key) => `${base}/${encodeURIComponent(String(key))}${slash}` };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The form the browsable page offers: the fields OPTIONS describes for POST
 * (a list) or PUT (a row the user may edit), for a logged-in person asking for HTML.
 */
async function browsableForm(ctx: RequestContext, endpoint: Endpoint, response: SiteResponse): Promise<BrowsableForm | undefined> {
  const options = endpoint.methods.OPTIONS;
  // A server error's page has none: its reads would wait a second time for a database that just did not answer.
  if (ctx.renderer.mediaType !== 'text/html' || !ctx.user || !options || response.status >= 500) return undefined;
  try {
    const metadata = await options.run(ctx);
    const actions = (metadata.data as { actions?: Record<string, Record<string, FieldDescription>> }).actions ?? {};
    const [method, fields] = Object.entries(actions)[0] ?? [];
    if (method !== 'POST' && method !== 'PUT') return undefined;
    // A refused write shows the form again with what was sent (the body is already parsed and cached).
    const refused = ctx.req.method !== 'GET' && response.status >= 400 && response.status < 500;
    const submitted = refused ? await parsedRequestData(ctx.req)?.catch(() => undefined) : undefined;
    return { method, fields: fields ?? {}, submitted: isRecord(submitted) ? submitted : undefined };
  } catch {
    // No form is better than no page.
    return undefined;
  }
}
