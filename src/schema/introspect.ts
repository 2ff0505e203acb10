/**
 * What a live database holds, in schema/model.ts's words: SQLite's pragmas
 * and PostgreSQL's catalogs each read into one raw shape, then the rules both
 * share (which index makes a column unique, how a default reads) turn it into
 * a TableSchema, so that the same migrations read the same on either database.
 */
import { QueryTypes, type Sequelize } from 'sequelize';
import { BOOKKEEPING_TABLES, type ColumnSchema, type IndexSchema, type OnDelete, type Schema, type TableSchema } from './model.js';

type Literal = string | number | boolean;
type Reference = NonNullable<ColumnSchema['references']>;
type Replacements = Record<string, unknown>;

/** A column as its database tells it; `default` is the SQL text, stripped of PostgreSQL's casts. */
interface RawColumn { name: string; type: string; nullable: boolean; default: string | undefined; primaryKey: boolean; autoIncrement: boolean }

/** `plain`: no expression and no predicate, so that a unique one of a single column says the column is unique. */
interface RawIndex { name: string; columns: string[]; unique: boolean; plain: boolean }

/** What each database's reader finds, before the rules both share; primary-key indexes left out. */
interface RawTable { columns: RawColumn[]; indexes: RawIndex[]; references: Map<string, Reference>; textIndex: Set<string>; rowCounter: boolean; rowVersion: boolean }

const select = <T extends object>(sequelize: Sequelize, sql: string, replacements: Replacements = {}): Promise<T[]> =>
  sequelize.query<T>(sql, { type: QueryTypes.SELECT, replacements });

const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;
const ON_DELETE: readonly OnDelete[] = ['CASCADE', 'SET NULL', 'RESTRICT', 'NO ACTION'];
// SET DEFAULT has no word in the model; both databases read it as NO ACTION alike.
const onDelete = (action: string): OnDelete => ON_DELETE.find((known) => known === action.toUpperCase()) ?? 'NO ACTION';
// A counter's insert trigger says it is there; its update trigger, that it keeps the version too (db/row-counter.ts).
const counterTrigger = (table: string, event: 'insert' | 'update'): string => `row_counts_${table}_${event}`;

/** `(x)` whose parentheses hold all of it, as `x`: PostgreSQL wraps negative numbers and expressions so. */
function unwrap(text: string): string {
  if (!text.startsWith('(') || !text.endsWith(')')) return text;
  let depth = 0;
  for (let i = 0; i < text.length - 1; i++) {
    depth += text[i] === '(' ? 1 : text[i] === ')' ? -1 : 0;
    if (depth === 0) return text;
  }
  return unwrap(text.slice(1, -1).trim());
}

/** An index's expression as both databases can agree on it: `lower(email)`, whether written ``lower(`email`)`` or `lower(email::text)`. */
function expression(sql: string): string {
  let text = sql.replace(/["`]/g, '').replace(/::(text|character varying|varchar)\b/gi, '').replace(/\s+/g, ' ').trim();
  for (let previous = ''; previous !== text; ) {
    previous = text;
    text = unwrap(text).replace(/(^|[^\w])\((\w+)\)/g, '$1$2');
  }
  return text;
}

/** A default's SQL as a value; an expression (`CURRENT_TIMESTAMP`) stays its text. */
function literal(sql: string): Literal | undefined {
  const text = unwrap(sql.trim());
  const quoted = /^'((?:[^']|'')*)'$/s.exec(text);
  if (quoted) return (quoted[1] ?? '').replace(/''/g, "'");
  if (NUMBER.test(text)) return Number(text);
  if (/^(true|false)$/i.test(text)) return text.toLowerCase() === 'true';
  return /^null$/i.test(text) ? undefined : text;
}

/** A default read as the column's type holds it: SQLite writes booleans as 0/1, PostgreSQL quotes some numbers. */
function fitted(value: Literal, type: string): Literal {
  const text = String(value).toLowerCase();
  if (type === 'boolean' && ['0', '1', 'true', 'false'].includes(text)) return text === '1' || text === 'true';
  if (/^(integer|bigint|decimal)/.test(type) && typeof value === 'string' && NUMBER.test(value)) return Number(value);
  if (/^(string|text)/.test(type) && typeof value !== 'string') return String(value);
  return value;
}

