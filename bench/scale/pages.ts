/**
 * The page-number cases of bench/scale.ts: `GET /comments/?page=P` over the
 * whole list, cold (pages near the start, spread over the list, around the
 * middle and near the end, each page asked once) and kept (the first, middle
 * and last page and `?page=last`, each asked again and again); and the count
 * every such page reads, timed alone.
 */
import type { SqlClient } from '../lib/database.js';
import { formatNumber } from '../lib/report.js';
import { progress } from '../lib/processes.js';
import { listProblem } from './answers.js';
import { claim, runFrom, spreadOver, type CaseSource } from './spread.js';
import { keptCase, latency, timeInARow, type Latency, type Probe, type Repetitions, type RequestCase } from './timing.js';

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

/** `?page=P` (a number or `last`), which must count every comment and hold that page's rows. */
function pageProbe(page: number | 'last', comments: number, pageSize: number): Probe {
  const pages = Math.ceil(comments / pageSize);
  const number = page === 'last' ? pages : page;
  const expected = { count: comments, results: Math.min(pageSize, comments - (number - 1) * pageSize), next: number < pages, previous: number > 1 };
  return { path: `/comments/?page=${page}`, check: (reply) => listProblem(reply, expected) };
}

/** A cold case of the page numbers `candidates` (those another case took left out). */
function coldPages(source: CaseSource, label: string, range: string, candidates: readonly number[]): RequestCase {
  const { comments, pageSize, wanted, taken } = source;
  const pages = claim(taken, candidates, (page) => `/comments/?page=${page}`, wanted);
  const probes = pages.map((page) => pageProbe(page, comments, pageSize));
  return { group: 'page', mode: 'cold', label, shown: `GET /comments/?page=P, ${formatNumber(probes.length)} pages ${range}`, targetMs: PAGE_TARGET_MS, probes };
}

/** Cold: pages near the start, spread over the list, around the middle, near the end. */
export function coldPageCases(source: CaseSource): RequestCase[] {
  const { comments, pageSize, wanted } = source;
  const pages = Math.ceil(comments / pageSize);
  const middle = Math.max(1, Math.ceil(pages / 2) - Math.floor(wanted / 2));
  const end = Math.max(1, pages - wanted + 1);
  const at = (from: number, to: number): string => `${formatNumber(from)}…${formatNumber(to)}`;
  return [
    coldPages(source, 'pages near the start', `of ${at(1, Math.min(pages, wanted))}`, runFrom(1, pages, wanted)),
    // Twice as many places as wanted: those another case took are skipped, and the rest are still spread.
    coldPages(source, 'pages spread over the list', `spread over ${at(1, pages)}`, spreadOver(1, pages, 2 * wanted)),
    coldPages(source, 'pages around the middle', `of ${at(middle, Math.min(pages, middle + wanted - 1))}`, runFrom(middle, pages, wanted)),
    coldPages(source, 'pages near the end', `of ${at(end, pages)}`, runFrom(end, pages, wanted)),
  ];
}

/** Kept: the first page, the middle one, the last by number and `?page=last`, each the same request every time. */
export function keptPageCases(comments: number, pageSize: number): RequestCase[] {
  const pages = Math.ceil(comments / pageSize);
  return [
    keptCase('page', 'first page', pageProbe(1, comments, pageSize)),
    keptCase('page', 'middle page', pageProbe(Math.ceil(pages / 2), comments, pageSize)),
    keptCase('page', 'last page (by number)', pageProbe(pages, comments, pageSize)),
    keptCase('page', 'last page (page=last)', pageProbe('last', comments, pageSize)),
  ];
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
  const timed = { group: 'count', mode: 'sql', label, what: sql, distinctUrls: 0, targetMs: null } as const;
  const result = latency(timed, await timeInARow(repetitions, once), problems);
  progress(`    p50 ${result.p50Ms.toFixed(2)} ms, p99 ${result.p99Ms.toFixed(2)} ms`);
  return result;
}
