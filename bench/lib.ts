/**
 * What the HTTP benchmarks (bench/http.ts, bench/scale.ts) share; not a
 * benchmark itself, nothing runs when it is imported:
 *   - Ctrl-C handling: the first stops what runs and lets the caller clean up
 *     and report, a second kills every child at once and exits;
 *   - a throwaway SQLite database: migrated and given a user by the real CLI,
 *     then seeded with comments straight through the `sqlite3` module;
 *   - the server as a child process (`node dist/src/server.js`, production
 *     settings, its output in a log file), started, watched and stopped;
 *   - the three credentials (HTTP Basic, a Sanctum-style token, a session cookie);
 *   - one HTTP request with its timing; the memory of a process tree from /proc;
 *   - the report: Markdown tables, the machine, the commit, the JSON file.
 */
import { spawn, spawnSync, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  existsSync,
  fstatSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import http, { type IncomingHttpHeaders, type OutgoingHttpHeaders } from 'node:http';
import net, { type AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import sqlite3 from 'sqlite3';
import { projectRoot } from '../src/paths.js';

export { sleep };

export const SERVER_SCRIPT = path.join(projectRoot, 'dist', 'src', 'server.js');
const MANAGE_SCRIPT = path.join(projectRoot, 'dist', 'src', 'cli', 'manage.js');
/** Both sites answer JSON when asked so; the root site would render its browsable page for a browser. */
export const ACCEPT_JSON = { Accept: 'application/json' } as const;
/** One per harness run: a session signed by the first start must still be valid after the restart. */
const SECRET_KEY = randomBytes(24).toString('hex');

// ---------------------------------------------------------------- Ctrl-C, children, temporary directories

/** Set by the first Ctrl-C or SIGTERM: loops stop, running work is stopped, then the caller cleans up and reports. */
let interrupted = false;
const stopOnInterrupt = new Set<() => void>();
const children = new Set<ChildProcess>();
const temporaryDirectories = new Set<string>();

export function isInterrupted(): boolean {
  return interrupted;
}

/** Thrown where waiting makes no more sense after Ctrl-C. */
export class Interrupted extends Error {
  constructor() {
    super('interrupted');
    this.name = 'Interrupted';
  }
}

/** A failure to report with what the server (or a command) printed last. */
export class BenchFailure extends Error {
  constructor(
    message: string,
    readonly output = '',
  ) {
    super(message);
    this.name = 'BenchFailure';
  }
}

/** Awaits `work`; a Ctrl-C meanwhile calls `stop`, which must make `work` settle soon. */
export async function stoppable<T>(stop: () => void, work: Promise<T>): Promise<T> {
  stopOnInterrupt.add(stop);
  try {
    return await work;
  } finally {
    stopOnInterrupt.delete(stop);
  }
}

/** First signal: stop gently and report; second: kill every child, remove the files, exit 1. */
export function handleInterrupts(): void {
  const onSignal = (): void => {
    if (interrupted) {
      for (const child of children) killTree(child.pid, 'SIGKILL');
      removeTemporaryDirectories();
      process.exit(1);
    }
    interrupted = true;
    process.stderr.write('\nInterrupted: stopping (Ctrl-C again to kill everything at once)\n');
    for (const stop of stopOnInterrupt) stop();
  };
  process.on('SIGINT', onSignal).on('SIGTERM', onSignal);
  // However the harness ends (an exception included), no server or ceiling outlives it.
  process.on('exit', () => children.forEach((child) => killTree(child.pid, 'SIGKILL')));
}

/** Spawns a child that Ctrl-C and the harness's exit will not leave behind. */
export function spawnTracked(command: string, args: readonly string[], options: SpawnOptions): ChildProcess {
  const child = spawn(command, args, options);
  children.add(child);
  child.once('exit', () => children.delete(child));
  child.once('error', () => children.delete(child));
  return child;
}

export function makeTemporaryDirectory(prefix: string): string {
  const directory = mkdtempSync(path.join(os.tmpdir(), prefix));
  temporaryDirectories.add(directory);
  return directory;
}

export function removeTemporaryDirectories(): void {
  for (const directory of temporaryDirectories) rmSync(directory, { recursive: true, force: true });
  temporaryDirectories.clear();
}

export function progress(text: string): void {
  process.stderr.write(`${text}\n`);
}

export function seconds(since: number): number {
  return (performance.now() - since) / 1000;
}

// ---------------------------------------------------------------- processes and their memory

/** The live descendants of `pid` (a cluster primary's workers), from each process's parent in /proc/PID/stat. */
export function descendants(pid: number): number[] {
  const parents = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // `pid (comm) state ppid …`: comm may hold spaces and parentheses, so fields count from the last `)`.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      parents.set(Number(entry), ppid);
    } catch {
      // Ended while listed.
    }
  }
  const found: number[] = [];
  const visit = (parent: number): void => {
    for (const [child, ppid] of parents) {
      if (ppid === parent) {
        found.push(child);
        visit(child);
      }
    }
  };
  visit(pid);
  return found;
}

