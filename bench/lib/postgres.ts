/**
 * A throwaway PostgreSQL database for a benchmark (database.ts), on a server
 * the run is given: `CREATE DATABASE bench_<pid>_<random>`, migrated and
 * given the user by the CLI, seeded through `pg` (arrays unnested, 10,000
 * rows a statement: the trigram GIN indexes stay as the migration made
 * them), vacuumed and analysed; dropped at the end, however the run ends
 * (a second Ctrl-C included: drop-database.ts).
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { migrateWithUser, newAccount, ownerIds, ownersInsert, type BenchDatabase, type SqlClient, type SqlParameter } from './database.js';
import { atForcedExit, Interrupted, isInterrupted, progress, seconds } from './processes.js';
import { countComment, emptySummary, OWNERS, ownerUsername, seedComment, type SeedSummary } from './seed.js';

const CONNECT_TIMEOUT_MS = 5_000;
const ROWS_PER_INSERT = 10_000;
const ROWS_PER_TRANSACTION = 100_000;
const DROP_SCRIPT = path.join(path.dirname(fileURLToPath(import.meta.url)), 'drop-database.js');

/** `serverUrl` with its database replaced by `name`. */
function databaseUrl(serverUrl: string, name: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** `?` placeholders become `$1`, `$2`…: the SQL of both databases is written once. */
function numbered(sql: string): string {
  let index = 0;
  return sql.replace(/\?/g, () => `$${(index += 1)}`);
}

/** A connection with the server's session time zone (Sequelize's `+00:00`), so that a time's text is the server's. */
export async function connectPostgres(url: string): Promise<SqlClient> {
  const connection = new pg.Client({ connectionString: url, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
  await connection.connect();
  try {
    await connection.query("SET TIME ZONE INTERVAL '+00:00' HOUR TO MINUTE");
  } catch (error) {
    await connection.end();
    throw error;
  }
  return {
    rows: async <T>(sql: string, params: readonly SqlParameter[] = []) => (await connection.query(numbered(sql), [...params])).rows as T[],
    close: () => connection.end(),
  };
}

async function adminQuery(serverUrl: string, sql: string): Promise<void> {
  const client = await connectPostgres(serverUrl);
  try {
    await client.rows(sql);
  } finally {
    await client.close();
  }
}

/** Null when a server answers at `serverUrl`, else why not. */
export async function postgresProblem(serverUrl: string): Promise<string | null> {
  try {
    await adminQuery(serverUrl, 'SELECT 1');
    return null;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/** The server's own connections to it may be left (a killed server): FORCE ends them. */
export function dropPostgresDatabase(serverUrl: string, name: string): Promise<void> {
  return adminQuery(serverUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
}

/** `count` comments as 10,000-row INSERTs of unnested arrays, counted into `summary`. */
async function insertComments(client: SqlClient, first: number, count: number, summary: SeedSummary): Promise<void> {
  const titles: string[] = [];
  const bodies: string[] = [];
  const owners: number[] = [];
  const created: string[] = [];
  const updated: string[] = [];
  for (let i = first; i < first + count; i += 1) {
    const comment = seedComment(i);
    countComment(summary, comment);
    titles.push(comment.title);
    bodies.push(comment.body);
    owners.push(summary.ownerIds[comment.owner] ?? 0);
    created.push(new Date(comment.createdMs).toISOString());
    updated.push(new Date(comment.updatedMs).toISOString());
  }
  const sql = 'INSERT INTO comments (title, body, user_id, created_at, updated_at) SELECT * FROM unnest(?::text[], ?::text[], ?::int[], ?::timestamptz[], ?::timestamptz[])';
  await client.rows(sql, [titles, bodies, owners, created, updated]);
}

/**
 * The owners and `count` comments in id order, then VACUUM (ANALYZE): a
 * fresh table has no statistics, and autovacuum would do the same (it also
 * empties the GIN indexes' pending lists) a while after such a load.
 */
async function seed(url: string, count: number): Promise<SeedSummary> {
  const client = await connectPostgres(url);
  try {
    const usernames = Array.from({ length: OWNERS }, (_, owner) => ownerUsername(owner));
    const owners = ownersInsert(usernames, new Date().toISOString());
    await client.rows(owners.sql, owners.values);
    const summary = emptySummary(await ownerIds(client, usernames));
    for (let first = 1; first <= count && !isInterrupted(); first += ROWS_PER_TRANSACTION) {
      const last = Math.min(first + ROWS_PER_TRANSACTION - 1, count);
      await client.rows('BEGIN');
      for (let start = first; start <= last; start += ROWS_PER_INSERT) await insertComments(client, start, Math.min(ROWS_PER_INSERT, last - start + 1), summary);
      await client.rows('COMMIT');
    }
    if (isInterrupted()) throw new Interrupted();
    await client.rows('VACUUM (ANALYZE) users');
    await client.rows('VACUUM (ANALYZE) comments');
    return summary;
  } finally {
    await client.close();
  }
}

async function postgresVersion(url: string): Promise<string> {
  const client = await connectPostgres(url);
  try {
    const [row] = await client.rows<{ server_version: string }>('SHOW server_version');
    return `PostgreSQL ${row?.server_version.split(' ')[0] ?? '?'}`;
  } finally {
    await client.close();
  }
}

/** A new database on the server at `serverUrl`: migrated, the user `bench`, the owners and `comments` comments. */
export async function createPostgresDatabase(serverUrl: string, comments: number): Promise<BenchDatabase> {
  const name = `bench_${process.pid}_${randomBytes(4).toString('hex')}`;
  const url = databaseUrl(serverUrl, name);
  await adminQuery(serverUrl, `CREATE DATABASE ${name}`);
  const forget = atForcedExit(() => spawnSync(process.execPath, [DROP_SCRIPT, serverUrl, name], { stdio: 'ignore', timeout: 10_000 }));
  const remove = async (): Promise<void> => {
    await dropPostgresDatabase(serverUrl, name);
    forget();
  };
  try {
    const account = newAccount();
    const started = performance.now();
    await migrateWithUser(url, account);
    const seeding = performance.now();
    const summary = await seed(url, comments);
    const seedSeconds = seconds(seeding);
    progress(`  ${name} (PostgreSQL): migrated and a user created in ${((seeding - started) / 1000).toFixed(1)} s; ${comments} comments seeded, vacuumed and analysed in ${seedSeconds.toFixed(1)} s`);
    const engine = await postgresVersion(url);
    return { dialect: 'postgres', engine, url, account, comments, seeded: summary, seedSeconds, connect: () => connectPostgres(url), remove };
  } catch (error) {
    await remove();
    throw error;
  }
}
