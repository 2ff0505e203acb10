import type { ComputedType, FieldDeclaration, StringField } from '../resource.js';
import type { Expansion } from '../relations/loader.js';
import type { Serializer, ShownField } from '../serializers.js';
import { declaredExample } from './examples.js';
import type { JsonSchema } from './types.js';
import type { BoundResource } from '../types/resource.js';

/** Django REST Framework's BooleanField spellings that forms send; JSON clients send true or false. */
const FORM_BOOLEANS = ['true', 'false', '1', '0', 'on', 'off', 'yes', 'no'];

function nullable(schema: JsonSchema, isNullable: boolean | undefined): JsonSchema {
  if (!isNullable || typeof schema.type !== 'string') return schema;
  return { ...schema, type: [schema.type, 'null'], ...(Array.isArray(schema.enum) ? { enum: [...(schema.enum as unknown[]), null] } : {}) };
}

/** International addresses (`ユーザー@例え.jp`) are accepted, so not JSON Schema's ASCII-only `email`. */
function stringFormat(field: StringField): string | undefined {
  return field.format === 'email' ? 'idn-email' : undefined;
}

/** A typical value of a field its declaration gives none: one its kind implies. */
function impliedExample(field: FieldDeclaration, timestamp: JsonSchema): unknown {
  switch (field.kind) {
    case 'id':
    // The row of id 1 that every example shows (the account of a row's owner too).
    case 'reference':
      return 1;
    case 'boolean':
      return field.default ?? true;
    case 'datetime':
      return timestamp.example;
    default:
      return undefined;
  }
}

/** How a row of `resource` is named where another row shows it (as its declared example, if any). */
function displayExample(resource: BoundResource): JsonSchema {
  for (const name of resource.displayFields) {
    const field = resource.declaration.fields[name];
    if (field?.example !== undefined) return declaredExample(resource.key, name, field.example);
  }
  return {};
}

function columnSchema(field: FieldDeclaration, timestamp: JsonSchema): JsonSchema {
  switch (field.kind) {
    case 'id':
    case 'reference':
      return { type: 'integer' };
    case 'integer':
      return bounded({ type: 'integer' }, field.min, field.max);
    case 'decimal':
      return { type: 'string', format: 'decimal', pattern: decimalPattern(field.maxDigits, field.decimalPlaces) };
    case 'enum':
      return { type: 'string', enum: [...field.choices] };
    case 'json':
      return {};
    case 'date':
      return { type: 'string', format: 'date' };
    case 'string':
    case 'text': {
      const format = stringFormat(field);
      return format ? { type: 'string', format } : { type: 'string' };
    }
    case 'boolean':
      return { type: 'boolean' };
    case 'datetime':
      return { ...timestamp };
    case 'manyToMany':
      return { type: 'array', items: { type: 'integer' } };
    case 'computed':
      return computedSchema(field.type, timestamp);
  }
}

function bounded(schema: JsonSchema, minimum: number | undefined, maximum: number | undefined): JsonSchema {
  return { ...schema, ...(minimum !== undefined ? { minimum } : {}), ...(maximum !== undefined ? { maximum } : {}) };
}

/** A decimal as Django REST Framework writes it: a string of at most maxDigits digits, decimalPlaces of them after the point. */
function decimalPattern(maxDigits: number, decimalPlaces: number): string {
  const whole = maxDigits - decimalPlaces;
  return decimalPlaces > 0 ? `^-?\\d{1,${Math.max(whole, 1)}}(\\.\\d{1,${decimalPlaces}})?$` : `^-?\\d{1,${whole}}$`;
}

function computedSchema(type: ComputedType, timestamp: JsonSchema): JsonSchema {
  switch (type) {
    case 'integer':
      return { type: 'integer' };
    case 'decimal':
      return { type: 'string', format: 'decimal' };
    case 'string':
      return { type: 'string' };
    case 'boolean':
      return { type: 'boolean' };
    case 'datetime':
      return { ...timestamp };
    case 'date':
      return { type: 'string', format: 'date' };
    case 'json':
      return {};
  }
}

function shownSchema(resourceKey: string, shown: ShownField, timestamp: JsonSchema): JsonSchema {
  // A row whose referenced row is gone (an imported row whose owner was not brought over) shows null.
  if (shown.kind === 'reference') return { type: ['string', 'null'], ...displayExample(shown.resource) };
  const schema = nullable(columnSchema(shown.field, timestamp), shown.field.nullable);
  if (shown.field.readOnly || shown.field.kind === 'id') schema.readOnly = true;
  if (shown.field.example !== undefined) return { ...schema, ...declaredExample(resourceKey, shown.name, shown.field.example) };
  const example = impliedExample(shown.field, timestamp);
  return example === undefined ? schema : { ...schema, example };
}

/** What `represent` gives: every shown field and nothing else (a leaked column fails the contract). */
export function representationSchema(serializer: Serializer, timestamp: JsonSchema): JsonSchema {
  const shown = serializer.shownFields();
  const key = serializer.resource.key;
  return {
    type: 'object',
    properties: Object.fromEntries(shown.map((field) => [field.name, shownSchema(key, field, timestamp)])),
    required: shown.map((field) => field.name),
    additionalProperties: false,
  };
}

