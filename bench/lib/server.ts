/**
 * The server as a child process of the harness: `node dist/src/server.js` with
 * production settings, its output in a log file; started, waited for (its
 * "serving on" lines or a 200 from /healthz), asked, watched and stopped.
 */
import { closeSync, fstatSync, openSync, readFileSync, readSync } from 'node:fs';
import net, { type AddressInfo } from 'node:net';
import { request, type Reply, type RequestSpec } from './client.js';
import { BenchFailure, descendants, Interrupted, isInterrupted, killTree, seconds, settlesWithin, sleep, spawnTracked } from './processes.js';
import { DEFAULT_MALLOC_ARENA_MAX } from '../../src/cluster.js';
import { baseEnv, projectRoot, SERVER_SCRIPT } from './project.js';

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

/** Node's flags as `npm start` runs the server (package.json): a young generation of 4 MB semi-spaces, not V8's 16. */
const SERVER_NODE_FLAGS = ['--max-semi-space-size=4', '--heap-growing-percent=25'];
/**
 * glibc's arena cap as docs/production.md asks of a single process on Linux,
 * and as a cluster's primary sets it for its workers (src/cluster.ts).
 */
const SERVER_ENV = { MALLOC_ARENA_MAX: DEFAULT_MALLOC_ARENA_MAX };

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
    ...SERVER_ENV,
    PORT: String(settings.port),
    HOST: '127.0.0.1',
    WEB_CONCURRENCY: String(settings.workers),
    LOG_LEVEL: settings.logLevel,
  };
  const log = openSync(settings.logFile, 'a');
  const spawnedAt = performance.now();
  const child = spawnTracked(process.execPath, [...SERVER_NODE_FLAGS, SERVER_SCRIPT], { cwd: projectRoot, env, stdio: ['ignore', log, log] });
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
    if (isInterrupted()) throw new Interrupted();
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

/**
 * stopServer at the end of a run; a failure to stop goes into `failures`, with
 * the server's last lines. A server that had ended on its own is not reported
 * again: checkAlive did, with its last output.
 */
export async function stopServerAtEnd(server: ServerProcess, failures: string[]): Promise<void> {
  const wasRunning = server.ended() === null;
  const problem = await stopServer(server);
  if (problem && wasRunning) failures.push(`${problem}\n  ${serverOutputTail(server, 10).split('\n').join('\n  ')}`);
}
