/**
 * A table's row count kept as it changes, for lists that show their count on
 * every page (DRF's `count`, Laravel's `total`): `count(*)` reads every
 * entry of an index, some 55 ms for a million rows on PostgreSQL (MVCC keeps
 * no count) and 15 ms on SQLite. Triggers keep `row_counts` exact instead
 * (statement triggers on PostgreSQL, row triggers on SQLite); a page asked
 * with no filter reads its count there.
 */
import type { QueryInterface, Sequelize, Transaction } from 'sequelize';
import { compiledReads } from './compiled.js';
import { perDatabase } from './per-database.js';

const TABLE = 'row_counts';
const EVENTS = ['insert', 'delete', 'truncate'] as const;
type CountedEvent = (typeof EVENTS)[number];

const routine = (table: string, event: string): string => `${TABLE}_${table}_${event}`;

/** What each event does to the count: PostgreSQL sees a statement's rows at once, SQLite one row at a time (and has no TRUNCATE). */
const CHANGES: Readonly<Record<'postgres' | 'sqlite', Partial<Record<CountedEvent, string>>>> = {
  postgres: { insert: 'row_count + (SELECT count(*) FROM changed_rows)', delete: 'row_count - (SELECT count(*) FROM changed_rows)', truncate: '0' },
  sqlite: { insert: 'row_count + 1', delete: 'row_count - 1' },
};

function counting(db: QueryInterface, table: string, event: CountedEvent, change: string): string[] {
  const q = (name: string): string => db.quoteIdentifier(name);
  const update = `UPDATE ${q(TABLE)} SET row_count = ${change} WHERE table_name = ${db.sequelize.escape(table)};`;
  const name = q(routine(table, event));
  if (db.sequelize.getDialect() === 'sqlite') return [`CREATE TRIGGER ${name} AFTER ${event.toUpperCase()} ON ${q(table)} BEGIN ${update} END`];
  const transition = event === 'insert' ? 'REFERENCING NEW TABLE AS changed_rows ' : event === 'delete' ? 'REFERENCING OLD TABLE AS changed_rows ' : '';
  return [
    `CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $body$ BEGIN ${update} RETURN NULL; END $body$`,
    `CREATE TRIGGER ${name} AFTER ${event.toUpperCase()} ON ${q(table)} ${transition}FOR EACH STATEMENT EXECUTE FUNCTION ${name}()`,
  ];
}

/** The count now, and the triggers from now on, in one transaction: no write slips in between. */
async function startCounting(db: QueryInterface, table: string, transaction: Transaction): Promise<void> {
  const q = (name: string): string => db.quoteIdentifier(name);
  const postgres = db.sequelize.getDialect() === 'postgres';
  // PostgreSQL: readers go on, writers wait until the triggers exist. SQLite's transaction already holds its one writer's place.
  if (postgres) await db.sequelize.query(`LOCK TABLE ${q(table)} IN SHARE ROW EXCLUSIVE MODE`, { transaction });
  await db.sequelize.query(`DELETE FROM ${q(TABLE)} WHERE table_name = ${db.sequelize.escape(table)}`, { transaction });
  await db.sequelize.query(`INSERT INTO ${q(TABLE)} (table_name, row_count) SELECT ${db.sequelize.escape(table)}, count(*) FROM ${q(table)}`, { transaction });
  const changes = CHANGES[postgres ? 'postgres' : 'sqlite'];
  for (const event of EVENTS) {
    const change = changes[event];
    if (change) for (const sql of counting(db, table, event, change)) await db.sequelize.query(sql, { transaction });
  }
}

/** Keeps `table`'s row count in `row_counts` from now on. */
export async function createRowCounter(db: QueryInterface, table: string): Promise<void> {
  await db.sequelize.query(`CREATE TABLE IF NOT EXISTS ${db.quoteIdentifier(TABLE)} (table_name VARCHAR(255) PRIMARY KEY, row_count BIGINT NOT NULL)`);
  await db.sequelize.transaction((transaction) => startCounting(db, table, transaction));
}

/** Undoes createRowCounter. */
export async function dropRowCounter(db: QueryInterface, table: string): Promise<void> {
  const q = (name: string): string => db.quoteIdentifier(name);
  const postgres = db.sequelize.getDialect() === 'postgres';
  for (const event of EVENTS) {
    await db.sequelize.query(`DROP TRIGGER IF EXISTS ${q(routine(table, event))}${postgres ? ` ON ${q(table)}` : ''}`);
    if (postgres) await db.sequelize.query(`DROP FUNCTION IF EXISTS ${q(routine(table, event))}()`);
  }
  await db.sequelize.query(`DELETE FROM ${q(TABLE)} WHERE table_name = ${db.sequelize.escape(table)}`);
  // The last counter takes its table with it, so that undoing every migration leaves nothing behind.
  const [left] = (await db.sequelize.query(`SELECT count(*) AS counters FROM ${q(TABLE)}`, { type: 'SELECT' })) as { counters: string | number }[];
  if (Number(left?.counters ?? 0) === 0) await db.sequelize.query(`DROP TABLE ${q(TABLE)}`);
}

/** How long a table found without a counter is not asked again: a migration may give it one meanwhile. */
const ABSENT_FOR_MS = 60_000;

/** The kept counts of one database, and which tables have none. */
export class RowCounts {
  private readonly absentUntil = new Map<string, number>();

  constructor(private readonly sequelize: Sequelize) {}

  /** The kept count of `table`, or null where none is kept (a table no migration gave a counter). */
  async count(table: string): Promise<number | null> {
    if ((this.absentUntil.get(table) ?? 0) > Date.now()) return null;
    const found = await this.read(table);
    if (found === null) this.absentUntil.set(table, Date.now() + ABSENT_FOR_MS);
    return found;
  }

  private async read(table: string): Promise<number | null> {
    try {
      // Every unfiltered page reads it: compiled SQL, prepared once.
      const [row] = await compiledReads(this.sequelize).rows('row-count', (_quote, placeholder) => `SELECT row_count FROM ${TABLE} WHERE table_name = ${placeholder(1)}`, [table]);
      return row === undefined ? null : Number(row.row_count);
    } catch {
      // No row_counts table: no migration made one yet.
      return null;
    }
  }
}

/** The one RowCounts of a database connection. */
export const rowCounts = perDatabase((sequelize) => new RowCounts(sequelize));
