/**
 * Primary keys as they come in paths and tokens: a positive integer that fits
 * the database's INTEGER column, or nothing (never a database error).
 */
const MAX_PK = 2_147_483_647;

/** A path id that can name a row; anything else is a plain 404, never a database error. */
export function parsePk(raw: string | undefined): number | null {
  if (raw === undefined || !/^\d{1,10}$/.test(raw)) return null;
  const pk = Number(raw);
  return pk >= 1 && pk <= MAX_PK ? pk : null;
}
