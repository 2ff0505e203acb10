import { Op, type WhereOptions } from 'sequelize';
import type { OrderedQuery } from './pagination.js';
import type { RowModel } from './registry.js';

/** Rows per query when a whole list is read: about 100 kB of JSON for a comment. */
export const BATCH_SIZE = 1000;

/**
 * The rows that come after `last` in the query's (total) order: for
 * `a DESC, id ASC`, `a < last.a OR (a = last.a AND id > last.id)`. Each batch
 * then starts where the index says, however far into the list it is.
 */
export function after(order: OrderedQuery['order'], last: PlainRow): WhereOptions {
  return {
    [Op.or]: order.map(([name, direction], position) => {
      const equalBefore = Object.fromEntries(order.slice(0, position).map(([earlier]) => [earlier, { [Op.eq]: last[earlier] }]));
      return { ...equalBefore, [name]: { [direction === 'ASC' ? Op.gt : Op.lt]: last[name] } };
    }),
  };
}

/** A row as the driver gives it (`raw: true, nest: true`): included rows nested under their alias. */
export type PlainRow = Record<string, unknown>;

export interface BatchReading {
  model: RowModel;
  query: OrderedQuery;
  /** A NULL in an ordering column defeats comparisons: such lists are read by OFFSET instead. */
  keyset: boolean;
  size?: number;
}

/**
 * Every row of the query, `size` at a time, each batch a query of its own,
 * as plain values: model instances would cost three times the CPU.
 */
export async function* readInBatches({ model, query, keyset, size = BATCH_SIZE }: BatchReading): AsyncGenerator<PlainRow[]> {
  let offset = 0;
  let last: PlainRow | undefined;
  for (;;) {
    const where = last && keyset ? (query.where ? { [Op.and]: [query.where, after(query.order, last)] } : after(query.order, last)) : query.where;
    const found = await model.findAll({ ...query, where, limit: size, offset: keyset ? 0 : offset, raw: true, nest: true });
    const rows = found as unknown as PlainRow[];
    if (rows.length > 0) yield rows;
    if (rows.length < size) return;
    last = rows.at(-1);
    offset += size;
  }
}
