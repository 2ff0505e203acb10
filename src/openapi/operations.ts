import { ApiError, resourceLabel, ValidationError, type ErrorCode } from '../errors.js';
import type { Translate } from '../i18n.js';
import { PARSED_MEDIA_TYPES, parsedMediaTypes } from '../parsers.js';
import { requiredAbility, servingSite, type AnyMethod, type Endpoint, type Method } from '../views.js';
import type { Site } from '../contracts.js';
import type { ModelViewSet } from '../viewsets.js';
import type { Serializer } from '../serializers.js';
import { inputSchema, representationSchema, withExpansions, writableFields } from './fields.js';
import type { ActionDocs, ErrorEntry, JsonSchema, MediaType, Operation, Parameter, ResponseObject } from './types.js';
import type { PermissionAction } from '../types/resource.js';

/** A site's texts in a description: `t` in the reader's language, `example` in the site's own (bodies as the site writes them). */
export interface SiteTexts {
  t: Translate;
  example: Translate;
}

/** Where an operation is: its site, its path as the description writes it, its group. */
export interface OperationPlace {
  site: Site;
  path: string;
  tag: string;
}

type Described = ActionDocs & { parameters?: Parameter[] };

const JSON_TYPE = 'application/json';
const AUTHENTICATED: readonly ErrorCode[] = ['not_authenticated', 'throttled'];
/** What a body can do wrong before validation; a session's unsafe method also needs its CSRF token. */
const BODY: readonly ErrorCode[] = ['parse_error_json', 'parse_error_form', 'payload_too_large', 'unsupported_media_type', 'csrf_failed'];
const CHANGE_ONE: readonly ErrorCode[] = [...AUTHENTICATED, 'csrf_failed', 'permission_denied', 'record_not_found'];
const PK_LIMIT = 2_147_483_647;

/** What OPTIONS answers on every path of a site (Django REST Framework's SimpleMetadata). */
export const METADATA: JsonSchema = {
  type: 'object',
  properties: {
    name: { type: 'string' },
    description: { type: 'string' },
    renders: { type: 'array', items: { type: 'string' } },
    parses: { type: 'array', items: { type: 'string' } },
    actions: { type: 'object', additionalProperties: { type: 'object' } },
  },
  required: ['name', 'description', 'renders', 'parses'],
};

/** One viewset action as the description shows it. */
function viewsetActionDocs(viewset: ModelViewSet, action: PermissionAction, t: Translate): Described {
  const { site, exposure, serializer } = viewset;
  const { docs } = site;
  const shown = (fields = serializer): JsonSchema => representationSchema(fields, docs.timestamp);
  const validation: ErrorEntry = { code: 'validation_failed', schema: docs.validation(writableFields(serializer)) };
  const write = (partial: boolean): Pick<Described, 'requestBody'> => ({ requestBody: inputSchema(serializer, { partial, form: false }) });
  switch (action) {
    case 'list':
      return listDocs(viewset, t);
    case 'create':
      return {
        summary: 'operations.create',
        ...write(false),
        success: { status: 201, schema: docs.item(exposure, shown()) },
        errors: [...AUTHENTICATED, validation, ...BODY],
      };
    case 'retrieve': {
      const { itemQuery } = viewset;
      const serializer = viewset.serializerFor(itemQuery.expand, viewset.retrieveSerializer);
      const expansions = viewset.relations.planFor(serializer, itemQuery.expand).expansions;
      const item = withExpansions(representationSchema(serializer, docs.timestamp), expansions, docs.timestamp);
      const schema = docs.item(exposure, selectableSchema(item, viewset.retrieveSerializer, itemQuery.sparseFields !== null));
      const parameters = site.querying.itemParameters(itemQuery, t);
      return { summary: 'operations.retrieve', success: { status: 200, schema }, parameters, errors: [...AUTHENTICATED, 'record_not_found', ...site.querying.itemErrors(itemQuery)] };
    }
    case 'update':
    case 'partial_update': {
      return {
        summary: `operations.${action}`,
        ...write(action === 'partial_update'),
        success: { status: 200, schema: docs.item(exposure, shown()) },
        errors: [...CHANGE_ONE, 'precondition_failed', validation, ...BODY],
      };
    }
    case 'destroy':
      return { summary: 'operations.destroy', success: { status: site.destroyed.status, schema: docs.destroyed }, errors: [...CHANGE_ONE, 'precondition_failed'] };
    case 'current': {
      const included = Object.fromEntries(viewset.included.map(({ name, serializer: related }) => [name, shown(related)]));
      return { summary: 'operations.current', success: { status: 200, schema: docs.current(exposure, shown(), included) }, errors: AUTHENTICATED };
    }
    default:
      return { summary: 'operations.metadata', success: { status: 200, schema: METADATA }, errors: AUTHENTICATED };
  }
}

