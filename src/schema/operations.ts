/**
 * What a generated migration calls: schema changes in the model's words
 * (schema/model.ts), carried out on either database. PostgreSQL alters a
 * table in place; SQLite, which alters little, remakes it (a new table, the
 * rows copied, the old one dropped, its indexes, trigram index and row
 * counter made again), as Django's SQLite schema editor does.
 */
import { DataTypes, col, fn, type ModelAttributeColumnOptions, type QueryInterface } from 'sequelize';
import { addRowVersion, createRowCounter, dropRowCounter, removeRowVersion, type CounterOptions } from '../db/row-counter.js';
import { createTextIndex, dropTextIndex } from '../db/text-index.js';
import { introspectTable } from './introspect.js';
import type { ColumnSchema, IndexSchema, TableSchema } from './model.js';

const SIZED = /^(string|decimal)\((\d+)(?:,(\d+))?\)$/;

function dataType(type: string): ModelAttributeColumnOptions['type'] {
  const sized = SIZED.exec(type);
  if (sized?.[1] === 'string') return DataTypes.STRING(Number(sized[2]));
  if (sized?.[1] === 'decimal') return DataTypes.DECIMAL(Number(sized[2]), Number(sized[3] ?? 0));
  const plain: Record<string, ModelAttributeColumnOptions['type']> = {
    integer: DataTypes.INTEGER,
    bigint: DataTypes.BIGINT,
    text: DataTypes.TEXT,
    boolean: DataTypes.BOOLEAN,
    datetime: DataTypes.DATE,
    date: DataTypes.DATEONLY,
    json: DataTypes.JSON,
  };
  const found = plain[type];
  if (!found) throw new Error(`Unknown column type ${type}`);
  return found;
}

/** PostgreSQL's name of a type, for ALTER COLUMN … TYPE. */
function postgresType(type: string): string {
  const sized = SIZED.exec(type);
  if (sized?.[1] === 'string') return `VARCHAR(${sized[2]})`;
  if (sized?.[1] === 'decimal') return `NUMERIC(${sized[2]},${sized[3] ?? 0})`;
  return ({ datetime: 'TIMESTAMP WITH TIME ZONE', json: 'JSON' } as Record<string, string>)[type] ?? type.toUpperCase();
}

function attribute(column: ColumnSchema): ModelAttributeColumnOptions {
  const options: ModelAttributeColumnOptions = { type: dataType(column.type), allowNull: column.nullable };
  if (column.default !== undefined) options.defaultValue = column.default;
  if (column.primaryKey) options.primaryKey = true;
  if (column.autoIncrement) options.autoIncrement = true;
  if (column.unique) options.unique = true;
  if (column.references) {
    options.references = { model: column.references.table, key: column.references.column };
    options.onDelete = column.references.onDelete;
  }
  return options;
}

const EXPRESSION = /^(\w+)\((\w+)\)$/;

export class SchemaEditor {
  constructor(private readonly db: QueryInterface) {}

  private get postgres(): boolean {
    return this.db.sequelize.getDialect() === 'postgres';
  }

  private q(name: string): string {
    return this.db.quoteIdentifier(name);
  }

  private run(sql: string): Promise<unknown> {
    return this.db.sequelize.query(sql);
  }

  private async current(table: string): Promise<TableSchema> {
    const found = await introspectTable(this.db.sequelize, table);
    if (!found) throw new Error(`The database has no table ${table}`);
    return found;
  }

  /** The table with its indexes, trigram index and row counter. */
  async createTable(table: string, schema: TableSchema): Promise<void> {
    await this.createColumns(table, schema);
    await this.addParts(table, schema);
  }

  private async createColumns(name: string, schema: TableSchema): Promise<void> {
    await this.db.createTable(name, Object.fromEntries(Object.entries(schema.columns).map(([column, declared]) => [column, attribute(declared)])));
  }

