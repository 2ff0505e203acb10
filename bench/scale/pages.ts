/**
 * The page-number cases of bench/scale.ts: `GET /comments/?page=P` deep into
 * the whole list, and the count every such page reads, timed alone.
 */
import type { SqlClient } from '../lib/database.js';
import { progress } from '../lib/processes.js';
import { listProblem } from './answers.js';
import { latency, timeInARow, type Latency, type Repetitions, type RequestCase } from './timing.js';

export const PAGE_TARGET_MS = 20;
/**
 * What a page over the whole list reads for its count: the count the
 * triggers keep (src/db/row-counter.ts), and `count(*)`, what it would cost
 * without them (for the report; no page runs it).
 */
export const COUNT_SQL = {
  kept: "SELECT row_count AS count FROM row_counts WHERE table_name = 'comments'",
  counted: 'SELECT count(*) AS count FROM comments',
} as const;
export type CountKind = keyof typeof COUNT_SQL;

/** The first page, the middle one, the last by number and `?page=last`; each must count every comment and be full. */
export function pageCases(comments: number, pageSize: number): RequestCase[] {
  const pages = Math.ceil(comments / pageSize);
  const middle = Math.ceil(pages / 2);
  const numbered = [
    { label: 'first page', page: '1', number: 1 },
    { label: 'middle page', page: String(middle), number: middle },
    { label: 'last page (by number)', page: String(pages), number: pages },
    { label: 'last page (page=last)', page: 'last', number: pages },
  ];
  return numbered.map(({ label, page, number }) => {
    const path = `/comments/?page=${page}`;
    const results = Math.min(pageSize, comments - (number - 1) * pageSize);
    return { group: 'page', label, path, shown: `GET ${path}`, targetMs: PAGE_TARGET_MS, check: (reply) => listProblem(reply, { count: comments, results }) };
  });
}

/** The page count's own query, through the harness's connection (SQLite: read-only on the same file), the server idle. */
export async function measureCount(client: SqlClient, kind: CountKind, comments: number, repetitions: Repetitions): Promise<Latency> {
  const sql = COUNT_SQL[kind];
  progress(`  count: ${sql}`);
  const problems: string[] = [];
  const once = async (): Promise<number> => {
    const started = performance.now();
    const [row] = await client.rows<{ count: number | string }>(sql);
    const ms = performance.now() - started;
    // PostgreSQL's count is a bigint, which `pg` gives as text.
    if (Number(row?.count) !== comments && problems.length === 0) problems.push(`count ${String(row?.count ?? 'none')}, expected ${comments}`);
    return ms;
  };
  const label = kind === 'kept' ? 'count, as kept (SQL alone, in every page request)' : 'count(*) (SQL alone, what the kept count saves)';
  const result = latency('count', label, sql, await timeInARow(repetitions, once), null, problems);
  progress(`    p50 ${result.p50Ms.toFixed(2)} ms, p99 ${result.p99Ms.toFixed(2)} ms`);
  return result;
}
