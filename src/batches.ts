import { Op, type WhereOptions } from 'sequelize';
import type { OrderedQuery } from './pagination/types.js';
import type { RowModel } from './registry.js';
import type { FieldDeclaration } from './resource.js';

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
  /** Continue after the last row's values (see `canContinueAfter`), else by OFFSET. */
  keyset: boolean;
  size?: number;
}

/** Kinds whose values come back from the driver exactly as the database compares them. */
const EXACT_KINDS: ReadonlySet<FieldDeclaration['kind']> = new Set(['id', 'reference', 'string', 'text']);

/**
 * Whether batches can continue after the last row's values: only when every
 * ordering column is NOT NULL (NULL defeats comparisons) and of a kind whose
 * values round-trip exactly. A time does not: SQLite keeps whatever text was
 * written and PostgreSQL microseconds, while the driver gives milliseconds
 * that Sequelize writes back in its own format. Such lists are read by OFFSET.
 */
export function canContinueAfter(fields: Readonly<Record<string, FieldDeclaration>>, order: OrderedQuery['order']): boolean {
  return order.every(([name]) => {
    const field = fields[name];
    return field !== undefined && !field.nullable && EXACT_KINDS.has(field.kind);
  });
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
