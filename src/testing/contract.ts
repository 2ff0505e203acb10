import type { IncomingMessage, ServerResponse } from 'node:http';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { METADATA_SCHEMA } from '../openapi/document.js';

/** One answer as the client saw it: for checking it against the OpenAPI description. */
export interface RecordedResponse {
  method: string;
  /** The request's path, without the query. */
  path: string;
  status: number;
  contentType: string | undefined;
  /** The names of the headers sent, lower-case. */
  headers?: readonly string[];
  body: Buffer;
}

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** `app`, keeping a copy of every answer's status, type and bytes in `log`. */
export function recordingHandler(app: Handler, log: RecordedResponse[]): Handler {
  return (req, res) => {
    const method = req.method ?? 'GET';
    // A CORS preflight is the browser's question, answered before the API (middleware/cors.ts): no operation describes it.
    if (method === 'OPTIONS' && req.headers['access-control-request-method'] !== undefined) return app(req, res);
    const path = new URL(req.url ?? '/', 'http://recorded.test').pathname;
    const chunks: Buffer[] = [];
    const keep = (chunk: unknown): void => {
      if (typeof chunk === 'string' || chunk instanceof Uint8Array) chunks.push(Buffer.from(chunk));
    };
    const write = res.write.bind(res) as (...args: unknown[]) => boolean;
    const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
    res.write = ((chunk: unknown, ...rest: unknown[]) => {
      keep(chunk);
      return write(chunk, ...rest);
    }) as typeof res.write;
    res.end = ((chunk?: unknown, ...rest: unknown[]) => {
      keep(chunk);
      const type = res.getHeader('content-type');
      // A HEAD answer's body is never sent, whatever the handler wrote.
      const body = method === 'HEAD' ? Buffer.alloc(0) : Buffer.concat(chunks);
      const headers = res.getHeaderNames();
      // The method the app answered: a POST that names another (Laravel's method spoofing) is that one.
      log.push({ method: req.method ?? method, path, status: res.statusCode, contentType: typeof type === 'string' ? type : undefined, headers, body });
      return end(chunk, ...rest);
    }) as typeof res.end;
    app(req, res);
  };
}

/** The parts of an OpenAPI description the contract check reads. */
interface Description {
  paths: Record<string, PathItem>;
  components?: { schemas?: Record<string, object>; [other: string]: unknown };
}

/** A path's operations by method, or (a path's other spelling) a `$ref` to another path's. */
type PathItem = { $ref?: string } & Record<string, DescribedOperation | string | undefined>;

interface DescribedOperation {
  responses: Record<string, DescribedResponse>;
  /** Media types besides JSON it answers, bodies undescribed (pages for people). */
  'x-also-renders'?: string[];
}

interface DescribedResponse {
  headers?: Record<string, unknown>;
  content?: Record<string, { schema: object }>;
}


/** A JSON Schema 2020-12 validator with the formats the description uses. */
export function schemaValidator(): Ajv2020 {
  const validator = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(validator);
  // As the server checks addresses: anything@anything, international letters included.
  validator.addFormat('idn-email', /^[^\s@]+@[^\s@]+$/u);
  // A decimal as the APIs write it: "4.50".
  validator.addFormat('decimal', /^-?\d+(?:\.\d+)?$/);
  return validator;
}

const ajv = schemaValidator();

const validators = new WeakMap<object, ValidateFunction>();

function compiled(schema: object): ValidateFunction {
  let validate = validators.get(schema);
  if (!validate) {
    validate = ajv.compile(schema);
    validators.set(schema, validate);
  }
  return validate;
}

/** A documented path as a pattern: `{pk}` any segment; the trailing slash as written (its other spelling is a path of its own). */
function pathPattern(documented: string): RegExp {
  const body = documented.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{\w+\}/g, '[^/]+');
  return new RegExp(`^${body}$`);
}

/** The item a path's `$ref` (`#/paths/<pointer>`) names, or the path's own. */
function resolvedItem(description: Description, item: PathItem | undefined): PathItem | undefined {
  const ref = item?.$ref;
  if (typeof ref !== 'string' || !ref.startsWith('#/paths/')) return item;
  const documented = decodeURIComponent(ref.slice('#/paths/'.length)).replace(/~1/g, '/').replace(/~0/g, '~');
  return description.paths[documented];
}

/** An operation of a path item: HEAD is described by its GET (the same answer without a body). */
function operationOf(item: PathItem | undefined, method: string): DescribedOperation | undefined {
  const operation = item?.[method === 'HEAD' ? 'get' : method.toLowerCase()];
  return typeof operation === 'object' ? operation : undefined;
}

