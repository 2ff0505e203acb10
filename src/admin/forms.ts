/**
 * A record form as the serializer reads it. AdminJS sends every value as
 * text, and turns some on the way (numbers through Number(), dates into
 * Date objects, arrays flattened as `name.0`, `name.1`, …); this gives each
 * writable field back the value the APIs would have received.
 */
import { FIELD_ERRORS } from '../errors.js';
import type { FieldDeclaration } from '../resource.js';
import { isAdminWritable } from './records.js';
import type { BoundResource } from '../types/resource.js';

/** The serializer's input, and the fields refused before it (field → message key). */
export interface FormInput {
  input: Record<string, unknown>;
  errors: Record<string, string>;
}

const TEXT_KINDS = new Set<FieldDeclaration['kind']>(['string', 'text']);

/** `name.0`, `name.1`, … of a flattened array, in index order; undefined when the form has none. */
function flattenedItems(params: Record<string, unknown>, name: string): unknown[] | undefined {
  const prefix = `${name}.`;
  const items = Object.entries(params)
    .filter(([key]) => key.startsWith(prefix) && /^\d+$/.test(key.slice(prefix.length)))
    .map(([key, value]) => [Number(key.slice(prefix.length)), value] as const)
    .sort(([a], [b]) => a - b);
  return items.length > 0 ? items.map(([, value]) => value) : undefined;
}

/**
 * A many-to-many's ids: the array AdminJS rebuilt, else the flattened
 * items; an emptied selection (AdminJS sends `[]`, a plain form '') clears
 * the links. Empty slots (an item added but never chosen) are skipped.
 */
function formIds(params: Record<string, unknown>, name: string): unknown {
  const whole = Object.hasOwn(params, name) ? params[name] : undefined;
  const items = Array.isArray(whole) ? whole : (flattenedItems(params, name) ?? (whole === '' || whole === null ? [] : whole));
  return Array.isArray(items) ? items.filter((item) => item !== '' && item !== null && item !== undefined) : items;
}

/** A date AdminJS made a Date of (midnight UTC of the day typed) back as YYYY-MM-DD; an invalid one stays unreadable. */
function dateText(value: unknown): unknown {
  if (!(value instanceof Date)) return value;
  return Number.isNaN(value.getTime()) ? 'invalid' : value.toISOString().slice(0, 10);
}

export function formInput(bound: BoundResource, params: Record<string, unknown>): FormInput {
  const input: Record<string, unknown> = {};
  const errors: Record<string, string> = {};
  for (const [name, field] of Object.entries(bound.declaration.fields)) {
    if (!isAdminWritable(field)) continue;
    if (field.kind === 'manyToMany') {
      const ids = formIds(params, name);
      if (ids !== undefined) input[name] = ids;
      continue;
    }
    if (!Object.hasOwn(params, name)) continue;
    const value = params[name];
    // An empty form field of a nullable column means NULL, as in Django's admin; of any other kind it has no value.
    if (value === '' && (field.nullable || !TEXT_KINDS.has(field.kind))) {
      input[name] = null;
      continue;
    }
    if (field.kind === 'date') {
      input[name] = dateText(value);
    } else if (field.kind === 'json' && typeof value === 'string') {
      try {
        input[name] = JSON.parse(value) as unknown;
      } catch {
        errors[name] = FIELD_ERRORS.invalid_json;
      }
    } else {
      input[name] = value;
    }
  }
  return { input, errors };
}
