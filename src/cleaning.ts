/**
 * What each kind of field accepts from a request, as Django REST Framework's
 * fields clean their input: a value of the column's type, or an error code.
 * Existence of referenced rows is the serializer's to check, for all rows at once.
 */
import validator from 'validator';
import type { FieldErrorCode, MessageParams } from './errors.js';
import { parseJson } from './parsers.js';
import { readStoredTime, storedTimeText } from './instant.js';
import { parseTimestamp } from './timestamps.js';
import type { ColumnField, FieldDeclaration, ManyToManyField, StringField } from './fields.js';

export interface WritableField {
  name: string;
  field: ColumnField | ManyToManyField;
  required: boolean;
  allowBlank: boolean;
  maxLength: number | undefined;
  /** A number is taken as its text; else a text field refuses it. */
  numbersAsText: boolean;
}

export type Cleaned = { value: unknown } | { error: FieldErrorCode; params?: MessageParams };

const USERNAME = /^[\p{L}\p{N}_.@+-]+$/u;
/** A UTF-16 half with no partner: not text, and PostgreSQL would refuse it. */
const LONE_SURROGATE = /\p{Cs}/u;
// Django REST Framework's BooleanField spellings.
const TRUE_VALUES = new Set<unknown>([true, 1, '1', 't', 'T', 'y', 'Y', 'yes', 'Yes', 'YES', 'true', 'True', 'TRUE', 'on', 'On', 'ON']);
const FALSE_VALUES = new Set<unknown>([false, 0, '0', 'f', 'F', 'n', 'N', 'no', 'No', 'NO', 'false', 'False', 'FALSE', 'off', 'Off', 'OFF']);
/** The column is a 32-bit integer on both databases. */
const INT_MIN = -2_147_483_648;
const INT_MAX = 2_147_483_647;
const INTEGER_TEXT = /^\s*[+-]?\d+(?:\.0*)?\s*$/;
/** An id as text: digits only (Django's int() of a pk, Laravel's integer rule: `1.0` is no id). */
const ID_TEXT = /^\s*[+-]?\d+\s*$/;
const DECIMAL_TEXT = /^\s*([+-])?(\d*)(?:\.(\d*))?\s*$/;
const DATE_TEXT = /^(\d{4})-(\d{2})-(\d{2})$/;
const MAX_IDS = 1000;

/** A JSON value's kind as Django REST Framework names it in messages (`list`, `null`, `number`, …). */
export function typeName(value: unknown): string {
  if (value === null) return 'null';
  return Array.isArray(value) ? 'list' : typeof value;
}

/**
 * A raw column value as the model would give it: SQLite keeps times and
 * JSON as text and booleans as numbers; `sqlite` says whether it came from there.
 */
export function fromStored(field: FieldDeclaration | undefined, value: unknown, sqlite: boolean): unknown {
  if (field?.kind === 'datetime' && typeof value === 'string') return readStoredTime(value);
  if (field?.kind === 'boolean' && typeof value === 'number') return value !== 0;
  if (field?.kind === 'json' && sqlite && typeof value === 'string') return JSON.parse(value);
  return value;
}

/**
 * A model's value as a statement binds it, written as Sequelize writes it
 * (its stored text is what reads, orders and ETags see): a time as
 * `YYYY-MM-DD HH:MM:SS.mmm[uuu] +00:00` (storedTimeText), JSON as its text; SQLite takes booleans
 * as 1 and 0. fromStored reads each back.
 */
export function toStored(field: FieldDeclaration | undefined, value: unknown, sqlite: boolean): unknown {
  if (value === null || value === undefined) return null;
  if (field?.kind === 'datetime' && value instanceof Date) return storedTimeText(value);
  if (field?.kind === 'json') return JSON.stringify(value);
  if (field?.kind === 'boolean' && sqlite) return value ? 1 : 0;
  return value;
}

