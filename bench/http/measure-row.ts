/**
 * One row of bench/http.ts: its answer checked and kept, the workers primed,
 * the server's run; then the ceiling's on the kept answer and the same-stack
 * reference's on the same database, driven the same way, and the row's
 * ratios to both. Its targets are weighed once every row is in (a 304 row is
 * held to its full read's row): see targets.ts.
 */
import { truncateSync } from 'node:fs';
import { listItems, parseJson, request, isRecord, type Credentials, type Reply } from '../lib/client.js';
import { isInterrupted, progress } from '../lib/processes.js';
import { formatNumber } from '../lib/report.js';
import { checkAlive, type ServerProcess } from '../lib/server.js';
import { startCeiling, startReference } from './ceiling-process.js';
import { warmAndMeasure, warmUp, type Load } from './load.js';
import type { Options } from './options.js';
import { NEW_COMMENT, rowHeaders, type Credential, type Row, type RowTarget } from './rows.js';

/** A target weighed: what it asks, what the row did (a ratio or factor), whether that is enough. */
export interface TargetResult {
  text: string;
  actual: number | null;
  met: boolean | null;
}

export interface RowResult {
  label: string;
  method: string;
  path: string;
  credential: Credential;
  write: boolean;
  status: number;
  conditional: boolean;
  /** The checked answer's size, the one the ceiling answers with. */
  responseBytes: number | null;
  real: Load | null;
  ceiling: Load | null;
  reference: Load | null;
  /** real requests/s over the ceiling's. */
  ceilingRatio: number | null;
  /** real requests/s over the same-stack reference's. */
  referenceRatio: number | null;
  targets: readonly RowTarget[];
  /** Filled in by targets.ts once every row is in. */
  targetResults: TargetResult[];
  met: boolean | null;
  problems: string[];
  role?: Row['role'];
}

export interface Context {
  options: Options;
  server: ServerProcess;
  credentials: Credentials;
  directory: string;
  /** The SQLite file of the server's database: the reference opens it too. */
  databaseFile: string;
  /** The paginated site's page size, as the server answered it. */
  pageSize: number;
}

/** A row's request to `origin`, one new connection. */
function ask(origin: string, row: Row, credentials: Credentials, etag?: string, discardBody = false): Promise<Reply> {
  const headers = rowHeaders(row, credentials, etag);
  return request(`${origin}${row.path}`, { method: row.method, headers, body: row.write ? NEW_COMMENT : undefined, discardBody, timeoutMs: 30_000 });
}

interface Sample {
  reply: Reply;
  /** A conditional row's If-None-Match. */
  etag?: string;
}

/**
 * One checked request of the row to `origin` (`who` names it in a problem):
 * the answer the ceiling will give. A conditional row first asks without a
 * condition for the ETag; none is a problem of this row only. Null (and a
 * problem) when something is wrong.
 */
async function sampleAnswer(who: string, origin: string, row: Row, credentials: Credentials, problems: string[]): Promise<Sample | null> {
  let etag: string | undefined;
  if (row.conditional) {
    const plain = await ask(origin, row, credentials);
    const header = plain.headers.etag;
    if (plain.status !== 200) {
      problems.push(`${who}: the plain GET answered status ${plain.status}, expected 200`);
      return null;
    }
    if (typeof header !== 'string' || header === '') {
      problems.push(`${who}: no ETag in the answer (GET ${row.path} answered 200 without one), so no If-None-Match to send`);
      return null;
    }
    etag = header;
  }
  const reply = await ask(origin, row, credentials, etag);
  const wrong = reply.status !== row.status ? `status ${reply.status}, expected ${row.status}` : row.check(parseJson(reply.body));
  if (wrong === null) return etag === undefined ? { reply } : { reply, etag };
  problems.push(`${who}: answer: ${wrong}: ${reply.body.toString('utf8').slice(0, 300)}`);
  return null;
}

/**
 * With several workers, a few more requests one after the other, each on a new
 * connection (the primary hands connections to the workers in turn), so that
 * every worker makes its one password check of the row alone rather than ten
 * at once in the warm-up, which a short warm-up might not cover.
 */
async function primeWorkers(who: string, origin: string, row: Row, context: Context, etag: string | undefined, problems: string[]): Promise<void> {
  const { workers } = context.options;
  if (workers === 1) return; // the checked request was that worker's first
  for (let i = 1; i < 2 * workers && !isInterrupted(); i += 1) {
    const reply = await ask(origin, row, context.credentials, etag, true);
    if (reply.status !== row.status) problems.push(`${who}: priming: status ${reply.status}`);
  }
}

/** The item of an answer, bare or wrapped (`{"comment": {…}}`). */
function itemOf(answer: unknown): Record<string, unknown> | undefined {
  if (!isRecord(answer)) return undefined;
  if ('id' in answer) return answer;
  return Object.values(answer).find(isRecord);
}

/**
 * What differs between the reference's answer and the server's, or null: for
 * a read, the count and the items (the links name another port); for a write,
 * the fields of the new item (its id and time are its own); a 304 has no body.
 */
