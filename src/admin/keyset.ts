/**
 * An admin list read a batch after the other (the CSV export, export.ts):
 * each batch starts after the place of the last row read, in the list's
 * order of (the sort column, the key), so that a row inserted, deleted or
 * moved between two batches shifts no other row out of the reading or into
 * it twice, as reading by OFFSET would.
 *
 * A place's value is the database's own text of the sort column, compared
 * as pagination/keyset.ts compares it: a JavaScript date would round
 * PostgreSQL's microseconds (and SQLite compares whatever text was written),
 * so a row sharing a millisecond with the last one read would be skipped or
 * read again. Both databases coerce the text back to the column's type.
 *
 * NULL matches no comparison, so empty values are a segment of their own:
 * after every value, as PostgreSQL sorts them by default (last ascending,
 * first descending) and SQLite is told to.
 */
import type { BaseRecord, Filter } from 'adminjs';
import { cast, col, Op, where as compare, type WhereOptions } from 'sequelize';
import type { CursorValue } from '../pagination/cursor-codec.js';
import { keysetCondition } from '../pagination/keyset.js';
import type { Row, RowModel } from '../types/rows.js';

export interface ListSort {
  sortBy: string;
  direction: 'asc' | 'desc';
}

/** A row's place in its list: its sort column's text (null when empty) and its key. */
export interface ListPlace {
  value: CursorValue | null;
  key: CursorValue;
}

/** A batch of a list, and the place of its last row (null when the batch is empty). */
export interface ListBatch {
  records: BaseRecord[];
  last: ListPlace | null;
}

/** A resource whose list can be read a batch after the other: the sort is the list's, the key breaks its ties. */
export interface ReadsAfter {
  findAfter(filter: Filter, sort: ListSort, after: ListPlace | null, limit: number): Promise<ListBatch>;
}

export function readsAfter(resource: object): resource is ReadsAfter {
  return typeof (resource as Partial<ReadsAfter>).findAfter === 'function';
}

/** The alias under which a row read here carries its place's value. */
const PLACE = '_list_place';

type Direction = 'ASC' | 'DESC';

const directionOf = (sort: ListSort): Direction => (sort.direction === 'desc' ? 'DESC' : 'ASC');
const nullable = (model: RowModel, attribute: string): boolean => model.getAttributes()[attribute]?.allowNull !== false;

/**
 * The order of a list sorted by `sort.sortBy` (an attribute of `model`):
 * empty values after every other, then the key in the same direction, so
 * that descending is ascending reversed.
 */
export function listOrder(model: RowModel, sort: ListSort): [string, string][] {
  const key = model.primaryKeyAttribute;
  const direction = directionOf(sort);
  if (sort.sortBy === key) return [[key, direction]];
  const nulls = nullable(model, sort.sortBy) ? (direction === 'ASC' ? ' NULLS LAST' : ' NULLS FIRST') : '';
  return [
    [sort.sortBy, `${direction}${nulls}`],
    [key, direction],
  ];
}

/** The rows after `place` in the list's order. */
function afterPlace(model: RowModel, sort: ListSort, place: ListPlace): WhereOptions {
  const key = model.primaryKeyAttribute;
  const direction = directionOf(sort);
  const keyAfter = keysetCondition(model, [[key, direction]], [place.key]);
  if (sort.sortBy === key) return keyAfter;
  const column = col(`${model.name}.${sort.sortBy}`);
  if (place.value === null) {
    // Within the empty values by key; descending, every value is still to come.
    const emptyAfter = { [Op.and]: [compare(column, Op.is, null), keyAfter] };
    return direction === 'ASC' ? emptyAfter : { [Op.or]: [emptyAfter, compare(column, Op.not, null)] };
  }
  const valueAfter = keysetCondition(
    model,
    [
      [sort.sortBy, direction],
      [key, direction],
    ],
    [place.value, place.key],
  );
  // Ascending, the empty values are still to come.
  return direction === 'ASC' && nullable(model, sort.sortBy) ? { [Op.or]: [valueAfter, compare(column, Op.is, null)] } : valueAfter;
}

/**
 * Up to `limit` rows of the list `where` selects, sorted by `sort.sortBy`
 * (an attribute of `model`), after `after` (from the start when null); and
 * the place of the last one.
 */
export async function readAfter(model: RowModel, where: WhereOptions, sort: ListSort, after: ListPlace | null, limit: number): Promise<{ rows: Row[]; last: ListPlace | null }> {
  const place = after ? afterPlace(model, sort, after) : undefined;
  const rows = await model.findAll({
    where: place ? { [Op.and]: [where, place] } : where,
    order: listOrder(model, sort),
    limit,
    attributes: { include: [[cast(col(`${model.name}.${sort.sortBy}`), 'TEXT'), PLACE]] },
  });
  const last = rows.at(-1);
  const placeOf = (row: Row): ListPlace => ({ value: (row.get(PLACE) ?? null) as CursorValue | null, key: row.get(model.primaryKeyAttribute) as CursorValue });
  const found = { rows, last: last ? placeOf(last) : null };
  // The rows become records: the place's text is no value of theirs.
  for (const row of rows) delete (row.dataValues as Record<string, unknown>)[PLACE];
  return found;
}
