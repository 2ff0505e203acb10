/**
 * HTTP benchmark of the server (issue 8): throughput and latency per endpoint,
 * each against the ceiling of a bare node:http server answering the same bytes.
 *
 * What it measures. A fresh SQLite database gets the migrations, a user `bench`
 * (a random password hashed with the default 600,000 PBKDF2 iterations) and N
 * comments. A first start of the server logs in twice (a token from
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
import { truncateSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import {
  ACCEPT_JSON,
  BenchFailure,
  checkAlive,
  commit,
  createDatabase,
  describeError,
  describeMachine,
  descendants,
  dotEnvWarning,
  formatNumber,
  freePort,
  Interrupted,
  isInterrupted,
  isRecord,
  listItems,
  logIn,
  pageSizeOf,
  machine,
  makeTemporaryDirectory,
  markdownTable,
  mib,
  parseJson,
  progress,
  readMemory,
  removeTemporaryDirectories,
  request,
  requestServer,
  handleInterrupts,
  serverOutputTail,
  settledMemory,
  settlesWithin,
  sleep,
  spawnTracked,
  startServer,
  stopServer,
  stoppable,
  waitUntilServing,
  within,
  writeJson,
  type BenchDatabase,
  type Credentials,
  type Machine,
  type Memory,
  type Reply,
  type ServerProcess,
  type ServerSettings,
} from './lib.js';

const CEILING_SCRIPT = fileURLToPath(new URL('./ceiling.js', import.meta.url));
const READ_TARGET = 0.2;
const WRITE_TARGET = 0.1;
const BASIC_VS_SESSION_TARGET = 0.8;
const FIRST_200_TARGET_SECONDS = 2;
const RSS_TARGET_MIB = 200;
/** How deep the deep-page row reads: page 4000 of 5000 at 10,000 comments, 2 a page (the site's default). */
const DEEP_PAGE_FRACTION = 0.8;
/** Within the limits: a title of at most 10 characters, a body of at most 15. */
const NEW_COMMENT = JSON.stringify({ title: 'bench', body: 'a bench comment' });
/** autocannon's per-request timeout, seconds: a request slower than this counts as an error. */
const REQUEST_TIMEOUT_SECONDS = 10;
const POLL_MS = 10;
const START_TIMEOUT_SECONDS = 60;

interface Options {
  workers: number;
  connections: number;
  durationSeconds: number;
  warmupSeconds: number;
  comments: number;
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
      workers: { type: 'string', default: process.env.WEB_CONCURRENCY || '1' },
      connections: { type: 'string', default: '10' },
      duration: { type: 'string', default: '10' },
      warmup: { type: 'string', default: '2' },
      comments: { type: 'string', default: '10000' },
      'log-level': { type: 'string', default: 'info' },
      json: { type: 'string' },
    },
  });
  const warmupSeconds = Number(values.warmup);
  if (!Number.isInteger(warmupSeconds) || warmupSeconds < 0) throw new Error(`--warmup must be a whole number of seconds, not ${values.warmup}`);
  return {
    workers: positiveInteger('workers', values.workers),
    connections: positiveInteger('connections', values.connections),
    durationSeconds: positiveInteger('duration', values.duration),
    warmupSeconds,
    comments: positiveInteger('comments', values.comments),
    logLevel: values['log-level'],
    json: values.json,
  };
}

// ---------------------------------------------------------------- the rows

type Credential = 'basic' | 'session' | 'bearer';

interface Row {
  label: string;
  method: 'GET' | 'POST';
  path: string;
  credential: Credential;
  write: boolean;
  status: 200 | 201;
  /** What is wrong with the row's answer, or null. */
  check: (answer: unknown) => string | null;
  /** Rows the Basic-auth comparison needs. */
  role?: 'basic list' | 'session list' | 'bearer one';
}

/** A page of the paginated site: the count of every comment, a full page (or the rest, on the last). */
function pageOf(comments: number, pageSize: number, page: number): (answer: unknown) => string | null {
  const expected = Math.min(pageSize, comments - (page - 1) * pageSize);
  return (answer) => {
    if (!isRecord(answer)) return 'not a JSON object';
    if (answer.count !== comments) return `count ${String(answer.count)}, expected ${comments}`;
    const results = listItems(answer);
    return results?.length === expected ? null : `${results?.length ?? 'no'} results, expected ${expected}`;
  };
}

