/**
 * Reads by one column as SQL written once per model and shape, run on the
 * Sequelize connection and answered as plain rows. On a small read, building
 * the query and the model instances costs Sequelize several times the
 * database's own work (and its SQLite dialect an Error stack per query);
 * these reads skip both and keep the same connection, transactions aside.
 */
import type { Sequelize, TableName } from 'sequelize';
import { fromStored } from '../cleaning.js';
import type { BoundResource, RowModel, StoredRecord } from '../registry.js';

export type { StoredRecord };

export type PlainRow = Record<string, unknown>;

/** A reference to join, as Sequelize's `include`: the association's name and the attributes to read of it. */
export interface JoinedReference {
  association: string;
  /** Default: every column the referenced model's default scope reads. */
  attributes?: readonly string[];
}

export interface KeyedRead {
  model: RowModel;
  /** The attribute the row is found by (the primary key unless said). */
  by?: string;
  /** The attributes to read; default: every column the model's default scope reads. */
  attributes?: readonly string[];
  include?: readonly JoinedReference[];
}

interface QuoteGenerator {
  quoteIdentifier(name: string): string;
  quoteTable(table: TableName): string;
}

interface SqliteStatement {
  all(params: readonly unknown[], callback: (error: Error | null, rows: PlainRow[]) => void): void;
  finalize(callback: () => void): void;
}

interface SqliteDatabase {
  prepare(sql: string): SqliteStatement;
}

interface PostgresClient {
  query(config: { text: string; values: readonly unknown[] }): Promise<{ rows: PlainRow[] }>;
}

/** `a.b` keys of a joined read as nested objects, as Sequelize's `raw: true, nest: true`. */
function nested(flat: PlainRow): PlainRow {
  let row: PlainRow | undefined;
  for (const key in flat) {
    const dot = key.indexOf('.');
    if (dot < 0) continue;
    row ??= {};
    const alias = key.slice(0, dot);
    const inner = (row[alias] ??= {}) as PlainRow;
    inner[key.slice(dot + 1)] = flat[key];
  }
  if (!row) return flat;
  for (const key in flat) if (!key.includes('.')) row[key] = flat[key];
  return row;
}

function columnOf(model: RowModel, attribute: string): string {
  const column = model.getAttributes()[attribute];
  if (!column) throw new Error(`${model.name} has no attribute ${attribute}`);
  return column.field ?? attribute;
}

/** Every column of the model, hidden ones included. */
export function everyColumn(model: RowModel): string[] {
  return Object.entries(model.getAttributes())
    .filter(([, column]) => (column.type as { key?: string }).key !== 'VIRTUAL')
    .map(([name]) => name);
}

/** What the model's default scope reads: every column but those it excludes (hidden fields). */
function defaultAttributes(model: RowModel): string[] {
  const scope = (model as unknown as { _scope?: { attributes?: { exclude?: string[] } } })._scope;
  const excluded = new Set(scope?.attributes?.exclude ?? []);
  return Object.entries(model.getAttributes())
    .filter(([name, column]) => !excluded.has(name) && (column.type as { key?: string }).key !== 'VIRTUAL')
    .map(([name]) => name);
}

export class CompiledReads {
  private readonly statements = new Map<string, string>();
  private readonly sqlite: boolean;
  /** SQLite statements prepared once per connection; finalized before it closes (else SQLite refuses to close it). */
  private readonly prepared = new Map<SqliteDatabase, Map<string, SqliteStatement>>();
  private sqliteConnection: Promise<SqliteDatabase> | undefined;

  constructor(private readonly sequelize: Sequelize) {
    this.sqlite = sequelize.getDialect() === 'sqlite';
  }

  /** The one row whose `by` attribute has this value, joined references nested under their names; or null. */
  async one(read: KeyedRead, shape: string, value: unknown): Promise<PlainRow | null> {
    const [row] = await this.run(this.statement(read, shape), [value]);
    return row ? nested(row) : null;
  }

  private statement(read: KeyedRead, shape: string): string {
    const key = `${read.model.name}:${shape}`;
    let sql = this.statements.get(key);
    if (!sql) {
      sql = this.compile(read);
      this.statements.set(key, sql);
    }
    return sql;
  }

