/**
 * Scale benchmark of the server (issue 8): latency of pages deep into a large
 * table, and the memory of the unpaginated list.
 *
 * What it measures.
 * 1. Pages. A fresh SQLite database gets the migrations, a user `bench` (a
 *    random password, the default 600,000 PBKDF2 iterations) and N comments
 *    (1,000,000 unless told). One server process (`node dist/src/server.js`,
 *    NODE_ENV=production, WEB_CONCURRENCY=1, request log at `info` into a file)
 *    answers, one request at a time on one keep-alive connection (latency, not
 *    throughput), `GET /comments/?page=P` with HTTP Basic for the first page,
 *    the middle one, the last by number and `?page=last`. The first Basic
 *    request (one PBKDF2 check, then the credential cache) and 5 more per case
 *    are a warm-up, not counted. Each answer is checked (status 200, the count,
 *    a full page). Reported: p50, p99 and mean, from sending to the last byte.
 *    Also `count`: the `SELECT count(*) FROM comments` that every page request
 *    runs for its page count, timed alone, through the `sqlite3` module on the
 *    same file, the server idle. Target: any page under 20 ms at p50.
 * 2. Memory of `GET /api/comments` (every comment, unpaginated, bearer token):
 *    another fresh database of M comments (100,000 unless told), another
 *    server process. The baseline is its VmRSS after the start, a login and one
 *    `GET /api/comments/1`, once it stops moving (the admin site loads in the
 *    background after a start, some 70 MiB). Then 5 requests one after the other, then 4 at once,
 *    each body read to its end and thrown away (the first is checked: all M
 *    comments). The peak is the larger of VmRSS sampled every 5 ms and VmHWM
 *    (reset to the current RSS before each phase through /proc/PID/clear_refs).
 *    Growth = peak − baseline. Target: growth at most 50 MiB.
 *
 * Run:
 *   npm run bench:scale
 *   npm run bench:scale -- --comments 100000 --requests 50 --json scale.json
 * Options: --comments N (default 1000000), --requests N per page case (default 200),
 * --max-seconds S per page case (default 60: a case stops there, fewer requests then),
 * --list-comments M (default 100000), --log-level LEVEL (the server's LOG_LEVEL,
 * default info), --json FILE. Ctrl-C (or SIGTERM) stops the run and the server, removes
 * the temporary directory and prints what was measured so far (Ctrl-C twice: at once).
 * Exit status 1 when something fails (a request error, a wrong status or answer, the
 * server ending or not stopping cleanly); a missed target is only reported.
 */
import { rmSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { parseArgs } from 'node:util';
import {
  ACCEPT_JSON,
  BenchFailure,
  basicAuthorization,
  bearerAuthorization,
  checkAlive,
  closeSqlite,
  commit,
  createDatabase,
  describeError,
  describeMachine,
  dotEnvWarning,
  formatNumber,
  freePort,
  handleInterrupts,
  Interrupted,
  isInterrupted,
  isRecord,
  listItems,
  machine,
  makeTemporaryDirectory,
  markdownTable,
  mib,
  openSqlite,
  pageSizeOf,
  parseJson,
  percentile,
  progress,
  queryRow,
  readMemory,
  removeTemporaryDirectories,
  requestServer,
  resetPeak,
  settledMemory,
  serverOutputTail,
  startServer,
  stopServer,
  waitUntilServing,
  writeJson,
  type BenchDatabase,
  type Machine,
  type Reply,
  type ServerProcess,
} from './lib.js';

const PAGE_TARGET_MS = 20;
const GROWTH_TARGET_MIB = 50;
const WARMUP_REQUESTS = 5;
const SEQUENTIAL_LIST_REQUESTS = 5;
const CONCURRENT_LIST_REQUESTS = 4;
const MEMORY_SAMPLE_MS = 5;
/** A request of the whole list may take seconds; a page should not. */
const LIST_TIMEOUT_MS = 120_000;

interface Options {
  comments: number;
  requests: number;
  maxSeconds: number;
  listComments: number;
  logLevel: string;
  json: string | undefined;
}

function positiveInteger(name: string, raw: string | undefined): number {
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) throw new Error(`--${name} must be a positive integer, not ${raw}`);
  return value;
}

