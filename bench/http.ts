/**
 * HTTP benchmark of the server (issue 8): throughput and latency per endpoint,
 * each against the ceiling of a bare node:http server answering the same bytes.
 *
 * What it measures. A fresh SQLite database gets the migrations, a user `bench`
 * (a random password hashed with the default 600,000 PBKDF2 iterations) and N
 * comments of 1,000 other owners (bench/lib/seed.ts). A first start of the server logs in twice (a token from
 * `POST /api/login`, a session from the browser login `/api-auth/login/`, both
 * kept in the database), reads the site's page size from its first page, and
 * stops. The measured start follows on the same database, as a restart in
 * production: `node dist/src/server.js`, NODE_ENV=production, WEB_CONCURRENCY
 * as given, request log at `info` (into a file, as a process manager would
 * take it: the server never waits for the harness to read it). Then, one row
 * after the other, autocannon (in this process) at fixed connections:
 *   GET  /comments/                 HTTP Basic
 *   GET  /comments/?page=P          HTTP Basic, a deep page, 80% of the way (4000 of 5000
 *                                   at 10,000 comments and the site's page size, 2)
 *   GET  /comments/                 session cookie
 *   GET  /api/comments/1            bearer token
 *   GET  /api/comments              bearer token, every comment (about 1 MB at 10,000)
 *   POST /comments/                 HTTP Basic (adds a comment)
 *   POST /api/comments              bearer token (adds a comment)
 * The writes come last, so that the reads see exactly N comments. Each row:
 *   1. one request, its answer checked (status, count, items) and kept (status,
 *      Content-Type, body); with W > 1 workers, 2W-1 more one after the other on
 *      new connections (the primary hands them round), so that each worker makes
 *      its one password check alone, not ten at once in the warm-up;
 *   2. a warm-up, not counted (JIT, that password check), then the measured run:
 *      requests/s is autocannon's mean of its per-second counts, p50/p99 its
 *      latency in whole milliseconds (its resolution);
 *   3. the server idle, the ceiling: bench/ceiling.ts, as many processes as the
 *      server, answering the kept bytes from memory, driven the same way. The
 *      row's ratio is its requests/s over the ceiling's. autocannon shares the
 *      machine with both, so on few cores the ceiling is partly its own limit.
 * Also: the time from spawning the server to its first 200 on `GET /api/comments/1`
 * with the bearer token (and on `GET /healthz`), polled every 10 ms; the resident
 * memory (VmRSS) of each server process idle after the start (once it stops moving:
 * the admin site loads in the background) and after the last row's run, and its
 * peak (VmHWM). Everything is printed as Markdown tables, ready for a README.
 * Targets (reported, never a failure):
 *   - every authenticated read row at least 20% of its ceiling's requests/s, every write 10%;
 *   - Basic-auth reads within 80% of other credentials: `GET /comments/` with Basic
 *     over the same with the session cookie (the same work with another credential);
 *     Basic `GET /comments/` over bearer `GET /api/comments/1` is printed too, for
 *     information only (a page and its count against one row by primary key);
 *   - start to first 200 under 2 s; under 200 MiB resident per process after the run
 *     (a peak above it is pointed out).
 *
 * Run:
 *   npm run bench
 *   npm run bench -- --workers 2 --duration 5 --json results.json
 * Options: --workers N (WEB_CONCURRENCY, default $WEB_CONCURRENCY or 1), --connections N
 * (default 10), --duration SECONDS per run (default 10), --warmup SECONDS (default 2),
 * --comments N (default 10000), --log-level LEVEL (the server's LOG_LEVEL, default info, as in
 * production; above info the server does not log "serving on", so its readiness is a 200 from
 * /healthz: with several workers, the first one's),
 * --json FILE. Ctrl-C (or SIGTERM) stops the run, the server and the ceiling, removes the
 * temporary directory and prints what was measured so far (Ctrl-C twice: at once).
 * Exit status 1 when something fails (an error, a status other than the row's, a wrong
 * answer, the server ending or not stopping cleanly); a missed target is only reported.
 */
import { truncateSync } from 'node:fs';
import path from 'node:path';
import { logIn, pageSizeOf, type Credentials } from './lib/client.js';
import type { BenchDatabase } from './lib/database.js';
import { createSqliteDatabase } from './lib/sqlite.js';
import { mib, type Memory } from './lib/memory.js';
import { BenchFailure, isInterrupted, progress } from './lib/processes.js';
import { describeMachine, dotEnvWarning, formatNumber, markdownTable, verdict } from './lib/report.js';
import { runBenchmark, type RunInfo } from './lib/run.js';
import { checkAlive, freePort, serverOutputTail, startServer, stopServer, stopServerAtEnd, waitUntilServing, type ServerSettings } from './lib/server.js';
import { benchRow, type Context, type RowResult } from './http/measure-row.js';
import { parseOptions, type Options } from './http/options.js';
import { benchRows, type Row } from './http/rows.js';
import { memoryAfterStart, memoryNow, processMemory, timeToFirst200, type ProcessMemory, type StartTimes } from './http/start.js';

