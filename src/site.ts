import type { Authenticator } from './authentication.js';
import type { RequestContext } from './context.js';
import type { ApiError } from './errors.js';
import type { Language } from './i18n.js';
import type { PageLinks } from './pagination.js';
import type { BoundResource } from './registry.js';
import type { Renderer } from './renderers.js';
import type { PageSizes } from './resource.js';

/** What a handler answers before a renderer turns it into bytes. `data` undefined: no body. */
export interface SiteResponse {
  status: number;
  data?: unknown;
  headers?: Record<string, string>;
}

/**
 * One API style served from the same declarations: how it authenticates,
 * renders, paginates, shows time and shapes its bodies and errors. The
 * framework's handlers are the same for every site.
 */
export interface Site {
  /** Key of the site's exposures in resource declarations. */
  readonly name: string;
  /** Where the site is mounted, e.g. `/` or `/api`. */
  readonly mountPath: string;
  /** i18n namespaces, the site's own first. */
  readonly namespaces: readonly string[];
  readonly defaultLanguage: Language;
  readonly authenticators: readonly Authenticator[];
  /** In negotiation order; the first is the default. */
  readonly renderers: readonly Renderer[];
  /** Page sizes of lists; absent: lists are not paginated. */
  readonly pageSizes?: PageSizes;
  /** The `Vary` header of every response: what else than the URL chose its bytes. */
  readonly vary: string;
  formatTimestamp(date: Date): string;
  itemBody(ctx: RequestContext, resource: BoundResource, item: Record<string, unknown>): unknown;
  listBody(ctx: RequestContext, resource: BoundResource, items: Record<string, unknown>[], page?: PageLinks): unknown;
  errorResponse(ctx: RequestContext, error: ApiError): SiteResponse;
}
