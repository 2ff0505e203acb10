/**
 * A throwaway database for a benchmark, SQLite (sqlite.ts) or PostgreSQL
 * (postgres.ts): migrated and given a user by the real CLI
 * (`node dist/src/cli/manage.js`), as an operator would, then seeded with
 * comments (seed.ts) straight through the database's own driver; and the
 * harness's own connection to it, to read what the answers must be.
 */
import { randomBytes } from 'node:crypto';
import { BenchFailure, spawnTracked } from './processes.js';
import { baseEnv, MANAGE_SCRIPT, projectRoot } from './project.js';
import type { SeedSummary } from './seed.js';

export type Dialect = 'sqlite' | 'postgres';

export interface Account {
  username: string;
  email: string;
  password: string;
}

/** A value bound to a `?`; arrays only on PostgreSQL (the seeder's unnested columns). */
export type SqlParameter = string | number | readonly string[] | readonly number[];

/** The harness's own connection: `?` placeholders on both databases. */
export interface SqlClient {
  rows<T>(sql: string, params?: readonly SqlParameter[]): Promise<T[]>;
  close(): Promise<void>;
}

export interface BenchDatabase {
  dialect: Dialect;
  /** The engine and its version, e.g. `SQLite 3.45.1`, `PostgreSQL 15.20`. */
  engine: string;
  /** DATABASE_URL of the server and the CLI. */
  url: string;
  account: Account;
  comments: number;
  seeded: SeedSummary;
  /** Seconds to insert the owners and the comments (the migration and the user not included). */
  seedSeconds: number;
  connect(): Promise<SqlClient>;
  /** Removes the database (its files, or drops it); it may be large. */
  remove(): Promise<void>;
}

/** `node dist/src/cli/manage.js ARGS` with `input` on stdin; throws with its output when it fails. */
async function manage(args: readonly string[], databaseUrl: string, input = ''): Promise<void> {
  const child = spawnTracked(process.execPath, [MANAGE_SCRIPT, ...args], { cwd: projectRoot, env: baseEnv(databaseUrl), stdio: ['pipe', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.setEncoding('utf8').on('data', (text: string) => (output += text));
  child.stderr?.setEncoding('utf8').on('data', (text: string) => (output += text));
  child.stdin?.end(input);
  const status = await new Promise<number | null>((resolve) => {
    child.once('error', (error) => {
      output += String(error);
      resolve(null);
    });
    child.once('close', (code) => resolve(code));
  });
  if (status !== 0) throw new BenchFailure(`manage ${args.join(' ')} failed (status ${status ?? 'none'})`, output.trim());
}

/** The user the benchmark logs in as: `bench`, a random password, hashed at the default 600,000 PBKDF2 iterations by the CLI. */
export function newAccount(): Account {
  return { username: 'bench', email: 'bench@example.com', password: randomBytes(12).toString('hex') };
}

/** `manage migrate`, then `manage createuser` for `account`, on the database at `url`. */
export async function migrateWithUser(url: string, account: Account): Promise<void> {
  await manage(['migrate'], url);
  await manage(['createuser', '--username', account.username, '--email', account.email, '--password-stdin'], url, `${account.password}\n`);
}

/** The owners' rows: a multi-row INSERT's SQL and values (`?` placeholders), the same on both databases. */
export function ownersInsert(usernames: readonly string[], now: string): { sql: string; values: string[] } {
  const row = "(?, '', '', '', ?, '!', FALSE, FALSE, TRUE, ?, ?)";
  const sql = `INSERT INTO users (username, name, first_name, last_name, email, password, is_superuser, is_staff, is_active, created_at, updated_at) VALUES ${usernames.map(() => row).join(', ')}`;
  return { sql, values: usernames.flatMap((username) => [username, `${username}@example.com`, now, now]) };
}

/** The user id of each owner, in the order of `usernames`. */
export async function ownerIds(client: SqlClient, usernames: readonly string[]): Promise<number[]> {
  const rows = await client.rows<{ id: number; username: string }>("SELECT id, username FROM users WHERE username LIKE 'owner%'");
  const ids = new Map(rows.map((row) => [row.username, Number(row.id)]));
  return usernames.map((username) => {
    const id = ids.get(username);
    if (id === undefined) throw new BenchFailure(`the owner ${username} was not inserted`);
    return id;
  });
}