const BASIC_VS_SESSION_TARGET = 0.8;
const FIRST_200_TARGET_SECONDS = 2;
const RSS_TARGET_MIB = 200;

// ---------------------------------------------------------------- the run

interface Report {
  /** The paginated site's default, as it answered. */
  pageSize: number | null;
  rows: RowResult[];
  start: StartTimes | null;
  memory: ProcessMemory[];
  failures: string[];
  interrupted: boolean;
}

function serverSettings(database: BenchDatabase, port: number, workers: number, options: Options, directory: string): ServerSettings {
  return { databaseUrl: database.url, port, workers, logLevel: options.logLevel, logFile: path.join(directory, 'server.log') };
}

/**
 * The first start: one process, two logins (a token and a session, both kept
 * in the database, valid after the restart), the page size; then a stop.
 */
async function firstStart(database: BenchDatabase, options: Options, directory: string): Promise<{ credentials: Credentials; pageSize: number }> {
  const server = startServer(serverSettings(database, await freePort(), 1, options, directory));
  let credentials: Credentials;
  let pageSize: number;
  try {
    await waitUntilServing(server, 1);
    credentials = await logIn(server.origin, database.account);
    pageSize = await pageSizeOf(server.origin, { Cookie: credentials.cookie });
  } finally {
    const problem = await stopServer(server);
    if (problem) throw new BenchFailure(`first start: ${problem}`, serverOutputTail(server));
  }
  truncateSync(server.settings.logFile, 0);
  return { credentials, pageSize };
}

async function run(options: Options, directory: string, report: Report): Promise<void> {
  progress(`Preparing a database of ${options.comments} comments in ${directory}`);
  const database = await createSqliteDatabase(directory, 'bench', options.comments);
  progress('Logging in (a first start of the server)');
  const { credentials, pageSize } = await firstStart(database, options, directory);
  report.pageSize = pageSize;
  progress(`Starting the server (WEB_CONCURRENCY=${options.workers})`);
  const server = startServer(serverSettings(database, await freePort(), options.workers, options, directory));
  try {
    report.start = await timeToFirst200(server, credentials);
    progress(`  first 200: GET /api/comments/1 (bearer) ${report.start.firstAuthenticatedSeconds.toFixed(2)} s, GET /healthz ${report.start.healthzSeconds.toFixed(2)} s`);
    await waitUntilServing(server, options.workers);
    const afterStart = await memoryAfterStart(server);
    let afterRun = afterStart;
    const context: Context = { options, server, credentials, directory };
    for (const row of benchRows(options.comments, pageSize)) {
      if (isInterrupted()) break;
      const result = await benchRow(row, context);
      report.rows.push(result);
      // After the row's own load: the ceiling that follows leaves the server idle.
      if (result.real) afterRun = memoryNow(server);
    }
    report.memory = processMemory(server, afterStart, afterRun);
    // Alive to the end, the last ceiling included: the stop below is the first it gets.
    checkAlive(server);
  } finally {
    progress('Stopping the server');
    await stopServerAtEnd(server, report.failures);
  }
}

// ---------------------------------------------------------------- report

function percent(ratio: number | null): string {
  return ratio === null ? '-' : `${(ratio * 100).toFixed(1)}%`;
}

function rowsTable(rows: readonly RowResult[]): string {
  const header = ['row', 'req/s', 'p50 ms', 'p99 ms', 'ceiling req/s', 'ratio', 'target', 'met'];
  const cells = rows.map((row) => [
    row.label,
    row.real ? formatNumber(row.real.requestsPerSecond) : '-',
    row.real ? String(row.real.p50Ms) : '-',
    row.real ? String(row.real.p99Ms) : '-',
    row.ceiling ? formatNumber(row.ceiling.requestsPerSecond) : '-',
    percent(row.ratio),
    `≥ ${row.target * 100}% of ceiling`,
    row.problems.length > 0 ? 'FAILED (below)' : verdict(row.met),
  ]);
  return markdownTable(header, cells, ['left', 'right', 'right', 'right', 'right', 'right', 'left', 'left']);
}

function requestRate(rows: readonly RowResult[], role: Row['role']): number | null {
  const row = rows.find((candidate) => candidate.role === role);
  return row?.real && row.problems.length === 0 ? row.real.requestsPerSecond : null;
}