/** Signals `pid` and everything under it; quietly skips what is already gone. */
export function killTree(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  for (const target of [...descendants(pid), pid]) {
    try {
      process.kill(target, signal);
    } catch {
      // Already gone.
    }
  }
}

export interface Memory {
  /** Resident set size now (VmRSS), KiB. */
  rssKiB: number;
  /** The resident peak since start or since resetPeak (VmHWM), KiB. */
  peakKiB: number;
}

/** VmRSS and VmHWM of a process; null once it is gone. */
export function readMemory(pid: number): Memory | null {
  let status: string;
  try {
    status = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return null;
  }
  const field = (name: string): number => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rssKiB: field('VmRSS'), peakKiB: field('VmHWM') };
}

/** Sets VmHWM back to the current RSS (Linux: `5` into /proc/PID/clear_refs); false where not allowed. */
export function resetPeak(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

/**
 * The memory of `pid` once its RSS stops moving (less than 1 MiB over a
 * second): after a start, the server loads the admin site in the background,
 * some 70 MiB, which a baseline taken at the first 200 would miss. Gives up
 * waiting after `timeoutSeconds`; null when the process is gone.
 */
export async function settledMemory(pid: number, timeoutSeconds = 20): Promise<Memory | null> {
  const started = performance.now();
  let previous = readMemory(pid);
  let steadySince = performance.now();
  while (previous !== null && seconds(started) < timeoutSeconds && !interrupted) {
    await sleep(250);
    const now = readMemory(pid);
    if (now === null) return null;
    if (Math.abs(now.rssKiB - previous.rssKiB) >= 1024) {
      previous = now;
      steadySince = performance.now();
    } else if (seconds(steadySince) >= 1) {
      return now;
    }
  }
  return previous;
}

export function mib(kib: number): number {
  return kib / 1024;
}

// ---------------------------------------------------------------- the CLI and the database

export interface Account {
  username: string;
  email: string;
  password: string;
}

export interface BenchDatabase {
  file: string;
  /** DATABASE_URL of the server and the CLI. */
  url: string;
  account: Account;
  comments: number;
}

/** The environment of every child: PATH and production settings, nothing else of ours (no test or debug setting leaks in). */
function baseEnv(databaseUrl: string): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH ?? '/usr/bin:/bin', NODE_ENV: 'production', SECRET_KEY, DEMO_DATA: '0', DATABASE_URL: databaseUrl };
}

