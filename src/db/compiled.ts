/**
 * Reads by one column as SQL written once per model and shape, run on the
 * Sequelize connection and answered as plain rows. On a small read, building
 * the query and the model instances costs Sequelize several times the
 * database's own work (and its SQLite dialect an Error stack per query);
 * these reads skip both and keep the same connection, transactions aside.
 * A single-row insert or update is written the same way, answering the row
 * as a read of the same shape would (src/writes.ts decides when).
 */
import type { Sequelize, Transaction } from 'sequelize';
import { fromStored } from '../cleaning.js';
import { versionCondition, versionParameter, type UpdateTime } from './row-version.js';
import { columnOf, quoteGenerator, type QuoteGenerator } from './sql-names.js';
import { WriteBatches, type BatchedConnection, type PlainRow, type SqliteDatabase, type SqliteStatement } from './write-batches.js';
import { insideWriteTransaction, inWriteOrder } from './write-transactions.js';
import type { RowModel, StoredRecord } from '../types/rows.js';
import type { BoundResource } from '../types/resource.js';

export type { StoredRecord };

export type { PlainRow };

/** A reference to join, as Sequelize's `include`: the association's name and the attributes to read of it. */
export interface JoinedReference {
  association: string;
  /** Default: every column the referenced model's default scope reads. */
  attributes?: readonly string[];
}

/** An update that writes only while the row's `attribute` (its update time) still holds the version read. */
export interface VersionGuard {
  attribute: string;
  version: UpdateTime;
}

/** Attributes to order by, each with its direction. */
export type ColumnOrder = readonly (readonly [string, 'ASC' | 'DESC'])[];

export interface KeyedRead {
  model: RowModel;
  /** The attribute the row is found by (the primary key unless said). */
  by?: string;
  /** The attributes to read; default: every column the model's default scope reads. */
  attributes?: readonly string[];
  include?: readonly JoinedReference[];
}


interface PostgresClient {
  query(config: { text: string; values: readonly unknown[] }): Promise<{ rows: PlainRow[] }>;
}

/** A column of a statement's answer: the value it reads and the (quoted) name it answers as. */
interface Answered {
  value: string;
  name: string;
}

interface Association {
  target: RowModel;
  foreignKey: string;
  targetKey: string;
}

/** The association of `model` a joined reference names. */
function associationOf(model: RowModel, association: string): Association {
  const relation = model.associations[association] as unknown as Association | undefined;
  if (!relation) throw new Error(`${model.name} has no association ${association}`);
  return relation;
}

/** The tables a keyed read reads: its model's, then each joined reference's. */
export function readTables({ model, include = [] }: KeyedRead): string[] {
  return [model.getTableName() as string, ...include.map(({ association }) => associationOf(model, association).target.getTableName() as string)];
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
  return everyColumn(model).filter((name) => !excluded.has(name));
}

/**
 * Sequelize `include` entries as the references a compiled read joins, when
 * each only names an association and the attributes to read of it (as a
 * serializer's `includes()` does); null when one asks more (a condition, a
 * required join), which only Sequelize can build.
 */
export function joinedReferences(include: readonly unknown[]): JoinedReference[] | null {
  const joined: JoinedReference[] = [];
  for (const entry of include) {
    const { association, attributes, ...rest } = entry as { association?: unknown; attributes?: unknown };
    if (typeof association !== 'string' || !Array.isArray(attributes) || Object.keys(rest).length > 0) return null;
    joined.push({ association, attributes: attributes as string[] });
  }
  return joined;
}

/**
 * How many statements are kept (on SQLite, prepared) at most. A write's SQL
 * names the columns it sets, which a client chooses (a PATCH of any subset):
 * past this many, a statement is written and run each time, never kept.
 */
const MAX_KEPT_STATEMENTS = 500;

