/**
 * Benchmark of `manage loaddata` and `manage dumpdata` on large user files.
 *
 * What it measures: the wall-clock time of the real CLI run as a child
 * process (`node dist/src/cli/manage.js …`, process start and migrations
 * included) on three generated files of N users each: a Django `auth.user`
 * fixture (pbkdf2_sha256 hashes), a CSV (PHP bcrypt `$2y$` hashes) and a
 * Laravel `users` JSON export. For each file, on a fresh database:
 *   load       loaddata FILE                     (every row created)
 *   reload     loaddata FILE again               (every row updated, none added)
 *   dumpdata   dumpdata --output DUMP
 *   load dump  loaddata DUMP into another fresh database
 * The goal: a 100,000-user file loads in under 20 s (first-load rows).
 *
 * Run:
 *   npm run bench:loaddata
 *   npm run bench:loaddata -- --users 20000 --json results.json
 *   npm run bench:loaddata -- --database-url postgres://postgres@127.0.0.1:5432/postgres
 *     (or BENCH_DATABASE_URL=…): the same on PostgreSQL too, in fresh databases
 *     created and dropped on that server.
 *   npm run bench:loaddata -- --help
 * Options (USAGE below): --users N (default 100000), --json FILE, --timeout SECONDS per command
 * (default 300), --skip-sqlite (PostgreSQL only); a mistake in them prints one line and the
 * usage, exit status 2. Ctrl-C (or SIGTERM) stops the command running, drops the
 * databases, removes the files and prints what was measured so far.
 * Exit status 1 when a command fails or prints a wrong count; a missed target is only reported.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createWriteStream, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { finished } from 'node:stream/promises';
import { parseArgs } from 'node:util';
import bcrypt from 'bcryptjs';
import { PasswordHasher } from '../src/auth/hashers.js';
import { runOnServer } from '../src/testing/database.js';
import { argumentErrors, commandLine, UsageError } from './lib/options.js';
import { makeTemporaryDirectory, removeTemporaryDirectories } from './lib/processes.js';
import { MANAGE_SCRIPT, projectRoot } from './lib/project.js';
import { commit, writeJson } from './lib/report.js';

/** The goal: a 100,000-user file loads in under this many seconds. */
const TARGET_SECONDS = 20;
const TARGET_USERS = 100_000;
const POOL_SIZE = 16;
/** Laravel's default cost, so the hashes read `$2y$10$…` like a real export (16 of them take about 2 s). */
const BCRYPT_COST = 10;
/** Users rendered per write to the file. */
const CHUNK_USERS = 1000;

interface Options {
  users: number;
  databaseUrl: string | undefined;
  skipSqlite: boolean;
  json: string | undefined;
  timeoutSeconds: number;
}

interface Result {
  case: string;
  database: string;
  users: number;
  seconds: number;
  ok: boolean;
  firstLoad: boolean;
  error?: string;
}

const USAGE = `Usage: npm run bench:loaddata -- [options]

  --users N             users in each generated file (default 100000)
  --database-url URL    also run on PostgreSQL (a postgres:// server: fresh databases are
                        created and dropped there; default $BENCH_DATABASE_URL, else none)
  --skip-sqlite         PostgreSQL only (needs --database-url)
  --timeout SECONDS     per command (default 300)
  --json FILE           also write the results as JSON
  --help                this text
`;