/** An item, bare or wrapped (`{"comment": {…}}` on the token site). */
function itemId(answer: unknown): unknown {
  if (!isRecord(answer)) return undefined;
  if ('id' in answer) return answer.id;
  const inner = Object.values(answer).find(isRecord);
  return inner?.id;
}

function theComment(id: number): (answer: unknown) => string | null {
  return (answer) => (itemId(answer) === id ? null : `not comment ${id}`);
}

function everyComment(comments: number): (answer: unknown) => string | null {
  return (answer) => {
    const items = listItems(answer);
    return items?.length === comments ? null : `${items?.length ?? 'no'} comments, expected ${comments}`;
  };
}

function aNewComment(answer: unknown): string | null {
  return typeof itemId(answer) === 'number' ? null : 'no id in the answer';
}

function benchRows(comments: number, pageSize: number): Row[] {
  const pages = Math.ceil(comments / pageSize);
  const deep = Math.max(1, Math.round(pages * DEEP_PAGE_FRACTION));
  const read = { method: 'GET', write: false, status: 200 } as const;
  const write = { method: 'POST', write: true, status: 201, check: aNewComment } as const;
  return [
    { ...read, label: 'GET /comments/ (Basic)', path: '/comments/', credential: 'basic', check: pageOf(comments, pageSize, 1), role: 'basic list' },
    { ...read, label: `GET /comments/?page=${deep} (Basic)`, path: `/comments/?page=${deep}`, credential: 'basic', check: pageOf(comments, pageSize, deep) },
    { ...read, label: 'GET /comments/ (session cookie)', path: '/comments/', credential: 'session', check: pageOf(comments, pageSize, 1), role: 'session list' },
    { ...read, label: 'GET /api/comments/1 (bearer)', path: '/api/comments/1', credential: 'bearer', check: theComment(1), role: 'bearer one' },
    { ...read, label: `GET /api/comments (bearer, all ${comments})`, path: '/api/comments', credential: 'bearer', check: everyComment(comments) },
    { ...write, label: 'POST /comments/ (Basic)', path: '/comments/', credential: 'basic' },
    { ...write, label: 'POST /api/comments (bearer)', path: '/api/comments', credential: 'bearer' },
  ];
}

function rowHeaders(row: Row, credentials: Credentials): Record<string, string> {
  const headers: Record<string, string> = { ...ACCEPT_JSON };
  if (row.credential === 'session') headers.Cookie = credentials.cookie;
  else headers.Authorization = row.credential === 'basic' ? credentials.basic : credentials.bearer;
  if (row.write) headers['Content-Type'] = 'application/json';
  return headers;
}

// ---------------------------------------------------------------- load, with autocannon

interface Load {
  /** autocannon's requests.average: the mean of its per-second counts. */
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  requests: number;
  seconds: number;
  errors: number;
  timeouts: number;
  /** Responses per status code. */
  statuses: Record<string, number>;
}

interface LoadSpec {
  url: string;
  row: Row;
  headers: Record<string, string>;
  connections: number;
  seconds: number;
}

function summarize(result: autocannon.Result): Load {
  const statuses: Record<string, number> = {};
  for (const [status, stats] of Object.entries(result.statusCodeStats ?? {})) statuses[status] = stats.count ?? 0;
  return {
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    requests: result.requests.total,
    seconds: result.duration,
    errors: result.errors,
    timeouts: result.timeouts,
    statuses,
  };
}

/** One autocannon run; Ctrl-C stops it early (its partial result still comes back). */
function runLoad(spec: LoadSpec): Promise<Load> {
  let instance: autocannon.Instance | undefined;
  const done = new Promise<Load>((resolve, reject) => {
    instance = autocannon(
      {
        url: spec.url,
        method: spec.row.method,
        headers: spec.headers,
        body: spec.row.write ? NEW_COMMENT : undefined,
        connections: spec.connections,
        duration: spec.seconds,
        timeout: REQUEST_TIMEOUT_SECONDS,
      },
      (error: unknown, result: autocannon.Result) => (error ? reject(error instanceof Error ? error : new Error(String(error))) : resolve(summarize(result))),
    );
  });
  return stoppable(() => instance?.stop(), done);
}

