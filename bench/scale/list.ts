/**
 * The memory of the unpaginated list in bench/scale.ts: the growth of the
 * server's resident memory while it answers `GET /api/comments`, every comment.
 */
import path from 'node:path';
import { ACCEPT_JSON, bearerAuthorization, listItems, parseJson, type Reply } from '../lib/client.js';
import { createSqliteDatabase } from '../lib/sqlite.js';
import { mib, readMemory, resetPeak, settledMemory } from '../lib/memory.js';
import { BenchFailure, Interrupted, isInterrupted, progress } from '../lib/processes.js';
import { checkAlive, freePort, requestServer, startServer, stopServerAtEnd, waitUntilServing, type ServerProcess } from '../lib/server.js';
import type { Options } from './options.js';

export const GROWTH_TARGET_MIB = 50;
const SEQUENTIAL_LIST_REQUESTS = 5;
/** Sixty at once took a process from 130 to 500 MB before whole lists were written as they are read. */
const CONCURRENT_LIST_REQUESTS = 60;
export const MEMORY_SAMPLE_MS = 5;
/** A request of the whole list may take seconds; a page should not. */
const LIST_TIMEOUT_MS = 120_000;

export interface ListPhase {
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

/** Where the list's results go as they are measured; `failures`, what went wrong besides. */
export interface ListOutcome {
  list: ListReport | null;
  failures: string[];
}

export interface ListReport {
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
export async function benchList(options: Options, directory: string, report: ListOutcome): Promise<void> {
  progress(`Preparing a database of ${options.listComments} comments for GET /api/comments`);
  const database = await createSqliteDatabase(directory, 'list', options.listComments);
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
    await stopServerAtEnd(server, report.failures);
    await database.remove();
  }
}
