import type { Filter } from 'adminjs';
import { col, fn, Op, where, type WhereOptions } from 'sequelize';
import { parsePk } from '../pk.js';
import type { ResourceDeclaration, BoundResource } from '../types/resource.js';

export type QueryDialect = 'sqlite' | 'postgres';

/** What the list's filters and search read of a resource: its fields, and which of them the search looks in. */
export type Queried = Pick<BoundResource, 'displayFields'> & { declaration: Pick<ResourceDeclaration, 'fields' | 'admin'> };

/** The most rows a list page may ask for. */
export const MAX_PER_PAGE = 500;

/** AdminJS's `{limit, offset}` (and its page and per-page) come from the query string unchecked. */
export function boundedInteger(value: unknown, min: number, max: number, fallback: number): number {
  const number = Number(value);
  return Number.isSafeInteger(number) ? Math.min(Math.max(number, min), max) : fallback;
}

/** Matches no row: a filter value that can name nothing. */
const NOTHING: WhereOptions = { id: null };

/** Case-insensitive "contains", with the text as a bound value: no LIKE wildcards to escape. */
function contains(dialect: QueryDialect, name: string, text: string): WhereOptions {
  const position = dialect === 'postgres' ? 'strpos' : 'instr';
  return where(fn(position, fn('lower', col(name)), fn('lower', text)), Op.gt, 0);
}

function asDate(value: unknown): Date | null {
  if (typeof value !== 'string' || value === '') return null;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? null : date;
}

const NUMBER_TEXT = /^\s*[+-]?(?:\d+\.?\d*|\.\d+)\s*$/;
/** The day a date filter names: its YYYY-MM-DD, also at the head of the ISO time AdminJS's date picker may send. */
const DAY = /^(\d{4}-\d{2}-\d{2})(?:$|T)/;

function asNumber(value: unknown): number | null {
  if (typeof value !== 'string' || !NUMBER_TEXT.test(value)) return null;
  const number = Number(value);
  return Number.isFinite(number) ? number : null;
}

function asPk(value: unknown): number | null {
  return typeof value === 'string' ? parsePk(value.trim()) : null;
}

function asDay(value: unknown): string | null {
  return typeof value === 'string' ? (DAY.exec(value.trim())?.[1] ?? null) : null;
}

/** `{from, to}` as an inclusive range of what `read` makes of each end; undefined when neither end is usable. */
function range<T>(name: string, value: object, read: (end: unknown) => T | null): WhereOptions | undefined {
  const { from, to } = value as { from?: unknown; to?: unknown };
  const bounds: Record<symbol, T> = {};
  const start = read(from);
  const end = read(to);
  if (start !== null) bounds[Op.gte] = start;
  if (end !== null) bounds[Op.lte] = end;
  return start !== null || end !== null ? { [name]: bounds } : undefined;
}

/** One value (exact) or `{from, to}` (a range), as `read` understands each; a single value it cannot read names nothing. */
function exactOrRange<T>(name: string, value: unknown, read: (end: unknown) => T | null): WhereOptions | undefined {
  if (typeof value === 'object' && value !== null) return range(name, value, read);
  if (typeof value !== 'string' || value === '') return undefined;
  const exact = read(value);
  return exact === null ? NOTHING : { [name]: exact };
}

/** One filter value on one declared field; undefined when the value says nothing usable. */
function condition(bound: Queried, dialect: QueryDialect, name: string, value: unknown): WhereOptions | undefined {
  const field = bound.declaration.fields[name];
  if (!field || field.hidden) return undefined;
  switch (field.kind) {
    case 'string':
    case 'text':
      if (typeof value !== 'string' || value === '') return undefined;
      // No stored text holds a NUL, and SQLite would cut the statement at it.
      return value.includes('\u0000') ? NOTHING : contains(dialect, name, value);
    case 'boolean':
      if (value === 'true' || value === 'false') return { [name]: value === 'true' };
      return undefined;
    case 'id':
      // A range too (`filters.id.from`, `filters.id.to`): a list's URL may name a stretch of ids.
      return exactOrRange(name, value, asPk);
    case 'reference': {
      if (typeof value !== 'string' || value === '') return undefined;
      const pk = parsePk(value);
      return pk === null ? NOTHING : { [name]: pk };
    }
    case 'datetime':
      return typeof value === 'object' && value !== null ? range(name, value, asDate) : undefined;
    case 'integer':
    case 'decimal':
      return exactOrRange(name, value, asNumber);
    case 'date':
      // Stored as YYYY-MM-DD text (SQLite) or a date (PostgreSQL): both compare a day's text in calendar order.
      return exactOrRange(name, value, asDay);
    case 'enum':
      if (typeof value !== 'string' || value === '') return undefined;
      return field.choices.includes(value) ? { [name]: value } : NOTHING;
    case 'json':
    case 'manyToMany':
    case 'computed':
      return undefined;
  }
}

/** The list's filters as a WHERE clause: filters on unknown or hidden fields, or with unusable values, are ignored. */
export function listWhere(bound: Queried, dialect: QueryDialect, filter: Filter): WhereOptions {
  const conditions = Object.values(filter.filters ?? {}).flatMap(({ path, value }) => {
    const found = condition(bound, dialect, path, value);
    return found ? [found] : [];
  });
  return conditions.length > 0 ? { [Op.and]: conditions } : {};
}

/** Rows whose declared search fields (default: the display fields) contain the text. */
export function searchWhere(bound: Queried, dialect: QueryDialect, text: string): WhereOptions {
  if (text === '') return {};
  if (text.includes('\u0000')) return NOTHING;
  const declared = bound.declaration.admin?.search ?? bound.displayFields;
  const fields = declared.filter((name) => {
    const field = bound.declaration.fields[name];
    return field && !field.hidden && (field.kind === 'string' || field.kind === 'text');
  });
  const pk = parsePk(text);
  const matches = fields.map((name) => contains(dialect, name, text));
  if (pk !== null) matches.push({ id: pk });
  return matches.length > 0 ? { [Op.or]: matches } : NOTHING;
}