export class CompiledReads {
  private readonly statements = new Map<string, string>();
  /** The SQL texts of `statements`, which SQLite prepares once. */
  private readonly kept = new Set<string>();
  private readonly sqlite: boolean;
  /** SQLite statements prepared once per connection; finalized before it closes (else SQLite refuses to close it). */
  private readonly prepared = new Map<SqliteDatabase, Map<string, Promise<SqliteStatement>>>();
  /** Sequelize keeps one SQLite connection outside transactions and hands out that same one: asked for once. */
  private readonly sqliteConnection: SharedConnection;
  /** A SQLite file's single-statement writes, committed together on a connection of their own (db/write-batches.ts). */
  private readonly batches: WriteBatches | undefined;
  /** The batched writes' connection, open until the database closes. */
  private readonly batchConnection: SharedConnection;

  constructor(private readonly sequelize: Sequelize) {
    this.sqlite = sequelize.getDialect() === 'sqlite';
    const connections = sequelize.connectionManager as unknown as SqliteConnections;
    this.sqliteConnection = new SharedConnection(() => connections.getConnection({ type: 'read' }));
    this.batchConnection = new SharedConnection(() => connections.getConnection({ uuid: BATCH_CONNECTION, type: 'write' }));
    const storage = (sequelize as unknown as { options: { storage?: string } }).options.storage;
    if (this.sqlite && storage !== undefined && storage !== ':memory:') this.batches = new WriteBatches(this.batchedConnection(connections));
  }

  private batchedConnection(connections: SqliteConnections): BatchedConnection {
    return {
      open: () => this.batchConnection.get(),
      run: (db, sql, params, kept) => this.runOn(db, sql, params, kept),
      inWriteOrder: (work) => inWriteOrder(this.sequelize, work),
      discard: async (db) => {
        this.batchConnection.forget();
        await this.finalizeOn(db);
        try {
          // Sequelize closes and forgets a connection it knows by its uuid.
          connections.releaseConnection(Object.assign(db, { uuid: BATCH_CONNECTION }));
        } catch {
          // Closed already (the database closing): node-sqlite3 says so by throwing, and there is nothing left to close.
        }
      },
    };
  }

  /** The one row whose `by` attribute has this value, joined references nested under their names; or null. Inside `transaction` when given. */
  async one(read: KeyedRead, shape: string, value: unknown, transaction?: Transaction): Promise<PlainRow | null> {
    const sql = this.statement(`${read.model.name}:${shape}`, () => {
      const { model, by = model.primaryKeyAttribute } = read;
      return `${this.selectFrom(read)} WHERE ${this.quote('base')}.${this.quote(columnOf(model, by))} = ${this.placeholder(1)} LIMIT 1`;
    });
    const [row] = await this.run(sql, [value], 'read', transaction);
    return row ? nested(row) : null;
  }

  /**
   * `limit` rows from `offset` of the whole table (no condition) in `order`:
   * a list page as compiled SQL, with the same columns and joins as `one`.
   */
  async page(read: KeyedRead, order: ColumnOrder, shape: string, limit: number, offset: number): Promise<PlainRow[]> {
    const sql = this.statement(`${read.model.name}:page:${shape}:${order.flat().join(',')}`, () => {
      const sorted = this.orderBy(read.model, 'base', order);
      return `${this.selectFrom(read)} ${sorted} LIMIT ${this.placeholder(1)} OFFSET ${this.placeholder(2)}`;
    });
    return (await this.run(sql, [limit, offset])).map(nested);
  }

  /**
   * The same page far from either end: OFFSET steps over every row it skips,
   * so the page's keys are found first on the ordering's index alone (a
   * subquery that reads no other column), then only their rows are read and
   * joined. One statement, as `page`.
   */
  async deepPage(read: KeyedRead, order: ColumnOrder, shape: string, limit: number, offset: number): Promise<PlainRow[]> {
    const sql = this.statement(`${read.model.name}:deep:${shape}:${order.flat().join(',')}`, () => {
      const { model } = read;
      const key = this.quote(columnOf(model, model.primaryKeyAttribute));
      const keys = this.quote('keys');
      const found = `SELECT ${keys}.${key} FROM ${this.generator.quoteTable(model.getTableName())} AS ${keys} ${this.orderBy(model, 'keys', order)} LIMIT ${this.placeholder(1)} OFFSET ${this.placeholder(2)}`;
      return `${this.selectFrom(read)} WHERE ${this.quote('base')}.${key} IN (${found}) ${this.orderBy(model, 'base', order)}`;
    });
    return (await this.run(sql, [limit, offset])).map(nested);
  }