/** What a write accepts of one field: JSON's own types, or the text a form carries. */
function inputTypeSchema(shown: WritableShown, form: boolean): JsonSchema {
  const { field, writable } = shown;
  const text: JsonSchema = { type: 'string' };
  switch (field.kind) {
    case 'boolean':
      return form ? { type: 'string', enum: FORM_BOOLEANS } : { type: 'boolean' };
    case 'integer':
      return form ? { type: 'string', pattern: '^[+-]?\\d+$' } : bounded({ type: 'integer' }, field.min, field.max);
    case 'reference':
      return form ? { type: 'string', pattern: '^\\d+$' } : { type: 'integer', minimum: 1 };
    case 'decimal':
      return form ? { type: 'string', pattern: decimalPattern(field.maxDigits, field.decimalPlaces) } : { type: ['string', 'number'] };
    case 'enum':
      return { type: 'string', enum: [...field.choices] };
    case 'json':
      return form ? text : {};
    case 'date':
      return { type: 'string', format: 'date' };
    case 'datetime':
      return { type: 'string', format: 'date-time' };
    case 'manyToMany':
      return { type: 'array', items: form ? { type: 'string', pattern: '^\\d+$' } : { type: 'integer', minimum: 1 } };
    default: {
      const format = field.kind === 'string' ? stringFormat(field) : undefined;
      if (format) text.format = format;
      // Blank after trimming is refused unless the field defaults to blank.
      if (!writable?.allowBlank) text.minLength = 1;
      if (writable?.maxLength !== undefined) text.maxLength = writable.maxLength;
      return text;
    }
  }
}

function inputFieldSchema(resourceKey: string, shown: WritableShown, form: boolean): JsonSchema {
  const { field } = shown;
  const schema = inputTypeSchema(shown, form);
  const described = form ? schema : nullable(schema, field.nullable);
  return { ...described, ...declaredExample(resourceKey, shown.name, field.example) };
}

type WritableShown = Extract<ShownField, { kind: 'column' }>;

/** The fields a write accepts, in order. */
function writableShown(serializer: Serializer): WritableShown[] {
  return serializer.shownFields().flatMap((shown) => (shown.kind === 'column' && shown.writable ? [shown] : []));
}

/**
 * What `validate` accepts: the writable fields with their limits (code points,
 * as JSON Schema counts them), all required ones unless `partial` (PATCH).
 * Forms carry text only, so a form's booleans are their spellings.
 */
export function inputSchema(serializer: Serializer, { partial, form }: { partial: boolean; form: boolean }): JsonSchema {
  const writable = writableShown(serializer);
  const required = partial ? [] : writable.filter((shown) => shown.writable?.required).map((shown) => shown.name);
  return {
    type: 'object',
    properties: Object.fromEntries(writable.map((shown) => [shown.name, inputFieldSchema(serializer.resource.key, shown, form)])),
    ...(required.length > 0 ? { required } : {}),
  };
}

/** The writable fields' names: those a validation error may name. */
export function writableFields(serializer: Serializer): string[] {
  return writableShown(serializer).map((shown) => shown.name);
}

/**
 * A validation error's messages by field, as both sites write them: the
 * fields a write accepts, and `non_field_errors` for a body that is no object.
 */
export function fieldMessagesSchema(fields: readonly string[]): Record<string, JsonSchema> {
  const messages: JsonSchema = { type: 'array', items: { type: 'string' }, minItems: 1 };
  return Object.fromEntries([...fields, 'non_field_errors'].map((field) => [field, messages]));
}

/** The shape of one expansion: the related rows as the site shows them, or their display names. */
function expandedSchema(expansion: Expansion, timestamp: JsonSchema): JsonSchema {
  const { shape } = expansion;
  const one: JsonSchema =
    shape.kind === 'rows' ? withExpansions(representationSchema(shape.serializer, timestamp), shape.plan.expansions, timestamp) : { type: 'string' };
  if (expansion.relation.kind === 'reference') return expansion.shape.kind === 'rows' ? { anyOf: [one, { type: 'null' }] } : { type: ['string', 'null'] };
  return { type: 'array', items: one };
}

/**
 * An item with the relations a request may expand (`?expand=`, `include=`):
 * each there only when asked for; a many-to-many's ids then become its rows.
 */
export function withExpansions(item: JsonSchema, expansions: readonly Expansion[], timestamp: JsonSchema): JsonSchema {
  if (expansions.length === 0) return item;
  const properties = { ...item.properties };
  for (const expansion of expansions) {
    const expanded = expandedSchema(expansion, timestamp);
    const own = properties[expansion.name];
    properties[expansion.name] = own ? { anyOf: [own, expanded] } : expanded;
  }
  return { ...item, properties };
}

/** The related lists the `current` action shows, by name, and the row with them inside it. */
export function withRelatedLists(item: JsonSchema, included: Record<string, JsonSchema>): { lists: Record<string, JsonSchema>; row: JsonSchema } {
  const lists = Object.fromEntries(Object.entries(included).map(([name, schema]): [string, JsonSchema] => [name, { type: 'array', items: schema }]));
  const properties = { ...item.properties, ...lists };
  return { lists, row: { ...item, properties, required: Object.keys(properties) } };
}
