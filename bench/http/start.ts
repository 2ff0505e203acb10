/**
 * The server's start and its memory in bench/http.ts: the time from the spawn
 * to the first 200s, and the resident memory of each of its processes.
 */
import { ACCEPT_JSON, request, type Credentials } from '../lib/client.js';
import { readMemory, settledMemory, type Memory } from '../lib/memory.js';
import { BenchFailure, descendants, Interrupted, isInterrupted, sleep } from '../lib/processes.js';
import { checkAlive, serverOutputTail, type ServerProcess } from '../lib/server.js';
import { median } from './load.js';

const POLL_MS = 10;
const START_TIMEOUT_SECONDS = 60;

export interface StartTimes {
  /** Spawn → first 200 of `GET /api/comments/1` with the bearer token (of several starts: the median). */
  firstAuthenticatedSeconds: number;
  /** Spawn → first 200 of `GET /healthz` (the median). */
  healthzSeconds: number;
  /** Several starts: each one's times, in order. */
  samples?: Omit<StartTimes, 'samples'>[];
}

/** How many times the server is started to time its start: one start is one sample of a noisy machine. */
export const START_SAMPLES = 3;

/** Several starts' times as one: the median of each, and every start's. */
export function medianStart(samples: readonly Omit<StartTimes, 'samples'>[]): StartTimes {
  return {
    firstAuthenticatedSeconds: median(samples.map((sample) => sample.firstAuthenticatedSeconds)),
    healthzSeconds: median(samples.map((sample) => sample.healthzSeconds)),
    samples: [...samples],
  };
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

export async function timeToFirst200(server: ServerProcess, credentials: Credentials): Promise<StartTimes> {
  const [firstAuthenticatedSeconds, healthzSeconds] = await Promise.all([
    firstOk(server, '/api/comments/1', { ...ACCEPT_JSON, Authorization: credentials.bearer }),
    firstOk(server, '/healthz', ACCEPT_JSON),
  ]);
  return { firstAuthenticatedSeconds, healthzSeconds };
}

export interface ProcessMemory {
  pid: number;
  role: string;
  afterStart: Memory | null;
  afterRun: Memory | null;
}

/** The server's processes (a primary and its workers, or the one) with their memory now. */
export function memoryNow(server: ServerProcess): Map<number, Memory | null> {
  const pids = [server.pid, ...descendants(server.pid)];
  return new Map(pids.map((pid) => [pid, readMemory(pid)]));
}

/** The same once each process's RSS has settled after the start (the admin site loads in the background). */
export async function memoryAfterStart(server: ServerProcess): Promise<Map<number, Memory | null>> {
  const pids = [server.pid, ...descendants(server.pid)];
  return new Map(await Promise.all(pids.map(async (pid) => [pid, await settledMemory(pid)] as const)));
}

export function processMemory(server: ServerProcess, afterStart: Map<number, Memory | null>, afterRun: Map<number, Memory | null>): ProcessMemory[] {
  const pids = [...new Set([...afterStart.keys(), ...afterRun.keys()])];
  const role = (pid: number): string => (pid !== server.pid ? 'worker' : server.settings.workers > 1 ? 'primary' : 'server');
  return pids.map((pid) => ({ pid, role: role(pid), afterStart: afterStart.get(pid) ?? null, afterRun: afterRun.get(pid) ?? null }));
}
