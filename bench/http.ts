/**
 * HTTP benchmark of the server (issues 8 and 24): throughput and latency per
 * endpoint, each against the ceiling of a bare node:http server answering the
 * same bytes and against a same-stack reference doing the same database work.
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
 *   GET  /api/comments/1            bearer token, If-None-Match: the ETag of its first answer (304)
 *   GET  /comments/                 HTTP Basic, If-None-Match: the ETag of its first answer (304)
 *   POST /comments/                 HTTP Basic (adds a comment)
 *   POST /api/comments              bearer token (adds a comment)
 * The writes come last, so that the reads see exactly N comments. Before the
 * first row, the server is warmed up on each small read (the warm-up's time
 * each), so that no row pays for the JIT and the admin loading after the start.
 * Each row:
 *   1. one request, its answer checked (status, count, items) and kept (status,
 *      Content-Type, body); a 304 row first asks without a condition and needs an
 *      ETag (none: that row fails, "no ETag in the answer", the others go on);
 *      with W > 1 workers, 2W-1 more one after the other on new connections (the
 *      primary hands them round), so that each worker makes its one password
 *      check alone, not ten at once in the warm-up;
 *   2. the two servers it is compared with started beside, idle until driven,
 *      each as many processes as the server: the ceiling (bench/ceiling.ts),
 *      answering the kept bytes from memory; the same-stack reference
 *      (bench/reference.ts), Express 5 and the sqlite3 package with prepared
 *      statements on the same database file, doing the row's database work
 *      without the framework (the token row and its SHA-256; Basic with a
 *      per-process cache of the checked header, then the account by primary
 *      key; the session row, its signed cookie and the account; the count, the
 *      page in the server's order; every comment; the insert). Its first answer
 *      must be the server's (status, count and items; a write's fields; a 304
 *      with its own ETag), else the row fails (and is measured without it);
 *   3. the parties: the server, the ceiling, the reference, and for a 304 row
 *      the server's full read of the same URL (the same request without
 *      If-None-Match, 200). Each warmed up in turn (the warm-up's time, not
 *      counted: JIT, that password check), then driven in rounds
 *      (bench/http/rounds.ts): each party one slice a round (--slice, 2 s),
 *      the order turned by one from round to round, until each has had
 *      --duration (10 s: five rounds of 2 s). The machine's speed drifts
 *      over tens of seconds; this way a ratio compares the same seconds.
 *      A party's requests/s is its requests over the seconds of its slices,
 *      its p50/p99 the median of its slices' p50/p99 (autocannon's latency,
 *      in whole milliseconds: its resolution).
 *   The row prints each round's requests/s and each party's, and its ratios to
 *   the ceiling and to the reference (a 304 row: to its full read). autocannon
 *   shares the machine with all of them, so on few cores the ceiling is partly
 *   its own limit.
 * Also: the time from spawning the server to its first 200 on `GET /api/comments/1` (the median of three starts)
 * with the bearer token (and on `GET /healthz`), polled every 10 ms; the resident
 * memory (VmRSS) of each server process idle after the start (once it stops moving:
 * the admin site loads in the background) and after the last row's run, and its
 * peak (VmHWM). Everything is printed as Markdown tables, ready for a README.
 * With --django-url URL --django-user U:P (bench/http/django.ts): after the
 * server's rows, the Django REST Framework original serving at URL (started
 * beside by its run.sh; the bench only takes the URL), its `GET /comments/`
 * with a session cookie (logged in through its /api-auth/login/ form) and with
 * HTTP Basic, driven the same way; its table topped up first to
 * --django-comments (default 1000).
 * Targets (reported, never a failure):
 *   - bearer `GET /api/comments/1` at least 50% of the same-stack reference's requests/s;
 *   - every small read (the pages, one comment) at least 10% of its ceiling's; the
 *     10,000-comment list is not small: no target, its ratios for information;
 *   - every write at least 5% of its ceiling's;
 *   - each 304 row at least 2× the requests/s of the full read of the same URL, in the same rounds;
 *   - under 150 MiB resident per process after the run (a peak above it is pointed out);
 *   - start to first 200 under 1 s;
 *   - with the Django original: bearer `GET /api/comments/1` at least 3× its
 *     session-cookie `GET /comments/`, and Basic `GET /comments/` at least 100× its
 *     Basic `GET /comments/` (equal process counts: WORKERS=N run.sh, --workers N).
 *
 * Run:
 *   npm run bench
 *   npm run bench -- --workers 2 --duration 6 --slice 3 --json results.json
 *   npm run bench -- --workers 2 --django-url http://127.0.0.1:8000 --django-user alice:alice-pass-123
 *   npm run bench -- --help
 * The options are in bench/http/options.ts (USAGE); a mistake in them prints one
 * line and the usage, exit status 2. Ctrl-C (or SIGTERM) stops the run, the
 * server, the ceiling and the reference, removes the temporary directory and
 * prints what was measured so far (Ctrl-C twice: at once).
 * Exit status 1 when something fails (an error, a status other than the row's, a wrong
 * answer, a reference answering otherwise, the server ending or not stopping cleanly,
 * the Django original not answering as asked); a missed target is only reported.
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
import { checkAlive, freePort, serverOutputTail, startServer, stopServer, stopServerAtEnd, waitUntilServing, type ServerProcess, type ServerSettings } from './lib/server.js';
import { benchDjango, djangoHasProblems, type DjangoReport } from './http/django.js';
import { benchRow, warmServer, type Context, type RowResult } from './http/measure-row.js';
import { parseOptions, type Options } from './http/options.js';
import { describeRounds, ROUNDS_LEGEND } from './http/rounds.js';
import { benchRows, type Row } from './http/rows.js';
import { medianStart, memoryAfterStart, memoryNow, processMemory, START_SAMPLES, timeToFirst200, type ProcessMemory, type StartTimes } from './http/start.js';
import { describeTarget, DJANGO_BASIC_FACTOR, DJANGO_SESSION_FACTOR, serverRate, weighTargets } from './http/targets.js';

const FIRST_200_TARGET_SECONDS = 1;
const RSS_TARGET_MIB = 150;

// ---------------------------------------------------------------- the run

interface Report {
  /** The paginated site's default, as it answered. */
  pageSize: number | null;
  rows: RowResult[];
  start: StartTimes | null;
  memory: ProcessMemory[];
  /** With --django-url: the original's rows. */
  django: DjangoReport | null;
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