/**
 * An item as a list or a read may show it: every field unless the client
 * selects some (then none is sure to be there), and the references it may
 * expand, which are there only when asked for.
 */
function selectableSchema(item: JsonSchema, base: Serializer, selectable: boolean): JsonSchema {
  const required = selectable ? [] : base.fieldNames.filter((name) => item.properties?.[name] !== undefined);
  return { ...item, required };
}

/** The list: its dialect's parameters and every paginator's, each paginator's body (or the whole list), and the errors of all. */
function listDocs(viewset: ModelViewSet, t: Translate): Described {
  const { site, exposure, listQuery } = viewset;
  const { all: paginators, default: defaultPaginator } = viewset.pagination;
  const serializer = viewset.serializerFor(listQuery.expand);
  const expansions = viewset.relations.planFor(serializer, listQuery.expand).expansions;
  const represented = withExpansions(representationSchema(serializer, site.docs.timestamp), expansions, site.docs.timestamp);
  const item = selectableSchema(represented, viewset.serializer, listQuery.sparseFields !== null);
  const bodies = paginators.map((paginator) => paginator.schema(item, exposure));
  if (!defaultPaginator) bodies.unshift(site.docs.list(exposure, item));
  const parameters = [...site.querying.listParameters(listQuery, t)];
  for (const parameter of paginators.flatMap((paginator) => paginator.schemaParameters(t))) {
    if (!parameters.some((known) => known.name === parameter.name)) parameters.push(parameter);
  }
  const errors: ErrorEntry[] = [...new Set([...AUTHENTICATED, ...paginators.flatMap((paginator) => paginator.errors), ...site.querying.errors(listQuery)])];
  if (!defaultPaginator) {
    const tooLong = viewset.tooLong(t);
    errors.push({ code: tooLong.code, schema: site.docs.error, sample: tooLong });
  }
  const validated = site.querying.validatedParameters(listQuery);
  const [first] = validated;
  if (first) {
    const sample = new ValidationError({ [first]: [{ code: 'enter_number', params: {} }] });
    errors.push({ code: 'validation_failed', schema: site.docs.validation(validated), sample });
  }
  return { summary: 'operations.list', success: { status: 200, schema: bodies.length === 1 ? (bodies[0] as JsonSchema) : { anyOf: bodies } }, parameters, errors };
}

/** Values for the slots of an error message (no text of its own: the catalogue's words stay alone); `subject` names what a path without viewset is of. */
function sampleParams(viewset: ModelViewSet | undefined, t: Translate, subject = ''): Record<string, string | number> {
  const name = viewset ? resourceLabel(t, viewset.resource) : subject;
  const model = viewset?.resource.declaration.name ?? '';
  return { model, name, id: '1', method: 'PUT', allowed: 'GET', detail: '…', media_type: 'text/plain', unknown: 'x', max: 100, operators: '>=, <=' };
}

/** An action's own sample of an error, its slots filled in the example's language, or one as the site raises it. */
function exampleError(sample: ApiError | undefined, code: ErrorCode, viewset: ModelViewSet | undefined, t: Translate, subject: string): ApiError {
  if (!sample) return sampleError(code, viewset, t);
  if (sample instanceof ValidationError) return sample;
  return new ApiError(sample.code, { ...sampleParams(viewset, t, subject), ...sample.params }, sample.headers);
}

/** An error as the site raises it. */
function sampleError(code: ErrorCode, viewset: ModelViewSet | undefined, t: Translate): ApiError {
  if (code !== 'validation_failed') return new ApiError(code, sampleParams(viewset, t));
  const [field = 'non_field_errors'] = viewset ? writableFields(viewset.serializer) : [];
  return new ValidationError({ [field]: [{ code: 'required', params: {} }] }, viewset?.resource.key);
}

/**
 * The body of one status, in JSON only: a generated client then types the
 * answer as the JSON it parses. The other media types an operation answers
 * (the browsable page, error pages) are named once, in `x-also-renders`.
 */
function content(
  mediaTypes: ReadonlySet<string>,
  schema: JsonSchema | undefined,
  examples: Record<string, unknown> = {},
): Record<string, MediaType> | undefined {
  if (!schema || !mediaTypes.has(JSON_TYPE)) return undefined;
  const json: MediaType = { schema };
  const values = Object.entries(examples);
  if (values.length === 1) json.example = values[0]?.[1];
  else if (values.length > 1) json.examples = Object.fromEntries(values.map(([code, value]) => [code, { value }]));
  return { [JSON_TYPE]: json };
}

interface StatusGroup {
  descriptions: Set<string>;
  schemas: JsonSchema[];
  examples: Record<string, unknown>;
  mediaTypes: Set<string>;
}