  /** `ORDER BY` the attributes of `model` in `order`, each column named by the alias `table`. */
  private orderBy(model: RowModel, table: string, order: ColumnOrder): string {
    const alias = this.quote(table);
    return `ORDER BY ${order.map(([name, direction]) => `${alias}.${this.quote(columnOf(model, name))} ${direction}`).join(', ')}`;
  }

  /**
   * Inserts one row of these column values (by attribute, bound as given) in
   * one statement, and answers it as `one` reads it back with the same read
   * and shape: the same columns, values and order, references nested.
   */
  async inserted(read: KeyedRead, shape: string, values: Readonly<Record<string, unknown>>): Promise<PlainRow> {
    const attributes = Object.keys(values);
    const sql = this.statement(`${read.model.name}:insert:${shape}:${attributes.join(',')}`, () => this.insertInto(read, attributes));
    const [row] = await this.run(sql, attributes.map((name) => values[name]), 'write');
    if (!row) throw new Error(`${read.model.name}: an insert answered no row`);
    return nested(row);
  }

  /**
   * Sets these column values (by attribute, bound as given) of the row whose
   * primary key is `key`, and answers it as `one` reads it back; null if no
   * row has that key, or (with a `guard`) if the row is no longer at that
   * version. With no value to set, the row is only read. Inside `transaction` when given.
   */
  async updated(read: KeyedRead, shape: string, key: unknown, values: Readonly<Record<string, unknown>>, guard?: VersionGuard, transaction?: Transaction): Promise<PlainRow | null> {
    const attributes = Object.keys(values);
    if (attributes.length === 0) return this.one(read, shape, key, transaction);
    const guarded = guard ? `:if:${guard.attribute}` : '';
    const sql = this.statement(`${read.model.name}:update:${shape}:${attributes.join(',')}${guarded}`, () => this.updateOf(read, attributes, guard?.attribute));
    const params = [...attributes.map((name) => values[name]), key];
    if (guard) params.push(versionParameter(guard.version.updatedAt));
    const [row] = await this.run(sql, params, 'write', transaction);
    return row ? nested(row) : null;
  }

  /** Rows of SQL the caller writes once (`compile` runs the first time `shape` is asked), its values bound in order. */
  async rows(shape: string, compile: (quote: (name: string) => string, placeholder: (position: number) => string) => string, params: readonly unknown[]): Promise<PlainRow[]> {
    const sql = this.statement(shape, () => compile((name) => this.quote(name), (position) => this.placeholder(position)));
    return this.run(sql, params);
  }

  private statement(key: string, compile: () => string): string {
    let sql = this.statements.get(key);
    if (!sql) {
      sql = compile();
      if (this.statements.size < MAX_KEPT_STATEMENTS) {
        this.statements.set(key, sql);
        this.kept.add(sql);
      }
    }
    return sql;
  }

  private get generator(): QuoteGenerator {
    return quoteGenerator(this.sequelize);
  }

  private quote(name: string): string {
    return this.generator.quoteIdentifier(name);
  }

  private placeholder(position: number): string {
    return this.sqlite ? `?${position}` : `$${position}`;
  }