  private compile({ model, by = model.primaryKeyAttribute, attributes = defaultAttributes(model), include = [] }: KeyedRead): string {
    // The typings put quoteTable on the query interface; Sequelize has it on the query generator.
    const queries = (this.sequelize.getQueryInterface() as unknown as { queryGenerator: QuoteGenerator }).queryGenerator;
    const quote = (name: string): string => queries.quoteIdentifier(name);
    const base = quote('base');
    const columns = attributes.map((name) => `${base}.${quote(columnOf(model, name))} AS ${quote(name)}`);
    const joins = include.map(({ association, attributes: joined }) => {
      const relation = model.associations[association] as unknown as { target: RowModel; foreignKey: string; targetKey: string } | undefined;
      if (!relation) throw new Error(`${model.name} has no association ${association}`);
      const alias = quote(association);
      for (const name of joined ?? defaultAttributes(relation.target)) columns.push(`${alias}.${quote(columnOf(relation.target, name))} AS ${quote(`${association}.${name}`)}`);
      const on = `${alias}.${quote(columnOf(relation.target, relation.targetKey))} = ${base}.${quote(columnOf(model, relation.foreignKey))}`;
      return ` LEFT OUTER JOIN ${queries.quoteTable(relation.target.getTableName())} AS ${alias} ON ${on}`;
    });
    const placeholder = this.sqlite ? '?' : '$1';
    return `SELECT ${columns.join(', ')} FROM ${queries.quoteTable(model.getTableName())} AS ${base}${joins.join('')} WHERE ${base}.${quote(columnOf(model, by))} = ${placeholder} LIMIT 1`;
  }

  private preparedOn(db: SqliteDatabase, sql: string): SqliteStatement {
    let statements = this.prepared.get(db);
    if (!statements) {
      statements = new Map();
      this.prepared.set(db, statements);
    }
    let statement = statements.get(sql);
    if (!statement) {
      statement = db.prepare(sql);
      statements.set(sql, statement);
    }
    return statement;
  }

  /** Finalizes the prepared statements: the database's close calls it first. */
  async close(): Promise<void> {
    const statements = [...this.prepared.values()].flatMap((byText) => [...byText.values()]);
    this.prepared.clear();
    this.sqliteConnection = undefined;
    await Promise.all(statements.map((statement) => new Promise<void>((resolve) => statement.finalize(resolve))));
  }

  private async run(sql: string, params: readonly unknown[]): Promise<PlainRow[]> {
    const connections = this.sequelize.connectionManager;
    if (this.sqlite) {
      // Sequelize keeps one SQLite connection outside transactions and hands out that same one: asked for once.
      this.sqliteConnection ??= (connections.getConnection({ type: 'read' }) as unknown as Promise<SqliteDatabase>).catch((error: unknown) => {
        this.sqliteConnection = undefined;
        throw error;
      });
      const db = await this.sqliteConnection;
      const statement = this.preparedOn(db, sql);
      return new Promise((resolve, reject) => statement.all(params, (error, rows) => (error ? reject(error) : resolve(rows))));
    }
    const client = await connections.getConnection({ type: 'read' });
    try {
      return (await (client as unknown as PostgresClient).query({ text: sql, values: params })).rows;
    } finally {
      connections.releaseConnection(client);
    }
  }
}

/** One CompiledReads per database. */
const perDatabase = new WeakMap<Sequelize, CompiledReads>();

/** Before a database closes: SQLite will not close a connection with statements still prepared. */
export async function closeCompiledReads(sequelize: Sequelize): Promise<void> {
  await perDatabase.get(sequelize)?.close();
}

export function compiledReads(sequelize: Sequelize): CompiledReads {
  let reads = perDatabase.get(sequelize);
  if (!reads) {
    reads = new CompiledReads(sequelize);
    perDatabase.set(sequelize, reads);
  }
  return reads;
}

/**
 * A plain row seen as a model instance sees it: times as dates, booleans as
 * booleans, JSON parsed; a joined reference as a record of its own resource.
 */
export function storedRecord(resource: BoundResource, values: PlainRow): StoredRecord {
  const sqlite = resource.model.sequelize?.getDialect() === 'sqlite';
  return {
    get(name: string): unknown {
      const relation = resource.references.get(name);
      const value = values[name];
      if (relation) {
        const joined = value as PlainRow | null | undefined;
        // A LEFT JOIN that found no row gives every column NULL, the key too.
        return joined && joined[relation.resource.model.primaryKeyAttribute] != null ? storedRecord(relation.resource, joined) : null;
      }
      return fromStored(resource.declaration.fields[name], value, sqlite);
    },
  };
}
