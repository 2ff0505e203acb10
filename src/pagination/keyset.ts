/**
 * Reading a list after a row's values instead of skipping rows (keyset
 * pagination): a page or a batch deep in a long list costs what the first one
 * does. A time is compared with the database's own text of it (SQLite's
 * stored text, PostgreSQL's microseconds), which each row carries under an
 * alias, since a JavaScript date would round it.
 */
import { cast, col, Op, where as compare, type WhereOptions } from 'sequelize';
import type { FieldDeclaration } from '../resource.js';
import { queryValue } from '../context.js';
import type { RequestState } from '../types/request.js';
import type { Cursor, CursorCodec, CursorValue } from './cursor-codec.js';
import { alsoWhere, reversed } from './rows.js';
import type { ListSource, OrderedQuery } from './types.js';
import type { Row, RowModel } from '../types/rows.js';

type Fields = Readonly<Record<string, FieldDeclaration>>;

/** The alias under which a row carries a time field's text, for the place after it. */
const timeAlias = (field: string): string => `_keyset_${field}`;

/** Every visible column, and each time field of the order as the database's text of it. */
export function keysetAttributes(model: RowModel, order: OrderedQuery['order'], fields: Fields): (string | [ReturnType<typeof cast>, string])[] {
  const visible = Object.keys(model.getAttributes()).filter((name) => !fields[name]?.hidden);
  const times = order.filter(([field]) => fields[field]?.kind === 'datetime').map(([field]) => field);
  return [...visible, ...times.map((field): [ReturnType<typeof cast>, string] => [cast(col(`${model.name}.${field}`), 'TEXT'), timeAlias(field)])];
}

/** The place of a row read with keysetAttributes: its values of the order's fields. */
export function positionOf(value: (name: string) => unknown, order: OrderedQuery['order'], fields: Fields): CursorValue[] {
  return order.map(([field]) => value(fields[field]?.kind === 'datetime' ? timeAlias(field) : field) as CursorValue);
}

/**
 * The rows after `values` in `order` (at or after, when `inclusive`): for
 * `a DESC, id DESC`, `a <= x AND (a < x OR (a = x AND id < y))`. The leading
 * bound lets the database start at the place on the ordering's index instead
 * of walking to it.
 */
export function keysetCondition(model: RowModel, order: OrderedQuery['order'], values: readonly CursorValue[], inclusive = false): WhereOptions {
  const column = (field: string) => col(`${model.name}.${field}`);
  const beyond = (index: number, strict: boolean): WhereOptions => {
    const [field = '', direction] = order[index] ?? [];
    const ascending = direction === 'ASC';
    return compare(column(field), strict ? (ascending ? Op.gt : Op.lt) : ascending ? Op.gte : Op.lte, values[index] ?? null);
  };
  const after = (index: number): WhereOptions => {
    if (index === order.length - 1) return beyond(index, !inclusive);
    const [field = ''] = order[index] ?? [];
    return { [Op.or]: [beyond(index, true), { [Op.and]: [compare(column(field), Op.eq, values[index] ?? null), after(index + 1)] }] };
  };
  if (order.length === 1) return after(0);
  return { [Op.and]: [beyond(0, false), after(0)] };
}

export interface KeysetPage {
  rows: Row[];
  /** Whether more rows lie beyond the page in the direction it was read. */
  more: boolean;
}

/**
 * Up to `limit` rows from the cursor's place (the list's first rows without
 * one), in the list's order. Reading backwards reads the reversed order and
 * turns the rows round.
 */
export async function readKeysetPage(model: RowModel, query: OrderedQuery, fields: Fields, cursor: Cursor | null, limit: number): Promise<KeysetPage> {
  const forward = cursor?.forward ?? true;
  const order = forward ? query.order : reversed(query.order);
  const place = cursor ? keysetCondition(model, order, cursor.values, cursor.inclusive) : undefined;
  const attributes = keysetAttributes(model, query.order, fields);
  const found = await model.findAll({ ...query, where: alsoWhere(query, place), order, limit: limit + 1, attributes });
  const rows = found.slice(0, limit);
  return { rows: forward ? rows : rows.reverse(), more: found.length > limit };
}

/**
 * The places of a page's neighbours: before its first row and after its last,
 * where there are such rows. An empty page reached from a cursor (the rows
 * beyond were deleted meanwhile) points back at the cursor's own place, the
 * row there included, so that a client is never left without a way back.
 */
export function neighbours(page: KeysetPage, cursor: Cursor | null, order: OrderedQuery['order'], fields: Fields): { next: Cursor | null; previous: Cursor | null } {
  const forward = cursor?.forward ?? true;
  const first = page.rows[0];
  const last = page.rows.at(-1);
  const at = (row: Row): CursorValue[] => positionOf((name) => row.get(name), order, fields);
  if (!first || !last) {
    if (!cursor) return { next: null, previous: null };
    const back: Cursor = { values: cursor.values, forward: !forward, inclusive: true };
    return forward ? { next: null, previous: back } : { next: back, previous: null };
  }
  // Coming forward from a place, there are rows before it; coming back, there are rows after it.
  const hasNext = forward ? page.more : cursor !== null;
  const hasPrevious = forward ? cursor !== null : page.more;
  return {
    next: hasNext ? { values: at(last), forward: true } : null,
    previous: hasPrevious ? { values: at(first), forward: false } : null,
  };
}

/**
 * A cursor page as both ecosystems' cursor paginators read it: the cursor a
 * client sent in `cursorParam`, up to `size` rows from its place, and the
 * sealed cursors of the pages before and after (null where there are none).
 */
export async function cursorPage(
  ctx: RequestState,
  { model, fields, query }: Pick<ListSource, 'model' | 'fields' | 'query'>,
  cursors: CursorCodec,
  { cursorParam, size }: { cursorParam: string; size: number },
): Promise<{ rows: Row[]; next: string | null; previous: string | null }> {
  const cursor = cursors.decode(model.name, queryValue(ctx.req, cursorParam) ?? '', query.order, fields);
  const page = await readKeysetPage(model, query, fields, cursor, size);
  const places = neighbours(page, cursor, query.order, fields);
  const sealed = (place: Cursor | null): string | null => (place === null ? null : cursors.encode(model.name, query.order, place));
  return { rows: page.rows, next: sealed(places.next), previous: sealed(places.previous) };
}
