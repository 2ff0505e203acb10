import type { QueryInterface } from 'sequelize';
import type { TableSchema } from '../schema/model.js';
import { schemaEditor } from '../schema/operations.js';

/** The sessions table as the schema model describes it: what `makemigrations` keeps every application's migrations building. */
export const SESSIONS_TABLE: TableSchema = {
  columns: {
    sid: { type: 'string(36)', nullable: false, primaryKey: true },
    expires: { type: 'datetime', nullable: true },
    data: { type: 'text', nullable: true },
    created_at: { type: 'datetime', nullable: false },
    updated_at: { type: 'datetime', nullable: false },
  },
  // The store deletes expired sessions by this column.
  indexes: { sessions_expires: { columns: ['expires'] } },
};

/**
 * The table of the framework's browser sessions (express-session's store,
 * src/auth/sessions.ts), for an application's migration to create: every
 * application has one, in the same database as everything else.
 */
export async function createSessionsTable(db: QueryInterface): Promise<void> {
  await schemaEditor(db).createTable('sessions', SESSIONS_TABLE);
}

export async function dropSessionsTable(db: QueryInterface): Promise<void> {
  await db.dropTable('sessions');
}