function differs(row: Row, ours: Reply, theirs: Reply): string | null {
  if (row.conditional) return null;
  const a = parseJson(ours.body);
  const b = parseJson(theirs.body);
  const show = (value: unknown): string => JSON.stringify(value)?.slice(0, 200) ?? 'nothing';
  if (row.write) {
    const keys = (value: unknown): string => Object.keys(itemOf(value) ?? {}).sort().join(',');
    return keys(a) === keys(b) ? null : `the new item's fields ${keys(b)}, the server's ${keys(a)}`;
  }
  const ourItems = listItems(a);
  if (ourItems) {
    if (isRecord(a) && isRecord(b) && a.count !== b.count) return `count ${String(b.count)}, the server's ${String(a.count)}`;
    const theirItems = listItems(b);
    return JSON.stringify(ourItems) === JSON.stringify(theirItems) ? null : `items ${show(theirItems)}, the server's ${show(ourItems)}`;
  }
  return JSON.stringify(a) === JSON.stringify(b) ? null : `${show(b)}, the server's ${show(a)}`;
}

function report(who: string, load: Load): void {
  progress(`    ${who.padEnd(9)}${formatNumber(load.requestsPerSecond).padStart(8)} req/s  p50 ${load.p50Ms} ms  p99 ${load.p99Ms} ms`);
}

const ratio = (real: Load | null, other: Load | null): number | null =>
  real === null || other === null || other.requestsPerSecond <= 0 ? null : real.requestsPerSecond / other.requestsPerSecond;

/** The same-stack reference's run of the row: its answer checked against the server's, then the same load. */
async function measureReference(row: Row, context: Context, ours: Reply, result: RowResult, spec: { row: Row; connections: number; seconds: number }): Promise<void> {
  const { options } = context;
  const reference = await startReference(context.databaseFile, context.pageSize, options.workers);
  try {
    const sample = await sampleAnswer('reference', reference.origin, row, context.credentials, result.problems);
    if (sample === null) return;
    const wrong = differs(row, ours, sample.reply);
    if (wrong !== null) {
      result.problems.push(`reference: its answer is not the server's: ${wrong}`);
      return;
    }
    await primeWorkers('reference', reference.origin, row, context, sample.etag, result.problems);
    const headers = rowHeaders(row, context.credentials, sample.etag);
    result.reference = await warmAndMeasure({ ...spec, headers, url: `${reference.origin}${row.path}` }, options.warmupSeconds, 'reference', result.problems);
  } finally {
    await reference.stop();
  }
  report('reference', result.reference);
}

export async function benchRow(row: Row, context: Context): Promise<RowResult> {
  const { options, server } = context;
  const result: RowResult = {
    label: row.label,
    method: row.method,
    path: row.path,
    credential: row.credential,
    write: row.write,
    status: row.status,
    conditional: row.conditional === true,
    responseBytes: null,
    real: null,
    ceiling: null,
    reference: null,
    ceilingRatio: null,
    referenceRatio: null,
    targets: row.targets,
    targetResults: [],
    met: null,
    problems: [],
    ...(row.role ? { role: row.role } : {}),
  };
  progress(`  ${row.label}`);
  checkAlive(server);
  const sample = await sampleAnswer('server', server.origin, row, context.credentials, result.problems);
  if (sample === null) return result;
  await primeWorkers('server', server.origin, row, context, sample.etag, result.problems);
  result.responseBytes = sample.reply.body.length;
  const spec = { row, headers: rowHeaders(row, context.credentials, sample.etag), connections: options.connections, seconds: options.durationSeconds };
  result.real = await warmAndMeasure({ ...spec, url: `${server.origin}${row.path}` }, options.warmupSeconds, 'server', result.problems);
  checkAlive(server);
  // The request log of this row is not needed any more: the file stays small however long the run.
  truncateSync(server.settings.logFile, 0);
  report('server', result.real);
  if (isInterrupted()) return interruptedRow(result);
  const ceiling = await startCeiling(sample.reply, options.workers, context.directory);
  try {
    result.ceiling = await warmAndMeasure({ ...spec, url: `${ceiling.origin}${row.path}` }, options.warmupSeconds, 'ceiling', result.problems);
  } finally {
    await ceiling.stop();
  }
  report('ceiling', result.ceiling);
  if (isInterrupted()) return interruptedRow(result);
  await measureReference(row, context, sample.reply, result, spec);
  if (isInterrupted()) return interruptedRow(result);
  result.ceilingRatio = ratio(result.real, result.ceiling);
  result.referenceRatio = ratio(result.real, result.reference);
  return result;
}

/**
 * Before the first row: each small read the rows measure, driven for the
 * warm-up's time. Right after its start a server is still compiling its hot
 * paths (and loading the admin in the background), which would otherwise
 * fall on whichever row comes first; the start has its own row. Writes are
 * left out, so that the reads see exactly the comments seeded.
 */
export async function warmServer(rows: readonly Row[], context: Context): Promise<string[]> {
  const problems: string[] = [];
  const { server, credentials, options } = context;
  for (const row of rows) {
    if (row.write || row.conditional || row.targets.length === 0 || isInterrupted()) continue;
    const spec = { row, headers: rowHeaders(row, credentials), connections: options.connections, seconds: options.warmupSeconds, url: `${server.origin}${row.path}` };
    await warmUp(spec, options.warmupSeconds, `server warm-up before the rows (${row.label})`, problems);
  }
  return problems;
}

function interruptedRow(result: RowResult): RowResult {
  result.problems.push('interrupted');
  result.ceilingRatio = null;
  result.referenceRatio = null;
  return result;
}
