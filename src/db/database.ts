import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { Sequelize, type Options } from 'sequelize';
import { ConfigError, withoutPassword } from '../config.js';
import { closeCompiledReads } from './compiled.js';
import { teachDriversMicroseconds } from './instants.js';
import { connectionLost } from './unavailable.js';
import { insideWriteTransaction, inWriteOrder } from './write-transactions.js';

export type DatabaseTarget =
  | { dialect: 'sqlite'; storage: string }
  | { dialect: 'postgres'; url: string };

const MEMORY = ':memory:';

/**
 * `sqlite:<path>` (absolute, or relative to the working directory, where the application is), `sqlite:///abs/path`,
 * `sqlite::memory:`, or `postgres://…` / `postgresql://…`.
 */
export function parseDatabaseUrl(url: string, root = process.cwd()): DatabaseTarget {
  if (/^postgres(ql)?:\/\//i.test(url)) return { dialect: 'postgres', url };
  const match = /^sqlite:(.*)$/i.exec(url);
  if (!match || match[1] === undefined || match[1] === '') {
    // A URL of another database (mysql://user:pw@…) keeps its password out of the message.
    throw new ConfigError('DATABASE_URL', withoutPassword(url), 'database_url');
  }
  let file = match[1];
  if (file === MEMORY) return { dialect: 'sqlite', storage: MEMORY };
  if (file.startsWith('//')) file = file.slice(2); // sqlite:///abs → /abs, sqlite://rel → rel
  return { dialect: 'sqlite', storage: path.resolve(root, decodeURIComponent(file)) };
}

/** A pg client, and the mark Sequelize's pool reads to end a connection instead of lending it again. */
interface PostgresClient {
  query(...args: unknown[]): unknown;
  _invalid?: boolean;
}

/**
 * A connection that stopped answering (pg gave up waiting, or it was lost)
 * answers every later statement at once with a failure of its own, and is
 * marked so that the pool ends it. pg would queue the statement behind the
 * one never answered, where it waits a timeout of its own: a transaction's
 * ROLLBACK after its statement timed out, a second wait for one request.
 */
function failFastOnceGivenUp(client: PostgresClient): void {
  const query = client.query.bind(client);
  const watch = (error: unknown): void => {
    if (connectionLost(error)) client._invalid = true;
  };
  client.query = (...args: unknown[]): unknown => {
    const last = args.length - 1;
    const callback = typeof args[last] === 'function' ? (args[last] as (error: unknown, result?: unknown) => void) : undefined;
    if (client._invalid) {
      const error = new Error('Connection terminated: given up, a statement on it got no answer in time');
      if (!callback) return Promise.reject(error);
      process.nextTick(() => callback(error));
      return undefined;
    }
    if (callback) {
      args[last] = (error: unknown, result?: unknown) => {
        watch(error);
        callback(error, result);
      };
      return query(...args);
    }
    const answer = query(...args);
    if (answer instanceof Promise) answer.catch(watch);
    return answer;
  };
}

interface SqliteConnection {
  run(sql: string, callback: (error: Error | null) => void): void;
}

function runPragma(connection: SqliteConnection, sql: string): Promise<void> {
  return new Promise((resolve, reject) => connection.run(sql, (error) => (error ? reject(error) : resolve())));
}

/** How long a SQLite write waits for another process's (the CLI's, a worker's) without limits. */
const SQLITE_BUSY_TIMEOUT_MS = 10_000;

/**
 * SQLite runs in WAL mode with a busy timeout, so readers never block the
 * writer and concurrent writers wait for each other instead of failing.
 */
async function configureSqlite(connection: SqliteConnection, storage: string, busyTimeoutMs: number): Promise<void> {
  await runPragma(connection, `PRAGMA busy_timeout = ${busyTimeoutMs}`);
  await runPragma(connection, 'PRAGMA foreign_keys = ON');
  if (storage !== MEMORY) {
    await runPragma(connection, 'PRAGMA journal_mode = WAL');
    await runPragma(connection, 'PRAGMA synchronous = NORMAL');
  }
}

/** The SQLite connection Sequelize's row writes run on outside transactions (queueRowWrites). */
const ROW_WRITES = 'row-writes';
/** Sequelize's query types of row writes: a model's create, save, update, destroy and upsert, and their bulk forms. */
const ROW_WRITE_TYPES = new Set<unknown>(['INSERT', 'UPDATE', 'BULKUPDATE', 'DELETE', 'BULKDELETE', 'UPSERT']);
/** A write that answers rows (RETURNING), asked for as a SELECT. */
const RETURNING_WRITE = /^\s*(INSERT|UPDATE|DELETE)\b/i;

type Query = (sql: unknown, options?: { transaction?: unknown; type?: unknown }) => Promise<unknown>;

/**
 * On a SQLite file, Sequelize's row writes outside a transaction take their
 * turn in this process's write order (db/write-transactions.ts), on a
 * connection of their own. On the connection Sequelize shares with the
 * reads, a write waiting for the lock another process holds would hold up
 * the reads behind it, and each write after it would wait the busy timeout
 * again, one after another. Schema statements (untyped) stay where they are.
 */
function queueRowWrites(sequelize: Sequelize): void {
  const query = sequelize.query.bind(sequelize) as unknown as Query;
  const rowWrite: Query = (sql, options) => {
    const text = typeof sql === 'string' ? sql : String((sql as { query?: unknown } | null)?.query ?? '');
    const writes = ROW_WRITE_TYPES.has(options?.type) || (options?.type === 'SELECT' && RETURNING_WRITE.test(text));
    if (!writes || options?.transaction || insideWriteTransaction()) return query(sql, options);
    // Sequelize's SQLite connections are one per uuid, kept open until the database closes.
    return inWriteOrder(sequelize, () => query(sql, { ...options, uuid: ROW_WRITES } as typeof options));
  };
  (sequelize as unknown as { query: Query }).query = rowWrite;
}

/** How long opening a PostgreSQL connection may take, up to its readiness for queries. */
const CONNECT_TIMEOUT_MS = 10_000;
/**
 * How much longer than the server's own statement_timeout the client waits for
 * an answer: enough for the server's cancellation to arrive first, while a
 * database that stopped answering altogether (frozen, or the network to it cut)
 * no longer holds a request for ever.
 */
const CLIENT_GRACE_MS = 5_000;

/**
 * `statementTimeoutMs`: for processes that serve requests. PostgreSQL cancels a
 * statement running longer, the client stops waiting for one a little later,
 * and a request waits no longer for a pooled connection; a SQLite write waits
 * no longer for another process's. Without it (the CLI, migrations), PostgreSQL's
 * statements are not limited and SQLite waits 10 s.
 */
export interface DatabaseLimits {
  statementTimeoutMs: number;
}

export function openDatabase(url: string, limits: DatabaseLimits | null = null): Sequelize {
  const target = parseDatabaseUrl(url);
  teachDriversMicroseconds();
  // Sequelize tries a statement SQLite found locked five times, each waiting the whole busy timeout: one wait, as documented.
  const common: Options = { logging: false, define: { underscored: true }, retry: { max: 1 } };
  if (target.dialect === 'postgres') {
    const timeout = limits?.statementTimeoutMs;
    const sequelize = new Sequelize(target.url, {
      ...common,
      dialect: 'postgres',
      pool: { max: 10, ...(timeout ? { acquire: timeout } : {}) },
      dialectOptions: { connectionTimeoutMillis: CONNECT_TIMEOUT_MS, keepAlive: true, ...(timeout ? { query_timeout: timeout + CLIENT_GRACE_MS } : {}) },
    });
    sequelize.addHook('afterConnect', async (connection) => {
      failFastOnceGivenUp(connection as PostgresClient);
      // Set once connected rather than sent as a startup parameter, which PgBouncer refuses unless told to ignore it.
      if (timeout) await (connection as PostgresClient).query(`SET statement_timeout = ${Math.trunc(timeout)}`);
    });
    return sequelize;
  }
  if (target.storage !== MEMORY) mkdirSync(path.dirname(target.storage), { recursive: true });
  const sequelize = new Sequelize({
    ...common,
    dialect: 'sqlite',
    storage: target.storage,
  });
  // Sequelize's SQLite driver opens a connection per transaction and runs no
  // afterConnect hooks, so each new connection is configured as it is handed out.
  const manager = sequelize.connectionManager as unknown as {
    getConnection(options?: unknown): Promise<SqliteConnection>;
  };
  const getConnection = manager.getConnection.bind(manager);
  const configured = new WeakSet<SqliteConnection>();
  manager.getConnection = async (options) => {
    const connection = await getConnection(options);
    if (!configured.has(connection)) {
      configured.add(connection);
      await configureSqlite(connection, target.storage, limits?.statementTimeoutMs ?? SQLITE_BUSY_TIMEOUT_MS);
    }
    return connection;
  };
  if (target.storage !== MEMORY) queueRowWrites(sequelize);
  // SQLite refuses to close a connection whose statements are still prepared (db/compiled.ts keeps some).
  const close = sequelize.close.bind(sequelize);
  sequelize.close = async () => {
    await closeCompiledReads(sequelize);
    return close();
  };
  return sequelize;
}
