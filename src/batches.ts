import { Op, type WhereOptions } from 'sequelize';
import type { OrderedQuery } from './pagination.js';
import type { Row, RowModel } from './registry.js';

/** Rows per query when a whole list is read: about 100 kB of JSON for a comment. */
export const BATCH_SIZE = 1000;

/**
 * The rows that come after `last` in the query's (total) order: for
 * `a DESC, id ASC`, `a < last.a OR (a = last.a AND id > last.id)`. Each batch
 * then starts where the index says, however far into the list it is.
 */
export function after(order: OrderedQuery['order'], last: Row): WhereOptions {
  return {
    [Op.or]: order.map(([name, direction], position) => {
      const equalBefore = Object.fromEntries(order.slice(0, position).map(([earlier]) => [earlier, { [Op.eq]: last.get(earlier) }]));
      return { ...equalBefore, [name]: { [direction === 'ASC' ? Op.gt : Op.lt]: last.get(name) } };
    }),
  };
}

export interface BatchReading {
  model: RowModel;
  query: OrderedQuery;
  /** A NULL in an ordering column defeats comparisons: such lists are read by OFFSET instead. */
  keyset: boolean;
  size?: number;
}

/** Every row of the query, `size` at a time, each batch a query of its own. */
export async function* readInBatches({ model, query, keyset, size = BATCH_SIZE }: BatchReading): AsyncGenerator<Row[]> {
  let offset = 0;
  let last: Row | undefined;
  for (;;) {
    const where = last && keyset ? (query.where ? { [Op.and]: [query.where, after(query.order, last)] } : after(query.order, last)) : query.where;
    const rows = await model.findAll({ ...query, where, limit: size, offset: keyset ? 0 : offset });
    if (rows.length > 0) yield rows;
    if (rows.length < size) return;
    last = rows.at(-1);
    offset += size;
  }
}