/** The error responses of an operation: the codes grouped by the status the site answers them with; `rendered` gains their media types. */
function errorResponses(
  site: Site,
  errors: readonly ErrorEntry[],
  viewset: ModelViewSet | undefined,
  texts: SiteTexts,
  rendered: Set<string>,
  subject: string,
): Record<string, ResponseObject> {
  const groups = new Map<number, StatusGroup>();
  const group = (status: number): StatusGroup => {
    const found = groups.get(status) ?? { descriptions: new Set(), schemas: [], examples: {}, mediaTypes: new Set() };
    groups.set(status, found);
    return found;
  };
  const renders = site.renderers.map((renderer) => renderer.mediaType);
  for (const entry of errors) {
    const code = typeof entry === 'string' ? entry : entry.code;
    const error = exampleError(typeof entry === 'string' ? undefined : entry.sample, code, viewset, texts.example, subject);
    // An action's own sample names its own values (a list's most rows), in any language.
    const own = typeof entry === 'string' || entry.sample instanceof ValidationError ? {} : entry.sample?.params;
    const description = texts.t(error.messageKey, { ...sampleParams(viewset, texts.t, subject), ...own });
    const answered = group(site.errorStatus(error));
    answered.descriptions.add(description);
    const schema = typeof entry === 'string' ? site.docs.error : entry.schema;
    if (!answered.schemas.includes(schema)) answered.schemas.push(schema);
    answered.examples[code] = site.errorBody(texts.example, error);
    for (const type of site.docs.alwaysJson?.has(code) ? [JSON_TYPE] : renders) answered.mediaTypes.add(type);
    const browserStatus = site.docs.browserStatus?.[code];
    if (browserStatus !== undefined) {
      const page = group(browserStatus);
      page.descriptions.add(description);
      page.mediaTypes.add('text/html');
    }
  }
  const responses: Record<string, ResponseObject> = {};
  for (const [status, { descriptions, schemas, examples, mediaTypes }] of [...groups].sort(([a], [b]) => a - b)) {
    for (const type of mediaTypes) rendered.add(type);
    const schema = schemas.length === 0 ? { type: 'string' } : schemas.length === 1 ? schemas[0] : { anyOf: schemas };
    const response: ResponseObject = { description: [...descriptions].join(' '), content: content(mediaTypes, schema, examples) };
    if (status === 401) response.headers = { 'WWW-Authenticate': { description: texts.t('headers.www_authenticate'), required: true, schema: { type: 'string' } } };
    if (status === 429) {
      response.headers = {
        'Retry-After': { description: texts.t('headers.retry_after'), required: true, schema: { type: 'integer' } },
        'X-RateLimit-Reset': { description: texts.t('headers.rate_limit_reset'), schema: { type: 'integer' } },
      };
    }
    responses[String(status)] = response;
  }
  return responses;
}

/** A body in each media type the parsers read: `schema` as JSON, `formSchema` as a form (the framework's form types), `schema` in any other. */
export function requestBody(schema: JsonSchema, formSchema: JsonSchema, required: boolean, mediaTypes: readonly string[] = PARSED_MEDIA_TYPES): Operation['requestBody'] {
  const body: Record<string, MediaType> = {};
  const forms: readonly string[] = PARSED_MEDIA_TYPES.filter((type) => type !== JSON_TYPE);
  for (const type of mediaTypes) body[type] = { schema: forms.includes(type) ? formSchema : schema };
  return { required, content: body };
}

/** `get /api/invoices/{pk}` → `get_api_invoices_pk`: unique as long as paths differ in more than punctuation. */
export function operationId(method: string, path: string): string {
  return [method.toLowerCase(), ...path.split(/[^A-Za-z0-9]+/).filter(Boolean)].join('_');
}

/** The path's ids, the list's pages, and the `format` that overrides the negotiation. */
function parameters(place: OperationPlace, described: Described, name: string, t: Translate): Parameter[] {
  const inPath = [...place.path.matchAll(/\{(\w+)\}/g)].map(([, id = '']): Parameter => ({
    name: id,
    in: 'path',
    required: true,
    description: t('parameters.id', { name }),
    schema: { type: 'integer', minimum: 1, maximum: PK_LIMIT },
  }));
  const formats = place.site.renderers.map((renderer) => renderer.format);
  const format: Parameter = { name: 'format', in: 'query', description: t('parameters.format'), schema: { type: 'string', enum: formats } };
  return [...inPath, ...(described.parameters ?? []), format];
}

/** What an endpoint's method does, from its own docs, its viewset, or else (an OPTIONS of its own) the metadata. */
function describedAction(endpoint: Endpoint, method: Method, t: Translate): Described {
  const action = endpoint.methods[method];
  if (action?.docs) return action.docs;
  if (endpoint.viewset) return viewsetActionDocs(endpoint.viewset, action?.action ?? 'metadata', t);
  const errors = endpoint.permissions.length > 0 ? AUTHENTICATED : ['throttled' as const];
  return { summary: 'operations.metadata', success: { status: 200, schema: METADATA }, errors };
}

