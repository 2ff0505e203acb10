import type { Migration } from '../../src/db/migrator.js';
import { createSessionsTable, dropSessionsTable } from '../../src/db/sessions-table.js';

/** Browser sessions (express-session's store), in the same database as everything else. */
export const up: Migration = async ({ context: db }) => createSessionsTable(db);

export const down: Migration = async ({ context: db }) => dropSessionsTable(db);
