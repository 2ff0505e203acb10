import contentType from 'content-type';
import express, { type Request } from 'express';
import typeis from 'type-is';
import { ApiError } from './errors.js';
import { MultipartError, multipartFields } from './multipart.js';

/** Request data: field name → value, with no prototype to pollute. */
export type RequestData = Record<string, unknown>;

export const PARSED_MEDIA_TYPES = ['application/json', 'application/x-www-form-urlencoded', 'multipart/form-data'] as const;

const MAX_FORM_FIELDS = 1000;
const utf8 = new TextDecoder('utf-8', { fatal: true });

function emptyData(): RequestData {
  return Object.create(null) as RequestData;
}

/** Each form body's values by name, every one of a repeated name, in order: what `formList` reads. */
const formBodies = new WeakMap<object, Map<string, string[]>>();

function formData(): { data: RequestData; add(name: string, value: string): void } {
  const data = emptyData();
  const all = new Map<string, string[]>();
  formBodies.set(data, all);
  const add = (name: string, value: string): void => {
    if (PROTOTYPE_KEYS.has(name)) return;
    // The parsed data keeps the last of a repeated name, as Django's QueryDict.get does.
    data[name] = value;
    const values = all.get(name);
    if (values) values.push(value);
    else all.set(name, [value]);
  };
  return { data, add };
}

/**
 * The values a form sent for a field that is a list, repeated (`name=1&name=2`,
 * as an HTML form's multiple select sends them) or in PHP's brackets
 * (`name[]=1&name[]=2`, or indexed, `name[0]=1&name[1]=2`, as Laravel's
 * clients and `qs` send them; indexed values in their indexes' order);
 * undefined when the form sent `name` once (that one value may itself list,
 * `1,2,3`) or not at all. Brackets that name no index (`name[x]=1`) make an
 * object of those values, as PHP would, which no list field takes: the
 * field's error, never a list that silently left them out.
 */
export function formList(data: unknown, name: string): string[] | Record<string, string> | undefined {
  const all = typeof data === 'object' && data !== null ? formBodies.get(data) : undefined;
  if (!all) return undefined;
  const plain = all.get(name) ?? [];
  const bracketed = all.get(`${name}[]`) ?? [];
  const { indexed, named } = bracketedValues(all, name);
  if (named) return named;
  if (bracketed.length > 0 || indexed.length > 0) return [...plain, ...bracketed, ...indexed];
  return plain.length > 1 ? plain : undefined;
}

/** The values of `name[<index>]`, in the indexes' order, and those of any other `name[…]` by what the brackets hold. */
function bracketedValues(all: Map<string, string[]>, name: string): { indexed: string[]; named?: Record<string, string> } {
  const prefix = `${name}[`;
  const found: [number, string[]][] = [];
  let named: Record<string, string> | undefined;
  for (const [key, values] of all) {
    if (!key.startsWith(prefix) || key === `${name}[]`) continue;
    const inner = key.slice(prefix.length, key.endsWith(']') ? -1 : undefined);
    if (key.endsWith(']') && /^\d{1,6}$/.test(inner)) found.push([Number(inner), values]);
    else (named ??= Object.create(null) as Record<string, string>)[inner] = values[values.length - 1] ?? '';
  }
  return { indexed: found.sort(([a], [b]) => a - b).flatMap(([, values]) => values), ...(named ? { named } : {}) };
}

/** Whether `data` came from a form (urlencoded or multipart), whose values are text to be read as their field's kind. */
export function isFormData(data: unknown): boolean {
  return typeof data === 'object' && data !== null && formBodies.has(data);
}

interface BodyParserError {
  type?: string;
  status?: number;
}

const rawReaders = new Map<number, ReturnType<typeof express.raw>>();

/**
 * The raw bytes, with body-parser's limit, length check and Content-Encoding
 * handling. A body whose declared length is over the limit is refused at
 * once, and its connection closed after the answer: body-parser would first
 * wait for all of it, for as long as the client cares to take.
 */