/**
 * The server started START_SAMPLES times, each timed from its spawn to its
 * first 200s (one start is one sample of a noisy machine): every start but
 * the last stopped again, the last left serving for the rows.
 */
async function timedStarts(database: BenchDatabase, options: Options, directory: string, credentials: Credentials): Promise<{ server: ServerProcess; start: StartTimes }> {
  const starts: Omit<StartTimes, 'samples'>[] = [];
  const timedStart = async (): Promise<ServerProcess> => {
    const started = startServer(serverSettings(database, await freePort(), options.workers, options, directory));
    const times = await timeToFirst200(started, credentials).catch(async (error: unknown) => {
      await stopServer(started);
      throw error;
    });
    starts.push(times);
    progress(`  first 200: GET /api/comments/1 (bearer) ${times.firstAuthenticatedSeconds.toFixed(2)} s, GET /healthz ${times.healthzSeconds.toFixed(2)} s`);
    return started;
  };
  for (let sample = 1; sample < START_SAMPLES && !isInterrupted(); sample += 1) {
    const started = await timedStart();
    const problem = await stopServer(started);
    if (problem) throw new BenchFailure(`a timed start: ${problem}`, serverOutputTail(started));
  }
  const server = await timedStart();
  return { server, start: medianStart(starts) };
}

