import { createSessionsTable, dropSessionsTable, type Migration } from 'declarest/migrations';

/** Browser sessions (express-session's store), as the framework's session store expects them. */
export const up: Migration = async ({ context: db }) => createSessionsTable(db);

export const down: Migration = async ({ context: db }) => dropSessionsTable(db);