function readRaw(req: Request, limit: number, mediaType: string): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  // A compressed body's length says nothing of what it inflates to: body-parser counts that.
  const plain = (req.headers['content-encoding'] ?? 'identity').toLowerCase() === 'identity';
  if (plain && declared > limit) {
    req.res?.setHeader('Connection', 'close');
    return Promise.reject(new ApiError('payload_too_large'));
  }
  let middleware = rawReaders.get(limit);
  if (!middleware) {
    middleware = express.raw({ type: () => true, limit });
    rawReaders.set(limit, middleware);
  }
  const read = middleware;
  return new Promise((resolve, reject) => {
    read(req, req.res!, (error?: unknown) => {
      if (!error) return resolve(Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0));
      const { type, status } = error as BodyParserError;
      if (type === 'entity.too.large') return reject(new ApiError('payload_too_large'));
      const encoding = String(req.headers['content-encoding'] ?? '').slice(0, 40);
      if (type === 'encoding.unsupported' || status === 415) {
        return reject(new ApiError('unsupported_media_type', { media_type: `${mediaType.slice(0, 100)}; Content-Encoding: ${encoding}` }));
      }
      // Bytes that do not decode as their Content-Encoding says (gzip, deflate, br), or a body cut short: the body's own parse error.
      const detail = plain ? 'the body ended before its length' : `the body is not valid ${encoding}`;
      reject(mediaType === 'application/json' ? new ApiError('parse_error_json', { detail }) : new ApiError('parse_error_form', { detail }));
    });
  });
}

function decodeUtf8(raw: Buffer, charset: string | undefined, mediaType: string): string {
  if (charset !== undefined && !['utf-8', 'utf8'].includes(charset.toLowerCase())) {
    throw new ApiError('unsupported_media_type', { media_type: `${mediaType}; charset=${charset}` });
  }
  try {
    return utf8.decode(raw);
  } catch {
    throw new ApiError(mediaType === 'application/json' ? 'parse_error_json' : 'parse_error_form', {
      detail: 'invalid UTF-8',
    });
  }
}

/** Keys that reach an object's prototype when a body is merged into another object: never fields. */
const PROTOTYPE_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

/** Arrays and objects nested deeper than this are refused, as PHP's json_decode refuses them (its default depth). */
export const MAX_JSON_DEPTH = 512;

/**
 * Drops the prototype keys at any depth and refuses nesting deeper than
 * MAX_JSON_DEPTH, without recursion: JSON.parse itself reads any depth, but
 * a reviver, and any recursive walk after it, would run out of stack
 * ("Maximum call stack size exceeded") on `[[[[…]]]]` a megabyte deep.
 */
function checkedJson(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  const pending: [Record<string, unknown>, number][] = [[value as Record<string, unknown>, 1]];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [node, depth] = next;
    for (const key of Object.keys(node)) {
      const child = node[key];
      if (PROTOTYPE_KEYS.has(key)) delete node[key];
      else if (typeof child === 'object' && child !== null) {
        if (depth >= MAX_JSON_DEPTH) throw new ApiError('parse_error_json', { detail: `nested deeper than ${MAX_JSON_DEPTH} levels` });
        pending.push([child as Record<string, unknown>, depth + 1]);
      }
    }
  }
  return value;
}

/** JSON text as a body gives it: no prototype keys, no deeper than MAX_JSON_DEPTH; else the parse error. */
export function parseJson(text: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ApiError('parse_error_json', { detail: (error as Error).message });
  }
  return checkedJson(value);
}

/**
 * A urlencoded name or value as URLSearchParams reads it (`+` a space, a `%`
 * without two hex digits kept as is), except that percent-encoded bytes that
 * are not UTF-8 are refused, where URLSearchParams would put U+FFFD.
 */
function formComponent(text: string): string {
  const spaced = text.replace(/\+/g, ' ');
  if (!spaced.includes('%')) return spaced;
  try {
    return decodeURIComponent(spaced.replace(/%(?![0-9a-fA-F]{2})/g, '%25'));
  } catch {
    throw new ApiError('parse_error_form', { detail: 'invalid UTF-8' });
  }
}

