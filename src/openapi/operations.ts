import { ApiError, resourceLabel, ValidationError, type ErrorCode } from '../errors.js';
import type { Translate } from '../i18n.js';
import { PARSED_MEDIA_TYPES } from '../parsers.js';
import type { PermissionAction } from '../permissions.js';
import type { Endpoint, EndpointAction, Method } from '../router.js';
import type { Site } from '../site.js';
import type { ModelViewSet } from '../viewsets.js';
import { inputSchema, representationSchema, writableFields } from './fields.js';
import type { ActionDocs, DocumentedResponse, JsonSchema, MediaType, Operation, Parameter, ResponseObject } from './types.js';

/** A site's texts in a description: `t` in the reader's language, `example` in the site's own (example bodies as the site writes them). */
export interface SiteTexts {
  t: Translate;
  example: Translate;
}

type ErrorEntry = ActionDocs['errors'] extends readonly (infer E)[] | undefined ? E : never;

const AUTHENTICATED: readonly ErrorCode[] = ['not_authenticated', 'throttled'];
/** What a body can do wrong before validation; a session's unsafe method also needs its CSRF token. */
const BODY: readonly ErrorCode[] = ['parse_error_json', 'payload_too_large', 'unsupported_media_type', 'csrf_failed'];

const METADATA: JsonSchema = {
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
function viewsetActionDocs(viewset: ModelViewSet, action: PermissionAction, t: Translate): ActionDocs & { parameters?: Parameter[] } {
  const { site, exposure } = viewset;
  const docs = site.docs;
  const item = (serializer = viewset.serializer): JsonSchema => docs.item(exposure, representationSchema(serializer, docs.timestamp));
  const validation = { code: 'validation_failed' as const, schema: docs.validation(writableFields(viewset.serializer)) };
  const written = (partial: boolean): Pick<ActionDocs, 'requestBody'> => ({ requestBody: inputSchema(viewset.serializer, { partial, form: false }) });
  switch (action) {
    case 'list':
      return {
        summary: 'operations.list',
        success: { status: 200, schema: docs.list(exposure, representationSchema(viewset.serializer, docs.timestamp), viewset.pagination !== null) },
        parameters: viewset.pagination?.schemaParameters(t),
        errors: viewset.pagination ? [...AUTHENTICATED, 'invalid_page'] : AUTHENTICATED,
      };
    case 'create':
      return { summary: 'operations.create', ...written(false), success: { status: 201, schema: item() }, errors: [...AUTHENTICATED, validation, ...BODY] };
    case 'retrieve':
      return { summary: 'operations.retrieve', success: { status: 200, schema: item(viewset.retrieveSerializer) }, errors: [...AUTHENTICATED, 'record_not_found'] };
    case 'update':
    case 'partial_update':
      return {
        summary: `operations.${action}`,
        ...written(action === 'partial_update'),
        success: { status: 200, schema: item() },
        errors: [...AUTHENTICATED, validation, ...BODY, 'permission_denied', 'record_not_found'],
      };
    case 'destroy':
      return {
        summary: 'operations.destroy',
        success: { status: site.destroyed.status, schema: docs.destroyed },
        errors: [...AUTHENTICATED, 'csrf_failed', 'permission_denied', 'record_not_found'],
      };
    case 'current': {
      const included = Object.fromEntries(viewset.included.map(({ name, serializer }) => [name, representationSchema(serializer, docs.timestamp)]));
      const schema = docs.current(exposure, representationSchema(viewset.serializer, docs.timestamp), included);
      return { summary: 'operations.current', success: { status: 200, schema }, errors: AUTHENTICATED };
    }
    case 'metadata':
      return { summary: 'operations.metadata', success: { status: 200, schema: METADATA }, errors: AUTHENTICATED };
  }
}

/** Values for the slots of an error message. */
function sampleParams(viewset: ModelViewSet | undefined, t: Translate): Record<string, string | number> {
  const name = viewset ? resourceLabel(t, viewset.resource) : '';
  return {
    model: viewset?.resource.declaration.name ?? '',
    name,
    id: '1',
    method: 'PUT',
    allowed: 'GET',
    detail: 'Unexpected token',
    media_type: 'text/plain',
  };
}

/** An error as the site raises it. */
function sampleError(code: ErrorCode, viewset: ModelViewSet | undefined, t: Translate): ApiError {
  if (code !== 'validation_failed') return new ApiError(code, sampleParams(viewset, t));
  const [field = 'non_field_errors'] = viewset ? writableFields(viewset.serializer) : [];
  return new ValidationError({ [field]: [{ code: 'required', params: {} }] }, viewset?.resource.key);
}

function content(site: Site, schema: JsonSchema | undefined, examples?: Record<string, unknown>): Record<string, MediaType> | undefined {
  if (!schema) return undefined;
  const json: MediaType = { schema };
  const values = Object.entries(examples ?? {});
  if (values.length === 1) json.example = values[0]?.[1];
  else if (values.length > 1) Object.assign(json, { examples: Object.fromEntries(values.map(([code, value]) => [code, { value }])) });
  const types: Record<string, MediaType> = {};
  for (const renderer of site.renderers) types[renderer.mediaType] = renderer.mediaType === 'application/json' ? json : { schema: { type: 'string' } };
  return types;
}

/** The error responses of an operation: the codes grouped by the status the site answers them with. */
function errorResponses(site: Site, errors: readonly ErrorEntry[], viewset: ModelViewSet | undefined, texts: SiteTexts): Record<string, ResponseObject> {
  const byStatus = new Map<number, { codes: string[]; schemas: JsonSchema[]; examples: Record<string, unknown> }>();
  const siteT = texts.example;
  for (const entry of errors) {
    const code = typeof entry === 'string' ? entry : entry.code;
    const schema = typeof entry === 'string' ? site.docs.error : entry.schema;
    const error = sampleError(code, viewset, siteT);
    const status = site.errorStatus(error);
    const group = byStatus.get(status) ?? { codes: [], schemas: [], examples: {} };
    group.codes.push(code);
    if (!group.schemas.includes(schema)) group.schemas.push(schema);
    group.examples[code] = site.errorBody(siteT, error);
    byStatus.set(status, group);
  }
  const responses: Record<string, ResponseObject> = {};
  for (const [status, group] of [...byStatus].sort(([a], [b]) => a - b)) {
    const schema = group.schemas.length === 1 ? group.schemas[0] : { anyOf: group.schemas };
    const response: ResponseObject = {
      description: [...new Set(group.codes.map((code) => texts.t(sampleError(code as ErrorCode, viewset, texts.t).messageKey, sampleParams(viewset, texts.t))))].join(' '),
      content: content(site, schema, group.examples),
    };
    if (status === 401) response.headers = { 'WWW-Authenticate': { description: texts.t('headers.www_authenticate'), schema: { type: 'string' } } };
    if (status === 429) response.headers = { 'Retry-After': { description: texts.t('headers.retry_after'), schema: { type: 'integer' } } };
    responses[String(status)] = response;
  }
  return responses;
}

function successResponse(site: Site, success: DocumentedResponse, example: unknown, t: Translate): ResponseObject {
  return { description: t(`status.${success.status}`), content: content(site, success.schema, example === undefined ? undefined : { example }) };
}

function requestBody(schema: JsonSchema, formSchema: JsonSchema): Operation['requestBody'] {
  const body: Record<string, MediaType> = {};
  for (const type of PARSED_MEDIA_TYPES) body[type] = { schema: type === 'application/json' ? schema : formSchema };
  return { required: true, content: body };
}

export interface OperationPlace {
  site: Site;
  /** The path as the description writes it. */
  path: string;
  tag: string;
}

function operationId(method: string, path: string): string {
  const words = path.split(/[^A-Za-z0-9]+/).filter(Boolean);
  return [method.toLowerCase(), ...words].join('_') || method.toLowerCase();
}

/** The operation of one method of an endpoint (HEAD: its GET without body). */
export function describeOperation(place: OperationPlace, endpoint: Endpoint, method: Method | 'HEAD', texts: SiteTexts): Operation {
  const { site } = place;
  const { t } = texts;
  const action: EndpointAction | undefined = endpoint.methods[method === 'HEAD' ? 'GET' : method];
  const { viewset } = endpoint;
  const docs: ActionDocs & { parameters?: Parameter[] } =
    action?.docs ?? (viewset ? viewsetActionDocs(viewset, action?.action ?? 'metadata', t) : { summary: 'operations.metadata', success: { status: 200, schema: METADATA } });
  const name = viewset ? resourceLabel(t, viewset.resource) : '';
  const operation: Operation = {
    operationId: operationId(method, place.path),
    summary: t(docs.summary, { name }),
    tags: [place.tag],
    responses: {},
  };
  if (method === 'HEAD') operation.description = t('operations.head');
  const parameters = [...(docs.parameters ?? [])];
  if (place.path.includes('{pk}')) {
    parameters.unshift({ name: 'pk', in: 'path', required: true, description: t('parameters.pk', { name }), schema: { type: 'integer', minimum: 1, maximum: 2_147_483_647 } });
  }
  if (parameters.length > 0) operation.parameters = parameters;
  if (docs.requestBody && method !== 'HEAD') {
    const form = viewset ? inputSchema(viewset.serializer, { partial: method === 'PATCH', form: true }) : docs.requestBody;
    operation.requestBody = requestBody(docs.requestBody, form);
  }
  const success = method === 'HEAD' ? { status: docs.success.status } : docs.success;
  operation.responses[String(success.status)] = successResponse(site, success, undefined, t);
  const errors = errorResponses(site, docs.errors ?? [], viewset, texts);
  for (const [status, response] of Object.entries(errors)) {
    operation.responses[status] = method === 'HEAD' ? { ...response, content: undefined } : response;
  }
  if (endpoint.permissions.length > 0) operation.security = site.authenticators.map(({ described }) => ({ [described.name]: [] }));
  return operation;
}