function parseOptions(): Options {
  const { values } = parseArgs({
    options: {
      comments: { type: 'string', default: '1000000' },
      requests: { type: 'string', default: '200' },
      'max-seconds': { type: 'string', default: '60' },
      'list-comments': { type: 'string', default: '100000' },
      'log-level': { type: 'string', default: 'info' },
      json: { type: 'string' },
    },
  });
  return {
    comments: positiveInteger('comments', values.comments),
    requests: positiveInteger('requests', values.requests),
    maxSeconds: positiveInteger('max-seconds', values['max-seconds']),
    listComments: positiveInteger('list-comments', values['list-comments']),
    logLevel: values['log-level'],
    json: values.json,
  };
}

// ---------------------------------------------------------------- latency cases

interface Latency {
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

interface PagesReport {
  pageSize: number;
  pages: number;
  cases: Latency[];
}

/** The cases into `report.pages` as they are measured, so that a failure or Ctrl-C keeps the ones before. */
async function benchPages(options: Options, directory: string, report: Report): Promise<void> {
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
    await stopAndRemove(server, database, report);
  }
}

/** Stops the server (a failure to stop is reported) and removes its database, which may be large. */
async function stopAndRemove(server: ServerProcess, database: BenchDatabase, report: Report): Promise<void> {
  // A server that ended on its own was reported (checkAlive), with its last output.
  const wasRunning = server.ended() === null;
  const problem = await stopServer(server);
  if (problem && wasRunning) report.failures.push(`${problem}\n  ${serverOutputTail(server, 10).split('\n').join('\n  ')}`);
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${database.file}${suffix}`, { force: true });
}

// ---------------------------------------------------------------- memory of the whole list

interface ListPhase {
  phase: string;
  requests: number;
  responseBytes: number;
  /** Per request, from sending to the last byte. */
  meanMs: number;
  maxMs: number;
  rssBeforeKiB: number;
  peakKiB: number;
  /** Peak over the baseline (the RSS before the first phase). */
  growthKiB: number;
  problems: string[];
}

interface ListReport {
  comments: number;
  baselineKiB: number;
  /** Whether VmHWM could be reset before each phase (else the peak is the sampled RSS only). */
  peakReset: boolean;
  phases: ListPhase[];
}

/** The largest VmRSS seen every 5 ms while `work` runs, and VmHWM after it. */
async function peakDuring<T>(pid: number, work: Promise<T>): Promise<{ value: T; peakKiB: number }> {
  let highest = 0;
  const sample = (): void => {
    highest = Math.max(highest, readMemory(pid)?.rssKiB ?? 0);
  };
  const sampler = setInterval(sample, MEMORY_SAMPLE_MS);
  try {
    const value = await work;
    sample();
    return { value, peakKiB: Math.max(highest, readMemory(pid)?.peakKiB ?? 0) };
  } finally {
    clearInterval(sampler);
  }
}

async function listPhase(server: ServerProcess, label: string, requests: () => Promise<Reply[]>, baselineKiB: number, problems: string[]): Promise<ListPhase> {
  const rssBeforeKiB = readMemory(server.pid)?.rssKiB ?? NaN;
  resetPeak(server.pid);
  const { value: replies, peakKiB } = await peakDuring(server.pid, requests());
  checkAlive(server);
  for (const reply of replies) if (reply.status !== 200) problems.push(`status ${reply.status}`);
  const times = replies.map((reply) => reply.ms);
  const phase: ListPhase = {
    phase: label,
    requests: replies.length,
    responseBytes: replies[0]?.bytes ?? 0,
    meanMs: times.reduce((sum, ms) => sum + ms, 0) / Math.max(1, times.length),
    maxMs: Math.max(...times),
    rssBeforeKiB,
    peakKiB,
    growthKiB: peakKiB - baselineKiB,
    problems,
  };
  progress(`    ${label}: ${phase.requests} request(s) of ${(phase.responseBytes / 2 ** 20).toFixed(1)} MiB, ${phase.meanMs.toFixed(0)} ms each, peak ${mib(peakKiB).toFixed(1)} MiB (+${mib(phase.growthKiB).toFixed(1)} MiB)`);
  return phase;
}

/** The first answer of the list, checked: every comment in it. */
function listProblem(reply: Reply, comments: number): string | null {
  if (reply.status !== 200) return `status ${reply.status}: ${reply.body.toString('utf8').slice(0, 200)}`;
  const items = listItems(parseJson(reply.body))?.length;
  return items === comments ? null : `${items ?? 'no'} comments in the list, expected ${comments}`;
}

/** The phases into `report.list` as they are measured. */
async function benchList(options: Options, directory: string, report: Report): Promise<void> {
  progress(`Preparing a database of ${options.listComments} comments for GET /api/comments`);
  const database = await createDatabase(directory, 'list', options.listComments);
  const server = startServer({ databaseUrl: database.url, port: await freePort(), workers: 1, logLevel: options.logLevel, logFile: path.join(directory, 'list.log') });
  try {
    await waitUntilServing(server, 1);
    const headers = { ...ACCEPT_JSON, Authorization: await bearerAuthorization(server.origin, database.account) };
    const warm = await requestServer(server, '/api/comments/1', { headers });
    if (warm.status !== 200) throw new BenchFailure(`GET /api/comments/1 answered ${warm.status}`, warm.body.toString('utf8').slice(0, 500));
    const baselineKiB = (await settledMemory(server.pid))?.rssKiB ?? NaN;
    const peakReset = resetPeak(server.pid);
    const fetchList = (keep: boolean): Promise<Reply> => requestServer(server, '/api/comments', { headers, timeoutMs: LIST_TIMEOUT_MS, discardBody: !keep });
    const results: ListReport = { comments: options.listComments, baselineKiB, peakReset, phases: [] };
    report.list = results;
    progress(`  baseline RSS ${mib(baselineKiB).toFixed(1)} MiB`);
    const sequentialProblems: string[] = [];
    const inARow = async (): Promise<Reply[]> => {
      const replies: Reply[] = [];
      for (let i = 0; i < SEQUENTIAL_LIST_REQUESTS && !isInterrupted(); i += 1) {
        // Only the first body is kept, to be checked; the harness's memory is not the server's, but why weigh on it.
        const reply = await fetchList(i === 0);
        const problem = i === 0 ? listProblem(reply, options.listComments) : null;
        if (problem) sequentialProblems.push(problem);
        replies.push(reply);
      }
      return replies;
    };
    results.phases.push(await listPhase(server, `${SEQUENTIAL_LIST_REQUESTS} in a row`, inARow, baselineKiB, sequentialProblems));
    if (isInterrupted()) throw new Interrupted();
    const atOnce = (): Promise<Reply[]> => Promise.all(Array.from({ length: CONCURRENT_LIST_REQUESTS }, () => fetchList(false)));
    results.phases.push(await listPhase(server, `${CONCURRENT_LIST_REQUESTS} at once`, atOnce, baselineKiB, []));
    checkAlive(server);
  } finally {
    await stopAndRemove(server, database, report);
  }
}

// ---------------------------------------------------------------- report

function verdict(met: boolean): string {
  return met ? 'met' : 'NOT met';
}

function milliseconds(value: number): string {
  return Number.isFinite(value) ? value.toFixed(2) : '-';
}

function pagesTable(cases: readonly Latency[]): string {
  const cells = cases.map((result) => [
    result.case,
    result.what,
    String(result.requests),
    milliseconds(result.p50Ms),
    milliseconds(result.p99Ms),
    milliseconds(result.meanMs),
    result.targetMs === null ? '-' : `p50 < ${result.targetMs} ms`,
    result.problems.length > 0 ? 'FAILED (below)' : result.targetMs === null ? '-' : verdict(result.p50Ms < result.targetMs),
  ]);
  return markdownTable(['case', 'request', 'requests', 'p50 ms', 'p99 ms', 'mean ms', 'target', 'met'], cells, ['left', 'left', 'right', 'right', 'right', 'right', 'left', 'left']);
}

function listTable(list: ListReport): string {
  const cells = list.phases.map((phase) => [
    `GET /api/comments, ${phase.phase}`,
    (phase.responseBytes / 2 ** 20).toFixed(2),
    formatNumber(phase.meanMs),
    formatNumber(phase.maxMs),
    mib(phase.rssBeforeKiB).toFixed(1),
    mib(phase.peakKiB).toFixed(1),
    mib(phase.growthKiB).toFixed(1),
    `≤ ${GROWTH_TARGET_MIB} MiB`,
    phase.problems.length > 0 ? 'FAILED (below)' : verdict(mib(phase.growthKiB) <= GROWTH_TARGET_MIB),
  ]);
  return markdownTable(
    ['requests', 'response MiB', 'mean ms', 'max ms', 'RSS before MiB', 'peak RSS MiB', 'growth MiB', 'target', 'met'],
    cells,
    ['left', 'right', 'right', 'right', 'right', 'right', 'right', 'left', 'left'],
  );
}

interface Report {
  pages: PagesReport | null;
  list: ListReport | null;
  failures: string[];
  interrupted: boolean;
}

function printReport(report: Report, options: Options, date: string, measured: string, about: Machine): void {
  const out: string[] = ['', `Scale benchmark, ${date}, commit ${measured}`, describeMachine(about)];
  const warning = dotEnvWarning();
  if (warning) out.push(warning);
  const { pages, list } = report;
  if (pages) {
    out.push(
      '',
      `GET /comments/?page=P at ${formatNumber(options.comments)} comments (${pages.pageSize} a page, the site's default: ${formatNumber(pages.pages)} pages); ` +
        `HTTP Basic; one request at a time on one keep-alive connection, after ${WARMUP_REQUESTS} warm-up requests; WEB_CONCURRENCY=1, LOG_LEVEL=${options.logLevel}:`,
      '',
      pagesTable(pages.cases),
    );
    for (const result of pages.cases) for (const problem of result.problems) out.push(`FAILED: ${result.case}: ${problem}`);
  }
  if (list) {
    out.push(
      '',
      `Memory of GET /api/comments at ${formatNumber(list.comments)} comments (bearer token; one server process; baseline RSS ${mib(list.baselineKiB).toFixed(1)} MiB ` +
        `after the start, a login and one GET /api/comments/1, once settled; peak: VmRSS every ${MEMORY_SAMPLE_MS} ms${list.peakReset ? ' and VmHWM, reset before each phase' : ' (VmHWM could not be reset)'}; growth = peak − baseline):`,
      '',
      listTable(list),
    );
    for (const phase of list.phases) for (const problem of phase.problems) out.push(`FAILED: GET /api/comments, ${phase.phase}: ${problem}`);
  }
  if (report.failures.length > 0) out.push('', ...report.failures.map((failure) => `FAILED: ${failure}`));
  if (report.interrupted) out.push('', 'Interrupted: the results are partial.');
  process.stdout.write(`${out.join('\n')}\n`);
}

