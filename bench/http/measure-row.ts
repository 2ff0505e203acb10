/**
 * One row of bench/http.ts: its answer checked and kept, the workers primed,
 * the server's run, then the ceiling's on the kept answer, and their ratio
 * against the row's target.
 */
import { truncateSync } from 'node:fs';
import { parseJson, type Credentials, type Reply } from '../lib/client.js';
import { isInterrupted, progress } from '../lib/processes.js';
import { formatNumber } from '../lib/report.js';
import { checkAlive, requestServer, type ServerProcess } from '../lib/server.js';
import { startCeiling } from './ceiling-process.js';
import { warmAndMeasure, type Load } from './load.js';
import type { Options } from './options.js';
import { NEW_COMMENT, rowHeaders, type Credential, type Row } from './rows.js';

const READ_TARGET = 0.2;
const WRITE_TARGET = 0.1;

export interface RowResult {
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

export interface Context {
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

export async function benchRow(row: Row, context: Context): Promise<RowResult> {
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
