/**
 * The schema the declarations need, as Django derives tables from models:
 * a column per stored field, a join table per many-to-many, and the indexes
 * the declared lists read (src/db/query-indexes.ts names which fields need
 * one; this decides which columns follow them), a trigram index for what is
 * searched, and a row counter for what is listed with its count.
 */
import { neededIndexes } from '../db/query-indexes.js';
import { AUDIT_LOG_TABLE, AUDIT_LOG_TABLE_NAME } from '../db/audit-table.js';
import { SESSIONS_TABLE } from '../db/sessions-table.js';
import { isColumn, type ColumnField } from '../resource.js';
import type { ColumnSchema, IndexSchema, Schema, TableSchema } from './model.js';
import { checkDeclarations } from '../declaration-checks.js';
import type { Lookup } from '../types/declaration.js';
import type { ResourceDeclaration } from '../types/resource.js';

const EQUALITY: ReadonlySet<Lookup> = new Set(['exact', 'in', 'isnull']);
const DEFAULT_STRING_LENGTH = 255;

function columnType(field: ColumnField): string {
  switch (field.kind) {
    case 'id':
    case 'integer':
    case 'reference':
      return 'integer';
    case 'string':
      return `string(${field.maxLength ?? DEFAULT_STRING_LENGTH})`;
    case 'enum':
      return `string(${Math.max(1, ...field.choices.map((choice) => choice.length))})`;
    case 'decimal':
      return `decimal(${field.maxDigits},${field.decimalPlaces})`;
    default:
      return field.kind;
  }
}

function primaryKeyOf(declaration: ResourceDeclaration): string {
  return Object.entries(declaration.fields).find(([, field]) => field.kind === 'id')?.[0] ?? 'id';
}

function tableOf(declarations: readonly ResourceDeclaration[], name: string): ResourceDeclaration {
  const found = declarations.find((declaration) => declaration.name === name);
  if (!found) throw new Error(`No resource is named ${name}`);
  return found;
}

function column(field: ColumnField, declarations: readonly ResourceDeclaration[]): ColumnSchema {
  const schema: ColumnSchema = { type: columnType(field), nullable: field.kind !== 'id' && Boolean(field.nullable) };
  if (field.kind === 'id') return { ...schema, primaryKey: true, autoIncrement: true };
  const fallback = field.default;
  if (fallback !== undefined && fallback !== null && typeof fallback !== 'object') schema.default = fallback as string | number | boolean;
  if ((field.kind === 'string' || field.kind === 'text') && field.unique && !field.caseInsensitive) schema.unique = true;
  if (field.kind === 'reference') {
    const target = tableOf(declarations, field.to);
    schema.references = { table: target.table, column: primaryKeyOf(target), onDelete: field.onDelete };
  }
  return schema;
}

const isUnique = (declaration: ResourceDeclaration, name: string): boolean => {
  const field = declaration.fields[name];
  return (field?.kind === 'string' || field?.kind === 'text') && Boolean(field.unique);
};

/** The order a list is read in when a client asks for none: the paginated site's, else the first declared, else the key's. */
function defaultOrder(declaration: ResourceDeclaration): string[] {
  const sites = Object.values(declaration.sites ?? {});
  const ordering = (declaration.sites?.paginated ?? sites.find((site) => site.ordering))?.ordering ?? [];
  return ordering.map(([name]) => name);
}

const withKey = (columns: readonly string[], key: string): string[] => [...new Set([...columns, key])];

/**
 * A field filtered only by equality is read in the list's own order (its
 * rows, newest first): the order follows it in the index. A field ordered by
 * or compared by range is read in its own order, the key breaking ties.
 */
function listIndexes(declaration: ResourceDeclaration): string[][] {
  const key = primaryKeyOf(declaration);
  const { ordered } = neededIndexes(declaration);
  const lookups = new Map<string, Lookup[]>();
  const orderable = new Set<string>();
  for (const query of [declaration.query, ...Object.values(declaration.sites ?? {}).map((site) => site.query)]) {
    for (const [name, named] of Object.entries(query?.filters ?? {})) lookups.set(name, [...(lookups.get(name) ?? []), ...named]);
    for (const name of query?.orderingFields ?? []) orderable.add(name);
  }
  const indexes: string[][] = [];
  for (const name of ordered) {
    const field = declaration.fields[name];
    if (!field || !isColumn(field) || isUnique(declaration, name)) continue;
    const equalityOnly = !orderable.has(name) && (lookups.get(name) ?? []).every((lookup) => EQUALITY.has(lookup));
    indexes.push(withKey(equalityOnly ? [name, ...defaultOrder(declaration)] : [name], key));
  }
  for (const site of Object.values(declaration.sites ?? {})) {
    const columns = (site.ordering ?? []).map(([name]) => name);
    if (columns.length > 0 && columns[0] !== key && !isUnique(declaration, columns[0] as string)) indexes.push(withKey(columns, key));
  }
  return indexes;
}