/** One type name for both databases' spellings of it (schema/model.ts's ColumnType). */
function columnType(declared: string, length?: number | null, precision?: number | null, scale?: number | null): string {
  const name = declared.toLowerCase().replace(/\s+/g, ' ').replace(/\s*([(),])\s*/g, '$1').trim();
  const sized = /^(varchar|character varying|decimal|numeric)(?:\((\d+)(?:,(\d+))?\))?$/.exec(name);
  if (sized) {
    const [size, digits] = [sized[2] ?? length ?? precision, sized[3] ?? scale];
    if (sized[1]?.includes('var')) return size == null ? 'string' : `string(${size})`;
    return size == null ? 'decimal' : `decimal(${size},${digits ?? 0})`;
  }
  if (/^(tinyint\(1\)|boolean)$/.test(name)) return 'boolean';
  if (/^(datetime|timestamp (with|without) time zone)$/.test(name)) return 'datetime';
  return name === 'jsonb' ? 'json' : name;
}

function column(raw: RawColumn, unique: boolean, references: Reference | undefined): ColumnSchema {
  const schema: ColumnSchema = { type: raw.type, nullable: raw.nullable && !raw.primaryKey };
  const value = raw.default === undefined ? undefined : literal(raw.default);
  if (value !== undefined) schema.default = fitted(value, raw.type);
  if (raw.primaryKey) schema.primaryKey = true;
  if (raw.autoIncrement) schema.autoIncrement = true;
  if (unique) schema.unique = true;
  if (references) schema.references = references;
  return schema;
}

function assemble(raw: RawTable): TableSchema {
  const alone = (index: RawIndex): boolean => index.unique && index.plain && index.columns.length === 1;
  const unique = new Set(raw.indexes.filter(alone).map((index) => index.columns[0]));
  const columns: Record<string, ColumnSchema> = {};
  for (const each of raw.columns) columns[each.name] = column(each, unique.has(each.name), raw.references.get(each.name));
  const indexes: Record<string, IndexSchema> = {};
  // By name: SQLite lists them newest first, PostgreSQL as asked.
  for (const index of raw.indexes.filter((each) => !alone(each)).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    indexes[index.name] = index.unique ? { columns: index.columns, unique: true } : { columns: index.columns };
  }
  const table: TableSchema = { columns, indexes };
  const textIndex = raw.columns.map((each) => each.name).filter((name) => raw.textIndex.has(name));
  if (textIndex.length > 0) table.textIndex = textIndex;
  if (raw.rowCounter) table.rowCounter = true;
  if (raw.rowCounter && raw.rowVersion) table.rowVersion = true;
  return table;
}

/** The terms between the outer parentheses of `CREATE INDEX … ON t (a, lower(b)) WHERE …`, where SQLite keeps its expressions. */
function indexTerms(sql: string): string[] {
  const on = /\bON\s+(`[^`]*`|"[^"]*"|\[[^\]]*\]|[\w$]+)\s*\(/i.exec(sql);
  const terms: string[] = [];
  let [term, depth, quote] = ['', 1, ''];
  for (const char of on ? sql.slice(on.index + on[0].length) : '') {
    if (quote) quote = char === quote ? '' : quote;
    else if (`'"\``.includes(char)) quote = char;
    else if (char === '(') depth++;
    else if (char === ')' && --depth === 0) break;
    else if (char === ',' && depth === 1) {
      terms.push(term);
      term = '';
      continue;
    }
    term += char;
  }
  terms.push(term);
  return terms.map((each) => each.trim().replace(/\s+(COLLATE\s+\S+|ASC|DESC)$/gi, ''));
}

async function sqliteIndexes(sequelize: Sequelize, table: string): Promise<RawIndex[]> {
  const list = await select<{ name: string; unique: number; origin: string; partial: number }>(sequelize, 'SELECT * FROM pragma_index_list(:table)', { table });
  const indexes: RawIndex[] = [];
  for (const index of list.filter((each) => each.origin !== 'pk')) {
    const info = await select<{ name: string | null }>(sequelize, 'SELECT name FROM pragma_index_info(:index) ORDER BY seqno', { index: index.name });
    const [created] = await select<{ sql: string | null }>(sequelize, "SELECT sql FROM sqlite_master WHERE type = 'index' AND name = :index", { index: index.name });
    const terms = info.some((each) => each.name === null) ? indexTerms(created?.sql ?? '') : [];
    const columns = info.map((each, k) => each.name ?? expression(terms[k] ?? ''));
    indexes.push({ name: index.name, columns, unique: index.unique === 1, plain: index.partial === 0 && info.every((each) => each.name !== null) });
  }
  return indexes;
}