/** `node dist/src/cli/manage.js ARGS` with `input` on stdin; throws with its output when it fails. */
async function manage(args: readonly string[], databaseUrl: string, input = ''): Promise<void> {
  const child = spawnTracked(process.execPath, [MANAGE_SCRIPT, ...args], { cwd: projectRoot, env: baseEnv(databaseUrl), stdio: ['pipe', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.setEncoding('utf8').on('data', (text: string) => (output += text));
  child.stderr?.setEncoding('utf8').on('data', (text: string) => (output += text));
  child.stdin?.end(input);
  const status = await new Promise<number | null>((resolve) => {
    child.once('error', (error) => {
      output += String(error);
      resolve(null);
    });
    child.once('close', (code) => resolve(code));
  });
  if (status !== 0) throw new BenchFailure(`manage ${args.join(' ')} failed (status ${status ?? 'none'})`, output.trim());
}

export function openSqlite(file: string, readOnly = false): Promise<sqlite3.Database> {
  const mode = readOnly ? sqlite3.OPEN_READONLY : sqlite3.OPEN_READWRITE | sqlite3.OPEN_CREATE;
  return new Promise((resolve, reject) => {
    const db = new sqlite3.Database(file, mode, (error) => (error ? reject(error) : resolve(db)));
  });
}

function exec(db: sqlite3.Database, sql: string): Promise<void> {
  return new Promise((resolve, reject) => db.exec(sql, (error) => (error ? reject(error) : resolve())));
}

export function closeSqlite(db: sqlite3.Database): Promise<void> {
  return new Promise((resolve, reject) => db.close((error) => (error ? reject(error) : resolve())));
}

/** The first row of `sql`, or undefined. */
export function queryRow<T>(db: sqlite3.Database, sql: string, params: readonly unknown[] = []): Promise<T | undefined> {
  return new Promise((resolve, reject) => db.get<T>(sql, params, (error, row) => (error ? reject(error) : resolve(row))));
}

/** One multi-row INSERT per this many comments: a row per statement would take some 30 s for a million. */
const ROWS_PER_INSERT = 100;
const ROWS_PER_TRANSACTION = 50_000;
/** Comment i is updated at this instant plus i seconds: distinct, in id order, all in the past. */
const FIRST_TIMESTAMP = Date.UTC(2025, 0, 1);

function insertComments(rows: number): string {
  return `INSERT INTO comments (title, body, user_id, created_at, updated_at) VALUES ${Array(rows).fill('(?, ?, ?, ?, ?)').join(', ')}`;
}

/** As Sequelize stores a date in SQLite: `2025-01-01 00:00:01.000 +00:00`. */
function sqliteTimestamp(milliseconds: number): string {
  return new Date(milliseconds).toISOString().replace('T', ' ').replace('Z', ' +00:00');
}

/** Comments first…first+count-1: a title of at most 10 characters, a body of at most 15, the owner's. */
function commentValues(first: number, count: number, ownerId: number): (string | number)[] {
  const values: (string | number)[] = [];
  for (let i = first; i < first + count; i += 1) {
    const stamp = sqliteTimestamp(FIRST_TIMESTAMP + i * 1000);
    values.push(`title ${i % 10_000}`, `comment ${i % 1_000_000}`, ownerId, stamp, stamp);
  }
  return values;
}

function runStatement(statement: sqlite3.Statement, values: readonly (string | number)[]): Promise<void> {
  return new Promise((resolve, reject) => statement.run(values, (error: Error | null) => (error ? reject(error) : resolve())));
}

function prepare(db: sqlite3.Database, sql: string): Promise<sqlite3.Statement> {
  return new Promise((resolve, reject) => {
    const statement = db.prepare(sql, (error: Error | null) => (error ? reject(error) : resolve(statement)));
  });
}

function finalize(statement: sqlite3.Statement): Promise<void> {
  return new Promise((resolve) => statement.finalize(() => resolve()));
}

/** A statement run once (the last, shorter INSERT of a transaction). */
async function runOnce(db: sqlite3.Database, sql: string, values: readonly (string | number)[]): Promise<void> {
  const statement = await prepare(db, sql);
  try {
    await runStatement(statement, values);
  } finally {
    await finalize(statement);
  }
}

/**
 * `count` comments owned by `username`, in transactions of 50,000 rows with
 * synchronous=OFF (a throwaway database: a crash would only lose the seed).
 */
async function seedComments(file: string, username: string, count: number): Promise<void> {
  const db = await openSqlite(file);
  try {
    // Statements in order, so that ids follow the timestamps.
    db.serialize();
    await exec(db, 'PRAGMA journal_mode = WAL; PRAGMA synchronous = OFF');
    const owner = await queryRow<{ id: number }>(db, 'SELECT id FROM users WHERE username = ?', [username]);
    if (!owner) throw new BenchFailure(`no user ${username} to own the comments`);
    const fullInsert = await prepare(db, insertComments(ROWS_PER_INSERT));
    try {
      for (let first = 1; first <= count && !interrupted; first += ROWS_PER_TRANSACTION) {
        const last = Math.min(first + ROWS_PER_TRANSACTION - 1, count);
        await exec(db, 'BEGIN');
        const inserts: Promise<void>[] = [];
        for (let start = first; start <= last; start += ROWS_PER_INSERT) {
          const rows = Math.min(ROWS_PER_INSERT, last - start + 1);
          const values = commentValues(start, rows, owner.id);
          inserts.push(rows === ROWS_PER_INSERT ? runStatement(fullInsert, values) : runOnce(db, insertComments(rows), values));
        }
        await Promise.all(inserts);
        await exec(db, 'COMMIT');
      }
    } finally {
      await finalize(fullInsert);
    }
    // The server opens the file as it would after a clean stop: no write-ahead log to replay.
    await exec(db, 'PRAGMA wal_checkpoint(TRUNCATE)');
  } finally {
    await closeSqlite(db);
  }
  if (interrupted) throw new Interrupted();
}

/** A new SQLite database `name`.sqlite3 in `directory`: migrated, one user (`bench`, a random password at the default 600,000 PBKDF2 iterations), `comments` comments. */
export async function createDatabase(directory: string, name: string, comments: number): Promise<BenchDatabase> {
  const file = path.join(directory, `${name}.sqlite3`);
  const url = `sqlite:${file}`;
  const account: Account = { username: 'bench', email: 'bench@example.com', password: randomBytes(12).toString('hex') };
  const started = performance.now();
  await manage(['migrate'], url);
  await manage(['createuser', '--username', account.username, '--email', account.email, '--password-stdin'], url, `${account.password}\n`);
  const seeding = performance.now();
  await seedComments(file, account.username, comments);
  progress(`  ${name}: migrated and a user created in ${((seeding - started) / 1000).toFixed(1)} s; ${comments} comments seeded in ${seconds(seeding).toFixed(1)} s`);
  return { file, url, account, comments };
}

// ---------------------------------------------------------------- the server

export interface ServerSettings {
  databaseUrl: string;
  port: number;
  /** WEB_CONCURRENCY: more than 1 makes a cluster primary with that many workers. */
  workers: number;
  logLevel: string;
  /** Where the server's stdout and stderr go (the request log included). */
  logFile: string;
}

export interface ServerProcess {
  readonly pid: number;
  /** `http://127.0.0.1:PORT`, no trailing slash. */
  readonly origin: string;
  /** performance.now() just before the spawn. */
  readonly spawnedAt: number;
  readonly settings: ServerSettings;
  /** null while it runs; how it ended, after. */
  readonly ended: () => string | null;
  readonly exited: Promise<void>;
}

/** `promise`'s value, or `fallback` when it takes longer than `limitSeconds` (the timer does not outlive the race). */
export async function within<T>(promise: Promise<T>, limitSeconds: number, fallback: T): Promise<T> {
  const timer = new AbortController();
  const expired = sleep(limitSeconds * 1000, fallback, { signal: timer.signal }).catch(() => fallback);
  try {
    return await Promise.race([promise, expired]);
  } finally {
    timer.abort();
  }
}

/** Whether `promise` settles (either way) within `limitSeconds`. */
export function settlesWithin(promise: Promise<unknown>, limitSeconds: number): Promise<boolean> {
  return within(promise.then(() => true, () => true), limitSeconds, false);
}

/** A free TCP port on 127.0.0.1, for the server to take a moment later (so that it can be polled from the spawn on). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

/**
 * `node dist/src/server.js` with PATH and production settings only. Its output
 * goes to a file rather than a pipe: the server writes its request log as it
 * would in production, and never waits for the harness (busy with the load) to
 * read it. The log level stays `info` unless told: production logs each request.
 */
export function startServer(settings: ServerSettings): ServerProcess {
  const env = {
    ...baseEnv(settings.databaseUrl),
    PORT: String(settings.port),
    HOST: '127.0.0.1',
    WEB_CONCURRENCY: String(settings.workers),
    LOG_LEVEL: settings.logLevel,
  };
  const log = openSync(settings.logFile, 'a');
  const spawnedAt = performance.now();
  const child = spawnTracked(process.execPath, [SERVER_SCRIPT], { cwd: projectRoot, env, stdio: ['ignore', log, log] });
  closeSync(log); // the child has its own descriptor
  let ending: string | null = null;
  const exited = new Promise<void>((resolve) => {
    child.once('error', (error) => {
      ending = `could not start: ${error.message}`;
      resolve();
    });
    child.once('exit', (code, signal) => {
      ending = signal ? `killed by ${signal}` : `exit status ${code ?? 'none'}`;
      resolve();
    });
  });
  return { pid: child.pid ?? -1, origin: `http://127.0.0.1:${settings.port}`, spawnedAt, settings, ended: () => ending, exited };
}

/** The last `lines` lines the server printed, each cut to 400 characters (a request log line is longer). */
export function serverOutputTail(server: ServerProcess, lines = 25): string {
  let text: string;
  try {
    const fd = openSync(server.settings.logFile, 'r');
    try {
      const size = fstatSync(fd).size;
      const length = Math.min(size, 256 * 1024);
      const buffer = Buffer.alloc(length);
      readSync(fd, buffer, 0, length, size - length);
      text = buffer.toString('utf8');
    } finally {
      closeSync(fd);
    }
  } catch {
    return '(no output)';
  }
  const tail = text.trimEnd().split('\n').slice(-lines);
  return tail.map((line) => (line.length > 400 ? `${line.slice(0, 400)}…` : line)).join('\n') || '(no output)';
}

/** Throws, with the server's last output, when it has ended. */
export function checkAlive(server: ServerProcess): void {
  const ended = server.ended();
  if (ended !== null) throw new BenchFailure(`the server ended unexpectedly (${ended})`, serverOutputTail(server));
}

/** Whether the server logs its "serving on" line (level info) at this LOG_LEVEL. */
function logsServing(level: string): boolean {
  return ['trace', 'debug', 'info'].includes(level.toLowerCase());
}

/**
 * Waits for `count` "serving on" log lines: one per worker, or the single
 * process's. At a LOG_LEVEL that hides them, for a 200 from `GET /healthz`
 * instead (with several workers, at least one of them serves then).
 */
export async function waitUntilServing(server: ServerProcess, count: number, timeoutSeconds = 60): Promise<void> {
  const serving = logsServing(server.settings.logLevel) ? async () => servingLines(server) >= count : () => healthy(server);
  for (;;) {
    if (await serving()) return;
    checkAlive(server);
    if (interrupted) throw new Interrupted();
    if (seconds(server.spawnedAt) > timeoutSeconds) {
      throw new BenchFailure(`the server did not serve (${count} process(es)) within ${timeoutSeconds} s`, serverOutputTail(server));
    }
    await sleep(20);
  }
}

function servingLines(server: ServerProcess): number {
  let lines = 0;
  for (const line of readFileSync(server.settings.logFile, 'utf8').split('\n')) if (line.includes('"msg":"serving on ')) lines += 1;
  return lines;
}

async function healthy(server: ServerProcess): Promise<boolean> {
  try {
    return (await request(`${server.origin}/healthz`, { timeoutMs: 2_000 })).status === 200;
  } catch {
    return false;
  }
}

/**
 * SIGTERM (a primary passes it on to its workers), as a process manager stops
 * it; SIGKILL to the whole tree if it is not gone in `graceSeconds`. Returns
 * what went wrong, or null after a clean stop (exit status 0 within the grace).
 */
export async function stopServer(server: ServerProcess, graceSeconds = 15): Promise<string | null> {
  const before = server.ended();
  if (before !== null) return `the server had already ended (${before})`;
  const workers = descendants(server.pid);
  killTree(server.pid, 'SIGTERM');
  if (!(await settlesWithin(server.exited, graceSeconds))) {
    killTree(server.pid, 'SIGKILL');
    await server.exited;
    return `the server did not stop within ${graceSeconds} s of SIGTERM; killed`;
  }
  // Workers the primary should have stopped: none may be left behind.
  for (const pid of workers) killTree(pid, 'SIGKILL');
  const ended = server.ended();
  return ended === 'exit status 0' ? null : `the server stopped with ${ended ?? 'no status'} after SIGTERM`;
}

// ---------------------------------------------------------------- HTTP

export interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  /** Empty when the body was discarded. */
  body: Buffer;
  bytes: number;
  /** From the request's start to the body's last byte. */
  ms: number;
}

export interface RequestSpec {
  method?: string;
  headers?: OutgoingHttpHeaders;
  body?: string;
  agent?: http.Agent;
  timeoutMs?: number;
  /** Count the body's bytes without keeping it (a large answer must not weigh on the harness). */
  discardBody?: boolean;
}

/** One HTTP request; rejects on a network error or after the timeout (30 s unless told). */
export function request(url: string, spec: RequestSpec = {}): Promise<Reply> {
  const { method = 'GET', headers = {}, body, agent, timeoutMs = 30_000, discardBody = false } = spec;
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const outgoing = http.request(url, { method, headers: body === undefined ? headers : { ...headers, 'Content-Length': Buffer.byteLength(body) }, agent: agent ?? false }, (res) => {
      const chunks: Buffer[] = [];
      let bytes = 0;
      res.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        if (!discardBody) chunks.push(chunk);
      });
      res.once('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks), bytes, ms: performance.now() - started }));
      res.once('error', reject);
    });
    outgoing.setTimeout(timeoutMs, () => outgoing.destroy(new Error(`no answer to ${method} ${url} within ${timeoutMs} ms`)));
    outgoing.once('error', reject);
    outgoing.end(body);
  });
}