/** A decimal as Django REST Framework shows it: a string with exactly `places` decimals ("12.50"). */
export function formatDecimal(value: unknown, places: number): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'number') return value.toFixed(places);
  const match = DECIMAL_TEXT.exec(String(value));
  if (!match) return String(value);
  const [, sign = '', whole = '', fraction = ''] = match;
  const shown = places > 0 ? `${whole || '0'}.${fraction.padEnd(places, '0').slice(0, places)}` : whole || '0';
  return sign === '-' ? `-${shown}` : shown;
}

function codePoints(text: string): number {
  let count = 0;
  for (const _ of text) count += 1;
  return count;
}

export function cleanString(spec: WritableField, raw: unknown): Cleaned {
  if (typeof raw !== 'string' && (typeof raw !== 'number' || !spec.numbersAsText || !Number.isFinite(raw))) {
    return { error: 'invalid_string' };
  }
  const value = String(raw).trim();
  if (LONE_SURROGATE.test(value)) return { error: 'invalid_string' };
  if (value.includes('\u0000')) return { error: 'null_characters' };
  if (value === '') return spec.allowBlank ? { value } : { error: 'blank' };
  if (spec.maxLength !== undefined && codePoints(value) > spec.maxLength) {
    return { error: 'max_length', params: { max_length: spec.maxLength } };
  }
  const format = (spec.field as StringField).format;
  if (format === 'email' && !validator.isEmail(value)) return { error: 'invalid_email' };
  if (format === 'username' && !USERNAME.test(value)) return { error: 'invalid_username' };
  return { value };
}

/** A boolean in any spelling Django REST Framework accepts; undefined for anything else. */
export function parseBoolean(raw: unknown): boolean | undefined {
  if (TRUE_VALUES.has(raw)) return true;
  if (FALSE_VALUES.has(raw)) return false;
  return undefined;
}

function cleanBoolean(raw: unknown): Cleaned {
  const value = parseBoolean(raw);
  return value === undefined ? { error: 'invalid_boolean' } : { value };
}

/** An integer as a number or its text ("12", "12.0"), never a boolean or a fraction. */
function wholeNumber(raw: unknown): number | undefined {
  if (typeof raw === 'number') return Number.isSafeInteger(raw) ? raw : undefined;
  if (typeof raw === 'string' && INTEGER_TEXT.test(raw)) {
    const value = Number.parseInt(raw.trim(), 10);
    return Number.isSafeInteger(value) ? value : undefined;
  }
  return undefined;
}

function inRange(value: number, min: number | undefined, max: number | undefined): Cleaned {
  if (min !== undefined && value < min) return { error: 'min_value', params: { min_value: min } };
  if (max !== undefined && value > max) return { error: 'max_value', params: { max_value: max } };
  return { value };
}

function cleanInteger(field: { min?: number; max?: number }, raw: unknown): Cleaned {
  const value = wholeNumber(raw);
  if (value === undefined) return { error: 'invalid_integer' };
  return inRange(value, Math.max(field.min ?? INT_MIN, INT_MIN), Math.min(field.max ?? INT_MAX, INT_MAX));
}

/** A decimal kept as text, so that no digit is lost to floating point on the way to the column. */
function cleanDecimal(field: { maxDigits: number; decimalPlaces: number; min?: number; max?: number }, raw: unknown): Cleaned {
  if (typeof raw !== 'string' && (typeof raw !== 'number' || !Number.isFinite(raw))) return { error: 'invalid_decimal' };
  const match = DECIMAL_TEXT.exec(String(raw));
  if (!match || (match[2] === '' && (match[3] ?? '') === '')) return { error: 'invalid_decimal' };
  const [, sign = '', whole = '', fraction = ''] = match;
  const places = fraction.replace(/0+$/, '').length;
  const digits = whole.replace(/^0+/, '').length + places;
  if (places > field.decimalPlaces) return { error: 'max_decimal_places', params: { max_decimal_places: field.decimalPlaces } };
  if (digits > field.maxDigits) return { error: 'max_digits', params: { max_digits: field.maxDigits } };
  const text = formatDecimal(`${sign}${whole || '0'}.${fraction}`, field.decimalPlaces) ?? '0';
  const ranged = inRange(Number(text), field.min, field.max);
  return 'error' in ranged ? ranged : { value: text };
}

