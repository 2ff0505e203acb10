/**
 * Load with autocannon (in the harness's process), at fixed connections for a
 * fixed time: one run, or the slices of a party of a row (rounds.ts) as one load.
 */
import autocannon from 'autocannon';
import { Interrupted, isInterrupted, stoppable } from '../lib/processes.js';
import { NEW_COMMENT, type Row } from './rows.js';

/** autocannon's per-request timeout, seconds: a request slower than this counts as an error. */
const REQUEST_TIMEOUT_SECONDS = 10;

export interface Load {
  /**
   * One run: autocannon's requests.average, the mean of its per-second counts.
   * A party of a row, driven in slices (combineSlices): its requests over its seconds.
   */
  requestsPerSecond: number;
  /** One run: autocannon's, in whole milliseconds. A party of a row: the median of its slices'. */
  p50Ms: number;
  p99Ms: number;
  requests: number;
  seconds: number;
  errors: number;
  timeouts: number;
  /** Responses per status code. */
  statuses: Record<string, number>;
  /** A party of a row: each of its slices, in the order driven. */
  slices?: Slice[];
}

/** One slice of a party's rounds (rounds.ts), as its load's `slices` keep it. */
export interface Slice {
  /** Its requests over its seconds. */
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  seconds: number;
}

export interface LoadSpec {
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
export function runLoad(spec: LoadSpec): Promise<Load> {
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

/** What went wrong in a run (or a party's slices): connection errors, timeouts, statuses other than the row's. */
export function loadProblems(load: Load, row: Row, phase: string): string[] {
  const problems: string[] = [];
  if (load.errors > 0) problems.push(`${phase}: ${load.errors} connection error(s)${load.timeouts > 0 ? `, ${load.timeouts} timeout(s)` : ''}`);
  for (const [status, count] of Object.entries(load.statuses)) {
    if (Number(status) !== row.status && count > 0) problems.push(`${phase}: ${count}× status ${status}`);
  }
  return problems;
}

/** A run whose problems count and whose numbers do not. */
export async function warmUp(spec: LoadSpec, seconds: number, phase: string, problems: string[]): Promise<void> {
  if (seconds > 0) problems.push(...loadProblems(await runLoad({ ...spec, seconds }), spec.row, phase));
}

/** The warm-up (its problems count, its numbers do not), then the measured run. */
export async function warmAndMeasure(spec: LoadSpec, warmupSeconds: number, phase: string, problems: string[]): Promise<Load> {
  await warmUp(spec, warmupSeconds, `${phase} warm-up`, problems);
  if (isInterrupted()) throw new Interrupted();
  const load = await runLoad(spec);
  problems.push(...loadProblems(load, spec.row, phase));
  return load;
}

/** A run's requests over its seconds (a slice's rate, as combineSlices counts it). */
export function perSecond(load: Pick<Load, 'requests' | 'seconds'>): number {
  return load.seconds > 0 ? load.requests / load.seconds : 0;
}

/** The middle value (the mean of the two middle ones for an even count); NaN for none. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  if (sorted.length === 0) return NaN;
  return sorted.length % 2 === 1 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/**
 * A party's slices as one load: requests/s is the requests over the seconds of
 * them all, p50 and p99 the median of the slices' p50 and of their p99 (the
 * latencies themselves are not kept), errors, timeouts and statuses summed.
 */
export function combineSlices(slices: readonly Load[]): Load {
  const sum = (pick: (load: Load) => number): number => slices.reduce((total, load) => total + pick(load), 0);
  const statuses: Record<string, number> = {};
  for (const slice of slices) for (const [status, count] of Object.entries(slice.statuses)) statuses[status] = (statuses[status] ?? 0) + count;
  const requests = sum((load) => load.requests);
  const seconds = sum((load) => load.seconds);
  return {
    requestsPerSecond: perSecond({ requests, seconds }),
    p50Ms: median(slices.map((load) => load.p50Ms)),
    p99Ms: median(slices.map((load) => load.p99Ms)),
    requests,
    seconds,
    errors: sum((load) => load.errors),
    timeouts: sum((load) => load.timeouts),
    statuses,
    slices: slices.map((load) => ({ requestsPerSecond: perSecond(load), p50Ms: load.p50Ms, p99Ms: load.p99Ms, seconds: load.seconds })),
  };
}
