/**
 * What turns one schema into another, as a list of operations a migration
 * runs (schema/operations.ts) and their inverses for its `down`; and what a
 * person must hear about them: data a removal loses, a change refused.
 */
import type { ColumnSchema, IndexSchema, Schema, TableSchema } from './model.js';

export type Operation =
  | { op: 'createTable'; table: string; schema: TableSchema }
  | { op: 'dropTable'; table: string; schema: TableSchema }
  | { op: 'addColumn'; table: string; column: string; schema: ColumnSchema }
  | { op: 'removeColumn'; table: string; column: string; schema: ColumnSchema }
  | { op: 'alterColumn'; table: string; column: string; from: ColumnSchema; to: ColumnSchema }
  | { op: 'renameColumn'; table: string; from: string; to: string }
  | { op: 'addIndex'; table: string; name: string; index: IndexSchema }
  | { op: 'removeIndex'; table: string; name: string; index: IndexSchema }
  | { op: 'addTextIndex'; table: string; columns: string[] }
  | { op: 'removeTextIndex'; table: string; columns: string[] }
  | { op: 'addRowCounter'; table: string }
  | { op: 'removeRowCounter'; table: string }
  | { op: 'addRowVersion'; table: string }
  | { op: 'removeRowVersion'; table: string };

/** A column renamed, as `--rename` or the question at the terminal gives it. */
export interface Rename {
  table: string;
  from: string;
  to: string;
}

/** Something `makemigrations` tells: `warning` for data a migration loses, `refused` for one it will not write. */
export interface Finding {
  kind: 'warning' | 'refused';
  /** Key under `makemigrations.` in the CLI's messages. */
  key: string;
  values: Record<string, string>;
}

export interface SchemaChange {
  operations: Operation[];
  findings: Finding[];
}

export function inverse(operation: Operation): Operation {
  switch (operation.op) {
    case 'createTable':
      return { ...operation, op: 'dropTable' };
    case 'dropTable':
      return { ...operation, op: 'createTable' };
    case 'addColumn':
      return { ...operation, op: 'removeColumn' };
    case 'removeColumn':
      return { ...operation, op: 'addColumn' };
    case 'alterColumn':
      return { ...operation, from: operation.to, to: operation.from };
    case 'renameColumn':
      return { ...operation, from: operation.to, to: operation.from };
    case 'addIndex':
      return { ...operation, op: 'removeIndex' };
    case 'removeIndex':
      return { ...operation, op: 'addIndex' };
    case 'addTextIndex':
      return { ...operation, op: 'removeTextIndex' };
    case 'removeTextIndex':
      return { ...operation, op: 'addTextIndex' };
    case 'addRowCounter':
      return { ...operation, op: 'removeRowCounter' };
    case 'removeRowCounter':
      return { ...operation, op: 'addRowCounter' };
    case 'addRowVersion':
      return { ...operation, op: 'removeRowVersion' };
    case 'removeRowVersion':
      return { ...operation, op: 'addRowVersion' };
  }
}

/** A migration's `down`: every operation undone, the last first. */
export function inverseOf(operations: readonly Operation[]): Operation[] {
  return [...operations].reverse().map(inverse);
}

/** Objects compared whatever the order of their keys (a snapshot's and a declaration's are written differently). */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([key, item]) => [key, canonical(item)]),
  );
}

export const same = (a: unknown, b: unknown): boolean => JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));

/** New tables in an order where each one's foreign keys point at tables made before it (or at itself). */
function byDependency(names: readonly string[], tables: Record<string, TableSchema>): string[] {
  const ordered: string[] = [];
  const visit = (name: string, path: Set<string>): void => {
    if (ordered.includes(name) || path.has(name)) return;
    path.add(name);
    for (const column of Object.values(tables[name]?.columns ?? {})) {
      const target = column.references?.table;
      if (target && target !== name && names.includes(target)) visit(target, path);
    }
    ordered.push(name);
  };
  for (const name of names) visit(name, new Set());
  return ordered;
}

/** A column that existing rows cannot fill: NOT NULL, with no default and no number the database gives. */
const needsValues = (column: ColumnSchema): boolean => !column.nullable && column.default === undefined && !column.autoIncrement;