async function run(options: Options, directory: string, report: Report): Promise<void> {
  progress(`Preparing a database of ${options.comments} comments in ${directory}`);
  const database = await createSqliteDatabase(directory, 'bench', options.comments);
  progress('Logging in (a first start of the server)');
  const { credentials, pageSize } = await firstStart(database, options, directory);
  report.pageSize = pageSize;
  progress(`Starting the server (WEB_CONCURRENCY=${options.workers}), ${START_SAMPLES} times to time its start`);
  const { server, start } = await timedStarts(database, options, directory, credentials);
  report.start = start;
  try {
    await waitUntilServing(server, options.workers);
    const afterStart = await memoryAfterStart(server);
    let afterRun = afterStart;
    const databaseFile = database.url.slice('sqlite:'.length);
    const context: Context = { options, server, credentials, directory, databaseFile, pageSize };
    const rows = benchRows(options.comments, pageSize);
    progress('Warming the server up on each small read');
    report.failures.push(...(await warmServer(rows, context)));
    for (const row of rows) {
      if (isInterrupted()) break;
      const result = await benchRow(row, context);
      report.rows.push(result);
      // After the row's rounds, the server idle.
      if (result.real) afterRun = memoryNow(server);
    }
    weighTargets(report.rows);
    report.memory = processMemory(server, afterStart, afterRun);
    // Alive to the end, the last ceiling included: the stop below is the first it gets.
    checkAlive(server);
  } finally {
    progress('Stopping the server');
    await stopServerAtEnd(server, report.failures);
  }
  if (options.django && !isInterrupted()) report.django = await benchDjango(options.django, options);
}

// ---------------------------------------------------------------- report

function percent(ratio: number | null): string {
  return ratio === null ? '-' : `${(ratio * 100).toFixed(1)}%`;
}

function rowsTable(rows: readonly RowResult[]): string {
  const header = ['row', 'req/s', 'p50 ms', 'p99 ms', 'ceiling req/s', 'of ceiling', 'reference req/s', 'of reference', 'target', 'met'];
  const rate = (load: RowResult['real']): string => (load ? formatNumber(load.requestsPerSecond) : '-');
  const cells = rows.map((row) => [
    row.label,
    rate(row.real),
    row.real ? String(row.real.p50Ms) : '-',
    row.real ? String(row.real.p99Ms) : '-',
    rate(row.ceiling),
    percent(row.ceilingRatio),
    rate(row.reference),
    percent(row.referenceRatio),
    row.targetResults.length === 0
      ? '- (for information)'
      : row.targetResults.map((target) => (row.targetResults.length > 1 ? `${describeTarget(target)}: ${verdict(target.met)}` : describeTarget(target))).join('; '),
    row.problems.length > 0 ? 'FAILED (below)' : verdict(row.met),
  ]);
  return markdownTable(header, cells, ['left', 'right', 'right', 'right', 'right', 'right', 'right', 'right', 'left', 'left']);
}

interface DjangoComparison {
  label: string;
  ours: number | null;
  django: number | null;
  /** ours over Django's. */
  factor: number | null;
  target: number;
  met: boolean | null;
}

/** Ours over the Django original's, for the two pairs with a target. */
function compareWithDjango(rows: readonly RowResult[], django: DjangoReport | null): DjangoComparison[] {
  if (django === null) return [];
  const ours = (role: Row['role']): number | null => serverRate(rows.find((row) => row.role === role));
  const theirs = (credential: 'session' | 'basic'): number | null => {
    const row = django.rows.find((candidate) => candidate.credential === credential);
    return row?.real && row.problems.length === 0 ? row.real.requestsPerSecond : null;
  };
  const pair = (label: string, mine: number | null, other: number | null, target: number): DjangoComparison => {
    const factor = mine === null || other === null || other <= 0 ? null : mine / other;
    return { label, ours: mine, django: other, factor, target, met: factor === null ? null : factor >= target };
  };
  return [
    pair('bearer GET /api/comments/1 vs Django session-cookie GET /comments/', ours('bearer one'), theirs('session'), DJANGO_SESSION_FACTOR),
    pair('Basic GET /comments/ vs Django Basic GET /comments/', ours('basic list'), theirs('basic'), DJANGO_BASIC_FACTOR),
  ];
}

