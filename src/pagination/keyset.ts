/**
 * Pages that continue after a row's values instead of skipping rows (keyset
 * pagination), so a page deep in a long list costs what the first one does;
 * and the opaque cursor that carries a place between requests.
 *
 * A cursor is base64url JSON of the ordering fields' values at the row it
 * continues from, in order, and which way it points, as Laravel encodes its
 * own. Times travel as the database's own text of the value (SQLite's stored
 * text, PostgreSQL's microseconds), since a JavaScript date would round them.
 */
import { cast, col, Op, where as compare, type WhereOptions } from 'sequelize';
import { ApiError } from '../errors.js';
import type { Row, RowModel } from '../registry.js';
import type { FieldDeclaration } from '../resource.js';
import { parseTimestamp } from '../timestamps.js';
import { reversed } from './rows.js';
import type { OrderedQuery } from './types.js';

export type CursorValue = string | number | boolean;

/** A place in a list: the values of its ordering fields at one row, and whether the rows wanted come after it or before. */
export interface Cursor {
  values: readonly CursorValue[];
  /** true: the rows after this place (a next page); false: the rows before it (a previous page). */
  forward: boolean;
}

const DIRECTION_KEY = '_pointsToNextItems';
/** Longest cursor read: a cursor holds a few values, never a body of text. */
const MAX_CURSOR_LENGTH = 4096;
const STORED_TIME = /^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?: ?(?:Z|[+-]\d{2}(?::?\d{2})?))?$/;

/** The alias under which a page's rows carry a time field's text for their cursor. */
const cursorAlias = (field: string): string => `_cursor_${field}`;

export function encodeCursor(order: OrderedQuery['order'], cursor: Cursor): string {
  const payload: Record<string, CursorValue> = {};
  order.forEach(([field], index) => {
    const value = cursor.values[index];
    if (value !== undefined) payload[field] = value;
  });
  payload[DIRECTION_KEY] = cursor.forward;
  return Buffer.from(JSON.stringify(payload)).toString('base64url');
}

function validValue(field: FieldDeclaration | undefined, value: unknown): value is CursorValue {
  switch (field?.kind) {
    case 'id':
    case 'reference':
      return typeof value === 'number' && Number.isSafeInteger(value);
    case 'string':
    case 'text':
      return typeof value === 'string' && !value.includes('\u0000');
    case 'boolean':
      return typeof value === 'boolean';
    case 'datetime':
      // A real instant: PostgreSQL fails on the 30th of February where SQLite would only compare text.
      return typeof value === 'string' && STORED_TIME.test(value) && parseTimestamp(value) !== null;
    default:
      return false;
  }
}

/**
 * The cursor a client sent back, checked against the list's ordering: the
 * same fields in the same order, each value of its field's kind. Anything
 * else is the invalid-cursor error; an empty cursor is the first page.
 */
export function decodeCursor(encoded: string, order: OrderedQuery['order'], fields: Readonly<Record<string, FieldDeclaration>>): Cursor | null {
  if (encoded === '') return null;
  let payload: unknown;
  try {
    if (encoded.length > MAX_CURSOR_LENGTH || !/^[A-Za-z0-9_-]+=*$/.test(encoded)) throw new Error('not base64url');
    payload = JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8'));
  } catch {
    throw new ApiError('invalid_cursor');
  }
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) throw new ApiError('invalid_cursor');
  const { [DIRECTION_KEY]: forward, ...values } = payload as Record<string, unknown>;
  const names = Object.keys(values);
  const matches = typeof forward === 'boolean' && names.length === order.length && order.every(([field], index) => names[index] === field);
  if (!matches) throw new ApiError('invalid_cursor');
  const read = order.map(([field]) => values[field]);
  if (!read.every((value, index) => validValue(fields[order[index]?.[0] ?? ''], value))) throw new ApiError('invalid_cursor');
  return { values: read as CursorValue[], forward };
}

