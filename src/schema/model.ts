/**
 * A database schema in words both databases share: what the declarations
 * need (schema/declared.ts), what a database holds (schema/introspect.ts),
 * what the migrations have built so far (the snapshot beside them), and what
 * `makemigrations` compares (schema/diff.ts). Names of PostgreSQL and SQLite
 * types, of unique constraints and of the trigram index's parts stay out of it.
 */

export type OnDelete = 'CASCADE' | 'SET NULL' | 'RESTRICT' | 'NO ACTION';

/**
 * A column's type: `integer`, `bigint`, `string(<length>)`, `text`,
 * `boolean`, `datetime`, `date`, `decimal(<precision>,<scale>)` or `json`.
 */
export type ColumnType = string;

export interface ColumnSchema {
  type: ColumnType;
  nullable: boolean;
  /** Absent: the column has no default. */
  default?: string | number | boolean;
  primaryKey?: true;
  /** The database numbers new rows (SQLite's AUTOINCREMENT, a PostgreSQL sequence). */
  autoIncrement?: true;
  /** Unique on its own, however the database enforces it (a constraint or a unique index). */
  unique?: true;
  references?: { table: string; column: string; onDelete: OnDelete };
}

/** An index of one or more columns; a column may be an expression such as `lower(email)`. */
export interface IndexSchema {
  columns: string[];
  unique?: true;
}

export interface TableSchema {
  /** In the table's order. */
  columns: Record<string, ColumnSchema>;
  /** By name; indexes the database makes for a primary key or a unique column are not listed. */
  indexes: Record<string, IndexSchema>;
  /** The columns a trigram index covers (schema/../db/text-index.ts), in the table's column order. */
  textIndex?: string[];
  /** `row_counts` keeps the table's row count (db/row-counter.ts). */
  rowCounter?: true;
  /** The counter also keeps the table's version, bumped by every write; a counter made now always does. */
  rowVersion?: true;
}

export interface Schema {
  tables: Record<string, TableSchema>;
}

/** Tables of the framework's own bookkeeping: no declaration makes them and no migration of an application changes them. */
export const BOOKKEEPING_TABLES: ReadonlySet<string> = new Set(['schema_migrations', 'schema_seeders', 'row_counts']);

export const emptySchema = (): Schema => ({ tables: {} });

/** A schema with its tables, columns and indexes in a stable order, for files and comparisons. */
export function sortedSchema(schema: Schema): Schema {
  const tables: Record<string, TableSchema> = {};
  for (const name of Object.keys(schema.tables).sort()) {
    const table = schema.tables[name] as TableSchema;
    const indexes: Record<string, IndexSchema> = {};
    for (const index of Object.keys(table.indexes).sort()) indexes[index] = table.indexes[index] as IndexSchema;
    tables[name] = { ...table, indexes };
  }
  return { tables };
}
