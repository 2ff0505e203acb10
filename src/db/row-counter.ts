/**
 * A table's row count kept as it changes, for lists that show their count on
 * every page (DRF's `count`, Laravel's `total`). PostgreSQL keeps no count
 * (MVCC): `count(*)` reads every entry of an index, some 55 ms for a million
 * rows. Statement triggers keep `row_counts` exact instead; a page asked
 * with no filter reads it there. SQLite counts a million rows in a few
 * milliseconds by itself, so there the operations do nothing.
 */
import type { QueryInterface, Sequelize } from 'sequelize';

const TABLE = 'row_counts';

const routine = (table: string, event: string): string => `${TABLE}_${table}_${event}`;

async function createCounting(db: QueryInterface, table: string, event: 'insert' | 'delete' | 'truncate', change: string): Promise<void> {
  const q = (name: string): string => db.quoteIdentifier(name);
  const name = routine(table, event);
  await db.sequelize.query(
    `CREATE FUNCTION ${q(name)}() RETURNS trigger LANGUAGE plpgsql AS $body$ BEGIN ` +
      `UPDATE ${q(TABLE)} SET row_count = ${change} WHERE table_name = ${db.sequelize.escape(table)}; RETURN NULL; END $body$`,
  );
  const transition = event === 'insert' ? 'REFERENCING NEW TABLE AS changed_rows ' : event === 'delete' ? 'REFERENCING OLD TABLE AS changed_rows ' : '';
  await db.sequelize.query(`CREATE TRIGGER ${q(name)} AFTER ${event.toUpperCase()} ON ${q(table)} ${transition}FOR EACH STATEMENT EXECUTE FUNCTION ${q(name)}()`);
}

/** Keeps `table`'s row count in `row_counts` from now on (PostgreSQL). */
export async function createRowCounter(db: QueryInterface, table: string): Promise<void> {
  if (db.sequelize.getDialect() !== 'postgres') return;
  const q = (name: string): string => db.quoteIdentifier(name);
  await db.sequelize.query(`CREATE TABLE IF NOT EXISTS ${q(TABLE)} (table_name text PRIMARY KEY, row_count bigint NOT NULL)`);
  // Taken under a lock that lets readers in and keeps writers out until the triggers exist.
  await db.sequelize.transaction(async (transaction) => {
    await db.sequelize.query(`LOCK TABLE ${q(table)} IN SHARE ROW EXCLUSIVE MODE`, { transaction });
    await db.sequelize.query(
      `INSERT INTO ${q(TABLE)} (table_name, row_count) SELECT ${db.sequelize.escape(table)}, count(*) FROM ${q(table)} ` +
        'ON CONFLICT (table_name) DO UPDATE SET row_count = EXCLUDED.row_count',
      { transaction },
    );
  });
  await createCounting(db, table, 'insert', 'row_count + (SELECT count(*) FROM changed_rows)');
  await createCounting(db, table, 'delete', 'row_count - (SELECT count(*) FROM changed_rows)');
  await createCounting(db, table, 'truncate', '0');
}

/** Undoes createRowCounter. */
export async function dropRowCounter(db: QueryInterface, table: string): Promise<void> {
  if (db.sequelize.getDialect() !== 'postgres') return;
  const q = (name: string): string => db.quoteIdentifier(name);
  for (const event of ['insert', 'delete', 'truncate']) {
    await db.sequelize.query(`DROP TRIGGER IF EXISTS ${q(routine(table, event))} ON ${q(table)}`);
    await db.sequelize.query(`DROP FUNCTION IF EXISTS ${q(routine(table, event))}()`);
  }
  await db.sequelize.query(`DELETE FROM ${q(TABLE)} WHERE table_name = ${db.sequelize.escape(table)}`);
  // The last counter takes its table with it, so that undoing every migration leaves nothing behind.
  const [left] = (await db.sequelize.query(`SELECT count(*) AS counters FROM ${q(TABLE)}`, { type: 'SELECT' })) as { counters: string }[];
  if (Number(left?.counters ?? 0) === 0) await db.sequelize.query(`DROP TABLE ${q(TABLE)}`);
}

/** How long a table found without a counter is not asked again: a migration may give it one meanwhile. */
const ABSENT_FOR_MS = 60_000;

/** The kept counts of one database, and which tables have none. */
export class RowCounts {
  private readonly absentUntil = new Map<string, number>();

  constructor(private readonly sequelize: Sequelize) {}

  /** The kept count of `table`, or null where none is kept (SQLite, or a table no migration gave a counter). */
  async count(table: string): Promise<number | null> {
    if (this.sequelize.getDialect() !== 'postgres' || (this.absentUntil.get(table) ?? 0) > Date.now()) return null;
    const found = await this.read(table);
    if (found === null) this.absentUntil.set(table, Date.now() + ABSENT_FOR_MS);
    return found;
  }

  private async read(table: string): Promise<number | null> {
    try {
      const [row] = (await this.sequelize.query(`SELECT row_count FROM ${TABLE} WHERE table_name = :table`, {
        type: 'SELECT',
        replacements: { table },
      })) as { row_count: string | number }[];
      return row === undefined ? null : Number(row.row_count);
    } catch {
      // No row_counts table: no migration made one yet.
      return null;
    }
  }
}

const counts = new WeakMap<Sequelize, RowCounts>();

/** The one RowCounts of a database connection. */
export function rowCounts(sequelize: Sequelize): RowCounts {
  let found = counts.get(sequelize);
  if (!found) {
    found = new RowCounts(sequelize);
    counts.set(sequelize, found);
  }
  return found;
}