function cleanDate(raw: unknown): Cleaned {
  const match = typeof raw === 'string' ? DATE_TEXT.exec(raw.trim()) : null;
  if (!match) return { error: 'invalid_date' };
  const [, year, month, day] = match.map(Number) as [number, number, number, number];
  const date = new Date(Date.UTC(year, month - 1, day));
  const real = date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
  return real ? { value: match[0] } : { error: 'invalid_date' };
}

/** A primary key as Django REST Framework's PrimaryKeyRelatedField reads one: a positive integer or its text. */
export function cleanId(raw: unknown): Cleaned {
  if (typeof raw === 'boolean' || (typeof raw !== 'number' && typeof raw !== 'string')) return { error: 'incorrect_type', params: { data_type: typeName(raw) } };
  // Text that is no whole number is no id at all, as Django's lookup of it fails (DRF's incorrect_type).
  if (typeof raw === 'string' && !ID_TEXT.test(raw)) return { error: 'incorrect_type', params: { data_type: typeName(raw) } };
  const value = wholeNumber(raw);
  // An id no row can have is an id of no row.
  if (value === undefined || value < 1 || value > INT_MAX) return { error: 'does_not_exist', params: { pk_value: String(raw).slice(0, 64) } };
  return { value };
}

/** A many-to-many's list of ids, each read as an id, without repeats; a form sends them separated by commas. */
function cleanIds(raw: unknown): Cleaned {
  if (typeof raw === 'string') raw = raw.trim() === '' ? [] : raw.split(',').map((id) => id.trim());
  if (!Array.isArray(raw)) return { error: 'not_a_list', params: { input_type: typeName(raw) } };
  if (raw.length > MAX_IDS) return { error: 'too_many_values', params: { max: MAX_IDS } };
  const ids: number[] = [];
  for (const item of raw) {
    const cleaned = cleanId(item);
    if ('error' in cleaned) return cleaned;
    if (!ids.includes(cleaned.value as number)) ids.push(cleaned.value as number);
  }
  return { value: ids };
}

/**
 * A value of `spec`'s kind from what a request sent (never null nor
 * undefined: the serializer handles those). A form sends text only: there
 * an empty value of a nullable field that is no text is null, and JSON is its text.
 */
export function cleanValue(spec: WritableField, raw: unknown, form = false): Cleaned {
  const { field } = spec;
  if (form && raw === '' && field.nullable && field.kind !== 'string' && field.kind !== 'text') return { value: null };
  if (form && field.kind === 'json' && typeof raw === 'string') {
    try {
      // As a JSON body is read: nesting too deep for the writes that follow is invalid too.
      return { value: parseJson(raw) };
    } catch {
      return { error: 'invalid_json' };
    }
  }
  switch (field.kind) {
    case 'string':
    case 'text':
      return cleanString(spec, raw);
    case 'boolean':
      return cleanBoolean(raw);
    case 'integer':
      return cleanInteger(field, raw);
    case 'decimal':
      return cleanDecimal(field, raw);
    case 'enum': {
      const value = typeof raw === 'string' || typeof raw === 'number' ? String(raw) : undefined;
      return value !== undefined && field.choices.includes(value) ? { value } : { error: 'invalid_choice', params: { input: String(raw).slice(0, 64) } };
    }
    case 'date':
      return cleanDate(raw);
    case 'json':
      return { value: raw };
    case 'reference':
      return cleanId(raw);
    case 'manyToMany':
      return cleanIds(raw);
    case 'datetime': {
      const time = typeof raw === 'string' ? parseTimestamp(raw.trim()) : null;
      return time ? { value: time } : { error: 'invalid_datetime' };
    }
    case 'id':
      return { error: 'invalid_string' };
  }
}
