/**
 * One process migrates a database at a time. Two that start at once on a new
 * database (two machines behind a load balancer, `manage migrate` during a
 * rolling deploy) would otherwise both apply the first migration, and one of
 * them fail; with the lock the second waits, then finds nothing left to do
 * (what Laravel's `migrate --isolated` does with a cache lock).
 * PostgreSQL: an advisory lock, held by one connection of the pool.
 * SQLite: a file beside the database, naming the process that holds it; a
 * file left by a process that is gone is taken over.
 */
import { readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Sequelize } from 'sequelize';

/** The advisory lock's key: any number the application uses for nothing else. */
const POSTGRES_LOCK_KEY = 4_166_180_917;
/** How often a process waiting for SQLite's lock file looks again. */
const LOCK_FILE_RETRY_MS = 100;
/** How long a lock file may name no process because its maker is writing it; older, its maker died before it could. */
const UNNAMED_LOCK_FILE_MS = 5_000;

interface PgConnection {
  query(sql: string, values: unknown[]): Promise<unknown>;
}

interface ConnectionManager<C> {
  getConnection(options: { type: 'write' }): Promise<C>;
  releaseConnection(connection: C): Promise<void>;
}

export async function withMigrationLock<T>(sequelize: Sequelize, work: () => Promise<T>): Promise<T> {
  if (sequelize.getDialect() === 'postgres') return withAdvisoryLock(sequelize, work);
  const { storage } = (sequelize as unknown as { options: { storage?: string } }).options;
  // An in-memory database is this process's alone.
  if (!storage || storage === ':memory:') return work();
  return withLockFile(`${storage}.migrating`, work);
}

async function withAdvisoryLock<T>(sequelize: Sequelize, work: () => Promise<T>): Promise<T> {
  const manager = sequelize.connectionManager as unknown as ConnectionManager<PgConnection>;
  const connection = await manager.getConnection({ type: 'write' });
  try {
    await connection.query('SELECT pg_advisory_lock($1)', [POSTGRES_LOCK_KEY]);
    try {
      return await work();
    } finally {
      await connection.query('SELECT pg_advisory_unlock($1)', [POSTGRES_LOCK_KEY]);
    }
  } finally {
    await manager.releaseConnection(connection);
  }
}

async function withLockFile<T>(file: string, work: () => Promise<T>): Promise<T> {
  while (!takeLockFile(file)) await sleep(LOCK_FILE_RETRY_MS);
  try {
    return await work();
  } finally {
    rmSync(file, { force: true });
  }
}

/** Makes the lock file, or takes over one whose process is gone; false while another holds it. */
function takeLockFile(file: string): boolean {
  try {
    writeFileSync(file, String(process.pid), { flag: 'wx' });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  if (holderAlive(file)) return false;
  rmSync(file, { force: true });
  return false;
}

function holderAlive(file: string): boolean {
  let pid: number;
  try {
    pid = Number(readFileSync(file, 'utf8'));
  } catch {
    // Removed meanwhile: the next try makes it.
    return false;
  }
  // Being written right now, its holder alive; or left so by a crash, long enough ago to tell.
  if (!Number.isSafeInteger(pid) || pid <= 0) return !unnamedForLong(file);
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

function unnamedForLong(file: string): boolean {
  try {
    return Date.now() - statSync(file).mtimeMs > UNNAMED_LOCK_FILE_MS;
  } catch {
    return false;
  }
}