async function sqliteReferences(sequelize: Sequelize, table: string): Promise<Map<string, Reference>> {
  const keys = await select<{ table: string; from: string; to: string | null; seq: number; on_delete: string }>(sequelize, 'SELECT * FROM pragma_foreign_key_list(:table)', { table });
  const references = new Map<string, Reference>();
  for (const key of keys) {
    // `REFERENCES t` with no column names t's primary key.
    const primary = key.to ?? (await select<{ name: string }>(sequelize, 'SELECT name FROM pragma_table_info(:parent) WHERE pk > 0 ORDER BY pk', { parent: key.table }))[key.seq]?.name;
    references.set(key.from, { table: key.table, column: primary ?? '', onDelete: onDelete(key.on_delete) });
  }
  return references;
}

async function sqliteTable(sequelize: Sequelize, table: string): Promise<RawTable | undefined> {
  const [created] = await select<{ sql: string }>(sequelize, "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = :table", { table });
  if (!created) return undefined;
  const info = await select<{ name: string; type: string; notnull: number; dflt_value: string | null; pk: number }>(sequelize, 'SELECT * FROM pragma_table_info(:table) ORDER BY cid', { table });
  const counted = /\bAUTOINCREMENT\b/i.test(created.sql) && info.filter((each) => each.pk > 0).length === 1;
  const columns = info.map((each): RawColumn => {
    const type = columnType(each.type);
    const primaryKey = each.pk > 0;
    return { name: each.name, type, nullable: each.notnull === 0, default: each.dflt_value ?? undefined, primaryKey, autoIncrement: counted && primaryKey && type === 'integer' };
  });
  const fts = await select<{ name: string }>(sequelize, 'SELECT name FROM pragma_table_info(:fts)', { fts: `${table}_fts` });
  const trigger = async (event: 'insert' | 'update'): Promise<boolean> =>
    (await select<object>(sequelize, "SELECT 1 FROM sqlite_master WHERE type = 'trigger' AND name = :name AND tbl_name = :table", { name: counterTrigger(table, event), table })).length > 0;
  const [indexes, references] = [await sqliteIndexes(sequelize, table), await sqliteReferences(sequelize, table)];
  return { columns, indexes, references, textIndex: new Set(fts.map((each) => each.name)), rowCounter: await trigger('insert'), rowVersion: await trigger('update') };
}

async function sqliteTables(sequelize: Sequelize): Promise<string[]> {
  const tables = await select<{ name: string; sql: string }>(sequelize, "SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'");
  // An FTS5 table's shadow tables are named after it: `<table>_fts_data` and the like.
  const virtual = tables.filter((each) => /^\s*CREATE\s+VIRTUAL\s+TABLE/i.test(each.sql)).map((each) => each.name);
  return tables.map((each) => each.name).filter((name) => !virtual.some((owner) => name === owner || name.startsWith(`${owner}_`)));
}

const HERE = '(SELECT oid FROM pg_namespace WHERE nspname = current_schema())';

const PG_COLUMNS = `SELECT column_name AS name, data_type AS type, is_nullable AS nullable, column_default AS "default",
  character_maximum_length AS length, numeric_precision AS precision, numeric_scale AS scale, is_identity AS identity
  FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = :table
  AND table_name IN (SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE')
  ORDER BY ordinal_position`;

const PG_INDEXES = `SELECT i.relname AS name, x.indisprimary AS is_primary, x.indisunique AS is_unique, x.indexprs IS NULL AND x.indpred IS NULL AS plain,
  ARRAY(SELECT pg_get_indexdef(x.indexrelid, k, true) FROM generate_series(1, x.indnkeyatts) AS k ORDER BY k) AS columns
  FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid
  WHERE t.relname = :table AND t.relnamespace = ${HERE}`;

const PG_REFERENCES = `SELECT a.attname AS "from", p.relname AS "table", b.attname AS "to", c.confdeltype AS action
  FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid JOIN pg_class p ON p.oid = c.confrelid
  CROSS JOIN LATERAL unnest(c.conkey, c.confkey) AS k(own, other)
  JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.own JOIN pg_attribute b ON b.attrelid = c.confrelid AND b.attnum = k.other
  WHERE c.contype = 'f' AND t.relname = :table AND t.relnamespace = ${HERE}`;