function parseUrlencoded(text: string): RequestData {
  const { data, add } = formData();
  let count = 0;
  for (const pair of text.split('&')) {
    if (pair === '') continue;
    if ((count += 1) > MAX_FORM_FIELDS) throw new ApiError('parse_error_form');
    const equals = pair.indexOf('=');
    add(formComponent(equals < 0 ? pair : pair.slice(0, equals)), equals < 0 ? '' : formComponent(pair.slice(equals + 1)));
  }
  return data;
}

/** Invalid UTF-8 is refused as in a urlencoded body. */
function parseMultipart(raw: Buffer, boundary: string | undefined): RequestData {
  const { data, add } = formData();
  try {
    for (const [name, value] of multipartFields(raw, boundary, { parts: MAX_FORM_FIELDS })) add(name, value);
  } catch (error) {
    if (error instanceof MultipartError) throw new ApiError('parse_error_form', { detail: error.reason });
    throw error;
  }
  return data;
}

/** Each request's data, by the parser that read it; and its bytes. */
const cache = new WeakMap<Request, Map<Parser, Promise<unknown>>>();
const raws = new WeakMap<Request, Promise<Buffer>>();
const NO_BODY = new WeakMap<Request, Promise<unknown>>();

interface BodyType {
  mediaType: string;
  charset?: string;
  boundary?: string;
}

/** A header `content-type` cannot read still names its media type, which decides whether the body is read. */
function bodyType(header: string | undefined): BodyType {
  if (!header) return { mediaType: '' };
  try {
    const { type, parameters } = contentType.parse(header);
    return { mediaType: type, charset: parameters.charset, boundary: parameters.boundary };
  } catch {
    return { mediaType: header.split(';')[0]?.trim().toLowerCase() ?? '' };
  }
}