function djangoTables(django: DjangoReport, comparisons: readonly DjangoComparison[]): string[] {
  const rate = (value: number | null): string => (value === null ? '-' : formatNumber(value, value < 100 ? 1 : 0));
  const rows = django.rows.map((row) => [
    row.label,
    rate(row.real?.requestsPerSecond ?? null),
    row.real ? String(row.real.p50Ms) : '-',
    row.real ? String(row.real.p99Ms) : '-',
    row.problems.length > 0 ? 'FAILED (below)' : 'ok',
    row.notes.length > 0 ? row.notes.join('; ') : '-',
  ]);
  const pairs = comparisons.map((pair) => [
    pair.label,
    rate(pair.ours),
    rate(pair.django),
    pair.factor === null ? '-' : `${pair.factor.toFixed(1)}×`,
    `≥ ${pair.target}×`,
    verdict(pair.met),
  ]);
  return [
    '',
    `The Django REST Framework original at ${django.url} (user ${django.username}, ${django.comments ?? '?'} comments in its table):`,
    '',
    markdownTable(['row', 'req/s', 'p50 ms', 'p99 ms', 'answers', 'note (gunicorn closes every connection)'], rows, ['left', 'right', 'right', 'right', 'left', 'left']),
    '',
    markdownTable(['ours vs the original', 'ours req/s', 'Django req/s', 'ours / Django', 'target', 'met'], pairs, ['left', 'right', 'right', 'right', 'left', 'left']),
    ...django.problems.map((problem) => `FAILED: Django: ${problem}`),
    ...django.rows.flatMap((row) => row.problems.map((problem) => `FAILED: ${row.label}: ${problem}`)),
  ];
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
  const out: string[] = [];
  out.push('', `HTTP benchmark, ${date}, commit ${measured}`, describeMachine(about));
  out.push(
    `settings: WEB_CONCURRENCY=${options.workers} (the ceiling and the reference as many processes), ${options.connections} connections, ` +
      `${describeRounds(options)}, ` +
      `${options.comments} comments (${report.pageSize ?? '?'} a page, the site's default), LOG_LEVEL=${options.logLevel}; autocannon runs in the harness, on the same machine`,
  );
  const warning = dotEnvWarning();
  if (warning) out.push(warning);
  out.push(
    '',
    'ceiling: a bare node:http server answering the same bytes from memory; reference: Express 5 and sqlite3 with prepared statements on the same database, ' +
      'the same database work without the framework (no request log).',
    ROUNDS_LEGEND,
    '',
    rowsTable(report.rows),
    '',
  );
  for (const row of report.rows) for (const problem of row.problems) out.push(`FAILED: ${row.label}: ${problem}`);
  if (report.start) {
    const { firstAuthenticatedSeconds, healthzSeconds, samples = [] } = report.start;
    const each = samples.map((sample) => sample.firstAuthenticatedSeconds.toFixed(2)).join(', ');
    out.push(
      `Start to first 200 (spawn → GET /api/comments/1 with a bearer token, migrated database of ${options.comments} comments; ` +
        `the median of ${samples.length} starts: ${each} s): ${firstAuthenticatedSeconds.toFixed(2)} s ` +
        `(target < ${FIRST_200_TARGET_SECONDS} s: ${verdict(firstAuthenticatedSeconds < FIRST_200_TARGET_SECONDS)}); GET /healthz: ${healthzSeconds.toFixed(2)} s`,
    );
  }
  if (report.memory.length > 0) out.push('', 'Resident memory of the server (after the last row\'s run; peak since start):', '', memoryTable(report.memory));
  if (report.django) out.push(...djangoTables(report.django, compareWithDjango(report.rows, report.django)));
  if (report.failures.length > 0) out.push('', ...report.failures.map((failure) => `FAILED: ${failure}`));
  if (report.interrupted) out.push('', 'Interrupted: the results are partial.');
  process.stdout.write(`${out.join('\n')}\n`);
}

// ---------------------------------------------------------------- main

await runBenchmark(() => {
  const options = parseOptions();
  const report: Report = { pageSize: null, rows: [], start: null, memory: [], django: null, failures: [], interrupted: false };
  // The JSON's settings: the Django password stays out.
  const settings = { ...options, django: options.django ? { ...options.django, password: '***' } : null };
  return {
    temporaryPrefix: 'bench-http-',
    report,
    settings,
    measure: (directory) => run(options, directory, report),
    print: (info) => printReport(report, options, info),
    extraJson: () => ({ djangoComparisons: compareWithDjango(report.rows, report.django) }),
    hasProblems: () => report.rows.some((row) => row.problems.length > 0) || djangoHasProblems(report.django),
  };
});
