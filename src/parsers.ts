import busboy from 'busboy';
import contentType from 'content-type';
import express, { type Request } from 'express';
import typeis from 'type-is';
import { ApiError } from './errors.js';

/** Request data: field name → value, with no prototype to pollute. */
export type RequestData = Record<string, unknown>;

export const PARSED_MEDIA_TYPES = ['application/json', 'application/x-www-form-urlencoded', 'multipart/form-data'] as const;

const MAX_FORM_FIELDS = 1000;
const utf8 = new TextDecoder('utf-8', { fatal: true });

function emptyData(): RequestData {
  return Object.create(null) as RequestData;
}

/** Bodies read from a form: their values are all text, as a browser's form sends them. */
const formBodies = new WeakSet<object>();

function formData(): RequestData {
  const data = emptyData();
  formBodies.add(data);
  return data;
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

/** The raw bytes, with body-parser's limit, length check and Content-Encoding handling. */
function readRaw(req: Request, limit: number): Promise<Buffer> {
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
      if (type === 'encoding.unsupported' || status === 415) {
        return reject(new ApiError('unsupported_media_type', { media_type: String(req.headers['content-encoding']) }));
      }
      reject(new ApiError('parse_error_form'));
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

function withoutPrototypeKeys(key: string, value: unknown): unknown {
  return PROTOTYPE_KEYS.has(key) ? undefined : value;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text, withoutPrototypeKeys);
  } catch (error) {
    throw new ApiError('parse_error_json', { detail: (error as Error).message });
  }
}

/** Repeated keys keep the last value, as Django's QueryDict.get does. */
function parseUrlencoded(text: string): RequestData {
  const data = formData();
  let count = 0;
  for (const [name, value] of new URLSearchParams(text)) {
    if ((count += 1) > MAX_FORM_FIELDS) throw new ApiError('parse_error_form');
    if (!PROTOTYPE_KEYS.has(name)) data[name] = value;
  }
  return data;
}

function parseMultipart(req: Request, raw: Buffer): Promise<RequestData> {
  return new Promise((resolve, reject) => {
    const data = formData();
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers: req.headers, limits: { fields: MAX_FORM_FIELDS, fieldSize: raw.length + 1 } });
    } catch {
      return reject(new ApiError('parse_error_form'));
    }
    parser.on('field', (name, value) => {
      if (!PROTOTYPE_KEYS.has(name)) data[name] = value;
    });
    // Files are not fields of any resource: drain and ignore them.
    parser.on('file', (_name, stream) => stream.resume());
    parser.on('fieldsLimit', () => reject(new ApiError('parse_error_form')));
    parser.on('error', () => reject(new ApiError('parse_error_form')));
    parser.on('close', () => resolve(data));
    parser.end(raw);
  });
}

const cache = new WeakMap<Request, Promise<unknown>>();

async function parse(req: Request, limit: number): Promise<unknown> {
  if (!typeis.hasBody(req)) return emptyData();
  const header = req.headers['content-type'];
  let mediaType = '';
  let charset: string | undefined;
  try {
    if (header) {
      const parsed = contentType.parse(header);
      mediaType = parsed.type;
      charset = parsed.parameters.charset;
    }
  } catch {
    mediaType = header?.split(';')[0]?.trim().toLowerCase() ?? '';
  }
  if (!(PARSED_MEDIA_TYPES as readonly string[]).includes(mediaType)) {
    throw new ApiError('unsupported_media_type', { media_type: mediaType.slice(0, 100) });
  }
  const raw = await readRaw(req, limit);
  if (raw.length === 0) return emptyData();
  if (mediaType === 'multipart/form-data') return parseMultipart(req, raw);
  const text = decodeUtf8(raw, charset, mediaType);
  return mediaType === 'application/json' ? parseJson(text) : parseUrlencoded(text);
}

/**
 * The request's data, parsed on first use only, so that a GET with an odd
 * Content-Type is never refused. JSON may be any value; the serializer
 * decides whether it fits.
 */
export function requestData(req: Request, limit: number): Promise<unknown> {
  let parsed = cache.get(req);
  if (!parsed) {
    parsed = parse(req, limit);
    cache.set(req, parsed);
  }
  return parsed;
}
