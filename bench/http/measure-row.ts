/**
 * One row of bench/http.ts: the server's answer checked and kept, its workers
 * primed; the ceiling (answering the kept answer) and the same-stack reference
 * (on the same database, its first answer checked against the server's)
 * started beside; then every party measured in the same rounds (rounds.ts),
 * a 304 row's full read among them, and the row's ratios to the ceiling and
 * the reference. Its targets are weighed once every row is in: see targets.ts.
 */
import { truncateSync } from 'node:fs';
import type { Credentials } from '../lib/client.js';
import { isInterrupted, progress } from '../lib/processes.js';
import { formatNumber } from '../lib/report.js';
import { checkAlive, type ServerProcess } from '../lib/server.js';
import { checkReference, primeWorkers, sampleAnswer, type Sample } from './answers.js';
import { startCeiling, startReference, type Ceiling } from './ceiling-process.js';
import { warmUp, type Load, type LoadSpec } from './load.js';
import type { Options } from './options.js';
import { driveInRounds, warmParties, type Party } from './rounds.js';
import { fullReadOf, rowHeaders, type Credential, type Row, type RowTarget } from './rows.js';

/** A target weighed: what it asks, what the row did (a ratio or factor), whether that is enough. */
export interface TargetResult {
  text: string;
  actual: number | null;
  met: boolean | null;
  /** A 304 row's: the requests/s of its full read (the factor's divisor). */
  against?: number | null;
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
  /** A 304 row's full read (the same request without If-None-Match), driven in the same rounds. */
  fullRead: Load | null;
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

function report(who: string, load: Load): void {
  progress(`    ${who.padEnd(9)}${formatNumber(load.requestsPerSecond).padStart(8)} req/s  p50 ${load.p50Ms} ms  p99 ${load.p99Ms} ms`);
}

const ratio = (real: Load | null, other: Load | null): number | null =>
  real === null || other === null || other.requestsPerSecond <= 0 ? null : real.requestsPerSecond / other.requestsPerSecond;

/** The parties of the row, in the order of its first round. */
function rowParties(row: Row, context: Context, ours: Sample, ceiling: Ceiling, reference: { origin: string; sample: Sample } | null): Party[] {
  const { options, credentials, server } = context;
  const spec = (origin: string, request: Row, etag: string | undefined): LoadSpec => ({
    url: `${origin}${row.path}`,
    row: request,
    headers: rowHeaders(request, credentials, etag),
    connections: options.connections,
    seconds: options.sliceSeconds,
  });
  const parties: Party[] = [
    { name: 'server', spec: spec(server.origin, row, ours.etag) },
    { name: 'ceiling', spec: spec(ceiling.origin, row, ours.etag) },
  ];
  if (reference) parties.push({ name: 'reference', spec: spec(reference.origin, row, reference.sample.etag) });
  if (row.conditional) parties.push({ name: 'full read', spec: spec(server.origin, fullReadOf(row), undefined) });
  return parties;
}

/** The parties warmed up, then driven in rounds; their loads into `result`, and printed. */
async function measureParties(parties: readonly Party[], context: Context, result: RowResult): Promise<void> {
  const { options, server } = context;
  await warmParties(parties, options.warmupSeconds, result.problems);
  if (isInterrupted()) return;
  const loads = await driveInRounds(parties, options, result.problems, () => checkAlive(server));
  checkAlive(server);
  // The request log of this row is not needed any more: the file stays small however long the run.
  truncateSync(server.settings.logFile, 0);
  result.real = loads.get('server') ?? null;
  result.ceiling = loads.get('ceiling') ?? null;
  result.reference = loads.get('reference') ?? null;
  result.fullRead = loads.get('full read') ?? null;
  for (const party of parties) {
    const load = loads.get(party.name);
    if (load) report(party.name, load);
  }
}

/** The ceiling and the reference started (idle until driven), the reference's answer checked, then the rounds; both stopped however it ends. */
async function measureBeside(row: Row, context: Context, ours: Sample, result: RowResult): Promise<void> {
  const { options } = context;
  const ceiling = await startCeiling(ours.reply, options.workers, context.directory);
  let reference: Ceiling | null = null;
  try {
    reference = await startReference(context.databaseFile, context.pageSize, options.workers);
    const sample = await checkReference(row, reference.origin, ours.reply, context, result.problems);
    if (isInterrupted()) return;
    // A reference answering otherwise fails the row; the others are still measured.
    const beside = sample === null ? null : { origin: reference.origin, sample };
    await measureParties(rowParties(row, context, ours, ceiling, beside), context, result);
  } finally {
    await Promise.all([ceiling.stop(), reference?.stop()]);
  }
}

function newResult(row: Row): RowResult {
  return {
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
    fullRead: null,
    ceilingRatio: null,
    referenceRatio: null,
    targets: row.targets,
    targetResults: [],
    met: null,
    problems: [],
    ...(row.role ? { role: row.role } : {}),
  };
}

export async function benchRow(row: Row, context: Context): Promise<RowResult> {
  const { server } = context;
  const result = newResult(row);
  progress(`  ${row.label}`);
  checkAlive(server);
  const sample = await sampleAnswer('server', server.origin, row, context.credentials, result.problems);
  if (sample === null) return result;
  await primeWorkers('server', server.origin, row, context, sample.etag, result.problems);
  result.responseBytes = sample.reply.body.length;
  if (!isInterrupted()) await measureBeside(row, context, sample, result);
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
