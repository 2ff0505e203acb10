/**
 * One database's part of bench/scale.ts: a throwaway database of N seeded
 * comments (SQLite in the run's directory, or PostgreSQL on the given
 * server), one server process on it, then every case timed in turn, the
 * expected answers read from the database first: the cold cases (no URL
 * asked twice), the count alone, then the kept ones (one URL asked again and
 * again); the database removed after, however the part ends.
 */
import http from 'node:http';
import path from 'node:path';
import { basicAuthorization, pageSizeOf } from '../lib/client.js';
import type { BenchDatabase, Dialect } from '../lib/database.js';
import { createPostgresDatabase } from '../lib/postgres.js';
import { isInterrupted, progress } from '../lib/processes.js';
import { OWNERS, type SeedSummary } from '../lib/seed.js';
import { checkAlive, freePort, startServer, stopServerAtEnd, waitUntilServing } from '../lib/server.js';
import { createSqliteDatabase } from '../lib/sqlite.js';
import { coldCursorCases, keptCursorCases } from './cursors.js';
import type { Options } from './options.js';
import { coldPageCases, keptPageCases, measureCount } from './pages.js';
import { coldQueryCases, keptQueryCases } from './queries.js';
import { coldSearchCases, keptSearchCases } from './search.js';
import type { CaseSource } from './spread.js';
import { measureRequest, WARMUP_REQUESTS, type Latency, type RequestCase, type Session } from './timing.js';

/** One database's results, filled in as they are measured (a failure or Ctrl-C keeps those before). */
export interface DatabaseReport {
  database: Dialect;
  engine: string;
  comments: number;
  owners: number;
  seedSeconds: number;
  pageSize: number;
  pages: number;
  /** Comments holding each search term. */
  matches: Record<string, number>;
  /** The search vocabulary of the cold search case: its terms, and the fewest and most comments holding one. */
  vocabulary: { terms: number; fewestMatches: number; mostMatches: number };
  /** The same of the old terms' case, whose matches are all among the oldest comments. */
  oldTerms: { terms: number; fewestMatches: number; mostMatches: number };
  cases: Latency[];
}

/** Where the databases' results go; `failures`, what went wrong besides. */
export interface DatabasesOutcome {
  databases: DatabaseReport[];
  failures: string[];
}

function termsOf(matches: readonly number[]): DatabaseReport['vocabulary'] {
  return { terms: matches.length, fewestMatches: Math.min(...matches), mostMatches: Math.max(...matches) };
}

function createDatabase(dialect: Dialect, options: Options, directory: string): Promise<BenchDatabase> {
  progress(`Preparing a ${dialect === 'sqlite' ? 'SQLite' : 'PostgreSQL'} database of ${options.comments} comments`);
  return dialect === 'sqlite' ? createSqliteDatabase(directory, 'scale', options.comments) : createPostgresDatabase(options.postgresUrl, options.comments);
}

/** Every case, cold and kept, their expected answers read now, while the server is idle. */
async function allCases(source: CaseSource, seeded: SeedSummary): Promise<{ cold: RequestCase[]; kept: RequestCase[] }> {
  progress('  reading the expected answers');
  const cold = [...coldPageCases(source), ...(await coldCursorCases(source)), ...(await coldSearchCases(source, seeded)), ...(await coldQueryCases(source, seeded))];
  const kept = [
    ...keptPageCases(source.comments, source.pageSize),
    ...(await keptCursorCases(source)),
    ...(await keptSearchCases(source, seeded)),
    ...(await keptQueryCases(source, seeded)),
  ];
  return { cold, kept };
}

async function measureEach(session: Session, cases: readonly RequestCase[], results: DatabaseReport): Promise<void> {
  for (const request of cases) {
    if (isInterrupted()) return;
    results.cases.push(await measureRequest(session, request));
  }
}

/** The cold cases first (a kept case's URL must not be sent before a cold case sends it), the count alone, the kept cases. */
async function measureAll(database: BenchDatabase, session: Session, results: DatabaseReport): Promise<void> {
  const client = await database.connect();
  try {
    const wanted = WARMUP_REQUESTS + session.requests;
    const { cold, kept } = await allCases({ client, comments: database.comments, pageSize: results.pageSize, wanted, taken: new Set() }, database.seeded);
    await measureEach(session, cold, results);
    for (const kind of ['kept', 'counted'] as const) if (!isInterrupted()) results.cases.push(await measureCount(client, kind, database.comments, session));
    await measureEach(session, kept, results);
  } finally {
    await client.close();
  }
}

/** One database's cases into a new entry of `report.databases`. */
export async function benchDatabase(dialect: Dialect, options: Options, directory: string, report: DatabasesOutcome): Promise<void> {
  const database = await createDatabase(dialect, options, directory);
  try {
    const server = startServer({ databaseUrl: database.url, port: await freePort(), workers: 1, logLevel: options.logLevel, logFile: path.join(directory, `${dialect}.log`) });
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      await waitUntilServing(server, 1);
      const authorization = basicAuthorization(database.account);
      // Also the first Basic request: its password check (PBKDF2) is not part of any case.
      const pageSize = await pageSizeOf(server.origin, { Authorization: authorization });
      const { engine, comments, seedSeconds, seeded } = database;
      const pages = Math.ceil(comments / pageSize);
      const results: DatabaseReport = {
        database: dialect,
        engine,
        comments,
        owners: OWNERS,
        seedSeconds,
        pageSize,
        pages,
        matches: { ...seeded.matches },
        vocabulary: termsOf(seeded.termMatches),
        oldTerms: termsOf(seeded.oldTermMatches),
        cases: [],
      };
      report.databases.push(results);
      progress(`${engine}: the cases`);
      // The page size's request was one: a cold case must not send it again.
      const sent = new Set(['/comments/']);
      await measureAll(database, { server, agent, authorization, requests: options.requests, maxSeconds: options.maxSeconds, sent }, results);
      checkAlive(server);
    } finally {
      agent.destroy();
      await stopServerAtEnd(server, report.failures);
    }
  } finally {
    await database.remove();
  }
}