function parse(): Options {
  const { values } = argumentErrors(() =>
    parseArgs({
      options: {
        users: { type: 'string', default: '100000' },
        'database-url': { type: 'string' },
        json: { type: 'string' },
        timeout: { type: 'string', default: '300' },
        'skip-sqlite': { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h' },
      },
    }),
  );
  const users = Number(values.users);
  const timeoutSeconds = Number(values.timeout);
  if (!Number.isInteger(users) || users < 1) throw new UsageError(`--users must be a positive integer, not ${values.users}`);
  if (!(timeoutSeconds > 0)) throw new UsageError(`--timeout must be a positive number of seconds, not ${values.timeout}`);
  const databaseUrl = values['database-url'] ?? process.env.BENCH_DATABASE_URL;
  if (databaseUrl !== undefined && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new UsageError(`--database-url must be a postgres:// URL, not ${databaseUrl}`);
  }
  if (values['skip-sqlite'] && databaseUrl === undefined) throw new UsageError('--skip-sqlite needs --database-url (or BENCH_DATABASE_URL)');
  return { users, databaseUrl, skipSqlite: values['skip-sqlite'], json: values.json, timeoutSeconds };
}

/** The options; `--help` prints the usage (exit 0), a mistake one line and the usage (exit 2). */
function parseOptions(): Options {
  return commandLine('bench:loaddata', USAGE, parse);
}

// ---------------------------------------------------------------- generated users

interface Person {
  username: string;
  email: string;
  firstName: string;
  lastName: string;
  /** The display name of a CSV or Laravel export. */
  name: string;
  isStaff: boolean;
  isSuperuser: boolean;
  isActive: boolean;
}

const JAPANESE_FAMILY = [['山田', 'yamada'], ['鈴木', 'suzuki'], ['佐藤', 'sato'], ['田中', 'tanaka'], ['高橋', 'takahashi'], ['伊藤', 'ito'], ['渡辺', 'watanabe'], ['中村', 'nakamura'], ['小林', 'kobayashi'], ['加藤', 'kato'], ['吉田', 'yoshida']] as const;
const JAPANESE_GIVEN = [['太郎', 'taro'], ['花子', 'hanako'], ['一郎', 'ichiro'], ['さくら', 'sakura'], ['健太', 'kenta'], ['美咲', 'misaki'], ['翔', 'sho'], ['ゆい', 'yui'], ['大輔', 'daisuke']] as const;
const ASCII_FIRST = ['Alice', 'Bob', 'Carol', 'David', 'Emma', 'Frank', 'Grace', 'Henry', 'Isabel'] as const;
const ASCII_LAST = ['Smith', 'Jones', 'Brown', 'Taylor', 'Wilson', 'Evans', 'Moore', 'Martin', 'Clark', 'Lewis', 'Walker'] as const;

function pick<T>(list: readonly T[], index: number): T {
  return list[index % list.length] as T;
}

/** User number i (from 1): every other one Japanese, some with a Japanese username; usernames and emails unique by i. */
function person(i: number): Person {
  const flags = { isStaff: i % 100 === 0, isSuperuser: i % 1000 === 0, isActive: i % 50 !== 7 };
  if (i % 2 === 0) {
    const [lastName, lastRomaji] = pick(JAPANESE_FAMILY, i);
    const [firstName, firstRomaji] = pick(JAPANESE_GIVEN, Math.floor(i / JAPANESE_FAMILY.length));
    const handle = `${lastRomaji}.${firstRomaji}.${i}`;
    const username = i % 20 === 0 ? `${lastName}${firstName}${i}` : handle;
    return { username, email: `${handle}@example.jp`, firstName, lastName, name: `${lastName} ${firstName}`, ...flags };
  }
  const firstName = pick(ASCII_FIRST, i);
  const lastName = pick(ASCII_LAST, Math.floor(i / ASCII_FIRST.length));
  const handle = `${firstName}.${lastName}.${i}`.toLowerCase();
  return { username: handle, email: `${handle}@example.com`, firstName, lastName, name: `${firstName} ${lastName}`, ...flags };
}

interface PasswordPools {
  pbkdf2: string[];
  bcrypt: string[];
}

/** A few real hashes, reused: loaddata keeps a hash as it is, so hashing cost is not part of the load. */
async function makePasswordPools(): Promise<PasswordPools> {
  const hasher = new PasswordHasher(1000);
  const indexes = [...Array(POOL_SIZE).keys()];
  const pbkdf2 = await Promise.all(indexes.map((k) => hasher.make(`password-${k}`)));
  const php = await Promise.all(indexes.map(async (k) => (await bcrypt.hash(`password-${k}`, BCRYPT_COST)).replace(/^\$2b\$/, '$2y$')));
  return { pbkdf2, bcrypt: php };
}

// ---------------------------------------------------------------- files, streamed to disk

/** Writes `head`, each user's text (joined by `separator`) and `tail`, a chunk at a time, minding backpressure. */
async function writeUsers(file: string, count: number, head: string, render: (i: number) => string, separator: string, tail: string): Promise<void> {
  const out = createWriteStream(file);
  const write = async (text: string): Promise<void> => {
    if (!out.write(text)) await once(out, 'drain');
  };
  await write(head);
  for (let start = 1; start <= count; start += CHUNK_USERS) {
    const parts: string[] = [];
    for (let i = start; i < Math.min(start + CHUNK_USERS, count + 1); i += 1) parts.push(render(i));
    await write((start === 1 ? '' : separator) + parts.join(separator));
  }
  await write(tail);
  out.end();
  await finished(out);
}

/** The shape of test/fixtures/django_users_shared.json (`manage.py dumpdata auth.user --indent 2`). */
function writeDjangoFixture(file: string, count: number, pools: PasswordPools): Promise<void> {
  return writeUsers(file, count, '[\n  ', (i) => {
    const p = person(i);
    const entry = {
      model: 'auth.user',
      pk: i,
      fields: {
        password: pick(pools.pbkdf2, i),
        last_login: null,
        is_superuser: p.isSuperuser,
        username: p.username,
        first_name: p.firstName,
        last_name: p.lastName,
        email: p.email,
        is_staff: p.isStaff,
        is_active: p.isActive,
        date_joined: '2025-04-01T09:30:00.123456',
        groups: [],
        user_permissions: [],
      },
    };
    return JSON.stringify(entry, null, 2).replaceAll('\n', '\n  ');
  }, ',\n  ', '\n]\n');
}

function csvField(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

function writeCsv(file: string, count: number, pools: PasswordPools): Promise<void> {
  const flag = (value: boolean): string => (value ? '1' : '0');
  return writeUsers(file, count, 'username,email,name,password,is_staff,is_superuser,is_active\n', (i) => {
    const p = person(i);
    return [p.username, p.email, p.name, pick(pools.bcrypt, i), flag(p.isStaff), flag(p.isSuperuser), flag(p.isActive)].map(csvField).join(',');
  }, '\n', '\n');
}

/** A Laravel `users` table as PHP's json_encode(…, JSON_PRETTY_PRINT) writes it (slashes escaped). */
function writeLaravelJson(file: string, count: number, pools: PasswordPools): Promise<void> {
  return writeUsers(file, count, '[\n    ', (i) => {
    const p = person(i);
    const row = {
      id: i,
      name: p.name,
      email: p.email,
      email_verified_at: null,
      password: pick(pools.bcrypt, i),
      remember_token: null,
      created_at: '2025-05-01 10:00:00',
      updated_at: '2025-05-01 10:00:00',
    };
    return JSON.stringify(row, null, 4).replaceAll('\n', '\n    ').replaceAll('/', '\\/');
  }, ',\n    ', '\n]\n');
}

// ---------------------------------------------------------------- the CLI as a child process

/** Set by Ctrl-C or SIGTERM: the running command is killed and no other starts. */
let interrupted = false;
const running = new Set<ChildProcess>();

function interrupt(): void {
  interrupted = true;
  for (const child of running) child.kill('SIGKILL');
}

interface CliRun {
  status: number | null;
  stdout: string;
  stderr: string;
  seconds: number;
}

/** `node dist/src/cli/manage.js ARGS` on DATABASE_URL, English messages; killed after the timeout. */
function runManage(args: readonly string[], databaseUrl: string, timeoutSeconds: number): Promise<CliRun> {
  const started = process.hrtime.bigint();
  const env = { ...process.env, DATABASE_URL: databaseUrl, LC_ALL: 'C.UTF-8' };
  const child = spawn(process.execPath, [MANAGE_SCRIPT, ...args], { cwd: projectRoot, env, stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(child);
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (text: string) => (stdout += text));
  child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
  const timer = setTimeout(() => {
    stderr += `\n[bench] killed after ${timeoutSeconds} s\n`;
    child.kill('SIGKILL');
  }, timeoutSeconds * 1000);
  return new Promise((resolve) => {
    const done = (status: number | null): void => {
      clearTimeout(timer);
      running.delete(child);
      resolve({ status, stdout, stderr, seconds: Number(process.hrtime.bigint() - started) / 1e9 });
    };
    child.on('error', (error) => {
      stderr += String(error);
      done(null);
    });
    child.on('close', (status) => done(status));
  });
}

/** What a successful run must print; returns what is wrong, or null. */
type Check = (stdout: string) => string | null;

function installed(count: number, created: number, updated: number): Check {
  return (stdout) => {
    const match = /Installed (\d+) user\(s\) from (\d+) file\(s\): (\d+) created, (\d+) updated\./.exec(stdout);
    if (!match) return 'no "Installed N user(s) …" summary line';
    const [, total, , made, changed] = match.map(Number);
    return total === count && made === created && changed === updated
      ? null
      : `expected ${count} user(s): ${created} created, ${updated} updated; got "${match[0]}"`;
  };
}

function wrote(count: number): Check {
  return (stdout) => {
    // The users among the objects written (the benchmark's database holds no other rows).
    const match = /\bauth\.user: (\d+)/.exec(stdout);
    if (!match) return 'no "Wrote N object(s) to … (auth.user: N, …)" line';
    return Number(match[1]) === count ? null : `expected ${count} user(s); got "${match[0]}"`;
  };
}

// ---------------------------------------------------------------- databases

interface Databases {
  name: string;
  /** A new, empty database; returns its DATABASE_URL. */
  create(): Promise<string>;
  dropAll(): Promise<void>;
}

function sqliteDatabases(directory: string): Databases {
  let created = 0;
  return {
    name: 'sqlite',
    create: async () => `sqlite:${path.join(directory, `bench-${(created += 1)}.sqlite3`)}`,
    dropAll: async () => undefined, // the temporary directory goes, files and all
  };
}

/** Fresh databases on the server of `server` (as test/helpers/database.ts makes them), dropped at the end. */
function postgresDatabases(server: string): Databases {
  const names: string[] = [];
  return {
    name: 'postgres',
    async create() {
      const name = `bench_${process.pid}_${randomBytes(6).toString('hex')}`;
      await runOnServer(server, `CREATE DATABASE ${name}`);
      names.push(name);
      const url = new URL(server);
      url.pathname = `/${name}`;
      return url.toString();
    },
    async dropAll() {
      for (const name of names.splice(0)) await runOnServer(server, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    },
  };
}

// ---------------------------------------------------------------- one file, four timed commands

interface Step {
  case: string;
  args: string[];
  databaseUrl: string;
  check: Check;
  firstLoad: boolean;
}

async function runStep(step: Step, database: string, users: number, timeoutSeconds: number): Promise<Result> {
  process.stderr.write(`  ${step.case.padEnd(24)} ${database.padEnd(8)} `);
  const run = await runManage(step.args, step.databaseUrl, timeoutSeconds);
  const problem = interrupted
    ? 'interrupted'
    : run.status === 0
      ? step.check(run.stdout)
      : `exit status ${run.status ?? 'none (killed or not started)'}`;
  const result: Result = { case: step.case, database, users, seconds: run.seconds, ok: problem === null, firstLoad: step.firstLoad };
  process.stderr.write(`${run.seconds.toFixed(2)} s${problem ? '  FAILED' : ''}\n`);
  if (problem) {
    result.error = problem;
    const output = `${run.stdout}${run.stderr}`.trim().split('\n').slice(-20).join('\n    ');
    process.stderr.write(`    FAILED: ${step.case} on ${database}: ${problem}\n    $ manage ${step.args.join(' ')}\n    ${output}\n`);
  } else if (run.stderr.trim() !== '') {
    process.stderr.write(`    (stderr) ${run.stderr.trim().split('\n').slice(0, 5).join('\n    ')}\n`);
  }
  return result;
}

/** load, reload, dumpdata, load dump: stops at the first failure, since the next steps build on it. */
async function benchFile(label: string, file: string, databases: Databases, options: Options, directory: string): Promise<Result[]> {
  const n = options.users;
  const first = await databases.create();
  const dump = path.join(directory, `dump-${label}-${databases.name}.json`);
  const steps: (() => Promise<Step>)[] = [
    async () => ({ case: `${label} load`, args: ['loaddata', file], databaseUrl: first, check: installed(n, n, 0), firstLoad: true }),
    async () => ({ case: `${label} reload`, args: ['loaddata', file], databaseUrl: first, check: installed(n, 0, n), firstLoad: false }),
    async () => ({ case: `${label} dumpdata`, args: ['dumpdata', '--output', dump], databaseUrl: first, check: wrote(n), firstLoad: false }),
    async () => ({ case: `${label} load dump`, args: ['loaddata', dump], databaseUrl: await databases.create(), check: installed(n, n, 0), firstLoad: true }),
  ];
  const results: Result[] = [];
  for (const step of steps) {
    const result = await runStep(await step(), databases.name, n, options.timeoutSeconds);
    results.push(result);
    if (!result.ok || interrupted) break;
  }
  rmSync(dump, { force: true });
  return results;
}

// ---------------------------------------------------------------- report

function table(results: readonly Result[]): string {
  const header = ['case', 'database', 'users', 'seconds', 'users/s', `target <${TARGET_SECONDS} s`];
  const rows = results.map((r) => [
    r.case,
    r.database,
    String(r.users),
    r.seconds.toFixed(2),
    r.ok ? String(Math.round(r.users / r.seconds)) : '-',
    !r.ok ? `FAILED: ${r.error ?? ''}` : r.firstLoad ? (r.seconds < TARGET_SECONDS ? 'met' : 'NOT met') : '',
  ]);
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)));
  const numeric = new Set([2, 3, 4]);
  const line = (cells: readonly string[]): string =>
    cells
      .map((cell, column) => (numeric.has(column) ? cell.padStart(widths[column] ?? 0) : cell.padEnd(widths[column] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(header), widths.map((width) => '-'.repeat(width)).join('  '), ...rows.map(line)].join('\n');
}

function machine(): { cores: number; cpu: string; node: string; platform: string; memoryGiB: number } {
  const cpus = os.cpus();
  return {
    cores: cpus.length,
    cpu: cpus[0]?.model.trim() ?? 'unknown',
    node: process.version,
    platform: `${os.platform()} ${os.release()}`,
    memoryGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
  };
}

// ---------------------------------------------------------------- main

async function generateFiles(directory: string, users: number): Promise<[string, string][]> {
  const pools = await makePasswordPools();
  const files: [string, string, (file: string, count: number, pools: PasswordPools) => Promise<void>][] = [
    ['django', path.join(directory, 'django_users.json'), writeDjangoFixture],
    ['csv', path.join(directory, 'users.csv'), writeCsv],
    ['laravel', path.join(directory, 'laravel_users.json'), writeLaravelJson],
  ];
  for (const [label, file, write] of files) {
    await write(file, users, pools);
    process.stderr.write(`  ${label.padEnd(8)} ${file} (${(statSync(file).size / 2 ** 20).toFixed(1)} MiB)\n`);
  }
  return files.map(([label, file]) => [label, file]);
}

async function main(): Promise<number> {
  const options = parseOptions();
  const measured = commit(); // now: the build just made is of this tree
  const date = new Date().toISOString();
  const directory = makeTemporaryDirectory('bench-loaddata-');
  const databaseSets: Databases[] = options.skipSqlite ? [] : [sqliteDatabases(directory)];
  if (options.databaseUrl) databaseSets.push(postgresDatabases(options.databaseUrl));
  process.on('SIGINT', interrupt).on('SIGTERM', interrupt);
  const results: Result[] = [];
  try {
    process.stderr.write(`Generating ${options.users} users per file in ${directory}\n`);
    const files = await generateFiles(directory, options.users);
    for (const databases of databaseSets) {
      process.stderr.write(`Running on ${databases.name}\n`);
      try {
        for (const [label, file] of files) {
          if (!interrupted) results.push(...(await benchFile(label, file, databases, options, directory)));
        }
      } finally {
        await databases.dropAll();
      }
    }
  } finally {
    removeTemporaryDirectories();
  }
  const about = machine();
  process.stdout.write(`\nloaddata/dumpdata benchmark, ${date}, commit ${measured}\n`);
  process.stdout.write(`machine: ${about.cores} cores, ${about.cpu}, ${about.memoryGiB} GiB, ${about.platform}, node ${about.node}\n\n`);
  process.stdout.write(`${table(results)}\n`);
  if (options.users !== TARGET_USERS) {
    process.stdout.write(`(the ${TARGET_SECONDS} s target is set for ${TARGET_USERS} users; this run has ${options.users})\n`);
  }
  if (options.json) writeJson(options.json, { date, commit: measured, machine: about, users: options.users, results });
  const failed = results.filter((r) => !r.ok).length;
  if (failed > 0) process.stdout.write(`\n${failed} command(s) failed.\n`);
  return failed > 0 ? 1 : 0;
}

process.exitCode = await main().catch((error: unknown) => {
  process.stderr.write(`bench: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  return 1;
});