function failed(report: Report): boolean {
  const pageProblems = report.pages?.cases.some((result) => result.problems.length > 0) ?? false;
  const listProblems = report.list?.phases.some((phase) => phase.problems.length > 0) ?? false;
  return report.failures.length > 0 || report.interrupted || pageProblems || listProblems;
}

// ---------------------------------------------------------------- main

async function main(): Promise<number> {
  const options = parseOptions();
  handleInterrupts();
  const measured = commit();
  const date = new Date().toISOString();
  const about = machine();
  const report: Report = { pages: null, list: null, failures: [], interrupted: false };
  const directory = makeTemporaryDirectory('bench-scale-');
  try {
    // Pages, then the list: each on its own database and server, the first removed before the second is made.
    await benchPages(options, directory, report);
    if (!isInterrupted()) await benchList(options, directory, report);
  } catch (error) {
    if (!(error instanceof Interrupted)) report.failures.push(describeError(error));
  } finally {
    removeTemporaryDirectories();
  }
  report.interrupted = isInterrupted();
  printReport(report, options, date, measured, about);
  if (options.json) writeJson(options.json, { date, commit: measured, machine: about, settings: options, ...report });
  return failed(report) ? 1 : 0;
}

process.exitCode = await main().catch((error: unknown) => {
  process.stderr.write(`bench: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  return 1;
});
