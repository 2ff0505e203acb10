import type { IncomingMessage, ServerResponse } from 'node:http';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

/** One answer as the client saw it: for checking it against the OpenAPI description. */
export interface RecordedResponse {
  method: string;
  /** The request's path, without the query. */
  path: string;
  status: number;
  contentType: string | undefined;
  body: Buffer;
}

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** `app`, keeping a copy of every answer's status, type and bytes in `log`. */
export function recordingHandler(app: Handler, log: RecordedResponse[]): Handler {
  return (req, res) => {
    const method = req.method ?? 'GET';
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
      log.push({ method, path, status: res.statusCode, contentType: typeof type === 'string' ? type : undefined, body: Buffer.concat(chunks) });
      return end(chunk, ...rest);
    }) as typeof res.end;
    app(req, res);
  };
}

/** The parts of an OpenAPI description the contract check reads. */
interface Description {
  paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: object }> }> }>>;
}

const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats.default(ajv);

const validators = new WeakMap<object, ValidateFunction>();

function compiled(schema: object): ValidateFunction {
  let validate = validators.get(schema);
  if (!validate) {
    validate = ajv.compile(schema);
    validators.set(schema, validate);
  }
  return validate;
}

/** A documented path as a pattern: `{pk}` any segment, the trailing slash optional (the router answers both). */
function pathPattern(documented: string): RegExp {
  const body = documented.replace(/\/$/, '').replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{\w+\}/g, '[^/]+');
  return new RegExp(`^${body}/?$`);
}

/**
 * What in `responses` the description does not say: answers on undocumented
 * paths, methods or statuses, in undocumented media types, or whose JSON
 * bodies fail their schema. The site's 404 for paths that name nothing and
 * 405s for methods a path lacks are left out: no description lists those.
 */
export function contractProblems(description: Description, responses: readonly RecordedResponse[]): string[] {
  const templates = Object.keys(description.paths).map((documented) => ({ documented, pattern: pathPattern(documented) }));
  const problems = new Set<string>();
  for (const answer of responses) {
    const where = `${answer.method} ${answer.path} → ${answer.status}`;
    const template = templates.find(({ pattern }) => pattern.test(answer.path));
    if (!template) {
      if (answer.status !== 404) problems.add(`${where}: path not described`);
      continue;
    }
    const operation = description.paths[template.documented]?.[answer.method.toLowerCase()];
    if (!operation) {
      if (answer.status !== 405) problems.add(`${where}: method not described for ${template.documented}`);
      continue;
    }
    const documented = operation.responses[String(answer.status)] ?? operation.responses.default;
    if (!documented) {
      problems.add(`${where}: status not described (${Object.keys(operation.responses).join(', ')})`);
      continue;
    }
    if (answer.body.length === 0) continue;
    const mediaType = answer.contentType?.split(';')[0]?.trim().toLowerCase() ?? '';
    const content = documented.content?.[mediaType];
    if (!content) {
      problems.add(`${where}: ${mediaType || 'a body'} not described`);
      continue;
    }
    if (mediaType !== 'application/json') continue;
    const validate = compiled(content.schema);
    if (!validate(JSON.parse(answer.body.toString('utf8')))) {
      problems.add(`${where}: ${ajv.errorsText(validate.errors)} in ${answer.body.toString('utf8').slice(0, 200)}`);
    }
  }
  return [...problems];
}
