/**
 * A database that could not answer in time, rather than a bug: no connection
 * to be had (refused, unreachable, none free in the pool in time), one lost
 * mid-statement (the server restarted or failed over), a statement cancelled by
 * PostgreSQL's statement_timeout, a client that stopped waiting for a database
 * that stopped answering, SQLite still locked by another writer after its
 * busy timeout, or a write asked for while the database closes. Answered 503, which says "try again", instead of 500.
 */
import { ConnectionError, TimeoutError } from 'sequelize';
import { DatabaseClosing } from './write-batches.js';

/** pg's own error when query_timeout passes with no answer. */
const CLIENT_GAVE_UP = 'Query read timeout';

/**
 * PostgreSQL's SQLSTATEs of a lost or refused connection: class 08 (connection
 * exception), 57P01–57P03 (the server shutting down, crashed, or not yet
 * accepting); and 57014, query_canceled, which statement_timeout raises.
 */
const UNAVAILABLE_STATES = /^(08...|57P0[123]|57014)$/;

/** What a driver's error says: its code (SQLSTATE, SQLITE_*), its message, PostgreSQL's detail. */
export interface DriverError {
  code?: unknown;
  message?: unknown;
  detail?: unknown;
}

/** Sequelize wraps the driver's error; compiled reads (db/compiled.ts) throw it as is. Read by shape: it may come from another realm. */
export function driverError(error: unknown): DriverError {
  if (typeof error !== 'object' || error === null) return {};
  return ((error as { parent?: unknown }).parent ?? error) as DriverError;
}

/** The connection a statement ran on is of no more use: pg still waits on it, or it is gone. */
export function connectionLost(error: unknown): boolean {
  const { code, message } = driverError(error);
  return message === CLIENT_GAVE_UP || code === 'ECONNRESET' || (typeof message === 'string' && message.startsWith('Connection terminated'));
}

export function isDatabaseUnavailable(error: unknown): boolean {
  if (error instanceof ConnectionError || error instanceof TimeoutError || error instanceof DatabaseClosing) return true;
  const { code } = driverError(error);
  return connectionLost(error) || code === 'SQLITE_BUSY' || (typeof code === 'string' && UNAVAILABLE_STATES.test(code));
}