  private async addParts(table: string, schema: TableSchema): Promise<void> {
    for (const [index, declared] of Object.entries(schema.indexes)) await this.addIndex(table, index, declared);
    if (schema.textIndex) await this.addTextIndex(table, schema.textIndex);
    // A table remade keeps the counter it had, with its version or without.
    if (schema.rowCounter) await createRowCounter(this.db, table, { versioned: schema.rowVersion === true });
  }

  async dropTable(table: string): Promise<void> {
    const schema = await this.current(table);
    if (schema.rowCounter) await this.removeRowCounter(table);
    if (schema.textIndex) await this.removeTextIndex(table, schema.textIndex);
    await this.db.dropTable(table);
  }

  async addColumn(table: string, column: string, schema: ColumnSchema): Promise<void> {
    // SQLite adds in place only a column that needs no constraint over the rows already there.
    const inPlace = this.postgres || (!schema.unique && !schema.primaryKey && (schema.nullable || schema.default !== undefined));
    if (inPlace) return this.db.addColumn(table, column, attribute(schema));
    await this.remake(table, (current) => ({ ...current, columns: { ...current.columns, [column]: schema } }));
  }

  async removeColumn(table: string, column: string): Promise<void> {
    if (this.postgres) return this.db.removeColumn(table, column);
    await this.remake(table, (current) => {
      const { [column]: _removed, ...columns } = current.columns;
      return { ...current, columns };
    });
  }

  async alterColumn(table: string, column: string, schema: ColumnSchema): Promise<void> {
    if (!this.postgres) return this.remake(table, (current) => ({ ...current, columns: { ...current.columns, [column]: schema } }));
    const before = (await this.current(table)).columns[column];
    if (!before) throw new Error(`The table ${table} has no column ${column}`);
    await this.alterOnPostgres(table, column, before, schema);
  }

  private async alterOnPostgres(table: string, column: string, before: ColumnSchema, after: ColumnSchema): Promise<void> {
    const alter = (change: string): Promise<unknown> => this.run(`ALTER TABLE ${this.q(table)} ALTER COLUMN ${this.q(column)} ${change}`);
    if (before.type !== after.type) await alter(`TYPE ${postgresType(after.type)} USING ${this.q(column)}::${postgresType(after.type)}`);
    if (before.default !== after.default) {
      await alter(after.default === undefined ? 'DROP DEFAULT' : `SET DEFAULT ${typeof after.default === 'boolean' ? String(after.default) : this.db.sequelize.escape(after.default)}`);
    }
    if (before.nullable !== after.nullable) await alter(after.nullable ? 'DROP NOT NULL' : 'SET NOT NULL');
    if (Boolean(before.unique) !== Boolean(after.unique)) {
      if (after.unique) await this.run(`ALTER TABLE ${this.q(table)} ADD CONSTRAINT ${this.q(`${table}_${column}_key`)} UNIQUE (${this.q(column)})`);
      else await this.dropPostgresConstraints(table, column, 'u');
    }
    if (JSON.stringify(before.references) !== JSON.stringify(after.references)) {
      if (before.references) await this.dropPostgresConstraints(table, column, 'f');
      if (after.references) {
        const { table: target, column: key, onDelete } = after.references;
        await this.run(
          `ALTER TABLE ${this.q(table)} ADD CONSTRAINT ${this.q(`${table}_${column}_fkey`)} FOREIGN KEY (${this.q(column)}) ` +
            `REFERENCES ${this.q(target)} (${this.q(key)}) ON DELETE ${onDelete}`,
        );
      }
    }
  }

