/**
 * A table's row count kept as it changes, for lists that show their count on
 * every page (DRF's `count`, Laravel's `total`): `count(*)` reads every
 * entry of an index, some 55 ms for a million rows on PostgreSQL (MVCC keeps
 * no count) and 15 ms on SQLite. Triggers keep `row_counts` exact instead
 * (statement triggers on PostgreSQL, row triggers on SQLite); a page asked
 * with no filter reads its count there.
 *
 * The same triggers bump the table's `version` on every insert, update,
 * delete and truncate: a page whose tables' versions are those of an ETag
 * the client holds is unchanged, and is answered 304 without being read.
 */
import { randomInt } from 'node:crypto';
import { QueryTypes, type QueryInterface, type Sequelize, type Transaction } from 'sequelize';
import { compiledReads } from './compiled.js';
import { FreshRead } from './fresh-read.js';
import { perDatabase } from './per-database.js';
import { driverError } from './unavailable.js';

const TABLE = 'row_counts';
const EVENTS = ['insert', 'update', 'delete', 'truncate'] as const;
type CountedEvent = (typeof EVENTS)[number];

const routine = (table: string, event: string): string => `${TABLE}_${table}_${event}`;

/** What each event does to the count: PostgreSQL sees a statement's rows at once, SQLite one row at a time (and has no TRUNCATE). */
const CHANGES: Readonly<Record<'postgres' | 'sqlite', Partial<Record<CountedEvent, string>>>> = {
  postgres: { insert: 'row_count + (SELECT count(*) FROM changed_rows)', delete: 'row_count - (SELECT count(*) FROM changed_rows)', truncate: '0' },
  sqlite: { insert: 'row_count + 1', delete: 'row_count - 1' },
};

/**
 * Where a version starts: anywhere in 2^47, so that a counter made again
 * (a migration undone and redone, a SQLite table remade) does not count
 * through the versions of the one before and give an old tag to new rows.
 */
const versionStart = (): number => randomInt(2 ** 47);

/** What an event sets in its table's row of `row_counts`, or null when the event changes nothing kept. */
function assignments(event: CountedEvent, postgres: boolean, versioned: boolean): string | null {
  if (!postgres && event === 'truncate') return null;
  const count = CHANGES[postgres ? 'postgres' : 'sqlite'][event];
  const set = [...(count ? [`row_count = ${count}`] : []), ...(versioned ? ['version = version + 1'] : [])];
  return set.length > 0 ? set.join(', ') : null;
}

function trigger(db: QueryInterface, table: string, event: CountedEvent, set: string): string[] {
  const q = (name: string): string => db.quoteIdentifier(name);
  const update = `UPDATE ${q(TABLE)} SET ${set} WHERE table_name = ${db.sequelize.escape(table)};`;
  const name = q(routine(table, event));
  if (db.sequelize.getDialect() === 'sqlite') return [`CREATE TRIGGER ${name} AFTER ${event.toUpperCase()} ON ${q(table)} BEGIN ${update} END`];
  const transition = event === 'insert' ? 'REFERENCING NEW TABLE AS changed_rows ' : event === 'delete' ? 'REFERENCING OLD TABLE AS changed_rows ' : '';
  return [
    `CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $body$ BEGIN ${update} RETURN NULL; END $body$`,
    `CREATE TRIGGER ${name} AFTER ${event.toUpperCase()} ON ${q(table)} ${transition}FOR EACH STATEMENT EXECUTE FUNCTION ${name}()`,
  ];
}

async function createTriggers(db: QueryInterface, table: string, versioned: boolean, transaction?: Transaction): Promise<void> {
  const postgres = db.sequelize.getDialect() === 'postgres';
  for (const event of EVENTS) {
    const set = assignments(event, postgres, versioned);
    if (set) for (const sql of trigger(db, table, event, set)) await db.sequelize.query(sql, { transaction });
  }
}

async function dropTriggers(db: QueryInterface, table: string, transaction?: Transaction): Promise<void> {
  const q = (name: string): string => db.quoteIdentifier(name);
  const postgres = db.sequelize.getDialect() === 'postgres';
  for (const event of EVENTS) {
    await db.sequelize.query(`DROP TRIGGER IF EXISTS ${q(routine(table, event))}${postgres ? ` ON ${q(table)}` : ''}`, { transaction });
    if (postgres) await db.sequelize.query(`DROP FUNCTION IF EXISTS ${q(routine(table, event))}()`, { transaction });
  }
}

