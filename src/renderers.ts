import { STATUS_CODES } from 'node:http';
import { Eta } from 'eta';
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
      statusText: STATUS_CODES[response.status] ?? '',
      method: ctx.req.method,
      path: ctx.req.originalUrl,
      allow: view.allow,
      user: ctx.user,
      body: response.data === undefined ? '' : JSON.stringify(response.data, null, 4),
    });
    return Buffer.from(html);
  },
};
