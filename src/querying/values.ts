/**
 * The text of a query parameter turned into what a filter compares with, by
 * the kind of the field it filters, as Django's form fields clean a
 * django-filter value; and a search's text cut into terms, as Django REST
 * Framework's SearchFilter cuts it.
 */
import type { FieldErrorCode, MessageParams } from '../errors.js';
import { parseBoolean } from '../serializers.js';
import type { FieldDeclaration } from '../resource.js';
import type { FilterValue } from './spec.js';
import { indexFinds, TRIGRAM } from './text-search.js';

export type ParsedValue = { value: FilterValue } | { error: FieldErrorCode };

/** One past each end of a 32-bit id: a larger number compares the same, and PostgreSQL's index still serves it. */
const INTEGER_BOUND = 2_147_483_648;
const INTEGER = /^[+-]?\d+$/;
const NUMBER = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?$/i;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;

/** At most this many values in one `in` filter: each is a bound value of the query. */
export const MAX_FILTER_VALUES = 100;
/**
 * Most values of one substring filter shorter than the trigram index finds
 * (src/querying/text-search.ts): each such value is a scan of the table, as
 * each search term is (MAX_SEARCH_TERMS).
 */
export const MAX_SHORT_SUBSTRINGS = 10;
/** A search reads at most this many characters, and this many terms of them. */
export const MAX_SEARCH_LENGTH = 500;
export const MAX_SEARCH_TERMS = 10;

function integerValue(text: string): ParsedValue {
  if (!INTEGER.test(text)) return { error: NUMBER.test(text) ? 'enter_whole_number' : 'enter_number' };
  const value = Number(text);
  return { value: Math.max(-INTEGER_BOUND - 1, Math.min(INTEGER_BOUND, value)) };
}

/**
 * `text` as a value of a `kind` field; `parseTime` reads a date-time in the
 * site's words (naive times in its zone). Text with a NUL is refused: no
 * database stores one, and PostgreSQL fails on it.
 */
export function filterValue(kind: FieldDeclaration['kind'], text: string, parseTime: (text: string) => Date | null): ParsedValue {
  switch (kind) {
    case 'id':
    case 'reference':
    case 'integer':
    case 'manyToMany':
      return integerValue(text.trim());
    case 'decimal':
      return NUMBER.test(text.trim()) ? { value: text.trim() } : { error: 'enter_number' };
    case 'date':
      return ISO_DATE.test(text.trim()) && !Number.isNaN(Date.parse(text.trim())) ? { value: text.trim() } : { error: 'invalid_date' };
    case 'datetime': {
      const time = parseTime(text);
      return time ? { value: time } : { error: 'enter_datetime' };
    }
    case 'boolean': {
      const value = parseBoolean(text.trim());
      return value === undefined ? { error: 'invalid_boolean' } : { value };
    }
    case 'string':
    case 'text':
    case 'enum':
      return text.includes('\u0000') ? { error: 'null_characters' } : { value: text };
    case 'json':
    case 'computed':
      return { error: 'invalid_string' };
  }
}

/** The values of one substring filter: as text, at most MAX_SHORT_SUBSTRINGS of them too short for the trigram index. */
export function substringValues(texts: readonly string[], parseTime: (text: string) => Date | null): ReturnType<typeof filterValues> {
  const read = filterValues('text', texts, parseTime);
  if ('error' in read) return read;
  const short = read.values.filter((value) => !indexFinds(String(value))).length;
  return short > MAX_SHORT_SUBSTRINGS ? { error: 'too_many_short_values', params: { max: MAX_SHORT_SUBSTRINGS, min: TRIGRAM } } : read;
}

/**
 * The values of one filter, read as `kind` (`text` for a substring match):
 * at most MAX_FILTER_VALUES, each of its kind, else the first error.
 */
export function filterValues(kind: FieldDeclaration['kind'], texts: readonly string[], parseTime: (text: string) => Date | null): { values: FilterValue[] } | { error: FieldErrorCode; params?: MessageParams } {
  if (texts.length > MAX_FILTER_VALUES) return { error: 'too_many_values', params: { max: MAX_FILTER_VALUES } };
  const values: FilterValue[] = [];
  for (const text of texts) {
    const parsed = filterValue(kind, text, parseTime);
    if ('error' in parsed) return parsed;
    values.push(parsed.value);
  }
  return { values };
}

/** A comma-separated list, each part trimmed, the empty ones dropped. */
export function commaList(text: string): string[] {
  return text.split(',').map((part) => part.trim()).filter((part) => part !== '');
}

/**
 * Django's smart_split: words apart at white space, a quoted phrase kept
 * whole (with its backslash escapes), quotes inside a word part of it.
 */
const SMART_SPLIT = /(?:[^\s'"]*(?:(?:"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')[^\s'"]*)+)|\S+/gu;

/** A quoted phrase without its quotes, its escaped quotes and backslashes unescaped (Django's unescape_string_literal). */
function unquoted(term: string): string {
  const quote = term[0] ?? '';
  return term.slice(1, -1).replaceAll(`\\${quote}`, quote).replaceAll('\\\\', '\\');
}

/**
 * The terms of a search, as Django REST Framework 3.15's SearchFilter reads
 * them: NUL characters dropped, split at white space keeping quoted phrases,
 * unquoted words split again at commas; empty terms dropped. At most
 * MAX_SEARCH_TERMS terms of the first MAX_SEARCH_LENGTH characters.
 */
export function searchTerms(text: string): string[] {
  // Most lists are asked without a search: no split, no regular expression.
  if (text === '') return [];
  const terms: string[] = [];
  const read = [...text.replaceAll('\u0000', '')].slice(0, MAX_SEARCH_LENGTH).join('');
  for (const [bit] of read.matchAll(SMART_SPLIT)) {
    const term = bit.replace(/^,+|,+$/g, '');
    const quote = term[0];
    if ((quote === '"' || quote === "'") && term.length >= 2 && term.endsWith(quote)) terms.push(unquoted(term));
    else terms.push(...term.split(',').map((part) => part.trim()));
  }
  return terms.filter((term) => term !== '').slice(0, MAX_SEARCH_TERMS);
}