/** PostgreSQL: readers go on, writers wait until the triggers are in place. SQLite's transaction already holds its one writer's place. */
async function holdWriters(db: QueryInterface, table: string, transaction: Transaction): Promise<void> {
  if (db.sequelize.getDialect() === 'postgres') await db.sequelize.query(`LOCK TABLE ${db.quoteIdentifier(table)} IN SHARE ROW EXCLUSIVE MODE`, { transaction });
}

/** `row_counts` with its `version` column; one made before versions gets the column, empty (no version kept). */
async function createCountsTable(db: QueryInterface): Promise<void> {
  const q = (name: string): string => db.quoteIdentifier(name);
  await db.sequelize.query(`CREATE TABLE IF NOT EXISTS ${q(TABLE)} (table_name VARCHAR(255) PRIMARY KEY, row_count BIGINT NOT NULL, version BIGINT)`);
  const columns = await db.describeTable(TABLE);
  if (!('version' in columns)) await db.sequelize.query(`ALTER TABLE ${q(TABLE)} ADD COLUMN version BIGINT`);
}

/** The count now, and the triggers from now on, in one transaction: no write slips in between. */
async function startCounting(db: QueryInterface, table: string, versioned: boolean, transaction: Transaction): Promise<void> {
  const q = (name: string): string => db.quoteIdentifier(name);
  const name = db.sequelize.escape(table);
  await holdWriters(db, table, transaction);
  await db.sequelize.query(`DELETE FROM ${q(TABLE)} WHERE table_name = ${name}`, { transaction });
  const version = versioned ? String(versionStart()) : 'NULL';
  await db.sequelize.query(`INSERT INTO ${q(TABLE)} (table_name, row_count, version) SELECT ${name}, count(*), ${version} FROM ${q(table)}`, { transaction });
  await createTriggers(db, table, versioned, transaction);
}

export interface CounterOptions {
  /**
   * Whether `version` also counts every write (insert, update, delete,
   * truncate), so that a list knows its rows unchanged without reading them.
   * Counters made by migrations from before versions pass false.
   */
  versioned?: boolean;
}

/** Keeps `table`'s row count in `row_counts` from now on, and its version unless told not to. */
export async function createRowCounter(db: QueryInterface, table: string, { versioned = true }: CounterOptions = {}): Promise<void> {
  await createCountsTable(db);
  await db.sequelize.transaction((transaction) => startCounting(db, table, versioned, transaction));
}

/** Undoes createRowCounter. */
export async function dropRowCounter(db: QueryInterface, table: string): Promise<void> {
  const q = (name: string): string => db.quoteIdentifier(name);
  await dropTriggers(db, table);
  await db.sequelize.query(`DELETE FROM ${q(TABLE)} WHERE table_name = ${db.sequelize.escape(table)}`);
  // The last counter takes its table with it, so that undoing every migration leaves nothing behind.
  const [left] = (await db.sequelize.query(`SELECT count(*) AS counters FROM ${q(TABLE)}`, { type: QueryTypes.SELECT })) as { counters: string | number }[];
  if (Number(left?.counters ?? 0) === 0) await db.sequelize.query(`DROP TABLE ${q(TABLE)}`);
}

/** Gives an existing counter of `table` its version (a counter made before versions); one that has it starts it again. */
export async function addRowVersion(db: QueryInterface, table: string): Promise<void> {
  await setVersioned(db, table, true);
}

/** Undoes addRowVersion: the count goes on, the version is no longer kept (NULL: no list takes it as current). */
export async function removeRowVersion(db: QueryInterface, table: string): Promise<void> {
  await setVersioned(db, table, false);
}

async function setVersioned(db: QueryInterface, table: string, versioned: boolean): Promise<void> {
  await createCountsTable(db);
  const version = versioned ? String(versionStart()) : 'NULL';
  await db.sequelize.transaction(async (transaction) => {
    await holdWriters(db, table, transaction);
    await dropTriggers(db, table, transaction);
    await db.sequelize.query(`UPDATE ${db.quoteIdentifier(TABLE)} SET version = ${version} WHERE table_name = ${db.sequelize.escape(table)}`, { transaction });
    await createTriggers(db, table, versioned, transaction);
  });
}

/** How long a table found without a counter is not asked again: a migration may give it one meanwhile. */
const ABSENT_FOR_MS = 60_000;

/** PostgreSQL's undefined_table and undefined_column. */
const NOT_MADE_STATES = new Set(['42P01', '42703']);

/**
 * Whether a read of `row_counts` failed because no migration made the table
 * (or its version column) yet. Any other failure, a database that did not
 * answer above all, is the request's to answer: reading on as if there were
 * no counts would only wait for the database a second time.
 */
