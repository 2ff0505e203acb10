/** Load with autocannon (in the harness's process), at fixed connections for a fixed time. */
import autocannon from 'autocannon';
import { Interrupted, isInterrupted, stoppable } from '../lib/processes.js';
import { NEW_COMMENT, type Row } from './rows.js';

/** autocannon's per-request timeout, seconds: a request slower than this counts as an error. */
const REQUEST_TIMEOUT_SECONDS = 10;

export interface Load {
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
