/**
 * A write that a unique index refused. The serializer checks unique values
 * before writing, but another writer may take the value between that check
 * and the write; the index then refuses it, and the answer must be the same
 * field error the check gives, never a 500.
 */
import { UniqueConstraintError } from 'sequelize';
import { driverError } from './unavailable.js';

/** Sequelize's error, or the driver's own where compiled SQL wrote: SQLite's SQLITE_CONSTRAINT on a UNIQUE index, PostgreSQL's 23505. */
export function isUniqueViolation(error: unknown): boolean {
  if (error instanceof UniqueConstraintError) return true;
  // Read by shape: a driver's error may come from another realm than this module's Error.
  if (typeof error !== 'object' || error === null) return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  return (code === 'SQLITE_CONSTRAINT' && typeof message === 'string' && /\bUNIQUE constraint failed\b/.test(message)) || code === '23505';
}

/**
 * The columns of the unique index a write broke, as the refusal names them:
 * Sequelize's `fields`, SQLite's "UNIQUE constraint failed: t.a, t.b",
 * PostgreSQL's "Key (a, b)=(…) already exists"; null when it names none.
 */
export function violatedColumns(error: unknown): string[] | null {
  if (error instanceof UniqueConstraintError) {
    // Sequelize's SQLite dialect gives the columns as a list, its PostgreSQL one as column → value.
    const fields: unknown = error.fields;
    const columns = Array.isArray(fields) ? fields.map(String) : Object.keys(fields ?? {});
    if (columns.length > 0) return columns;
  }
  const { message, detail } = driverError(error);
  const sqlite = typeof message === 'string' ? /UNIQUE constraint failed: (.+)$/.exec(message) : null;
  if (sqlite?.[1]) return sqlite[1].split(', ').map((qualified) => qualified.slice(qualified.indexOf('.') + 1));
  const postgres = typeof detail === 'string' ? /^Key \(([^()]+)\)=/.exec(detail) : null;
  return postgres?.[1] ? postgres[1].split(', ') : null;
}

/**
 * Runs `write`; when a unique index refuses it, runs `check` again, which now
 * sees the other writer's row and throws the field error. Should the check
 * still pass (the write's hooks changed the values checked, say), `refusal`
 * may name the declared index the write broke; else the refusal is thrown.
 */
export async function checkedAgainOnUniqueViolation<T>(write: () => Promise<T>, check: () => Promise<unknown>, refusal?: (columns: readonly string[]) => Error | null): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    await check();
    const columns = violatedColumns(error);
    throw (columns && refusal?.(columns)) ?? error;
  }
}
