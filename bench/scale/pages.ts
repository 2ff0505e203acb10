/**
 * The pages of bench/scale.ts: the latency of `GET /comments/?page=P` deep
 * into a large table, one request at a time, and of the count every page runs.
 */
import http from 'node:http';
import path from 'node:path';
import { ACCEPT_JSON, basicAuthorization, isRecord, listItems, pageSizeOf, parseJson, type Reply } from '../lib/client.js';
import { closeSqlite, createDatabase, openSqlite, queryRow, removeDatabase, type BenchDatabase } from '../lib/database.js';
import { isInterrupted, progress } from '../lib/processes.js';
import { percentile } from '../lib/report.js';
import { checkAlive, freePort, requestServer, startServer, stopServerAtEnd, waitUntilServing, type ServerProcess } from '../lib/server.js';
import type { Options } from './options.js';

const PAGE_TARGET_MS = 20;
export const WARMUP_REQUESTS = 5;

export interface Latency {
  case: string;
  /** The request, or the SQL. */
  what: string;
  requests: number;
  p50Ms: number;
  p99Ms: number;
  meanMs: number;
  /** Null: no target (the count is reported as a part of every page). */
  targetMs: number | null;
  problems: string[];
}

function latency(label: string, what: string, samples: number[], targetMs: number | null, problems: string[]): Latency {
  const sorted = [...samples].sort((a, b) => a - b);
  const mean = sorted.reduce((sum, value) => sum + value, 0) / sorted.length;
  return { case: label, what, requests: sorted.length, p50Ms: percentile(sorted, 0.5), p99Ms: percentile(sorted, 0.99), meanMs: mean, targetMs, problems };
}

/**
 * `once` up to `count` times in a row after the warm-up, stopping early after
 * `maxSeconds` or Ctrl-C; the milliseconds each took.
 */
async function timeInARow(count: number, maxSeconds: number, once: () => Promise<number>): Promise<number[]> {
  for (let i = 0; i < WARMUP_REQUESTS && !isInterrupted(); i += 1) await once();
  const samples: number[] = [];
  const started = performance.now();
  while (samples.length < count && !isInterrupted() && performance.now() - started < maxSeconds * 1000) samples.push(await once());
  return samples;
}

interface PageCase {
  label: string;
  page: string;
  /** The page number it must be. */
  number: number;
}

function pageCases(pages: number): PageCase[] {
  const middle = Math.ceil(pages / 2);
  return [
    { label: 'first page', page: '1', number: 1 },
    { label: 'middle page', page: String(middle), number: middle },
    { label: 'last page (by number)', page: String(pages), number: pages },
    { label: 'last page (page=last)', page: 'last', number: pages },
  ];
}

/** What is wrong with a page's answer, or null: the count of every comment, the page's comments. */
function pageProblem(reply: Reply, comments: number, expectedResults: number): string | null {
  if (reply.status !== 200) return `status ${reply.status}: ${reply.body.toString('utf8').slice(0, 200)}`;
  const answer = parseJson(reply.body);
  if (!isRecord(answer) || answer.count !== comments) return `count ${isRecord(answer) ? String(answer.count) : 'missing'}, expected ${comments}`;
  const results = listItems(answer)?.length;
  return results === expectedResults ? null : `${results ?? 'no'} results, expected ${expectedResults}`;
}

async function measurePage(server: ServerProcess, pageCase: PageCase, context: PagesContext): Promise<Latency> {
  const { comments, pageSize, options, agent, authorization } = context;
  const path = `/comments/?page=${pageCase.page}`;
  const expectedResults = Math.min(pageSize, comments - (pageCase.number - 1) * pageSize);
  const problems = new Map<string, number>();
  const once = async (): Promise<number> => {
    const reply = await requestServer(server, path, { headers: { ...ACCEPT_JSON, Authorization: authorization }, agent });
    const problem = pageProblem(reply, comments, expectedResults);
    if (problem !== null) problems.set(problem, (problems.get(problem) ?? 0) + 1);
    return reply.ms;
  };
  progress(`  ${pageCase.label}: GET ${path}`);
  const samples = await timeInARow(options.requests, options.maxSeconds, once);
  checkAlive(server);
  const result = latency(pageCase.label, `GET ${path}`, samples, PAGE_TARGET_MS, [...problems].map(([problem, count]) => `${count}× ${problem}`));
  progress(`    p50 ${result.p50Ms.toFixed(2)} ms, p99 ${result.p99Ms.toFixed(2)} ms (${result.requests} requests)`);
  return result;
}

/** The page count's own query, through the `sqlite3` module on the same file (read-only), the server idle. */
async function measureCount(database: BenchDatabase, options: Options): Promise<Latency> {
  const sql = 'SELECT count(*) AS count FROM comments';
  progress(`  count: ${sql}`);
  const db = await openSqlite(database.file, true);
  const problems: string[] = [];
  try {
    const once = async (): Promise<number> => {
      const started = performance.now();
      const row = await queryRow<{ count: number }>(db, sql);
      const ms = performance.now() - started;
      if (row?.count !== database.comments && problems.length === 0) problems.push(`count ${row?.count ?? 'none'}, expected ${database.comments}`);
      return ms;
    };
    const result = latency('count (SQL alone, in every page request)', sql, await timeInARow(options.requests, options.maxSeconds, once), null, problems);
    progress(`    p50 ${result.p50Ms.toFixed(2)} ms, p99 ${result.p99Ms.toFixed(2)} ms`);
    return result;
  } finally {
    await closeSqlite(db);
  }
}

interface PagesContext {
  options: Options;
  comments: number;
  pageSize: number;
  agent: http.Agent;
  authorization: string;
}

/** Where the pages' results go as they are measured; `failures`, what went wrong besides. */
export interface PagesOutcome {
  pages: PagesReport | null;
  failures: string[];
}

export interface PagesReport {
  pageSize: number;
  pages: number;
  cases: Latency[];
}

/** The cases into `report.pages` as they are measured, so that a failure or Ctrl-C keeps the ones before. */
export async function benchPages(options: Options, directory: string, report: PagesOutcome): Promise<void> {
  progress(`Preparing a database of ${options.comments} comments in ${directory}`);
  const database = await createDatabase(directory, 'pages', options.comments);
  const server = startServer({ databaseUrl: database.url, port: await freePort(), workers: 1, logLevel: options.logLevel, logFile: path.join(directory, 'pages.log') });
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  try {
    await waitUntilServing(server, 1);
    const authorization = basicAuthorization(database.account);
    // Also the first Basic request: its password check (PBKDF2) is not part of any case.
    const pageSize = await pageSizeOf(server.origin, { Authorization: authorization });
    const pages = Math.ceil(options.comments / pageSize);
    const context: PagesContext = { options, comments: options.comments, pageSize, agent, authorization };
    const results: PagesReport = { pageSize, pages, cases: [] };
    report.pages = results;
    for (const pageCase of pageCases(pages)) {
      if (isInterrupted()) break;
      results.cases.push(await measurePage(server, pageCase, context));
    }
    if (!isInterrupted()) results.cases.push(await measureCount(database, options));
    checkAlive(server);
  } finally {
    agent.destroy();
    await stopServerAtEnd(server, report.failures);
    removeDatabase(database);
  }
}