  /** A column's unique constraints or indexes (`u`), or its foreign keys (`f`), whatever their names. */
  private async dropPostgresConstraints(table: string, column: string, kind: 'u' | 'f'): Promise<void> {
    const rows = (await this.db.sequelize.query(
      `SELECT c.conname AS name FROM pg_constraint c JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = ANY (c.conkey)
        WHERE c.conrelid = to_regclass(:table) AND c.contype = :kind AND a.attname = :column AND array_length(c.conkey, 1) = 1`,
      { type: 'SELECT', replacements: { table: this.q(table), kind, column } },
    )) as { name: string }[];
    for (const { name } of rows) await this.run(`ALTER TABLE ${this.q(table)} DROP CONSTRAINT ${this.q(name)}`);
    if (kind === 'u') {
      const indexes = (await this.db.sequelize.query(
        `SELECT i.relname AS name FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_attribute a ON a.attrelid = x.indrelid AND a.attnum = x.indkey[0]
          WHERE x.indrelid = to_regclass(:table) AND x.indisunique AND NOT x.indisprimary AND x.indnatts = 1 AND a.attname = :column`,
        { type: 'SELECT', replacements: { table: this.q(table), column } },
      )) as { name: string }[];
      for (const { name } of indexes) await this.run(`DROP INDEX ${this.q(name)}`);
    }
  }

  /** Both databases rename a column in place, and its indexes and triggers follow it. */
  async renameColumn(table: string, from: string, to: string): Promise<void> {
    await this.run(`ALTER TABLE ${this.q(table)} RENAME COLUMN ${this.q(from)} TO ${this.q(to)}`);
  }

  async addIndex(table: string, name: string, index: IndexSchema): Promise<void> {
    const fields = index.columns.map((column) => {
      const expression = EXPRESSION.exec(column);
      return expression ? fn(expression[1] as string, col(expression[2] as string)) : column;
    });
    await this.db.addIndex(table, { name, fields, unique: Boolean(index.unique) });
  }

  async removeIndex(table: string, name: string): Promise<void> {
    await this.db.removeIndex(table, name);
  }

  addTextIndex(table: string, columns: readonly string[]): Promise<void> {
    return createTextIndex(this.db, table, columns);
  }

  removeTextIndex(table: string, columns: readonly string[]): Promise<void> {
    return dropTextIndex(this.db, table, columns);
  }

  /** `versioned: false` is for migrations written before counters kept a version: each keeps making what it made then. */
  addRowCounter(table: string, options?: CounterOptions): Promise<void> {
    return createRowCounter(this.db, table, options);
  }

  removeRowCounter(table: string): Promise<void> {
    return dropRowCounter(this.db, table);
  }

  addRowVersion(table: string): Promise<void> {
    return addRowVersion(this.db, table);
  }

  removeRowVersion(table: string): Promise<void> {
    return removeRowVersion(this.db, table);
  }

  /**
   * SQLite's way to change a table: the new one is made beside it, every row
   * copied (the columns both have), the old one dropped and the new one
   * renamed, with foreign keys checked once, after.
   */
  private async remake(table: string, change: (current: TableSchema) => TableSchema): Promise<void> {
    const current = await this.current(table);
    const target = change(current);
    const copied = Object.keys(target.columns).filter((column) => column in current.columns);
    const temporary = `${table}__remade`;
    if (current.rowCounter) await this.removeRowCounter(table);
    if (current.textIndex) await this.removeTextIndex(table, current.textIndex);
    await this.run('PRAGMA foreign_keys = OFF');
    try {
      await this.createColumns(temporary, target);
      const list = copied.map((column) => this.q(column)).join(', ');
      await this.run(`INSERT INTO ${this.q(temporary)} (${list}) SELECT ${list} FROM ${this.q(table)}`);
      await this.run(`DROP TABLE ${this.q(table)}`);
      await this.run(`ALTER TABLE ${this.q(temporary)} RENAME TO ${this.q(table)}`);
      const broken = (await this.db.sequelize.query(`PRAGMA foreign_key_check(${this.q(table)})`, { type: 'SELECT' })) as unknown[];
      if (broken.length > 0) throw new Error(`${broken.length} row(s) of ${table} point at rows that do not exist`);
    } finally {
      await this.run('PRAGMA foreign_keys = ON');
    }
    await this.addParts(table, target);
  }
}

export function schemaEditor(db: QueryInterface): SchemaEditor {
  return new SchemaEditor(db);
}
