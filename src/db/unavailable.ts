/**
 * A database that could not answer in time, rather than a bug: no connection
 * to be had (refused, unreachable, none free in the pool in time), a statement
 * cancelled by PostgreSQL's statement_timeout, a client that stopped waiting for
 * a database that stopped answering, or SQLite still locked by another writer
 * after its busy timeout. Answered 503, which says "try again", instead of 500.
 */
import { ConnectionError, TimeoutError } from 'sequelize';

/** PostgreSQL's query_canceled: what statement_timeout raises. */
const QUERY_CANCELED = '57014';
/** pg's own error when query_timeout passes with no answer. */
const CLIENT_GAVE_UP = 'Query read timeout';

export function isDatabaseUnavailable(error: unknown): boolean {
  if (error instanceof ConnectionError || error instanceof TimeoutError) return true;
  if (typeof error !== 'object' || error === null) return false;
  // Sequelize wraps the driver's error; compiled reads (db/compiled.ts) throw it as is.
  const driver = (error as { parent?: unknown }).parent ?? error;
  const { code, message } = (driver ?? {}) as { code?: unknown; message?: unknown };
  return code === QUERY_CANCELED || code === 'SQLITE_BUSY' || message === CLIENT_GAVE_UP;
}