/**
 * The operation of one method of an endpoint. HEAD and OPTIONS have none of
 * their own: the description says once how every path answers them.
 */
export function describeOperation(mounted: OperationPlace, endpoint: Endpoint, method: Method, texts: SiteTexts): Operation {
  // A resource's own authenticators, renderers and parsers are its routes' (src/policies.ts).
  const place = { ...mounted, site: servingSite(mounted.site, endpoint) };
  const { site } = place;
  const { t } = texts;
  const { viewset } = endpoint;
  const described = describedAction(endpoint, method, t);
  const name = viewset ? resourceLabel(t, viewset.resource) : described.subject ? t(described.subject) : '';
  // A bearer token must hold the ability the action needs (Sanctum's abilities); sessions and Basic need none.
  const ability = site.authenticators.some(({ described: { scheme } }) => scheme.scheme === 'bearer') ? requiredAbility(endpoint, method) : null;
  const errors: readonly ErrorEntry[] = ability === null ? (described.errors ?? []) : withMissingAbility(described.errors ?? []);
  const operation: Operation = {
    operationId: operationId(method, place.path),
    summary: t(described.summary, { name, ...described.summaryParams }),
    tags: [place.tag],
    parameters: parameters(place, described, name, t),
    responses: {},
  };
  if (ability !== null) operation.description = t('operations.ability', { ability });
  if (described.requestBody) {
    const partial = method === 'PATCH';
    const form = described.formBody ?? (viewset ? inputSchema(viewset.serializer, { partial, form: true }) : described.requestBody);
    // An empty PATCH changes nothing but the update time, and is valid.
    operation.requestBody = requestBody(described.requestBody, form, !partial, parsedMediaTypes(site.parsers));
  }
  const { success } = described;
  const renders = new Set(site.renderers.map((renderer) => renderer.mediaType));
  operation.responses[String(success.status)] = { description: t(`status.${success.status}`), content: content(renders, success.schema) };
  const rendered = success.schema ? new Set(renders) : new Set<string>();
  Object.assign(operation.responses, errorResponses(site, errors, viewset, texts, rendered, name));
  const action = viewset ? endpoint.methods[method]?.action : undefined;
  describeConditions(operation, method, success.status, action, described.checksIfMatch === true, t);
  if (endpoint.permissions.length > 0) operation.security = site.authenticators.map(({ described: scheme }) => ({ [scheme.name]: [] }));
  if (ability !== null) operation['x-token-ability'] = ability;
  const others = [...rendered].filter((type) => type !== JSON_TYPE).sort();
  if (others.length > 0) operation['x-also-renders'] = others;
  return operation;
}

/** The viewset actions that answer with the row's ETag, and those that take If-Match. */
const TAGGED_WRITES: ReadonlySet<string> = new Set(['create', 'update', 'partial_update']);
const CHECKED_WRITES: ReadonlySet<string> = new Set(['update', 'partial_update', 'destroy']);

/**
 * Conditional requests (src/conditional.ts): every GET answer with a body has
 * an ETag and answers If-None-Match with 304; a viewset's writes answer with
 * the row's new ETag, and its changes of one row take If-Match (412 when the
 * row changed meanwhile, listed with the errors).
 */
function describeConditions(operation: Operation, method: AnyMethod, status: number, action: string | undefined, checksIfMatch: boolean, t: Translate): void {
  const etag = { ETag: { description: t('headers.etag'), schema: { type: 'string' } } };
  const success = operation.responses[String(status)];
  const header = (name: string, key: string): Parameter => ({ name, in: 'header', required: false, description: t(key), schema: { type: 'string' } });
  const parameters = (operation.parameters ??= []);
  if (method === 'GET' && status === 200) {
    if (success) success.headers = { ...success.headers, ...etag };
    parameters.push(header('If-None-Match', 'parameters.if_none_match'));
    operation.responses['304'] = { description: t('status.304'), headers: etag };
    return;
  }
  if (action === undefined) return;
  if (success && TAGGED_WRITES.has(action)) success.headers = { ...success.headers, ...etag };
  if (CHECKED_WRITES.has(action) || checksIfMatch) parameters.push(header('If-Match', 'parameters.if_match'));
}

/** The errors of an action a token needs an ability for: its own, and 403 for a token without it. */
function withMissingAbility(errors: readonly ErrorEntry[]): ErrorEntry[] {
  const listed = errors.some((entry) => (typeof entry === 'string' ? entry : entry.code) === 'missing_ability');
  return listed ? [...errors] : [...errors, 'missing_ability'];
}
