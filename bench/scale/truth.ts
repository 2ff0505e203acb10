/**
 * What the server's answers must be, read from the database directly with
 * the harness's own connection (plain SQL, the same on both databases), so
 * that a case checks the server against the database and not against itself.
 */
import type { SqlClient } from '../lib/database.js';

/** The root site's default list order (resources/comment.ts): newest edit first. */
export const DEFAULT_ORDER_SQL = 'updated_at DESC, id DESC';

/** The ids of the first `limit` comments matching `where` in `order` (SQL). */
export async function firstIds(client: SqlClient, order: string, limit: number, where = 'TRUE', params: readonly (string | number)[] = []): Promise<number[]> {
  const rows = await client.rows<{ id: number }>(`SELECT id FROM comments WHERE ${where} ORDER BY ${order} LIMIT ?`, [...params, limit]);
  return rows.map((row) => Number(row.id));
}

/** Integers written into SQL (an IN list of a thousand is no statement to bind one by one). */
export function sqlIntegers(values: readonly number[]): string {
  if (!values.every(Number.isSafeInteger)) throw new Error('not integers');
  return values.length === 0 ? 'NULL' : values.join(', ');
}

/** A row of an order with its time as the database's own text: what a cursor to it carries. */
export interface PlacedRow {
  id: number;
  updated: string;
}

/**
 * The rows at `positions` (0: the first) of the list in `order` (SQL on
 * updated_at and id), by position: one pass over the table for them all, not
 * an OFFSET walk for each.
 */
export async function rowsAtPositions(client: SqlClient, order: string, positions: readonly number[]): Promise<Map<number, PlacedRow>> {
  const rows = await client.rows<PlacedRow & { position: number | string }>(
    `SELECT id, updated, position FROM (SELECT id, CAST(updated_at AS TEXT) AS updated, row_number() OVER (ORDER BY ${order}) - 1 AS position FROM comments) AS ranked ` +
      `WHERE position IN (${sqlIntegers(positions)})`,
  );
  // PostgreSQL's row_number() is a bigint, which `pg` gives as text.
  return new Map(rows.map((row) => [Number(row.position), { id: Number(row.id), updated: row.updated }]));
}

/** A list order a client can ask: its `?ordering=` (null: the default) and its SQL; the server breaks ties by id in the same direction. */
export interface Ordering {
  ordering: string | null;
  sql: string;
}

/** The fields `?ordering=` allows on comments (resources/comment.ts; not created_at, which the root site does not show). */
const ORDERING_FIELDS = ['id', 'title', 'updated_at'] as const;

/** `?ordering=F` and `-F` for every field, ascending first. */
export const ORDERINGS: readonly Ordering[] = ORDERING_FIELDS.flatMap((field) =>
  (['ASC', 'DESC'] as const).map((direction) => ({
    ordering: `${direction === 'DESC' ? '-' : ''}${field}`,
    sql: field === 'id' ? `id ${direction}` : `${field} ${direction}, id ${direction}`,
  })),
);

export const DEFAULT_ORDERING: Ordering = { ordering: null, sql: DEFAULT_ORDER_SQL };