interface Comparisons {
  /** Basic `GET /comments/` over session-cookie `GET /comments/`: the target. */
  basicVsSession: number | null;
  /** Basic `GET /comments/` over bearer `GET /api/comments/1`: for information. */
  basicVsBearer: number | null;
}

function compare(rows: readonly RowResult[]): Comparisons {
  const basic = requestRate(rows, 'basic list');
  const ratio = (other: number | null): number | null => (basic === null || other === null || other === 0 ? null : basic / other);
  return { basicVsSession: ratio(requestRate(rows, 'session list')), basicVsBearer: ratio(requestRate(rows, 'bearer one')) };
}

/** The target is on the RSS after the run; a peak above it is pointed out beside the verdict. */
function memoryVerdict(afterRun: Memory | null): string {
  if (afterRun === null) return '-';
  const met = mib(afterRun.rssKiB) < RSS_TARGET_MIB;
  const peakOver = mib(afterRun.peakKiB) >= RSS_TARGET_MIB;
  return `${verdict(met)}${peakOver ? ' (peak over)' : ''}`;
}

function memoryTable(memory: readonly ProcessMemory[]): string {
  const megabytes = (value: number | undefined): string => (value === undefined || !Number.isFinite(value) ? '-' : mib(value).toFixed(1));
  const cells = memory.map((process) => [
    process.role,
    String(process.pid),
    megabytes(process.afterStart?.rssKiB),
    megabytes(process.afterRun?.rssKiB),
    megabytes(process.afterRun?.peakKiB),
    `< ${RSS_TARGET_MIB} MiB after the run`,
    memoryVerdict(process.afterRun),
  ]);
  return markdownTable(['process', 'pid', 'RSS idle after start MiB', 'RSS after the run MiB', 'peak RSS (VmHWM) MiB', 'target', 'met'], cells, ['left', 'right', 'right', 'right', 'right', 'left', 'left']);
}

function printReport(report: Report, options: Options, { date, commit: measured, machine: about }: RunInfo): void {
  const comparisons = compare(report.rows);
  const out: string[] = [];
  out.push('', `HTTP benchmark, ${date}, commit ${measured}`, describeMachine(about));
  out.push(
    `settings: WEB_CONCURRENCY=${options.workers}, ${options.connections} connections, ${options.durationSeconds} s per run after a ${options.warmupSeconds} s warm-up, ` +
      `${options.comments} comments (${report.pageSize ?? '?'} a page, the site's default), LOG_LEVEL=${options.logLevel}; autocannon runs in the harness, on the same machine`,
  );
  const warning = dotEnvWarning();
  if (warning) out.push(warning);
  out.push('', rowsTable(report.rows), '');
  for (const row of report.rows) for (const problem of row.problems) out.push(`FAILED: ${row.label}: ${problem}`);
  out.push(`Basic vs session cookie, GET /comments/ (the same work, another credential): ${percent(comparisons.basicVsSession)} (target ≥ ${BASIC_VS_SESSION_TARGET * 100}%: ${verdict(comparisons.basicVsSession === null ? null : comparisons.basicVsSession >= BASIC_VS_SESSION_TARGET)})`);
  out.push(`Basic GET /comments/ vs bearer GET /api/comments/1 (for information: a page and its count against one row): ${percent(comparisons.basicVsBearer)}`);
  if (report.start) {
    const { firstAuthenticatedSeconds, healthzSeconds } = report.start;
    out.push(
      `Start to first 200 (spawn → GET /api/comments/1 with a bearer token, migrated database of ${options.comments} comments): ${firstAuthenticatedSeconds.toFixed(2)} s ` +
        `(target < ${FIRST_200_TARGET_SECONDS} s: ${verdict(firstAuthenticatedSeconds < FIRST_200_TARGET_SECONDS)}); GET /healthz: ${healthzSeconds.toFixed(2)} s`,
    );
  }
  if (report.memory.length > 0) out.push('', 'Resident memory of the server (after the last row\'s run; peak since start):', '', memoryTable(report.memory));
  if (report.failures.length > 0) out.push('', ...report.failures.map((failure) => `FAILED: ${failure}`));
  if (report.interrupted) out.push('', 'Interrupted: the results are partial.');
  process.stdout.write(`${out.join('\n')}\n`);
}

// ---------------------------------------------------------------- main

await runBenchmark(() => {
  const options = parseOptions();
  const report: Report = { pageSize: null, rows: [], start: null, memory: [], failures: [], interrupted: false };
  return {
    temporaryPrefix: 'bench-http-',
    report,
    settings: options,
    measure: (directory) => run(options, directory, report),
    print: (info) => printReport(report, options, info),
    extraJson: () => ({ comparisons: compare(report.rows) }),
    hasProblems: () => report.rows.some((row) => row.problems.length > 0),
  };
});
