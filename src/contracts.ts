/**
 * The contracts every policy shares: the request context a request's handling
 * fills in, the site (one API style), the renderer and the authenticator.
 * This module holds only types (and the ItemStream marker class): it names
 * the interfaces of the policies it joins (a paginator, a query dialect, a
 * throttle) by type imports, and runs none of their code. None of them
 * imports it back: they see a request through its shape (types/request.ts),
 * which this context extends, and a user, a token or a row through types/.
 */
import type { Request } from 'express';
import type { ApiError, ErrorCode } from './errors.js';
import type { Language, Translate } from './i18n.js';
import type { DescribedScheme, JsonSchema } from './openapi/types.js';
import type { SitePagination } from './pagination/types.js';
import type { Parser } from './parsers.js';
import type { QueryDialect, QueryForm } from './querying/dialect.js';
import type { FieldDescription, UniqueSetErrors } from './serializers.js';
import type { RequestThrottle } from './throttling.js';
import type { RequestState } from './types/request.js';
import type { Item } from './types/rows.js';
import type { AuthUser, AccessToken } from './types/auth.js';
import type { SiteExposure } from './types/resource.js';


/** Everything a request's handling learns on the way, as DRF's Request wraps Django's. */
export interface RequestContext extends RequestState {
  readonly site: Site;
  /** Chosen by content negotiation; JSON until then, so early errors still render. */
  renderer: Renderer;
  /** The scheme that identified the user (CSRF applies to sessions only). */
  authenticator: Authenticator | null;
}

/** Who a request is, and the token it proved it with (DRF's request.user and request.auth). */
export interface Authenticated {
  user: AuthUser;
  token?: AccessToken;
}

/** As Django REST Framework's BaseAuthentication. */
export interface Authenticator {
  /** null: the request does not use this scheme. Throws when it does, wrongly. */
  authenticate(req: Request): Promise<Authenticated | null>;
  /** The `WWW-Authenticate` value of a 401, when the scheme has one. */
  readonly challenge?: string;
  /** How the API description names the scheme (its text: `security.<name>` in the `openapi` catalogue). */
  readonly described: DescribedScheme;
}

/** A form of the browsable page: the method it sends and the fields OPTIONS describes. */
export interface BrowsableForm {
  method: 'POST' | 'PUT';
  fields: Record<string, FieldDescription>;
  /** What a refused write sent, shown again. */
  submitted?: Record<string, unknown>;
}

/** What a page knows of the endpoint that answered, beyond the body. */
export interface ViewInfo {
  name: string;
  /** The name of the page one level up, when it has one (a row's list). */
  parentName?: string;
  allow?: string;
  form?: BrowsableForm;
  /** The shown row's entity tag (the page shows it as the answer's ETag). */
  version?: string;
  /** What the page's forms send as If-Match: the shown row's tag, or on a refused write's page the one that write was sent with. */
  formVersion?: string;
  /** A list's "Filters": its filter and search inputs, and links that order it. */
  query?: QueryForm;
  /** The resource's custom actions on this page (a row's or the list's), as buttons. */
  actions?: readonly PageAction[];
  /** A list's rows link to their own pages: the key naming a row, and its page's path. */
  rowLink?: RowLink;
}

export interface RowLink {
  key: string;
  href(key: string | number): string;
}

/** A custom action the browsable page offers: a button that sends `method` to `url`, or a link to its own page when it takes input. */
export interface PageAction {
  label: string;
  url: string;
  method: string;
  takesInput: boolean;
}

export interface Renderer {
  /** The media type offered in content negotiation. */
  readonly mediaType: string;
  /** The `?format=` value that selects it. */
  readonly format: string;
  /** The exact Content-Type header sent. */
  readonly contentType: string;
  render(ctx: RequestContext, response: SiteResponse, view: ViewInfo): Buffer;
  /** The body piece by piece, reading the ItemStream in `response.data` as it goes; absent: the renderer needs whole lists. */
  renderStream?(ctx: RequestContext, response: SiteResponse, view: ViewInfo): AsyncIterable<string>;
}