const STRUCTURED_JSON = /^application\/[\w.!#$&^-]+\+json$/;

/** What a parser is told of the body besides its bytes. */
export interface ParserContext {
  /** The media type it was chosen for (a `+json` type read as JSON: `application/json`). */
  readonly mediaType: string;
  /** The Content-Type's `charset`, if it named one. */
  readonly charset?: string;
  /** The Content-Type's `boundary`, if it named one (multipart). */
  readonly boundary?: string;
  readonly req: Request;
}

/**
 * How a body of one media type becomes request data, as Django REST
 * Framework's BaseParser. The framework reads the bytes first (the body
 * limit, Content-Encoding, an empty body as no data); a body that does not
 * read throws `parseError(detail)`, a 400 in the site's shape.
 */
export interface Parser {
  /** The media type it reads, as Content-Type names it without parameters (DRF's `media_type`). */
  readonly mediaType: string;
  /** The data the serializer validates: an object of fields for the model actions. */
  parse(body: Buffer, context: ParserContext): unknown;
}

/** `application/json`, as DRF's JSONParser: UTF-8, no prototype keys, no deeper than MAX_JSON_DEPTH. */
export const jsonParser: Parser = {
  mediaType: 'application/json',
  parse: (body, { charset, mediaType }) => parseJson(decodeUtf8(body, charset, mediaType)),
};

/** An HTML form's urlencoded fields, as DRF's FormParser. */
export const formParser: Parser = {
  mediaType: 'application/x-www-form-urlencoded',
  parse: (body, { charset, mediaType }) => parseUrlencoded(decodeUtf8(body, charset, mediaType)),
};

/** A multipart form's fields (no files), as DRF's MultiPartParser. */
export const multipartParser: Parser = {
  mediaType: 'multipart/form-data',
  parse: (body, { boundary }) => parseMultipart(body, boundary),
};

/** Every site's parsers unless a resource says otherwise, in PARSED_MEDIA_TYPES' order. */
export const DEFAULT_PARSERS: readonly Parser[] = [jsonParser, formParser, multipartParser];

/** The media types `parsers` read, in their order (OPTIONS' `parses`, the API description's request bodies). */
export function parsedMediaTypes(parsers: readonly Parser[] | undefined): readonly string[] {
  return parsers ? parsers.map((parser) => parser.mediaType) : PARSED_MEDIA_TYPES;
}

/** The body's media type and the parser of `parsers` that reads it (a `+json` type is JSON unless a parser names it); undefined: no body. */
function chosenParser(req: Request, parsers: readonly Parser[]): { parser: Parser | null; type: BodyType } | undefined {
  if (!typeis.hasBody(req)) return undefined;
  const type = bodyType(req.headers['content-type']);
  const named = type.mediaType;
  const mediaType = STRUCTURED_JSON.test(named) && !parsers.some((parser) => parser.mediaType === named) ? 'application/json' : named;
  return { parser: parsers.find((parser) => parser.mediaType === mediaType) ?? null, type: { ...type, mediaType } };
}

async function parse(req: Request, limit: number, parser: Parser, { mediaType, charset, boundary }: BodyType): Promise<unknown> {
  const raw = await rawBody(req, limit, mediaType);
  if (raw.length === 0) return emptyData();
  return parser.parse(raw, { mediaType, ...(charset !== undefined ? { charset } : {}), ...(boundary !== undefined ? { boundary } : {}), req });
}

/** The body's bytes, read once: a second parser (a resource's own, after the CSRF check read the body) parses them again. */
function rawBody(req: Request, limit: number, mediaType: string): Promise<Buffer> {
  let raw = raws.get(req);
  if (!raw) {
    raw = readRaw(req, limit, mediaType);
    raws.set(req, raw);
  }
  return raw;
}

/** A field of a parsed body, by its own key; undefined when absent or when the body is no object of fields. */
export function bodyField(data: unknown, name: string): unknown {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return undefined;
  return Object.hasOwn(data, name) ? (data as Record<string, unknown>)[name] : undefined;
}

/** A field of a parsed body as text: '' when absent or not a string. */
export function bodyText(data: unknown, name: string): string {
  const value = bodyField(data, name);
  return typeof value === 'string' ? value : '';
}

/** How a site reads bodies. */
export interface ParseOptions {
  /**
   * JSON under a name of its own (`application/vnd.api+json`, RFC 6839's
   * suffix) is read as JSON, as Laravel's `isJson()` reads it; else it is 415,
   * as Django REST Framework's JSONParser, which names `application/json` only.
   */
  structuredJson?: boolean;
  /** The parsers of the media types read (DRF's parser_classes); default: DEFAULT_PARSERS. */
  parsers?: readonly Parser[];
}

/** The request's data if something has parsed it already; undefined, and nothing read, if not. */
export function parsedRequestData(req: Request): Promise<unknown> | undefined {
  const parsed = cache.get(req);
  return parsed ? parsed.values().next().value : NO_BODY.get(req);
}

/**
 * The request's data, parsed on first use only, so that a GET with an odd
 * Content-Type is never refused. JSON may be any value; the serializer
 * decides whether it fits. A media type no parser reads is 415, and reads
 * nothing: a later reader with other parsers may still read it.
 */
export function requestData(req: Request, limit: number, options: ParseOptions = {}): Promise<unknown> {
  const parsers = options.parsers ?? DEFAULT_PARSERS;
  const chosen = chosenParser(req, parsers);
  if (!chosen) {
    let none = NO_BODY.get(req);
    if (!none) {
      none = Promise.resolve(emptyData());
      NO_BODY.set(req, none);
    }
    return none;
  }
  const { parser, type } = chosen;
  // Checked on every call: an earlier reader (CSRF, the method override) may have parsed the body already.
  const named = bodyType(req.headers['content-type']).mediaType;
  if (options.structuredJson === false && named !== type.mediaType) {
    return Promise.reject(new ApiError('unsupported_media_type', { media_type: named.slice(0, 100) }));
  }
  if (!parser) return Promise.reject(new ApiError('unsupported_media_type', { media_type: type.mediaType.slice(0, 100) }));
  let byParser = cache.get(req);
  if (!byParser) {
    byParser = new Map();
    cache.set(req, byParser);
  }
  let parsed = byParser.get(parser);
  if (!parsed) {
    parsed = parse(req, limit, parser, type);
    byParser.set(parser, parsed);
  }
  return parsed;
}