/** Pages for people, not API routes: the admin, the browser login, the docs page and the pages' files. */
export const PAGES: readonly string[] = ['/admin', '/api-auth', '/docs', '/static', '/favicon.ico'];

const isPage = (path: string): boolean => PAGES.some((page) => path === page || path.startsWith(`${page}/`));

/**
 * What `answer` to a method a path does not have is still expected: the
 * 405, and what comes before the method is looked at (authentication and
 * the request limit). Routes outside the sites are plain Express routes:
 * another method falls through to the root site's 404, and Express answers
 * their OPTIONS itself.
 */
function undescribedMethodAnswer(answer: RecordedResponse): boolean {
  return [401, 404, 405, 429].includes(answer.status) || answer.method === 'OPTIONS';
}

/**
 * What in `responses` the description does not say: answers on undocumented
 * paths, methods or statuses, in undocumented media types, or without the
 * headers or with JSON bodies their response describes. Left out: the pages
 * for people, the site's 404 for paths that name nothing, answers to methods
 * a path does not have (see undescribedMethodAnswer), and 500s: a server
 * error is a bug, which the test that provokes it asserts itself.
 */
export function contractProblems(description: Description, responses: readonly RecordedResponse[]): string[] {
  const templates = Object.keys(description.paths).map((documented) => ({ documented, pattern: pathPattern(documented) }));
  const problems = new Set<string>();
  for (const answer of responses) {
    const where = `${answer.method} ${answer.path} → ${answer.status}`;
    if (isPage(answer.path) || answer.status === 500) continue;
    const template = templates.find(({ pattern }) => pattern.test(answer.path));
    if (!template) {
      if (answer.status !== 404) problems.add(`${where}: path not described`);
      continue;
    }
    const operation = operationOf(resolvedItem(description, description.paths[template.documented]), answer.method);
    if (!operation) {
      if (answer.method === 'OPTIONS') optionsProblem(description, answer, where, problems);
      else if (!undescribedMethodAnswer(answer)) problems.add(`${where}: method not described for ${template.documented}`);
      continue;
    }
    const documented = operation.responses[String(answer.status)] ?? operation.responses.default;
    if (!documented) {
      problems.add(`${where}: status not described (${Object.keys(operation.responses).join(', ')})`);
      continue;
    }
    const sent = new Set(answer.headers ?? []);
    // Only the headers the description says are always sent (`required`, as OpenAPI's Header Object).
    for (const [header, spec] of Object.entries(documented.headers ?? {})) {
      const required = (spec as { required?: boolean } | undefined)?.required === true;
      if (required && answer.headers && !sent.has(header.toLowerCase())) problems.add(`${where}: no ${header} header`);
    }
    if (answer.body.length === 0) continue;
    const mediaType = mediaTypeOf(answer);
    const content = documented.content?.[mediaType];
    if (!content) {
      if (!operation['x-also-renders']?.includes(mediaType)) problems.add(`${where}: ${mediaType || 'a body'} not described`);
      continue;
    }
    if (mediaType !== 'application/json') continue;
    const problem = jsonProblem(answer, content.schema);
    if (problem) problems.add(`${where}: ${problem}`);
  }
  return [...problems];
}

/** An answer's media type, without its parameters ('' without a Content-Type). */
function mediaTypeOf(answer: RecordedResponse): string {
  return answer.contentType?.split(';')[0]?.trim().toLowerCase() ?? '';
}

/** What is wrong with a JSON answer's body for `schema`, if anything. */
function jsonProblem(answer: RecordedResponse, schema: object): string | undefined {
  const text = answer.body.toString('utf8');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return `not JSON: ${text.slice(0, 200)}`;
  }
  const validate = compiled(schema);
  return validate(parsed) ? undefined : `${ajv.errorsText(validate.errors)} in ${text.slice(0, 200)}`;
}

/**
 * OPTIONS has no operation of its own: a site's path answers it with its
 * metadata (the description's Metadata schema), a route beside the sites as
 * Express does (a plain list of methods); both may be refused as any request.
 */
function optionsProblem(description: Description, answer: RecordedResponse, where: string, problems: Set<string>): void {
  if (undescribedMethodAnswer({ ...answer, method: 'GET' })) return;
  const metadata = description.components?.schemas?.[METADATA_SCHEMA];
  const json = mediaTypeOf(answer) === 'application/json';
  if (answer.status !== 200) problems.add(`${where}: status not described for OPTIONS`);
  else if (json && metadata && answer.body.length > 0) {
    const problem = jsonProblem(answer, metadata);
    if (problem) problems.add(`${where}: ${problem}`);
  }
}
