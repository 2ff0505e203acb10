import type { Filter } from 'adminjs';
import { col, fn, Op, where, type WhereOptions } from 'sequelize';
import type { BoundResource } from '../registry.js';
import { parsePk } from '../pk.js';

export type QueryDialect = 'sqlite' | 'postgres';

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

/** One filter value on one declared field; undefined when the value says nothing usable. */
function condition(bound: BoundResource, dialect: QueryDialect, name: string, value: unknown): WhereOptions | undefined {
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
    case 'reference': {
      if (typeof value !== 'string' || value === '') return undefined;
      const pk = parsePk(value);
      return pk === null ? NOTHING : { [name]: pk };
    }
    case 'datetime': {
      if (typeof value !== 'object' || value === null) return undefined;
      const { from, to } = value as { from?: unknown; to?: unknown };
      const range: Record<symbol, Date> = {};
      const start = asDate(from);
      const end = asDate(to);
      if (start) range[Op.gte] = start;
      if (end) range[Op.lte] = end;
      return start || end ? { [name]: range } : undefined;
    }
  }
}

/** The list's filters as a WHERE clause: filters on unknown or hidden fields, or with unusable values, are ignored. */
export function listWhere(bound: BoundResource, dialect: QueryDialect, filter: Filter): WhereOptions {
  const conditions = Object.values(filter.filters ?? {}).flatMap(({ path, value }) => {
    const found = condition(bound, dialect, path, value);
    return found ? [found] : [];
  });
  return conditions.length > 0 ? { [Op.and]: conditions } : {};
}

/** Rows whose declared search fields (default: the display fields) contain the text. */
export function searchWhere(bound: BoundResource, dialect: QueryDialect, text: string): WhereOptions {
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
