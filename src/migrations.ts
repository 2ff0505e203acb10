/**
 * The public entry for migrations (`import … from 'declarest/migrations'`):
 * what a migration file, generated or written by hand, calls. Re-exports only.
 */
export type { Migration } from './db/migrator.js';
export { schemaEditor, type SchemaEditor } from './schema/operations.js';
export { createTextIndex, dropTextIndex } from './db/text-index.js';
export { addRowVersion, createRowCounter, dropRowCounter, removeRowVersion, type CounterOptions } from './db/row-counter.js';
export { createSessionsTable, dropSessionsTable } from './db/sessions-table.js';