function indexesOf(declaration: ResourceDeclaration): Record<string, IndexSchema> {
  const { table } = declaration;
  const indexes: Record<string, IndexSchema> = {};
  const add = (columns: string[], unique = false, name = `${table}_${columns.join('_')}`): void => {
    const already = Object.entries(indexes).find(([, index]) => index.columns.join() === columns.join());
    if (already && (already[1].unique || !unique)) return;
    // A declared unique index over the columns of one made for a list or a foreign key replaces it: it serves them as well.
    if (already) delete indexes[already[0]];
    indexes[name] = unique ? { columns, unique: true } : { columns };
  };
  for (const columns of listIndexes(declaration)) add(columns);
  for (const [name, field] of Object.entries(declaration.fields)) {
    if ((field.kind === 'string' || field.kind === 'text') && field.unique && field.caseInsensitive) add([`lower(${name})`], true, `${table}_${name}_lower_unique`);
    // A foreign key is indexed, as Django's are: deleting the row it points at looks its rows up.
    if (field.kind === 'reference' && !Object.values(indexes).some((index) => index.columns[0] === name)) add([name]);
  }
  for (const [name, index] of Object.entries(declaration.indexes ?? {})) add([...index.columns], Boolean(index.unique), name);
  return indexes;
}

function resourceTable(declaration: ResourceDeclaration, declarations: readonly ResourceDeclaration[]): TableSchema {
  const columns: Record<string, ColumnSchema> = {};
  for (const [name, field] of Object.entries(declaration.fields)) if (isColumn(field)) columns[name] = column(field, declarations);
  const table: TableSchema = { columns, indexes: indexesOf(declaration) };
  const searched = neededIndexes(declaration).text;
  if (searched.size > 0) table.textIndex = Object.keys(columns).filter((name) => searched.has(name));
  return table;
}

const isListed = (declaration: ResourceDeclaration): boolean => Object.values(declaration.sites ?? {}).some((site) => site.actions.includes('list'));

/** The account and token models: every authenticated request reads them, unless their versions say the rows kept in memory are current (src/db/versioned-rows.ts). */
const isCredential = (declaration: ResourceDeclaration): boolean => Boolean(declaration.userModel ?? declaration.tokenModel);

/**
 * The tables whose count and version `row_counts` keeps: each listed
 * resource's (its pages show the count), and those its pages read besides,
 * the rows its references name and its many-to-many links, so that a page
 * knows from their versions alone that it is unchanged; and the accounts'
 * and tokens', so that a request knows its credentials' rows unchanged.
 */
function countedTables(declarations: readonly ResourceDeclaration[]): Set<string> {
  const counted = new Set<string>(declarations.filter(isCredential).map((declaration) => declaration.table));
  for (const declaration of declarations.filter(isListed)) {
    counted.add(declaration.table);
    for (const field of Object.values(declaration.fields)) {
      if (field.kind === 'reference') counted.add(tableOf(declarations, field.to).table);
      if (field.kind === 'manyToMany') counted.add(field.through.table).add(tableOf(declarations, field.to).table);
    }
  }
  return counted;
}

/** The join tables of a declaration's many-to-many fields: a pair of keys, each row going with either of its rows. */
function joinTables(declaration: ResourceDeclaration, declarations: readonly ResourceDeclaration[]): [string, TableSchema][] {
  const joins: [string, TableSchema][] = [];
  for (const field of Object.values(declaration.fields)) {
    if (field.kind !== 'manyToMany') continue;
    const { table, from, to } = field.through;
    const far = tableOf(declarations, field.to);
    const key = (target: ResourceDeclaration): ColumnSchema => ({
      type: 'integer',
      nullable: false,
      primaryKey: true,
      references: { table: target.table, column: primaryKeyOf(target), onDelete: 'CASCADE' },
    });
    joins.push([table, { columns: { [from]: key(declaration), [to]: key(far) }, indexes: { [`${table}_${to}_${from}`]: { columns: [to, from] } } }]);
  }
  return joins;
}

/** Every table the declarations need, and the framework's own (its sessions, the admin's audit log). */
export function declaredSchema(declarations: readonly ResourceDeclaration[]): Schema {
  checkDeclarations(declarations);
  // Sessions are versioned as credentials are: a request takes the session row it read last while the table is unchanged.
  const tables: Record<string, TableSchema> = { sessions: { ...SESSIONS_TABLE, rowCounter: true, rowVersion: true }, [AUDIT_LOG_TABLE_NAME]: AUDIT_LOG_TABLE };
  for (const declaration of declarations) {
    tables[declaration.table] = resourceTable(declaration, declarations);
    for (const [name, join] of joinTables(declaration, declarations)) tables[name] = join;
  }
  for (const name of countedTables(declarations)) {
    const table = tables[name];
    if (table) Object.assign(table, { rowCounter: true, rowVersion: true });
  }
  return { tables };
}
