/**
 * What the loaders of users, access tokens and other rows share: reading a file's
 * records in batches (the next batch parsed while the last one is written)
 * and writing rows many at a time, with the ids the file gives.
 */
import type { Sequelize, Transaction } from 'sequelize';
import { Problem, type ProblemCollector } from './problems.js';
import type { DataSource, SourceRecord } from './sources.js';
import type { BoundResource } from '../types/resource.js';

export interface FileReport {
  file: string;
  /** Every record of the file, users and tokens. */
  records: number;
  /** Users created and updated. */
  created: number;
  updated: number;
  /** Access tokens (Sanctum rows, DRF keys): how many records, created and updated. */
  tokens: RowCounts;
  /** The rows of every other resource, by fixture label (`invoices.invoice`). */
  rows: Record<string, RowCounts>;
  /** Fields of the file with no column here, left out. */
  ignored: string[];
}

/** How many records of a kind a file holds, and the rows they created and updated. */
export interface RowCounts {
  records: number;
  created: number;
  updated: number;
}

export interface LoadProgress {
  file: string;
  /**
   * Users are read first, from every file; then the files that hold tokens
   * are read again for them (`tokens`), then for each other resource's rows (its fixture label).
   */
  phase: string;
  bytesRead: number;
  bytesTotal: number;
  records: number;
}

/** Rows written per statement: large enough to be fast, small enough for any driver's limits. */
export const BATCH_SIZE = 500;

export interface BatchReading<T> {
  /** A record of the kind this reading loads, or null: another kind, or a record with problems (reported). */
  read(item: SourceRecord): Promise<T | null>;
  write(batch: readonly T[]): Promise<void>;
  /** After each batch is written, with the records read so far. */
  written?(records: number): void;
}

/**
 * Reads every record of the file, writing what `read` keeps in batches; one
 * batch is written while the next is read, so parsing overlaps the
 * database's work. A problem of the file as a whole (not JSON, not UTF-8) is
 * reported; returns false then.
 */
export async function readInBatches<T>(source: DataSource, problems: ProblemCollector, reading: BatchReading<T>): Promise<boolean> {
  let batch: T[] = [];
  let records = 0;
  let writing: Promise<void> = Promise.resolve();
  const flush = async (): Promise<void> => {
    const full = batch;
    batch = [];
    await writing;
    const done = records;
    writing = reading.write(full).then(() => reading.written?.(done));
    // Awaited by the next flush or at the end; until then a failure must not count as unhandled.
    writing.catch(() => undefined);
  };
  try {
    for await (const item of source.records()) {
      records += 1;
      const kept = await reading.read(item);
      if (kept !== null) batch.push(kept);
      if (batch.length >= BATCH_SIZE) await flush();
      if (problems.full) break;
    }
    await flush();
    await writing;
    return true;
  } catch (error) {
    await writing.catch(() => undefined);
    if (!(error instanceof Problem)) throw error;
    problems.report(error.located({ file: source.file }));
    return false;
  }
}

/** Many rows in one statement; with `updateColumns`, rows whose id exists get only those columns set. */
export async function insertRows(
  resource: BoundResource,
  transaction: Transaction,
  rows: Record<string, unknown>[],
  updateColumns?: string[],
): Promise<void> {
  if (rows.length === 0) return;
  const sequelize = resource.model.sequelize as Sequelize;
  const options = updateColumns ? { updateOnDuplicate: updateColumns, upsertKeys: ['id'] } : {};
  await sequelize
    .getQueryInterface()
    .bulkInsert(resource.declaration.table, rows, { transaction, ...options }, resource.model.getAttributes());
}

/** PostgreSQL's id sequence does not see explicit ids: move it past them, or the next new row (of this load, or later) collides. */
export async function advanceIdSequence(resource: BoundResource, transaction: Transaction): Promise<void> {
  const sequelize = resource.model.sequelize as Sequelize;
  if (sequelize.getDialect() !== 'postgres') return;
  const table = sequelize.getQueryInterface().quoteIdentifier(resource.declaration.table);
  await sequelize.query(
    `SELECT setval(pg_get_serial_sequence(:table, 'id'), COALESCE((SELECT MAX(id) FROM ${table}), 0) + 1, false)`,
    { replacements: { table }, transaction },
  );
}