/** A request to the server; when it fails because the server has ended, the failure says so, with its last output. */
export async function requestServer(server: ServerProcess, path: string, spec: RequestSpec = {}): Promise<Reply> {
  try {
    return await request(`${server.origin}${path}`, spec);
  } catch (error) {
    // The refused connection may come a moment before the exit event.
    await settlesWithin(server.exited, 1);
    checkAlive(server);
    throw error;
  }
}

/** The body as JSON, or undefined when it is not JSON. */
export function parseJson(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The items of a list answer: the array itself, or the first array in it (`data` on the token site). */
export function listItems(value: unknown): unknown[] | undefined {
  if (Array.isArray(value)) return value;
  if (!isRecord(value)) return undefined;
  return Object.values(value).find((field): field is unknown[] => Array.isArray(field));
}

function expectStatus(reply: Reply, status: number, what: string): void {
  if (reply.status !== status) {
    throw new BenchFailure(`${what}: expected status ${status}, got ${reply.status}`, reply.body.toString('utf8').slice(0, 1000));
  }
}

/**
 * The paginated site's default page size, as `GET /comments/` answers it (so
 * that the benchmarks need not copy it): the length of the first page, exact
 * whenever there is a second (with a single page, the page count is 1 either way).
 */
export async function pageSizeOf(origin: string, headers: Record<string, string>): Promise<number> {
  const reply = await request(`${origin}/comments/`, { headers: { ...ACCEPT_JSON, ...headers } });
  expectStatus(reply, 200, 'GET /comments/');
  const results = listItems(parseJson(reply.body))?.length ?? 0;
  if (results === 0) throw new BenchFailure('GET /comments/ answered no comment to learn the page size from', reply.body.toString('utf8').slice(0, 500));
  return results;
}

// ---------------------------------------------------------------- credentials

/** Header values, ready to send. */
export interface Credentials {
  /** `Authorization: Basic …` */
  basic: string;
  /** `Authorization: Bearer …` */
  bearer: string;
  /** `Cookie: …`: every cookie the browser login set, the session id among them. */
  cookie: string;
}

export function basicAuthorization(account: Account): string {
  return `Basic ${Buffer.from(`${account.username}:${account.password}`).toString('base64')}`;
}

/** `POST /api/login` (one password check): the token site's `id|secret`. */
export async function bearerAuthorization(origin: string, account: Account): Promise<string> {
  const reply = await request(`${origin}/api/login`, {
    method: 'POST',
    headers: { ...ACCEPT_JSON, 'Content-Type': 'application/json' },
    body: JSON.stringify({ email: account.email, password: account.password }),
  });
  expectStatus(reply, 201, 'POST /api/login');
  const answer = parseJson(reply.body);
  const token = isRecord(answer) ? answer.token : undefined;
  if (typeof token !== 'string') throw new BenchFailure('POST /api/login answered no token', reply.body.toString('utf8').slice(0, 1000));
  return `Bearer ${token}`;
}

/** name → value of each `Set-Cookie`, added to `jar`. */
function keepCookies(jar: Map<string, string>, headers: IncomingHttpHeaders): void {
  for (const cookie of headers['set-cookie'] ?? []) {
    const pair = cookie.split(';', 1)[0] ?? '';
    const equals = pair.indexOf('=');
    if (equals > 0) jar.set(pair.slice(0, equals).trim(), pair.slice(equals + 1).trim());
  }
}

function cookieHeader(jar: Map<string, string>): string {
  return [...jar].map(([name, value]) => `${name}=${value}`).join('; ');
}

/** The browser login of `/api-auth/login/`: the form (its CSRF token and cookie), then the POST that answers 302 with the session. */
export async function sessionCookie(origin: string, account: Account): Promise<string> {
  const jar = new Map<string, string>();
  const form = await request(`${origin}/api-auth/login/`, { headers: { Accept: 'text/html' } });
  expectStatus(form, 200, 'GET /api-auth/login/');
  keepCookies(jar, form.headers);
  const csrf = /name="csrfmiddlewaretoken" value="([^"]*)"/.exec(form.body.toString('utf8'))?.[1];
  if (csrf === undefined) throw new BenchFailure('GET /api-auth/login/ has no csrfmiddlewaretoken field', form.body.toString('utf8').slice(0, 1000));
  const fields = new URLSearchParams({ username: account.username, password: account.password, csrfmiddlewaretoken: csrf, next: '/comments/' });
  const login = await request(`${origin}/api-auth/login/`, {
    method: 'POST',
    headers: { Accept: 'text/html', 'Content-Type': 'application/x-www-form-urlencoded', Cookie: cookieHeader(jar) },
    body: fields.toString(),
  });
  expectStatus(login, 302, 'POST /api-auth/login/');
  keepCookies(jar, login.headers);
  if (!jar.has('sessionid')) throw new BenchFailure('POST /api-auth/login/ set no sessionid cookie');
  return cookieHeader(jar);
}

