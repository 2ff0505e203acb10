/**
 * Migration operations for a trigram text index, the same call on both
 * databases: on SQLite an FTS5 table `<table>_fts` with the `trigram`
 * tokenizer over the table's own rows (external content), kept in step by
 * triggers; on PostgreSQL a pg_trgm GIN index per column, which the planner
 * uses for ILIKE. src/querying/text-search.ts reads them.
 */
import type { QueryInterface } from 'sequelize';

export function ftsTableName(table: string): string {
  return `${table}_fts`;
}

export function trigramIndexName(table: string, column: string): string {
  return `${table}_${column}_trgm`;
}

const trigger = (table: string, event: string): string => `${ftsTableName(table)}_${event}`;

async function createSqlite(db: QueryInterface, table: string, columns: readonly string[], key: string): Promise<void> {
  const q = (name: string): string => db.quoteIdentifier(name);
  const fts = q(ftsTableName(table));
  const list = columns.map(q).join(', ');
  const added = columns.map((column) => `new.${q(column)}`).join(', ');
  const removed = columns.map((column) => `old.${q(column)}`).join(', ');
  const remove = `INSERT INTO ${fts}(${fts}, rowid, ${list}) VALUES ('delete', old.${q(key)}, ${removed});`;
  const add = `INSERT INTO ${fts}(rowid, ${list}) VALUES (new.${q(key)}, ${added});`;
  const run = (sql: string) => db.sequelize.query(sql);
  await run(`CREATE VIRTUAL TABLE ${fts} USING fts5(${list}, content=${db.sequelize.escape(table)}, content_rowid=${db.sequelize.escape(key)}, tokenize='trigram')`);
  await run(`CREATE TRIGGER ${q(trigger(table, 'insert'))} AFTER INSERT ON ${q(table)} BEGIN ${add} END`);
  await run(`CREATE TRIGGER ${q(trigger(table, 'delete'))} AFTER DELETE ON ${q(table)} BEGIN ${remove} END`);
  await run(`CREATE TRIGGER ${q(trigger(table, 'update'))} AFTER UPDATE OF ${list} ON ${q(table)} BEGIN ${remove} ${add} END`);
  // Rows that were there before.
  await run(`INSERT INTO ${fts}(${fts}) VALUES ('rebuild')`);
}

async function createPostgres(db: QueryInterface, table: string, columns: readonly string[]): Promise<void> {
  try {
    await db.sequelize.query('CREATE EXTENSION IF NOT EXISTS pg_trgm');
  } catch (error) {
    throw new Error(
      `The text index of ${table} needs PostgreSQL's pg_trgm extension, which this database user may not create: ` +
        `run "CREATE EXTENSION pg_trgm;" as a superuser in this database, then migrate again (${(error as Error).message})`,
      { cause: error },
    );
  }
  for (const column of columns) {
    await db.sequelize.query(
      `CREATE INDEX ${db.quoteIdentifier(trigramIndexName(table, column))} ON ${db.quoteIdentifier(table)} USING gin (${db.quoteIdentifier(column)} gin_trgm_ops)`,
    );
  }
}

/** A trigram index over `columns` of `table`, whose primary key is `key`. */
export async function createTextIndex(db: QueryInterface, table: string, columns: readonly string[], key = 'id'): Promise<void> {
  if (db.sequelize.getDialect() === 'postgres') await createPostgres(db, table, columns);
  else await createSqlite(db, table, columns, key);
}

/** Undoes createTextIndex (PostgreSQL's extension stays: other indexes may use it). */
export async function dropTextIndex(db: QueryInterface, table: string, columns: readonly string[]): Promise<void> {
  const q = (name: string): string => db.quoteIdentifier(name);
  if (db.sequelize.getDialect() === 'postgres') {
    for (const column of columns) await db.sequelize.query(`DROP INDEX IF EXISTS ${q(trigramIndexName(table, column))}`);
    return;
  }
  for (const event of ['insert', 'delete', 'update']) await db.sequelize.query(`DROP TRIGGER IF EXISTS ${q(trigger(table, event))}`);
  await db.sequelize.query(`DROP TABLE IF EXISTS ${q(ftsTableName(table))}`);
}

/** The columns of `table` a trigram index covers. */
export async function textIndexColumns(db: QueryInterface, table: string): Promise<Set<string>> {
  if (db.sequelize.getDialect() === 'postgres') {
    const rows = (await db.sequelize.query('SELECT indexname FROM pg_indexes WHERE tablename = :table', {
      type: 'SELECT',
      replacements: { table },
    })) as { indexname: string }[];
    const prefix = `${table}_`;
    return new Set(rows.map((row) => row.indexname).filter((name) => name.startsWith(prefix) && name.endsWith('_trgm')).map((name) => name.slice(prefix.length, -'_trgm'.length)));
  }
  try {
    const rows = (await db.sequelize.query(`SELECT name FROM pragma_table_info(${db.sequelize.escape(ftsTableName(table))})`, { type: 'SELECT' })) as { name: string }[];
    return new Set(rows.map((row) => row.name));
  } catch {
    return new Set();
  }
}