const PG_TRIGGER = `SELECT 1 FROM pg_trigger g JOIN pg_class t ON t.oid = g.tgrelid
  WHERE NOT g.tgisinternal AND g.tgname = :name AND t.relname = :table AND t.relnamespace = ${HERE}`;

const PG_ACTIONS: Readonly<Record<string, OnDelete>> = { a: 'NO ACTION', r: 'RESTRICT', c: 'CASCADE', n: 'SET NULL' };

interface PgColumn { name: string; type: string; nullable: string; default: string | null; length: number | null; precision: number | null; scale: number | null; identity: string }

function pgColumn(each: PgColumn, primary: ReadonlySet<string>): RawColumn {
  const sequence = each.default !== null && /^nextval\(/i.test(each.default);
  let value = sequence ? undefined : (each.default ?? undefined);
  // `'draft'::character varying`, `('x'::text)::date`: the casts say only what the column's type says already.
  for (let previous = ''; value !== undefined && previous !== value; ) {
    previous = value;
    value = unwrap(value.replace(/::[a-z][\w ]*(\([\d, ]*\))?(\[\])?$/i, '').trim());
  }
  const type = columnType(each.type, each.length, each.precision, each.scale);
  return { name: each.name, type, nullable: each.nullable === 'YES', default: value, primaryKey: primary.has(each.name), autoIncrement: sequence || each.identity === 'YES' };
}

async function postgresTable(sequelize: Sequelize, table: string): Promise<RawTable | undefined> {
  const found = await select<PgColumn>(sequelize, PG_COLUMNS, { table });
  if (found.length === 0) return undefined;
  const all = await select<{ name: string; is_primary: boolean; is_unique: boolean; plain: boolean; columns: string[] }>(sequelize, PG_INDEXES, { table });
  const primary = new Set(all.filter((each) => each.is_primary).flatMap((each) => each.columns.map(expression)));
  const trigram = (name: string): string | undefined => found.find((each) => name === `${table}_${each.name}_trgm`)?.name;
  const indexes = all
    .filter((each) => !each.is_primary && trigram(each.name) === undefined)
    .map((each) => ({ name: each.name, columns: each.columns.map(expression), unique: each.is_unique, plain: each.plain }));
  const keys = await select<{ from: string; table: string; to: string; action: string }>(sequelize, PG_REFERENCES, { table });
  const references = new Map(keys.map((key): [string, Reference] => [key.from, { table: key.table, column: key.to, onDelete: PG_ACTIONS[key.action] ?? 'NO ACTION' }]));
  const trigger = async (event: 'insert' | 'update'): Promise<boolean> => (await select<object>(sequelize, PG_TRIGGER, { name: counterTrigger(table, event), table })).length > 0;
  const textIndex = new Set(all.map((each) => trigram(each.name)).filter((name): name is string => name !== undefined));
  return { columns: found.map((each) => pgColumn(each, primary)), indexes, references, textIndex, rowCounter: await trigger('insert'), rowVersion: await trigger('update') };
}

async function postgresTables(sequelize: Sequelize): Promise<string[]> {
  const rows = await select<{ name: string }>(sequelize, "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'");
  return rows.map((row) => row.name);
}

const postgres = (sequelize: Sequelize): boolean => sequelize.getDialect() === 'postgres';

/** One table as it stands, or undefined when the database has no such table. */
export async function introspectTable(sequelize: Sequelize, table: string): Promise<TableSchema | undefined> {
  const raw = postgres(sequelize) ? await postgresTable(sequelize, table) : await sqliteTable(sequelize, table);
  return raw && assemble(raw);
}

/** Every table but the framework's bookkeeping and SQLite's own and text-index tables, by name. */
export async function introspectSchema(sequelize: Sequelize): Promise<Schema> {
  const names = postgres(sequelize) ? await postgresTables(sequelize) : await sqliteTables(sequelize);
  const tables: Record<string, TableSchema> = {};
  for (const name of names.filter((each) => !BOOKKEEPING_TABLES.has(each)).sort()) {
    const table = await introspectTable(sequelize, name);
    if (table) tables[name] = table;
  }
  return { tables };
}
