import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import path from 'node:path';
import { projectRoot } from '../../src/paths.js';

// What `npm start` runs: the compiled output, built by `npm test` (and test:e2e) first.
export const BUILT_SERVER = path.join(projectRoot, 'dist/src/server.js');

/**
 * How long a server may take to start, in ms: TEST_START_TIMEOUT_SECONDS
 * (default 15), times `factor` for starts that do more (the demo data).
 * A slow or busy machine raises the setting rather than every test's number.
 */
export function startTimeout(factor = 1): number {
  const seconds = Number(process.env.TEST_START_TIMEOUT_SECONDS ?? '');
  return (Number.isFinite(seconds) && seconds > 0 ? seconds : 15) * 1000 * factor;
}

/** Every server a test file started and that has not exited: each leads a process group of its own (its workers too). */
const running = new Set<ChildProcessWithoutNullStreams>();

/**
 * Kills a spawned server's whole process group (the server, its workers, its
 * preparing child) at once; also when the process spawned has exited, which
 * may have left the others of its group running (`npm start` that did not
 * pass a signal on).
 */
export function killServer(child: ChildProcessWithoutNullStreams): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // Gone already.
  }
}

/**
 * Kills whatever servers the test file left running: called after every file
 * (test/setup-after-env.ts) and when the Jest worker exits, so that a failed or
 * timed-out test never leaves a process behind for Jest to wait on.
 */
export function killRunningServers(): void {
  for (const child of running) killServer(child);
  running.clear();
}
process.once('exit', killRunningServers);

/** Resolves with the URL the server logs once it listens; rejects if it exits or stays silent, and then kills it. */
export function waitForUrl(child: ChildProcessWithoutNullStreams, timeoutMs = startTimeout()): Promise<string> {
  return new Promise((resolve, reject) => {
    let output = '';
    const fail = (error: Error): void => {
      killServer(child);
      reject(error);
    };
    const timer = setTimeout(() => fail(new Error(`server did not start within ${timeoutMs} ms (TEST_START_TIMEOUT_SECONDS raises it): ${output}`)), timeoutMs);
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /"url":"([^"]+)"/.exec(output);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('exit', (status) => {
      clearTimeout(timer);
      fail(new Error(`server exited with ${status}: ${output}`));
    });
  });
}

/** The built server as node runs it; `NPM_START` runs it as `npm start` does. */
const NODE_SERVER: readonly string[] = [process.execPath, BUILT_SERVER];
export const NPM_START: readonly string[] = ['npm', 'start', '--silent'];

/** The built server (or `command`, run in `cwd`) in a process group of its own, with only PATH and `env` as its environment. */
export function spawnServer(env: Record<string, string>, command: readonly string[] = NODE_SERVER, cwd = projectRoot): ChildProcessWithoutNullStreams {
  const [file = process.execPath, ...args] = command;
  const child = spawn(file, args, { env: { PATH: process.env.PATH ?? '', ...env }, detached: true, cwd });
  // Kept after it exits: its group may outlive it.
  running.add(child);
  return child;
}

/** Starts the built server expecting it to stop at once: its exit status and what it said on stderr. */
export async function refusedStart(env: Record<string, string>): Promise<{ status: number | null; stderr: string }> {
  const child = spawnServer(env);
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const status = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  return { status, stderr };
}

/** The settings of a production start in the system tests: any free port, cheap password hashes, no demo data. */
export const PRODUCTION_ENV = {
  NODE_ENV: 'production',
  SECRET_KEY: 'system-test-secret-key-of-fifty-characters-or-more-0123',
  PASSWORD_HASH_ITERATIONS: '1000',
  DEMO_DATA: '0',
  PORT: '0',
  HOST: '127.0.0.1',
} as const;

/** One JSON line of the server's log (pino). */
export interface LogLine {
  pid: number;
  msg: string;
  [field: string]: unknown;
}

