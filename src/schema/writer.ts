/**
 * A generated migration's source: TypeScript that calls the schema editor
 * (schema/operations.ts) with literal arguments, readable in review, and a
 * line per operation for people (the file's header and the command's output).
 */
import type { Operation } from './diff.js';
import type { ColumnSchema } from './model.js';

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;
const LINE = 100;

const quote = (text: string): string => `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\n/g, '\\n')}'`;

/** A value as a TypeScript literal: on one line when it fits, else one entry a line. */
export function literal(value: unknown, indent = ''): string {
  if (typeof value === 'string') return quote(value);
  if (value === null || typeof value !== 'object') return String(value);
  const inner = `${indent}  `;
  const entries = Array.isArray(value)
    ? value.map((item) => literal(item, inner))
    : Object.entries(value as Record<string, unknown>)
        .filter(([, item]) => item !== undefined)
        .map(([key, item]) => `${IDENTIFIER.test(key) ? key : quote(key)}: ${literal(item, inner)}`);
  const [open, close] = Array.isArray(value) ? ['[', ']'] : ['{', '}'];
  if (entries.length === 0) return `${open}${close}`;
  const oneLine = Array.isArray(value) ? `[${entries.join(', ')}]` : `{ ${entries.join(', ')} }`;
  if (oneLine.length + indent.length <= LINE && !oneLine.includes('\n')) return oneLine;
  return `${open}\n${entries.map((entry) => `${inner}${entry},`).join('\n')}\n${indent}${close}`;
}

function call(operation: Operation): string {
  const args = ((): unknown[] => {
    switch (operation.op) {
      case 'createTable':
        return [operation.table, operation.schema];
      case 'dropTable':
      case 'addRowCounter':
      case 'removeRowCounter':
      case 'addRowVersion':
      case 'removeRowVersion':
        return [operation.table];
      case 'addColumn':
        return [operation.table, operation.column, operation.schema];
      case 'removeColumn':
        return [operation.table, operation.column];
      case 'alterColumn':
        return [operation.table, operation.column, operation.to];
      case 'renameColumn':
        return [operation.table, operation.from, operation.to];
      case 'addIndex':
        return [operation.table, operation.name, operation.index];
      case 'removeIndex':
        return [operation.table, operation.name];
      case 'addTextIndex':
      case 'removeTextIndex':
        return [operation.table, operation.columns];
    }
  })();
  const indent = '  ';
  return `${indent}await schema.${operation.op}(${args.map((arg) => literal(arg, indent)).join(', ')});`;
}

const columnText = (column: ColumnSchema): string =>
  [column.type, column.nullable ? 'null' : 'not null', column.default !== undefined ? `default ${JSON.stringify(column.default)}` : '', column.unique ? 'unique' : '']
    .filter(Boolean)
    .join(', ');

/** One line for people: `+` adds, `-` removes, `~` changes. */
export function describeOperation(operation: Operation): string {
  const at = (column: string): string => `${operation.table}.${column}`;
  switch (operation.op) {
    case 'createTable':
      return `+ table ${operation.table} (${Object.keys(operation.schema.columns).join(', ')})`;
    case 'dropTable':
      return `- table ${operation.table}`;
    case 'addColumn':
      return `+ ${at(operation.column)} (${columnText(operation.schema)})`;
    case 'removeColumn':
      return `- ${at(operation.column)}`;
    case 'alterColumn':
      return `~ ${at(operation.column)}: ${columnText(operation.from)} → ${columnText(operation.to)}${operation.to.references && JSON.stringify(operation.to.references) !== JSON.stringify(operation.from.references) ? `, references ${operation.to.references.table} on delete ${operation.to.references.onDelete}` : ''}`;
    case 'renameColumn':
      return `~ ${at(operation.from)} → ${at(operation.to)}`;
    case 'addIndex':
      return `+ index ${operation.name} (${operation.index.columns.join(', ')})${operation.index.unique ? ' unique' : ''}`;
    case 'removeIndex':
      return `- index ${operation.name}`;
    case 'addTextIndex':
      return `+ trigram index on ${operation.table} (${operation.columns.join(', ')})`;
    case 'removeTextIndex':
      return `- trigram index on ${operation.table} (${operation.columns.join(', ')})`;
    case 'addRowCounter':
      return `+ row counter of ${operation.table}`;
    case 'removeRowCounter':
      return `- row counter of ${operation.table}`;
    case 'addRowVersion':
      return `+ version kept by the row counter of ${operation.table}`;
    case 'removeRowVersion':
      return `- version kept by the row counter of ${operation.table}`;
  }
}

export interface MigrationSource {
  /** The framework's public entry for migrations (`<package>/migrations`), which the file imports. */
  migrationsEntry: string;
  up: readonly Operation[];
  down: readonly Operation[];
}

export function migrationSource({ migrationsEntry, up, down }: MigrationSource): string {
  const body = (operations: readonly Operation[]): string => ['  const schema = schemaEditor(db);', ...operations.map(call)].join('\n');
  return [
    '/**',
    ' * Generated by `manage makemigrations` from the declarations; schema.json beside it holds the schema it leaves.',
    ...up.map((operation) => ` *   ${describeOperation(operation)}`),
    ' */',
    `import { type Migration, schemaEditor } from '${migrationsEntry}';`,
    '',
    'export const up: Migration = async ({ context: db }) => {',
    body(up),
    '};',
    '',
    'export const down: Migration = async ({ context: db }) => {',
    body(down),
    '};',
    '',
  ].join('\n');
}
