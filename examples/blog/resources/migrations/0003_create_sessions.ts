import type { Migration } from '../../../../src/db/migrator.js';
import { createSessionsTable, dropSessionsTable } from '../../../../src/db/sessions-table.js';

/** Browser sessions (express-session's store), as the framework's session store expects them. */
export const up: Migration = async ({ context: db }) => createSessionsTable(db);

export const down: Migration = async ({ context: db }) => dropSessionsTable(db);