/** Logs in both ways (two password checks): a token and a session, stored in the database, valid after a restart. */
export async function logIn(origin: string, account: Account): Promise<Credentials> {
  return { basic: basicAuthorization(account), bearer: await bearerAuthorization(origin, account), cookie: await sessionCookie(origin, account) };
}

// ---------------------------------------------------------------- statistics and the report

/** Nearest-rank percentile of ascending `sorted` (fraction 0.5 for p50). */
export function percentile(sorted: readonly number[], fraction: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1))] as number;
}

export function formatNumber(value: number, digits = 0): string {
  return Number.isFinite(value) ? value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }) : '-';
}

export type Align = 'left' | 'right';

/** A Markdown table, padded so that it also reads as plain text. */
export function markdownTable(header: readonly string[], rows: readonly (readonly string[])[], align: readonly Align[]): string {
  const escape = (cell: string): string => cell.replaceAll('|', '\\|');
  const cells = [header, ...rows].map((row) => row.map(escape));
  const widths = header.map((_, column) => Math.max(3, ...cells.map((row) => (row[column] ?? '').length)));
  const line = (row: readonly string[]): string =>
    `| ${widths.map((width, column) => (align[column] === 'right' ? (row[column] ?? '').padStart(width) : (row[column] ?? '').padEnd(width))).join(' | ')} |`;
  const rule = `|${widths.map((width, column) => (align[column] === 'right' ? `${'-'.repeat(width + 1)}:` : '-'.repeat(width + 2))).join('|')}|`;
  const [head, ...body] = cells;
  return [line(head ?? []), rule, ...body.map(line)].join('\n');
}

