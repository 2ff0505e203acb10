import { STATUS_CODES } from 'node:http';
import { Eta } from 'eta';
import type { Request } from 'express';
import type { AuthUser } from './auth/accounts.js';
import { csrfToken } from './auth/csrf.js';
import type { RequestContext } from './context.js';
import { templatesDir } from './paths.js';
import type { SiteResponse } from './site.js';

/** What a page knows of the endpoint that answered, beyond the body. */
export interface ViewInfo {
  name: string;
  allow?: string;
}

export interface Renderer {
  /** The media type offered in content negotiation. */
  readonly mediaType: string;
  /** The `?format=` value that selects it. */
  readonly format: string;
  /** The exact Content-Type header sent. */
  readonly contentType: string;
  render(ctx: RequestContext, response: SiteResponse, view: ViewInfo): Buffer;
}

export const jsonRenderer: Renderer = {
  mediaType: 'application/json',
  format: 'json',
  contentType: 'application/json',
  render: (_ctx, response) => Buffer.from(JSON.stringify(response.data)),
};

const eta = new Eta({ views: templatesDir, autoEscape: true, cache: true });

/** A page of `templates/` (auto-escaped), for handlers that answer with HTML of their own. */
export function renderPage(template: string, data: Record<string, unknown>): string {
  return eta.render(template, data);
}

/** The status line's text in the request's language, or Node's English one. */
function statusText(ctx: RequestContext, status: number): string {
  return ctx.t(`page.status.${status}`, { defaultValue: STATUS_CODES[status] ?? String(status) });
}

/** Where the login form is, and where its `next` brings the person back to. */
const LOGIN_PATH = '/api-auth/login/';
const LOGOUT_PATH = '/api-auth/logout/';

/** What every page shows around its content: who is logged in, and the way to log in or out. */
export interface PageChrome {
  user: AuthUser | null;
  loginUrl?: string;
  logout?: { action: string; csrfToken: string; next: string };
}

/**
 * The account menu of a page: a session's user gets a log-out form (with the
 * session's CSRF token), anyone else a log-in link that returns to this page.
 */
export function pageChrome(req: Request, user: AuthUser | null): PageChrome {
  const here = req.originalUrl;
  if (!user) return { user: null, loginUrl: `${LOGIN_PATH}?next=${encodeURIComponent(here)}` };
  if (!req.user) return { user };
  return { user, logout: { action: LOGOUT_PATH, csrfToken: csrfToken(req), next: here } };
}

/**
 * The browsable page: the response pretty-printed inside a server-rendered
 * HTML page. Every value goes through the template's auto-escaping.
 */
export const htmlRenderer: Renderer = {
  mediaType: 'text/html',
  format: 'api',
  contentType: 'text/html; charset=utf-8',
  render(ctx, response, view) {
    const html = eta.render('api', {
      t: ctx.t,
      language: ctx.language,
      name: view.name,
      status: response.status,
      statusText: statusText(ctx, response.status),
      method: ctx.req.method,
      path: ctx.req.originalUrl,
      allow: view.allow,
      ...pageChrome(ctx.req, ctx.user),
      loginNeeded: !ctx.user && (response.status === 401 || response.status === 403),
      body: response.data === undefined ? '' : JSON.stringify(response.data, null, 4),
    });
    return Buffer.from(html);
  },
};

/** What an error body may carry into its page: the message, and debug details when DEBUG is on. */
interface ErrorData {
  message?: unknown;
  exception?: unknown;
  trace?: unknown;
}

/**
 * The error page a browser gets from a site whose API speaks JSON only to
 * clients that ask for it (Laravel's rule): status, message, and the
 * exception and its stack when the body carries them (DEBUG).
 */
export const errorPageRenderer: Renderer = {
  mediaType: 'text/html',
  format: 'html',
  contentType: 'text/html; charset=utf-8',
  render(ctx, response) {
    const data = (response.data ?? {}) as ErrorData;
    const html = eta.render('error', {
      t: ctx.t,
      language: ctx.language,
      ...pageChrome(ctx.req, ctx.user),
      loginNeeded: !ctx.user && (response.status === 401 || response.status === 403),
      status: response.status,
      statusText: statusText(ctx, response.status),
      message: typeof data.message === 'string' ? data.message : '',
      exception: typeof data.exception === 'string' ? data.exception : undefined,
      trace: Array.isArray(data.trace) ? data.trace.map(String) : [],
    });
    return Buffer.from(html);
  },
};
