/**
 * The examples of a description, in the reader's language and consistent with
 * each other. A declared field's example is written once, in whatever
 * language its declaration uses; the `openapi` catalogue may give it in each
 * language (`examples.<resource>.<field>`). Answer bodies get one example
 * made from their schema, so that a page of one row says `"count": 1`, not
 * what a viewer would make of the schema alone.
 */
import type { Translate } from '../i18n.js';
import type { JsonSchema, OpenApiDocument, Operation } from './types.js';

/** Marks a schema whose example a declaration gave: `<resource key>.<field>`. Gone from the finished description. */
const EXAMPLE_OF = 'x-example-of';

/** A declared field's example, with where it came from (for its translation). */
export function declaredExample(resourceKey: string, field: string, example: unknown): JsonSchema {
  return example === undefined ? {} : { example, [EXAMPLE_OF]: `${resourceKey}.${field}` };
}

type Json = unknown;

function isObject(value: Json): value is Record<string, Json> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `value` with each declared example in the catalogue's words, when it has them, and no marks left. */
function localized(value: Json, t: Translate): Json {
  if (Array.isArray(value)) return value.map((entry) => localized(entry, t));
  if (!isObject(value)) return value;
  const result: Record<string, Json> = {};
  for (const [key, entry] of Object.entries(value)) if (key !== EXAMPLE_OF) result[key] = localized(entry, t);
  const of = value[EXAMPLE_OF];
  if (typeof of === 'string') {
    const key = `examples.${of}`;
    const text = t(key);
    if (text !== key) result.example = text;
  }
  return result;
}

const FORMATS: Readonly<Record<string, string>> = {
  uri: 'https://example.com/',
  date: '2026-01-15',
  'date-time': '2026-01-15T09:30:00Z',
  'idn-email': 'someone@example.com',
  email: 'someone@example.com',
};

function typesOf(schema: JsonSchema): string[] {
  if (typeof schema.type === 'string') return [schema.type];
  return Array.isArray(schema.type) ? [...(schema.type as string[])] : [];
}

/**
 * A value of `schema` as a reader expects one: its own example if it has one;
 * the first alternative; a list of one item; null where null is allowed (no
 * neighbouring page, no value); the smallest number, at least 1.
 */
export function sampleOf(schema: JsonSchema): Json {
  if (schema.example !== undefined) return schema.example;
  if (schema.const !== undefined) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  if (schema.default !== undefined) return schema.default;
  const [first] = schema.anyOf ?? (schema.oneOf as JsonSchema[] | undefined) ?? [];
  if (first) return sampleOf(first);
  const types = typesOf(schema);
  if (types.includes('null')) return null;
  const type = types[0] ?? (schema.properties ? 'object' : schema.items ? 'array' : undefined);
  switch (type) {
    case 'object': {
      const properties = schema.properties ?? {};
      const names = schema.required && schema.required.length > 0 ? schema.required : Object.keys(properties);
      return Object.fromEntries(names.flatMap((name) => (properties[name] ? [[name, sampleOf(properties[name])]] : [])));
    }
    case 'array':
      return schema.items ? [sampleOf(schema.items)] : [];
    case 'integer':
    case 'number': {
      const minimum = typeof schema.minimum === 'number' ? schema.minimum : 1;
      return typeof schema.maximum === 'number' ? Math.min(Math.max(minimum, 1), schema.maximum) : Math.max(minimum, 1);
    }
    case 'boolean':
      return true;
    case 'string':
      return FORMATS[String(schema.format)] ?? 'string';
    default:
      return {};
  }
}

/** Each JSON body of a success without an example gets one made from its schema. */
function withBodyExamples(operation: Operation): void {
  for (const [status, response] of Object.entries(operation.responses)) {
    const json = response.content?.['application/json'];
    if (!status.startsWith('2') || !json || json.example !== undefined || json.examples !== undefined) continue;
    json.example = sampleOf(json.schema);
  }
}

/** The description as served: declared examples in `t`'s language, and an example of every success body. */
export function finishedExamples(document: OpenApiDocument, t: Translate): OpenApiDocument {
  const finished = localized(document, t) as OpenApiDocument;
  for (const item of Object.values(finished.paths)) {
    for (const [key, operation] of Object.entries(item)) {
      if (key !== '$ref' && key !== 'description' && key !== 'parameters' && isObject(operation)) withBodyExamples(operation as unknown as Operation);
    }
  }
  return finished;
}
