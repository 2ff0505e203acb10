/**
 * One database's part of bench/scale.ts: a throwaway database of N seeded
 * comments (SQLite in the run's directory, or PostgreSQL on the given
 * server), one server process on it, then every case timed in turn, the
 * expected answers read from the database first; the database removed after,
 * however the part ends.
 */
import http from 'node:http';
import path from 'node:path';
import { basicAuthorization, pageSizeOf } from '../lib/client.js';
import type { BenchDatabase, Dialect, SqlClient } from '../lib/database.js';
import { createPostgresDatabase } from '../lib/postgres.js';
import { isInterrupted, progress } from '../lib/processes.js';
import { OWNERS } from '../lib/seed.js';
import { checkAlive, freePort, startServer, stopServerAtEnd, waitUntilServing } from '../lib/server.js';
import { createSqliteDatabase } from '../lib/sqlite.js';
import { cursorCases } from './cursors.js';
import type { Options } from './options.js';
import { measureCount, pageCases } from './pages.js';
import { orderingCases, ownerCase, searchCases } from './queries.js';
import { measureRequest, type Latency, type RequestCase, type Session } from './timing.js';

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
  cases: Latency[];
}

/** Where the databases' results go; `failures`, what went wrong besides. */
export interface DatabasesOutcome {
  databases: DatabaseReport[];
  failures: string[];
}

function createDatabase(dialect: Dialect, options: Options, directory: string): Promise<BenchDatabase> {
  progress(`Preparing a ${dialect === 'sqlite' ? 'SQLite' : 'PostgreSQL'} database of ${options.comments} comments`);
  return dialect === 'sqlite' ? createSqliteDatabase(directory, 'scale', options.comments) : createPostgresDatabase(options.postgresUrl, options.comments);
}

/** The list-query cases, their expected answers read now, while the server is idle. */
async function queryCases(client: SqlClient, database: BenchDatabase, pageSize: number): Promise<RequestCase[]> {
  const { comments, seeded } = database;
  return [
    ...(await cursorCases(client, comments, pageSize)),
    ...(await searchCases(client, seeded, pageSize)),
    await ownerCase(client, seeded, pageSize),
    ...(await orderingCases(client, comments, pageSize)),
  ];
}

async function measureEach(session: Session, cases: readonly RequestCase[], results: DatabaseReport): Promise<void> {
  for (const request of cases) {
    if (isInterrupted()) return;
    results.cases.push(await measureRequest(session, request));
  }
}

/** The pages by number, the count they run, then the list queries. */
async function measureAll(database: BenchDatabase, session: Session, results: DatabaseReport): Promise<void> {
  const client = await database.connect();
  try {
    const queries = await queryCases(client, database, results.pageSize);
    await measureEach(session, pageCases(database.comments, results.pageSize), results);
    for (const kind of ['kept', 'counted'] as const) if (!isInterrupted()) results.cases.push(await measureCount(client, kind, database.comments, session));
    await measureEach(session, queries, results);
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
      const results: DatabaseReport = { database: dialect, engine, comments, owners: OWNERS, seedSeconds, pageSize, pages, matches: { ...seeded.matches }, cases: [] };
      report.databases.push(results);
      progress(`${engine}: the cases`);
      await measureAll(database, { server, agent, authorization, requests: options.requests, maxSeconds: options.maxSeconds }, results);
      checkAlive(server);
    } finally {
      agent.destroy();
      await stopServerAtEnd(server, report.failures);
    }
  } finally {
    await database.remove();
  }
}