/**
 * The rows after `values` in `order`: for `a DESC, id DESC`,
 * `a <= x AND (a < x OR (a = x AND id < y))`. The leading bound lets the
 * database start at the place on the ordering's index instead of walking to it.
 */
export function keysetCondition(model: RowModel, order: OrderedQuery['order'], values: readonly CursorValue[]): WhereOptions {
  const column = (field: string) => col(`${model.name}.${field}`);
  const strict = (index: number): WhereOptions => {
    const [field = '', direction] = order[index] ?? [];
    const value = values[index] ?? null;
    const beyond = compare(column(field), direction === 'ASC' ? Op.gt : Op.lt, value);
    if (index === order.length - 1) return beyond;
    return { [Op.or]: [beyond, { [Op.and]: [compare(column(field), Op.eq, value), strict(index + 1)] }] };
  };
  const [first = '', direction] = order[0] ?? [];
  if (order.length === 1) return strict(0);
  return { [Op.and]: [compare(column(first), direction === 'ASC' ? Op.gte : Op.lte, values[0] ?? null), strict(0)] };
}

export interface KeysetPage {
  rows: Row[];
  /** Whether more rows lie beyond the page in the direction it was read. */
  more: boolean;
}

/** Every visible column, and each time field of the ordering as the database's text of it. */
function attributesWithCursorText(model: RowModel, order: OrderedQuery['order'], fields: Readonly<Record<string, FieldDeclaration>>) {
  const visible = Object.keys(model.getAttributes()).filter((name) => !fields[name]?.hidden);
  const times = order.filter(([field]) => fields[field]?.kind === 'datetime').map(([field]) => field);
  return [...visible, ...times.map((field): [ReturnType<typeof cast>, string] => [cast(col(`${model.name}.${field}`), 'TEXT'), cursorAlias(field)])];
}

/**
 * Up to `limit` rows from the cursor's place (the list's first rows without
 * one), in the list's order. Reading backwards reads the reversed order and
 * turns the rows round.
 */
export async function readKeysetPage(
  model: RowModel,
  query: OrderedQuery,
  fields: Readonly<Record<string, FieldDeclaration>>,
  cursor: Cursor | null,
  limit: number,
): Promise<KeysetPage> {
  const forward = cursor?.forward ?? true;
  const order = forward ? query.order : reversed(query.order);
  const after = cursor ? keysetCondition(model, order, cursor.values) : undefined;
  const where = after ? (query.where ? { [Op.and]: [query.where, after] } : after) : query.where;
  const attributes = attributesWithCursorText(model, query.order, fields);
  const found = await model.findAll({ ...query, where, order, limit: limit + 1, attributes });
  const rows = found.slice(0, limit);
  return { rows: forward ? rows : rows.reverse(), more: found.length > limit };
}

/** The values of a row that a cursor to it carries. */
export function cursorValues(row: Row, order: OrderedQuery['order'], fields: Readonly<Record<string, FieldDeclaration>>): CursorValue[] {
  return order.map(([field]) => {
    const value = fields[field]?.kind === 'datetime' ? row.get(cursorAlias(field)) : row.get(field);
    return value as CursorValue;
  });
}

/** The cursors of a page: to the page before its first row and after its last, where there are such rows. */
export function neighbourCursors(page: KeysetPage, cursor: Cursor | null, order: OrderedQuery['order'], fields: Readonly<Record<string, FieldDeclaration>>) {
  const forward = cursor?.forward ?? true;
  const first = page.rows[0];
  const last = page.rows.at(-1);
  // Coming forward from a place, there are rows before it; coming back, there are rows after it.
  const hasNext = forward ? page.more : cursor !== null;
  const hasPrevious = forward ? cursor !== null : page.more;
  return {
    next: hasNext && last ? encodeCursor(order, { values: cursorValues(last, order, fields), forward: true }) : null,
    previous: hasPrevious && first ? encodeCursor(order, { values: cursorValues(first, order, fields), forward: false }) : null,
  };
}
