/**
 * A whole list read a batch at a time, each batch a query of its own that
 * starts after the last row of the one before (keyset, see
 * pagination/keyset.ts), so that a list of any length costs the memory of one
 * batch and each batch starts where the ordering's index says.
 */
import { keysetAttributes, keysetCondition, positionOf } from './pagination/keyset.js';
import { alsoWhere } from './pagination/rows.js';
import type { OrderedQuery } from './pagination/types.js';
import type { RowModel } from './registry.js';
import type { FieldDeclaration } from './resource.js';

/** Rows per query when a whole list is read: about 100 kB of JSON for a row of a few short texts. */
export const BATCH_SIZE = 1000;

/** A row as the driver gives it (`raw: true, nest: true`): included rows nested under their alias. */
export type PlainRow = Record<string, unknown>;

type Fields = Readonly<Record<string, FieldDeclaration>>;

export interface BatchReading {
  model: RowModel;
  fields: Fields;
  query: OrderedQuery;
  /** Continue after the last row's values (see `canContinueAfter`), else by OFFSET. */
  keyset: boolean;
  size?: number;
}

/**
 * Whether batches can continue after the last row's values: when every
 * ordering column is a declared NOT NULL column (NULL defeats comparisons).
 * Times compare as the database's own text of them, so they continue too.
 * Other lists are read by OFFSET.
 */
export function canContinueAfter(fields: Fields, order: OrderedQuery['order']): boolean {
  return order.every(([name]) => {
    const field = fields[name];
    return field !== undefined && !field.nullable;
  });
}

/**
 * Every row of the query, `size` at a time, as plain values: model instances
 * would cost three times the CPU.
 */
export async function* readInBatches({ model, fields, query, keyset, size = BATCH_SIZE }: BatchReading): AsyncGenerator<PlainRow[]> {
  const attributes = keysetAttributes(model, query.order, fields);
  let offset = 0;
  let last: PlainRow | undefined;
  for (;;) {
    const place = last && keyset ? keysetCondition(model, query.order, positionOf((name) => last?.[name], query.order, fields)) : undefined;
    const found = await model.findAll({ ...query, where: alsoWhere(query, place), attributes, limit: size, offset: keyset ? 0 : offset, raw: true, nest: true });
    const rows = found as unknown as PlainRow[];
    if (rows.length > 0) yield rows;
    if (rows.length < size) return;
    last = rows.at(-1);
    offset += size;
  }
}
