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

/** A row of the default order with its time as the database's own text: what a cursor to it carries. */
export interface PlacedRow {
  id: number;
  updated: string;
}

/** `limit` rows of the default order from position `offset` (0: the first). */
export async function rowsAt(client: SqlClient, offset: number, limit: number): Promise<PlacedRow[]> {
  const rows = await client.rows<PlacedRow>(`SELECT id, CAST(updated_at AS TEXT) AS updated FROM comments ORDER BY ${DEFAULT_ORDER_SQL} LIMIT ? OFFSET ?`, [limit, offset]);
  return rows.map((row) => ({ id: Number(row.id), updated: row.updated }));
}