/** What went wrong in a run: connection errors, timeouts, statuses other than the row's. */
function loadProblems(load: Load, row: Row, phase: string): string[] {
  const problems: string[] = [];
  if (load.errors > 0) problems.push(`${phase}: ${load.errors} connection error(s)${load.timeouts > 0 ? `, ${load.timeouts} timeout(s)` : ''}`);
  for (const [status, count] of Object.entries(load.statuses)) {
    if (Number(status) !== row.status && count > 0) problems.push(`${phase}: ${count}× status ${status}`);
  }
  return problems;
}

/** The warm-up (its problems count, its numbers do not), then the measured run. */
async function warmAndMeasure(spec: LoadSpec, warmupSeconds: number, phase: string, problems: string[]): Promise<Load> {
  if (warmupSeconds > 0) problems.push(...loadProblems(await runLoad({ ...spec, seconds: warmupSeconds }), spec.row, `${phase} warm-up`));
  if (isInterrupted()) throw new Interrupted();
  const load = await runLoad(spec);
  problems.push(...loadProblems(load, spec.row, phase));
  return load;
}

// ---------------------------------------------------------------- the ceiling

interface Ceiling {
  origin: string;
  stop: () => Promise<void>;
}

/** bench/ceiling.js answering `sample`'s status, Content-Type and body, with `workers` processes. */
async function startCeiling(sample: Reply, workers: number, directory: string): Promise<Ceiling> {
  const bodyFile = path.join(directory, 'ceiling-body');
  writeFileSync(bodyFile, sample.body);
  const port = await freePort();
  const contentType = String(sample.headers['content-type'] ?? 'application/octet-stream');
  const args = [CEILING_SCRIPT, '--port', String(port), '--workers', String(workers), '--status', String(sample.status), '--content-type', contentType, '--body', bodyFile];
  const child = spawnTracked(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stderr?.setEncoding('utf8').on('data', (text: string) => (output += text));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const listening = new Promise<boolean>((resolve) => {
    child.stdout?.setEncoding('utf8').on('data', (text: string) => {
      output += text;
      if (output.includes('"listening"')) resolve(true);
    });
    void exited.then(() => resolve(false));
  });
  const stop = async (): Promise<void> => {
    child.kill('SIGTERM');
    if (!(await settlesWithin(exited, 5))) child.kill('SIGKILL');
    await exited;
  };
  const ready = await stoppable(() => child.kill('SIGKILL'), within(listening, 20, false));
  if (!ready) {
    await stop();
    if (isInterrupted()) throw new Interrupted();
    throw new BenchFailure('the ceiling server did not start', output.trim());
  }
  return { origin: `http://127.0.0.1:${port}`, stop };
}

// ---------------------------------------------------------------- one row

interface RowResult {
  label: string;
  method: string;
  path: string;
  credential: Credential;
  write: boolean;
  status: number;
  /** The checked answer's size, the one the ceiling answers with. */
  responseBytes: number | null;
  real: Load | null;
  ceiling: Load | null;
  /** real requests/s over the ceiling's. */
  ratio: number | null;
  target: number;
  met: boolean | null;
  problems: string[];
  role?: Row['role'];
}

interface Context {
  options: Options;
  server: ServerProcess;
  credentials: Credentials;
  directory: string;
}

/** One request of the row, checked: the answer the ceiling will give. Null (and a problem) when it is wrong. */
async function sampleAnswer(row: Row, context: Context, problems: string[]): Promise<Reply | null> {
  const headers = rowHeaders(row, context.credentials);
  const body = row.write ? NEW_COMMENT : undefined;
  const sample = await requestServer(context.server, row.path, { method: row.method, headers, body });
  const wrong = sample.status !== row.status ? `status ${sample.status}, expected ${row.status}` : row.check(parseJson(sample.body));
  if (wrong === null) return sample;
  problems.push(`answer: ${wrong}: ${sample.body.toString('utf8').slice(0, 300)}`);
  return null;
}

/**
 * With several workers, a few more requests one after the other, each on a new
 * connection (the primary hands connections to the workers in turn), so that
 * every worker makes its one password check of the row alone rather than ten
 * at once in the warm-up, which a short warm-up might not cover.
 */
async function primeWorkers(row: Row, context: Context, problems: string[]): Promise<void> {
  const { workers } = context.options;
  if (workers === 1) return; // the checked request was that worker's first
  const headers = rowHeaders(row, context.credentials);
  for (let i = 1; i < 2 * workers && !isInterrupted(); i += 1) {
    const reply = await requestServer(context.server, row.path, { method: row.method, headers, body: row.write ? NEW_COMMENT : undefined, discardBody: true });
    if (reply.status !== row.status) problems.push(`priming: status ${reply.status}`);
  }
}

async function benchRow(row: Row, context: Context): Promise<RowResult> {
  const { options, server } = context;
  const target = row.write ? WRITE_TARGET : READ_TARGET;
  const result: RowResult = {
    label: row.label,
    method: row.method,
    path: row.path,
    credential: row.credential,
    write: row.write,
    status: row.status,
    responseBytes: null,
    real: null,
    ceiling: null,
    ratio: null,
    target,
    met: null,
    problems: [],
    role: row.role,
  };
  progress(`  ${row.label}`);
  checkAlive(server);
  const sample = await sampleAnswer(row, context, result.problems);
  if (sample === null) return result;
  await primeWorkers(row, context, result.problems);
  result.responseBytes = sample.body.length;
  const spec = { row, headers: rowHeaders(row, context.credentials), connections: options.connections, seconds: options.durationSeconds };
  result.real = await warmAndMeasure({ ...spec, url: `${server.origin}${row.path}` }, options.warmupSeconds, 'server', result.problems);
  checkAlive(server);
  // The request log of this row is not needed any more: the file stays small however long the run.
  truncateSync(server.settings.logFile, 0);
  progress(`    server   ${formatNumber(result.real.requestsPerSecond).padStart(8)} req/s  p50 ${result.real.p50Ms} ms  p99 ${result.real.p99Ms} ms`);
  if (isInterrupted()) return interruptedRow(result);
  const ceiling = await startCeiling(sample, options.workers, context.directory);
  try {
    result.ceiling = await warmAndMeasure({ ...spec, url: `${ceiling.origin}${row.path}` }, options.warmupSeconds, 'ceiling', result.problems);
  } finally {
    await ceiling.stop();
  }
  progress(`    ceiling  ${formatNumber(result.ceiling.requestsPerSecond).padStart(8)} req/s  p50 ${result.ceiling.p50Ms} ms  p99 ${result.ceiling.p99Ms} ms`);
  if (isInterrupted()) return interruptedRow(result);
  result.ratio = result.ceiling.requestsPerSecond > 0 ? result.real.requestsPerSecond / result.ceiling.requestsPerSecond : null;
  result.met = result.ratio === null ? null : result.ratio >= target;
  return result;
}

function interruptedRow(result: RowResult): RowResult {
  result.problems.push('interrupted');
  result.ratio = null;
  result.met = null;
  return result;
}

// ---------------------------------------------------------------- start, memory

interface StartTimes {
  /** Spawn → first 200 of `GET /api/comments/1` with the bearer token. */
  firstAuthenticatedSeconds: number;
  /** Spawn → first 200 of `GET /healthz`. */
  healthzSeconds: number;
}

/** Seconds from the spawn to the first 200 of `path`, polling every 10 ms; a 5xx or no answer yet is retried, another status fails. */
async function firstOk(server: ServerProcess, path: string, headers: Record<string, string>): Promise<number> {
  for (;;) {
    checkAlive(server);
    if (isInterrupted()) throw new Interrupted();
    try {
      const reply = await request(`${server.origin}${path}`, { headers, timeoutMs: 5_000 });
      if (reply.status === 200) return (performance.now() - server.spawnedAt) / 1000;
      if (reply.status < 500) throw new BenchFailure(`GET ${path} answered ${reply.status} while the server started`, reply.body.toString('utf8').slice(0, 500));
    } catch (error) {
      if (error instanceof BenchFailure) throw error;
      // Not listening yet.
    }
    if ((performance.now() - server.spawnedAt) / 1000 > START_TIMEOUT_SECONDS) {
      throw new BenchFailure(`no 200 on GET ${path} within ${START_TIMEOUT_SECONDS} s of the start`, serverOutputTail(server));
    }
    await sleep(POLL_MS);
  }
}

async function timeToFirst200(server: ServerProcess, credentials: Credentials): Promise<StartTimes> {
  const [firstAuthenticatedSeconds, healthzSeconds] = await Promise.all([
    firstOk(server, '/api/comments/1', { ...ACCEPT_JSON, Authorization: credentials.bearer }),
    firstOk(server, '/healthz', ACCEPT_JSON),
  ]);
  return { firstAuthenticatedSeconds, healthzSeconds };
}

interface ProcessMemory {
  pid: number;
  role: string;
  afterStart: Memory | null;
  afterRun: Memory | null;
}

/** The server's processes (a primary and its workers, or the one) with their memory now. */
function memoryNow(server: ServerProcess): Map<number, Memory | null> {
  const pids = [server.pid, ...descendants(server.pid)];
  return new Map(pids.map((pid) => [pid, readMemory(pid)]));
}

/** The same once each process's RSS has settled after the start (the admin site loads in the background). */
async function memoryAfterStart(server: ServerProcess): Promise<Map<number, Memory | null>> {
  const pids = [server.pid, ...descendants(server.pid)];
  return new Map(await Promise.all(pids.map(async (pid) => [pid, await settledMemory(pid)] as const)));
}

function processMemory(server: ServerProcess, afterStart: Map<number, Memory | null>, afterRun: Map<number, Memory | null>): ProcessMemory[] {
  const pids = [...new Set([...afterStart.keys(), ...afterRun.keys()])];
  const role = (pid: number): string => (pid !== server.pid ? 'worker' : server.settings.workers > 1 ? 'primary' : 'server');
  return pids.map((pid) => ({ pid, role: role(pid), afterStart: afterStart.get(pid) ?? null, afterRun: afterRun.get(pid) ?? null }));
}

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
  const database = await createDatabase(directory, 'bench', options.comments);
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
    // A server that ended on its own was reported above, with its last output.
    const wasRunning = server.ended() === null;
    const problem = await stopServer(server);
    if (problem && wasRunning) report.failures.push(`${problem}\n  ${serverOutputTail(server, 10).split('\n').join('\n  ')}`);
  }
}