/** A started server: its process, its URL, and what it has logged so far. */
export interface ServerProcess {
  child: ChildProcessWithoutNullStreams;
  /** The pid of the process started: the server, or the primary of its workers. */
  pid: number;
  url: string;
  /** The exit status, once the server process has exited (null if a signal ended it). */
  exited: Promise<number | null>;
  /** Everything written to standard output so far. */
  output(): string;
  logs(): LogLine[];
  /** Resolves with the first log line `matches` accepts, logged already or to come. */
  waitForLog(matches: (line: LogLine) => boolean, timeoutMs?: number): Promise<LogLine>;
  /** The pids of the processes that logged `serving on`, in order. */
  servingPids(): number[];
}

/** The complete JSON lines of `text`: the last one may still be on its way. */
function parseLines(text: string): LogLine[] {
  return text
    .slice(0, text.lastIndexOf('\n') + 1)
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as LogLine);
}

/** Spawns the built server and waits until it serves. */
export async function startServerProcess(env: Record<string, string>, command?: readonly string[]): Promise<ServerProcess> {
  const child = spawnServer(env, command);
  if (child.pid === undefined) throw new Error('the server process did not start');
  const pid = child.pid;
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (status) => resolve(status)));
  const logs = (): LogLine[] => parseLines(output);
  const waitForLog = (matches: (line: LogLine) => boolean, timeoutMs = startTimeout()): Promise<LogLine> =>
    new Promise((resolve, reject) => {
      const check = (): void => {
        const found = logs().find(matches);
        if (!found) return;
        clearTimeout(timer);
        child.stdout.off('data', check);
        resolve(found);
      };
      const timer = setTimeout(() => reject(new Error(`no such log line in:\n${output}`)), timeoutMs);
      child.stdout.on('data', check);
      check();
    });
  const servingPids = (): number[] => logs().filter((line) => line.msg.startsWith('serving on')).map((line) => line.pid);
  return { child, pid, url: await waitForUrl(child), exited, output: () => output, logs, waitForLog, servingPids };
}

/** Creates a user with `manage createuser`, as an operator does; rejects if the command fails. */
export function createUserWithCli(env: Record<string, string>, username: string, password: string): Promise<void> {
  const manage = path.join(projectRoot, 'dist/src/cli/manage.js');
  const args = [manage, 'createuser', '--username', username, '--email', `${username}@example.com`, '--password-stdin'];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { env: { PATH: process.env.PATH ?? '', ...env } });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (status) => (status === 0 ? resolve() : reject(new Error(`createuser exited with ${status}: ${stderr}`))));
    child.stdin.end(`${password}\n`);
  });
}

/** The Authorization header of HTTP Basic. */
export function basicAuth(username: string, password: string): string {
  return `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
}

/** What clients saw creating comments: the ids acknowledged with 201, and every other answer or error. */
export interface CreateLoad {
  created: number[];
  failures: string[];
}

function describeFailure(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause as NodeJS.ErrnoException | undefined;
  return cause?.code ? `${error.message} (${cause.code})` : error.message;
}

/**
 * One client creating `count` comments one after another with `POST /comments/`,
 * recording into `load`; it stops at the first failure (a connection error when
 * the server is killed).
 */
async function createComments(url: string, authorization: string, count: number, client: number, load: CreateLoad): Promise<void> {
  for (let i = 0; i < count; i += 1) {
    try {
      const res = await fetch(new URL('comments/', url), {
        method: 'POST',
        headers: { authorization, 'content-type': 'application/x-www-form-urlencoded' },
        body: `title=c${client}-${i}&body=load`,
      });
      const text = await res.text();
      if (res.status !== 201) throw new Error(`${res.status} ${text}`);
      load.created.push((JSON.parse(text) as { id: number }).id);
    } catch (error) {
      load.failures.push(`client ${client}, create ${i}: ${describeFailure(error)}`);
      return;
    }
  }
}

/** `clients` clients creating `each` comments in parallel; `load` fills as they go. */
export async function createCommentsInParallel(
  url: string,
  authorization: string,
  clients: number,
  each: number,
  load: CreateLoad = { created: [], failures: [] },
): Promise<CreateLoad> {
  await Promise.all(Array.from({ length: clients }, (_, client) => createComments(url, authorization, each, client, load)));
  return load;
}

/** Resolves once `condition` holds, checking every few milliseconds; rejects with `explain()` after `timeoutMs`. */
export async function until(condition: () => boolean, explain: () => string = () => '', timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`condition not reached within ${timeoutMs} ms ${explain()}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