function tableChanges(table: string, from: TableSchema, to: TableSchema, renames: readonly Rename[], change: SchemaChange): void {
  const { operations, findings } = change;
  const renamed = new Map(renames.filter((rename) => rename.table === table).map((rename) => [rename.from, rename.to]));
  const columnsBefore: Record<string, ColumnSchema> = {};
  for (const [name, column] of Object.entries(from.columns)) columnsBefore[renamed.get(name) ?? name] = column;

  for (const [name, index] of Object.entries(from.indexes)) {
    if (!same(to.indexes[name], index)) operations.push({ op: 'removeIndex', table, name, index });
  }
  const textChanged = !same(from.textIndex, to.textIndex);
  if (textChanged && from.textIndex) operations.push({ op: 'removeTextIndex', table, columns: from.textIndex });
  if (from.rowCounter && !to.rowCounter) operations.push({ op: 'removeRowCounter', table });
  if (from.rowCounter && to.rowCounter && from.rowVersion && !to.rowVersion) operations.push({ op: 'removeRowVersion', table });
  for (const [old, now] of renamed) operations.push({ op: 'renameColumn', table, from: old, to: now });

  for (const [name, column] of Object.entries(columnsBefore)) {
    if (name in to.columns) continue;
    operations.push({ op: 'removeColumn', table, column: name, schema: column });
    findings.push({ kind: 'warning', key: 'column_removed', values: { table, column: name } });
  }
  for (const [name, column] of Object.entries(to.columns)) {
    const before = columnsBefore[name];
    if (!before) {
      if (needsValues(column)) findings.push({ kind: 'refused', key: 'not_null_added', values: { table, column: name } });
      operations.push({ op: 'addColumn', table, column: name, schema: column });
    } else if (!same(before, column)) {
      if (before.nullable && needsValues(column)) findings.push({ kind: 'refused', key: 'not_null_altered', values: { table, column: name } });
      operations.push({ op: 'alterColumn', table, column: name, from: before, to: column });
    }
  }

  for (const [name, index] of Object.entries(to.indexes)) {
    if (!same(from.indexes[name], index)) operations.push({ op: 'addIndex', table, name, index });
  }
  if (textChanged && to.textIndex) operations.push({ op: 'addTextIndex', table, columns: to.textIndex });
  // A counter made now keeps the version too; one made before versions gets it added.
  if (to.rowCounter && !from.rowCounter) operations.push({ op: 'addRowCounter', table });
  if (from.rowCounter && to.rowCounter && to.rowVersion && !from.rowVersion) operations.push({ op: 'addRowVersion', table });
}

/** The operations that make `from` into `to`, with `renames` taken as renames rather than a removal and an addition. */
export function diffSchemas(from: Schema, to: Schema, renames: readonly Rename[] = []): SchemaChange {
  const change: SchemaChange = { operations: [], findings: [] };
  const created = Object.keys(to.tables).filter((name) => !(name in from.tables));
  for (const table of byDependency(created, to.tables)) {
    change.operations.push({ op: 'createTable', table, schema: to.tables[table] as TableSchema });
  }
  for (const [table, schema] of Object.entries(to.tables)) {
    const before = from.tables[table];
    if (before) tableChanges(table, before, schema, renames, change);
  }
  const dropped = Object.keys(from.tables).filter((name) => !(name in to.tables));
  for (const table of byDependency(dropped, from.tables).reverse()) {
    change.operations.push({ op: 'dropTable', table, schema: from.tables[table] as TableSchema });
    change.findings.push({ kind: 'warning', key: 'table_dropped', values: { table } });
  }
  return change;
}

/**
 * Columns that look renamed: in one table, one removed and one added of the
 * same type. The terminal asks about each; without an answer they stay a
 * removal and an addition.
 */
export function possibleRenames(from: Schema, to: Schema): Rename[] {
  const found: Rename[] = [];
  for (const [table, schema] of Object.entries(to.tables)) {
    const before = from.tables[table];
    if (!before) continue;
    const removed = Object.entries(before.columns).filter(([name]) => !(name in schema.columns));
    const added = Object.entries(schema.columns).filter(([name]) => !(name in before.columns));
    for (const [old, column] of removed) {
      const match = added.filter(([, candidate]) => candidate.type === column.type);
      if (match.length === 1 && match[0]) found.push({ table, from: old, to: match[0][0] });
    }
  }
  return found;
}

/** The renames `--rename table.old:new` gives, or the one that is not of that form. */
export function parseRename(text: string): Rename | undefined {
  const match = /^(\w+)\.(\w+):(\w+)$/.exec(text);
  return match ? { table: match[1] as string, from: match[2] as string, to: match[3] as string } : undefined;
}
