/**
 * A write that a unique index refused. The serializer checks unique values
 * before writing, but another writer may take the value between that check
 * and the write; the index then refuses it, and the answer must be the same
 * field error the check gives, never a 500.
 */
import { UniqueConstraintError } from 'sequelize';

/** Sequelize's error, or the driver's own where compiled SQL wrote: SQLite's SQLITE_CONSTRAINT on a UNIQUE index, PostgreSQL's 23505. */
export function isUniqueViolation(error: unknown): boolean {
  if (error instanceof UniqueConstraintError) return true;
  // Read by shape: a driver's error may come from another realm than this module's Error.
  if (typeof error !== 'object' || error === null) return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  return (code === 'SQLITE_CONSTRAINT' && typeof message === 'string' && /\bUNIQUE constraint failed\b/.test(message)) || code === '23505';
}

/**
 * Runs `write`; when a unique index refuses it, runs `check` again, which now
 * sees the other writer's row and throws the field error. Should the check
 * still pass (an index no field declares), the refusal itself is thrown.
 */
export async function checkedAgainOnUniqueViolation<T>(write: () => Promise<T>, check: () => Promise<unknown>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    await check();
    throw error;
  }
}