/** What a handler answers before a renderer turns it into bytes. `data` undefined: no body. */
export interface SiteResponse {
  status: number;
  /** May hold one ItemStream, for a renderer that writes it as it is read (see Renderer.renderStream). */
  data?: unknown;
  /** `data` holds an ItemStream: the answer is written as the rows are read. */
  streamed?: boolean;
  headers?: Record<string, string>;
  /** Overrides the negotiated renderer, e.g. for an error page or an always-JSON error. */
  renderer?: Renderer;
  /** The row's entity tag, which a page's edit forms send back as If-Match (pages carry no ETag header). */
  version?: string;
}

/**
 * A list read from the database in batches while the body is written, so
 * that a list of any length takes the memory of one batch. Each place a
 * body shows it reads it from the start (`open`); a reading pulls one batch
 * at a time and holds on to none (a batch being written out is its
 * writer's alone).
 */
export class ItemStream {
  constructor(
    /** A reading of the list: each call of what it gives answers the next batch, null after the last. */
    readonly open: () => () => Promise<Item[] | null>,
  ) {}
}

/**
 * The schema twins of a site's bodies, for the API description: each says
 * what the body function of the same name gives.
 */
export interface SiteDocs {
  /** Paths end with a slash (Django REST Framework's routers) or not (Laravel's). */
  readonly trailingSlash: boolean;
  /** How `formatTimestamp` writes a time. */
  readonly timestamp: JsonSchema;
  item(exposure: SiteExposure, item: JsonSchema): JsonSchema;
  /** A whole list; a page's body is its paginator's to describe. */
  list(exposure: SiteExposure, item: JsonSchema): JsonSchema;
  current(exposure: SiteExposure, item: JsonSchema, included: Record<string, JsonSchema>): JsonSchema;
  /** Every error but validation. */
  readonly error: JsonSchema;
  /** A validation error naming some of `fields`. */
  validation(fields: readonly string[]): JsonSchema;
  /** The body of `destroyed`, if it has one. */
  readonly destroyed?: JsonSchema;
  /** Errors answered in JSON whatever the client asked for. */
  readonly alwaysJson?: ReadonlySet<ErrorCode>;
  /** Statuses a browser asking for HTML gets instead of an error's own (its body is then the HTML page). */
  readonly browserStatus?: Readonly<Partial<Record<ErrorCode, number>>>;
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
  /** Counts every request after authentication (DRF's throttle_classes); null: no general limit. */
  readonly throttle: RequestThrottle | null;
  /** In negotiation order; the first is the default. */
  readonly renderers: readonly Renderer[];
  /** The media types request bodies may have, and how each is read (DRF's parser_classes); default: DEFAULT_PARSERS. */
  readonly parsers?: readonly Parser[];
  /** The paginators the site speaks, and how its lists are paged when an exposure says nothing. */
  readonly pagination: SitePagination;
  /** How its clients ask a list for filters, a search, an order, fields and related rows. */
  readonly querying: QueryDialect;
  /** The `Vary` header of every response: what else than the URL chose its bytes. */
  readonly vary: string;
  /** A number sent for a text field is taken as its text (Django REST Framework's CharField), else refused (Laravel's `string` rule). */
  readonly numbersAsText: boolean;
  /** JSON under a `+json` name (`application/vnd.api+json`) is read as JSON (Laravel's `isJson()`), else refused with 415 (DRF's JSONParser). */
  readonly structuredJson: boolean;
  /**
   * Where a write that would repeat the values of a unique index over several
   * fields is refused: `non_field_errors` (DRF's UniqueTogetherValidator), or
   * the first of its fields the write names (Laravel's `unique` rule on a field).
   */
  readonly uniqueSetErrors: UniqueSetErrors;
  formatTimestamp(date: Date): string;
  itemBody(ctx: RequestContext, exposure: SiteExposure, item: Item): unknown;
  /** A whole list's body (a page's is its paginator's). */
  listBody(ctx: RequestContext, exposure: SiteExposure, items: Item[] | ItemStream): unknown;
  /** The `current` action's body: the user's row and the related lists the exposure includes. */
  currentBody(ctx: RequestContext, exposure: SiteExposure, item: Item, included: Record<string, Item[] | ItemStream>): unknown;
  /** The answer to a successful delete. */
  readonly destroyed: SiteResponse;
  /** An error's status for an API client (a site may answer a browser otherwise). */
  errorStatus(error: ApiError): number;
  /** An error's body for an API client, without debug details. */
  errorBody(t: Translate, error: ApiError): unknown;
  errorResponse(ctx: RequestContext, error: ApiError): SiteResponse;
  readonly docs: SiteDocs;
}