function notMadeYet(error: unknown): boolean {
  const { code, message } = driverError(error);
  if (typeof code === 'string' && NOT_MADE_STATES.has(code)) return true;
  return code === 'SQLITE_ERROR' && typeof message === 'string' && /no such (table|column)/.test(message);
}

/** Tables' versions as one text, and their counts as of the same moment. */
export interface KeptVersions {
  versions: string;
  counts: ReadonlyMap<string, number>;
}

/** Every kept count and version of a database, read in one statement: all as of one moment. */
export class CountsSnapshot {
  private readonly kept: ReadonlyMap<string, Record<string, unknown>>;

  constructor(rows: readonly Record<string, unknown>[]) {
    this.kept = new Map(rows.map((row) => [String(row.table_name), row]));
  }

  /**
   * The versions of `tables` as one text naming them all, and their counts;
   * null when any of them has none (a table without a counter, or a counter
   * made before versions).
   */
  versions(tables: readonly string[]): KeptVersions | null {
    const parts: string[] = [];
    const counts = new Map<string, number>();
    for (const table of tables) {
      const row = this.kept.get(table);
      if (row?.version === null || row?.version === undefined) return null;
      parts.push(`${table}:${String(row.version)}`);
      counts.set(table, Number(row.row_count));
    }
    return { versions: parts.join(','), counts };
  }
}

/** The kept counts of one database, and which tables have none. */
export class RowCounts {
  private readonly absentUntil = new Map<string, number>();
  private versionsAbsentUntil = 0;
  /** Each request's snapshot, read at most once (see `at`). */
  private readonly snapshots = new WeakMap<object, Promise<CountsSnapshot | null>>();
  private readonly freshSnapshot = new FreshRead(() => this.readSnapshot());

  constructor(private readonly sequelize: Sequelize) {}

  /** The kept count of `table`, or null where none is kept (a table no migration gave a counter); a database that fails to answer fails it. */
  async count(table: string): Promise<number | null> {
    if ((this.absentUntil.get(table) ?? 0) > Date.now()) return null;
    const found = await this.read(table);
    if (found === null) this.absentUntil.set(table, Date.now() + ABSENT_FOR_MS);
    return found;
  }

  /**
   * The kept versions of `tables`, one text naming them all, and their counts,
   * read in one statement (so all as of one moment); null when any of them
   * has none, or the database has no `row_counts` with versions yet.
   */
  async versions(tables: readonly string[]): Promise<KeptVersions | null> {
    return (await this.snapshot())?.versions(tables) ?? null;
  }

  /**
   * The snapshot of `request` (any object that lives as long as one
   * request): read by the first caller, shared by the others. What a request
   * reads after its snapshot is at least as new as the snapshot, which is
   * what lets a row kept in memory stand for a read (src/db/versioned-rows.ts)
   * and a page's tag be known before the page is read.
   */
  at(request: object): Promise<CountsSnapshot | null> {
    let snapshot = this.snapshots.get(request);
    if (!snapshot) {
      snapshot = this.snapshot();
      this.snapshots.set(request, snapshot);
    }
    return snapshot;
  }

  /** Every kept count and version as of a read begun now (or shared with the callers asking meanwhile: FreshRead). */
  private snapshot(): Promise<CountsSnapshot | null> {
    return this.freshSnapshot.get();
  }

  /**
   * Every kept count and version now; null when the database has no
   * `row_counts` with versions yet. A database that fails to answer fails
   * the read, and nothing is switched off: the next request reads again.
   */
  private async readSnapshot(): Promise<CountsSnapshot | null> {
    if (this.versionsAbsentUntil > Date.now()) return null;
    try {
      const rows = await compiledReads(this.sequelize).rows('row-versions', () => `SELECT table_name, row_count, version FROM ${TABLE}`, []);
      return new CountsSnapshot(rows);
    } catch (error) {
      if (!notMadeYet(error)) throw error;
      this.versionsAbsentUntil = Date.now() + ABSENT_FOR_MS;
      return null;
    }
  }

  private async read(table: string): Promise<number | null> {
    try {
      // Every unfiltered page reads it: compiled SQL, prepared once.
      const [row] = await compiledReads(this.sequelize).rows('row-count', (_quote, placeholder) => `SELECT row_count FROM ${TABLE} WHERE table_name = ${placeholder(1)}`, [table]);
      return row === undefined ? null : Number(row.row_count);
    } catch (error) {
      if (!notMadeYet(error)) throw error;
      return null;
    }
  }
}

/** The one RowCounts of a database connection. */
export const rowCounts = perDatabase((sequelize) => new RowCounts(sequelize));