// ---------------------------------------------------------------- report

function percent(ratio: number | null): string {
  return ratio === null ? '-' : `${(ratio * 100).toFixed(1)}%`;
}

function verdict(met: boolean | null): string {
  return met === null ? '-' : met ? 'met' : 'NOT met';
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

function printReport(report: Report, options: Options, date: string, measured: string, about: Machine): void {
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

async function main(): Promise<number> {
  const options = parseOptions();
  handleInterrupts();
  const measured = commit();
  const date = new Date().toISOString();
  const about = machine();
  const report: Report = { pageSize: null, rows: [], start: null, memory: [], failures: [], interrupted: false };
  const directory = makeTemporaryDirectory('bench-http-');
  try {
    await run(options, directory, report);
  } catch (error) {
    if (!(error instanceof Interrupted)) report.failures.push(describeError(error));
  } finally {
    removeTemporaryDirectories();
  }
  report.interrupted = isInterrupted();
  printReport(report, options, date, measured, about);
  if (options.json) {
    writeJson(options.json, { date, commit: measured, machine: about, settings: options, ...report, comparisons: compare(report.rows) });
  }
  const failed = report.failures.length > 0 || report.interrupted || report.rows.some((row) => row.problems.length > 0);
  return failed ? 1 : 0;
}

process.exitCode = await main().catch((error: unknown) => {
  process.stderr.write(`bench: ${describeError(error)}\n`);
  return 1;
});