  /**
   * The columns a read answers, each a value (`<table>.<column>`, `table`
   * being what the statement calls the base table) and the name it is
   * answered as; each reference's (`<alias>.<column>`, `<association>.<name>`)
   * with what joins it.
   */
  private answered(
    { model, attributes = defaultAttributes(model), include = [] }: KeyedRead,
    table: string,
  ): { columns: Answered[]; joined: { alias: string; target: string; on: string; columns: Answered[] }[] } {
    const quote = (name: string): string => this.quote(name);
    const columns = attributes.map((name) => ({ value: `${table}.${quote(columnOf(model, name))}`, name: quote(name) }));
    const joined = include.map(({ association, attributes: names }) => {
      const relation = associationOf(model, association);
      const alias = quote(association);
      const on = `${alias}.${quote(columnOf(relation.target, relation.targetKey))} = ${table}.${quote(columnOf(model, relation.foreignKey))}`;
      const target = this.generator.quoteTable(relation.target.getTableName());
      const columns = (names ?? defaultAttributes(relation.target)).map((name) => ({ value: `${alias}.${quote(columnOf(relation.target, name))}`, name: quote(`${association}.${name}`) }));
      return { alias, target, on, columns };
    });
    return { columns, joined };
  }

  /** `SELECT <columns> FROM <table> AS base LEFT OUTER JOIN …` for the read's attributes and references. */
  private selectFrom(read: KeyedRead): string {
    const base = this.quote('base');
    const { columns, joined } = this.answered(read, base);
    const joins = joined.map(({ alias, target, on }) => ` LEFT OUTER JOIN ${target} AS ${alias} ON ${on}`).join('');
    const selected = [...columns, ...joined.flatMap((join) => join.columns)].map(({ value, name }) => `${value} AS ${name}`);
    return `SELECT ${selected.join(', ')} FROM ${this.generator.quoteTable(read.model.getTableName())} AS ${base}${joins}`;
  }

  /**
   * `RETURNING` the columns `selectFrom` reads, in its order, each
   * reference's as a subquery: neither database lets RETURNING join, and
   * SQLite's sees the written table by its name only (`table`).
   */
  private returning(read: KeyedRead, table: string): string {
    const { columns, joined } = this.answered(read, table);
    const subqueries = joined.flatMap(({ alias, target, on, columns: named }) =>
      named.map(({ value, name }) => `(SELECT ${value} FROM ${target} AS ${alias} WHERE ${on}) AS ${name}`),
    );
    return `RETURNING ${[...columns.map(({ value, name }) => `${value} AS ${name}`), ...subqueries].join(', ')}`;
  }

  private insertInto(read: KeyedRead, attributes: readonly string[]): string {
    const table = this.generator.quoteTable(read.model.getTableName());
    const names = attributes.map((name) => this.quote(columnOf(read.model, name)));
    const values = attributes.length > 0 ? `(${names.join(', ')}) VALUES (${attributes.map((_, index) => this.placeholder(index + 1)).join(', ')})` : 'DEFAULT VALUES';
    return `INSERT INTO ${table} ${values} ${this.returning(read, table)}`;
  }

  /**
   * `UPDATE … SET` each attribute `WHERE` the key is the value bound after
   * them (and `versioned`, when named, the version bound last), `RETURNING`
   * as an insert does.
   */
  private updateOf(read: KeyedRead, attributes: readonly string[], versioned?: string): string {
    const { model } = read;
    const table = this.generator.quoteTable(model.getTableName());
    const set = attributes.map((name, index) => `${this.quote(columnOf(model, name))} = ${this.placeholder(index + 1)}`);
    const conditions = [`${table}.${this.quote(columnOf(model, model.primaryKeyAttribute))} = ${this.placeholder(attributes.length + 1)}`];
    if (versioned) conditions.push(versionCondition(`${table}.${this.quote(columnOf(model, versioned))}`, this.placeholder(attributes.length + 2)));
    return `UPDATE ${table} SET ${set.join(', ')} WHERE ${conditions.join(' AND ')} ${this.returning(read, table)}`;
  }

  /** The statement prepared on this connection; one that fails to prepare (its table not there yet, say) is not kept. */
  private preparedOn(db: SqliteDatabase, sql: string): Promise<SqliteStatement> {
    let statements = this.prepared.get(db);
    if (!statements) {
      statements = new Map();
      this.prepared.set(db, statements);
    }
    let statement = statements.get(sql);
    if (!statement) {
      const byText = statements;
      statement = new Promise<SqliteStatement>((resolve, reject) => {
        const prepared = db.prepare(sql, (error) => {
          if (!error) return resolve(prepared);
          byText.delete(sql);
          reject(error);
        });
      });
      statements.set(sql, statement);
    }
    return statement;
  }

