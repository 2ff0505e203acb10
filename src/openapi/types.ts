import type { ApiError, ErrorCode } from '../errors.js';

/**
 * The parts of OpenAPI 3.1 (and of the JSON Schema 2020-12 it embeds) that the
 * framework writes. Keywords it does not use stay open as unknown values.
 */
export interface JsonSchema {
  type?: string | readonly string[];
  properties?: Record<string, JsonSchema>;
  required?: readonly string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  anyOf?: readonly JsonSchema[];
  $ref?: string;
  [keyword: string]: unknown;
}

export interface SecurityScheme {
  type: 'http' | 'apiKey';
  scheme?: string;
  bearerFormat?: string;
  in?: 'header' | 'cookie' | 'query';
  name?: string;
  description?: string;
}

/** An authentication policy as the API description names it (drf-spectacular's OpenApiAuthenticationExtension). */
export interface DescribedScheme {
  /** Key under `components.securitySchemes`. */
  name: string;
  scheme: SecurityScheme;
}

export interface Parameter {
  name: string;
  in: 'query' | 'path' | 'header';
  required?: boolean;
  description?: string;
  schema: JsonSchema;
  example?: unknown;
  /** How an array is written: `form` without explode is one comma-separated value (`?user_id__in=1,2`). */
  style?: 'form';
  explode?: boolean;
}

export interface MediaType {
  schema: JsonSchema;
  example?: unknown;
  /** Several examples, by name (here: by error code). */
  examples?: Record<string, { value: unknown }>;
}

export interface ResponseObject {
  description: string;
  /** `required`: always sent (OpenAPI's Header Object; the contract test checks those). */
  headers?: Record<string, { description: string; required?: boolean; schema: JsonSchema }>;
  content?: Record<string, MediaType>;
}

export interface Operation {
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  parameters?: Parameter[];
  requestBody?: { required: boolean; content: Record<string, MediaType> };
  responses: Record<string, ResponseObject>;
  security?: Record<string, string[]>[];
  /** The ability a bearer token needs for it (Sanctum's; `*` holds all). */
  'x-token-ability'?: string;
  /** The media types it may answer besides JSON (pages for people), whose bodies the responses do not describe. */
  'x-also-renders'?: string[];
}

export type PathItem = Partial<Record<'get' | 'put' | 'post' | 'delete' | 'options' | 'head' | 'patch', Operation>> & {
  parameters?: Parameter[];
  /** Another path's item, for a path that answers as that one does (its other spelling). */
  $ref?: string;
  description?: string;
};

export interface OpenApiDocument {
  openapi: '3.1.0';
  info: { title: string; version: string; description?: string };
  servers?: { url: string; description?: string }[];
  tags: { name: string; description?: string }[];
  paths: Record<string, PathItem>;
  components: { securitySchemes: Record<string, SecurityScheme>; schemas?: Record<string, JsonSchema> };
}

/** A response an action documents by itself: its status, and the schema of its body (none: no body). */
export interface DocumentedResponse {
  status: number;
  schema?: JsonSchema;
}

/**
 * What the API description says of an action that is not a viewset's (a
 * login, a logout, an API root). Texts are keys of the `openapi` catalogue.
 */
export interface ActionDocs {
  summary: string;
  /** Slots of the summary's message besides the resource's `name`. */
  summaryParams?: Record<string, string>;
  /** What the path's id is of, when no viewset tells: a key of the `openapi` catalogue (the summary's `name` too). */
  subject?: string;
  /** The body as a form sends it, when it is not the viewset's fields. */
  formBody?: JsonSchema;
  /** The body fields it reads, for forms and JSON alike. */
  requestBody?: JsonSchema;
  success: DocumentedResponse;
  /** Errors it may answer. */
  errors?: readonly ErrorEntry[];
  /** Its writes take If-Match (a detail action that may change its row). */
  checksIfMatch?: boolean;
}

/** An error an action may answer, by catalogue code; `schema` when the site shapes that one apart, `sample` for its example. */
export type ErrorEntry = ErrorCode | { code: ErrorCode; schema: JsonSchema; sample?: ApiError };

/** An answer of a route beside the sites: `description` and the headers' texts are keys of the `openapi` catalogue. */
export interface PlainResponse extends DocumentedResponse {
  /** What the answer means, when `status.<status>` says too little. */
  description?: string;
  /** The headers it always sends, by name (`description`: a key). */
  headers?: Readonly<Record<string, { description: string; schema: JsonSchema }>>;
}

/**
 * A route outside the sites (health checks, this description, the browser
 * session's routes): GET and HEAD without credentials unless it says
 * otherwise. Texts are keys of the `openapi` catalogue.
 */
export interface PlainRouteDocs {
  path: string;
  /** GET (which answers HEAD too) unless named. */
  method?: 'post' | 'put';
  summary: string;
  description?: string;
  /** Its group in the description, by key (`service` unless named; the catalogue's texts of the groups hold its name and `<key>_description`). */
  tag?: string;
  /** The body it reads as JSON, and as a form (`formBody`, else the same). */
  requestBody?: JsonSchema;
  formBody?: JsonSchema;
  /** Headers it reads; their descriptions are keys. */
  parameters?: readonly Parameter[];
  /** The schemes, one of which it needs: names the sites' authenticators describe (`components.securitySchemes`). */
  security?: readonly string[];
  responses: readonly PlainResponse[];
  /** Media types it answers besides JSON, bodies undescribed (`x-also-renders`). */
  alsoRenders?: readonly string[];
  /** It answers with a trailing slash too (a router that is not strict): the description lists that spelling. */
  slashOptional?: boolean;
}