export interface Machine {
  cpu: string;
  cores: number;
  memoryGiB: number;
  platform: string;
  node: string;
}

export function machine(): Machine {
  const cpus = os.cpus();
  return {
    cpu: cpus[0]?.model.trim() ?? 'unknown',
    cores: cpus.length,
    memoryGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    platform: `${os.platform()} ${os.release()}`,
    node: process.version,
  };
}

export function describeMachine(about: Machine): string {
  return `machine: ${about.cpu}, ${about.cores} cores, ${about.memoryGiB} GiB, ${about.platform}, node ${about.node}`;
}

/** The commit measured, `+changes` when the working tree differs from it; `unknown` outside a git checkout. */
export function commit(): string {
  const git = (...args: string[]): string | null => {
    const run = spawnSync('git', args, { cwd: projectRoot, encoding: 'utf8' });
    return run.status === 0 ? run.stdout.trim() : null;
  };
  const head = git('rev-parse', '--short', 'HEAD');
  if (head === null) return 'unknown';
  return git('status', '--porcelain', '--untracked-files=no') ? `${head}+changes` : head;
}

/** The server reads a `.env` at the project root for whatever the benchmark does not set: say so, it could skew the numbers. */
export function dotEnvWarning(): string | null {
  return existsSync(path.join(projectRoot, '.env'))
    ? 'note: a .env at the project root gives the server any setting the benchmark does not set (e.g. API_RATE_LIMIT, REDIS_URL)'
    : null;
}

export function writeJson(file: string, value: unknown): void {
  writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
}

export function describeError(error: unknown): string {
  if (error instanceof BenchFailure) return error.output ? `${error.message}\n  ${error.output.split('\n').join('\n  ')}` : error.message;
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
}
