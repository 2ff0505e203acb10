import type { TableSchema } from '../schema/model.js';

/** The admin's audit log (src/admin/audit.ts): one row per create, edit or delete a staff member made there. */
export const AUDIT_LOG_TABLE_NAME = 'admin_audit_log';

/** The audit log table as the schema model describes it: what `makemigrations` keeps every application's migrations building. */
export const AUDIT_LOG_TABLE: TableSchema = {
  columns: {
    id: { type: 'integer', nullable: false, primaryKey: true, autoIncrement: true },
    created_at: { type: 'datetime', nullable: false },
    // No foreign key: an entry outlives the account that made it, and keeps its username.
    account_id: { type: 'integer', nullable: false },
    account: { type: 'string(255)', nullable: false },
    action: { type: 'string(16)', nullable: false },
    resource: { type: 'string(128)', nullable: false },
    record_id: { type: 'string(64)', nullable: false },
    record_title: { type: 'string(255)', nullable: false },
    // JSON text, secrets already masked.
    changes: { type: 'text', nullable: false },
  },
  // The log is read newest first, whole or by resource or by account.
  indexes: {
    admin_audit_log_resource_id: { columns: ['resource', 'id'] },
    admin_audit_log_account_id_id: { columns: ['account_id', 'id'] },
  },
};
