/**
 * The version of a row a conditional write (`If-Match`) must still find.
 * The check compares the client's tag with the row as read; the write then
 * names the version read in its own WHERE, so that a row another writer
 * changed between the two updates nothing and the write is refused: the
 * check and the write cannot be told apart by a third write.
 *
 * The version is the row's update time, which every accepted write moves on
 * (src/writes.ts; the clock never answers the same instant twice within a
 * process, microseconds apart within one millisecond). A row with none to name (no update-time column, or reads that
 * hide it) is held instead: the check is made again inside the transaction
 * that holds the row, and the write made there (holdRow).
 */
import { QueryTypes, type Transaction } from 'sequelize';
import { fromStored } from '../cleaning.js';
import { epochMicroseconds, instantAt, storedTimeText } from '../instant.js';
import { columnOf, quoteGenerator } from './sql-names.js';
import { writeTransaction } from './write-transactions.js';
import type { BoundResource } from '../types/resource.js';

/** The update time of the row as the check read it, as the driver answered it (SQLite's text, PostgreSQL's Date). */
export interface UpdateTime {
  readonly updatedAt: unknown;
}

/**
 * A row with no update time to name: whether the row, read again inside the
 * transaction that holds it (holdRow), is still the version the check saw.
 */
export interface HeldCheck {
  stillHolds(transaction: Transaction): Promise<boolean>;
}

/** The version a conditional write must still find. */
export type RowVersion = UpdateTime | HeldCheck;

export function namesUpdateTime(version: RowVersion): version is UpdateTime {
  return 'updatedAt' in version;
}

/** A conditional write found the row at another version than the one named (or found no row): nothing was written. */
export class RowChanged extends Error {
  constructor(model: string) {
    super(`${model}: the row is no longer the version the write was checked against`);
    this.name = 'RowChanged';
  }
}

/**
 * The condition that `column` (quoted, with its table) still holds the
 * version bound at `placeholder` (as versionParameter binds it): the update
 * time to the microsecond, as both databases keep it and the drivers read it
 * (src/db/instants.ts).
 */
export function versionCondition(column: string, placeholder: string): string {
  return `${column} = ${placeholder}`;
}

/**
 * A version as a statement binds it: SQLite's text as read, a time read from
 * PostgreSQL as its text (pg would send a Date without its microseconds).
 */
export function versionParameter(updatedAt: unknown): unknown {
  return updatedAt instanceof Date ? storedTimeText(updatedAt) : updatedAt;
}

/**
 * The update time a write under `expected` sets: the clock's `now`, unless
 * that is not later than the version read (another process's clock): a
 * write must move the version on, or a second writer naming the old one
 * would still find it.
 */
export function nextVersionTime(resource: BoundResource, now: Date, expected: UpdateTime): Date {
  const updated = resource.timestamps.updated;
  const field = updated ? resource.declaration.fields[updated] : undefined;
  const read = fromStored(field, expected.updatedAt, resource.model.sequelize?.getDialect() === 'sqlite');
  if (!(read instanceof Date) || Number.isNaN(read.getTime()) || epochMicroseconds(now) > epochMicroseconds(read)) return now;
  return instantAt(epochMicroseconds(read) + 1);
}

/**
 * Moves the update time of the row whose key is `key` from the version
 * `from` to `to` (each bound as given), in one statement that finds the row
 * only at `from`; RowChanged when it does not (changed, or gone).
 */
export async function claimVersion(resource: BoundResource, key: unknown, from: unknown, to: unknown, transaction: Transaction | undefined): Promise<void> {
  const { model, timestamps, declaration } = resource;
  const updated = timestamps.updated;
  if (!updated) throw new Error(`${declaration.name} has no update time to claim`);
  const sequelize = model.sequelize!;
  const generator = quoteGenerator(sequelize);
  const column = (attribute: string): string => generator.quoteIdentifier(columnOf(model, attribute));
  const keyColumn = column(model.primaryKeyAttribute);
  const condition = versionCondition(column(updated), '$3');
  const sql = `UPDATE ${generator.quoteTable(model.getTableName())} SET ${column(updated)} = $1 WHERE ${keyColumn} = $2 AND ${condition} RETURNING ${keyColumn}`;
  const found = await sequelize.query(sql, { bind: [versionParameter(to), key, versionParameter(from)], transaction, type: QueryTypes.SELECT });
  if (found.length === 0) throw new RowChanged(declaration.name);
}

/**
 * Runs `work` in a transaction that holds the row whose key is `key`, so
 * that no other write lands between what `work` reads and what it writes.
 * PostgreSQL locks the row (`SELECT … FOR UPDATE`): a second holder waits
 * for the first to end, then reads the row as it left it. On SQLite the
 * IMMEDIATE transaction holds the database's write lock, and this process's
 * write transactions run one at a time (db/write-transactions.ts).
 */
export async function holdRow<T>(resource: BoundResource, key: unknown, work: (transaction: Transaction) => Promise<T>): Promise<T> {
  return writeTransaction(resource.model.sequelize!, async (transaction) => {
    await lockRow(resource, key, transaction);
    return work(transaction);
  });
}

/** Holds the row inside `transaction` until it ends (PostgreSQL; SQLite's IMMEDIATE transaction already holds the database). */
/**
 * Whether the row is still there, held until `transaction` ends (PostgreSQL:
 * FOR UPDATE; SQLite's one writer holds the whole database): asked before a
 * write's hooks run, so that a row another request deleted meanwhile runs
 * none of them.
 */
export async function rowStillThere(resource: BoundResource, key: unknown, transaction: Transaction): Promise<boolean> {
  const { model } = resource;
  const sequelize = model.sequelize!;
  const generator = quoteGenerator(sequelize);
  const keyColumn = generator.quoteIdentifier(columnOf(model, model.primaryKeyAttribute));
  const lock = sequelize.getDialect() === 'postgres' ? ' FOR UPDATE' : '';
  const found = await sequelize.query(`SELECT ${keyColumn} FROM ${generator.quoteTable(model.getTableName())} WHERE ${keyColumn} = $1${lock}`, { bind: [key], transaction, type: QueryTypes.SELECT });
  return found.length > 0;
}

export async function lockRow(resource: BoundResource, key: unknown, transaction: Transaction): Promise<void> {
  const { model } = resource;
  const sequelize = model.sequelize!;
  if (sequelize.getDialect() !== 'postgres') return;
  const generator = quoteGenerator(sequelize);
  const keyColumn = generator.quoteIdentifier(columnOf(model, model.primaryKeyAttribute));
  await sequelize.query(`SELECT ${keyColumn} FROM ${generator.quoteTable(model.getTableName())} WHERE ${keyColumn} = $1 FOR UPDATE`, { bind: [key], transaction, type: QueryTypes.SELECT });
}