  /** Finishes the batched writes under way and finalizes the prepared statements: the database's close calls it first. */
  async close(): Promise<void> {
    await this.batches?.close();
    const connections = [...this.prepared.keys()];
    this.sqliteConnection.forget();
    this.batchConnection.forget();
    await Promise.all(connections.map((db) => this.finalizeOn(db)));
  }

  /** Finalizes the statements prepared on `db`: SQLite refuses to close a connection with any left. */
  private async finalizeOn(db: SqliteDatabase): Promise<void> {
    const statements = [...(this.prepared.get(db)?.values() ?? [])];
    this.prepared.delete(db);
    const finalize = async (preparing: Promise<SqliteStatement>): Promise<void> => {
      const statement = await preparing.catch(() => null);
      if (statement) await new Promise<void>((resolve) => statement.finalize(resolve));
    };
    await Promise.all(statements.map(finalize));
  }

  private async run(sql: string, params: readonly unknown[], type: 'read' | 'write' = 'read', transaction?: Transaction): Promise<PlainRow[]> {
    if (transaction) return this.runIn(transaction, sql, params);
    const connections = this.sequelize.connectionManager;
    if (this.sqlite) {
      if (type === 'write' && this.batches && !insideWriteTransaction()) return this.batches.run(sql, params, this.kept.has(sql));
      return this.runOn(await this.sqliteConnection.get(), sql, params, this.kept.has(sql));
    }
    const client = await connections.getConnection({ type });
    try {
      // db/database.ts marks a connection that stops answering: the pool then ends it instead of lending it again.
      return (await (client as unknown as PostgresClient).query({ text: sql, values: params })).rows;
    } finally {
      connections.releaseConnection(client);
    }
  }

  /** `sql` on a SQLite connection: prepared once on it when kept, else written each time. */
  private async runOn(db: SqliteDatabase, sql: string, params: readonly unknown[], kept: boolean): Promise<PlainRow[]> {
    if (!kept) return new Promise((resolve, reject) => db.all(sql, params, (error, rows) => (error ? reject(error) : resolve(rows))));
    const statement = await this.preparedOn(db, sql);
    return new Promise((resolve, reject) => statement.all(params, (error, rows) => (error ? reject(error) : resolve(rows))));
  }

  /**
   * A statement on a transaction's own connection, unprepared: a SQLite
   * transaction's connection closes when it ends, which statements kept
   * prepared on it would prevent.
   */
  private async runIn(transaction: Transaction, sql: string, params: readonly unknown[]): Promise<PlainRow[]> {
    const { connection } = transaction as unknown as { connection: SqliteDatabase | PostgresClient };
    if (!this.sqlite) return (await (connection as PostgresClient).query({ text: sql, values: params })).rows;
    const db = connection as SqliteDatabase;
    return new Promise((resolve, reject) => db.all(sql, params, (error, rows) => (error ? reject(error) : resolve(rows))));
  }
}

/** The uuid under which Sequelize's SQLite connection manager keeps the batched writes' connection, open until the database closes. */
const BATCH_CONNECTION = 'batched-writes';

/** What of Sequelize's SQLite connection manager the compiled statements need. */
interface SqliteConnections {
  getConnection(options: { uuid?: string; type: 'read' | 'write' }): Promise<SqliteDatabase>;
  releaseConnection(connection: SqliteDatabase & { uuid: string }): void;
}

/** A connection asked for once and shared by every caller after; asked for again once forgotten, or if asking failed. */
class SharedConnection {
  private asked: Promise<SqliteDatabase> | undefined;

  constructor(private readonly ask: () => Promise<SqliteDatabase>) {}

  get(): Promise<SqliteDatabase> {
    this.asked ??= this.ask().catch((error: unknown) => {
      this.asked = undefined;
      throw error;
    });
    return this.asked;
  }

  forget(): void {
    this.asked = undefined;
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
