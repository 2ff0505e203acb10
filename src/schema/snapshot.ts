/**
 * The schema the migrations leave, kept beside them as `schema.json` by
 * `makemigrations` (Django's migration state): what it compares the
 * declarations with, and what a starting server reads to say whether a
 * migration is missing (unmigrated.ts).
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Schema } from './model.js';

export const snapshotPath = (dir: string): string => path.join(dir, 'schema.json');

/** The snapshot in the migrations folder `dir`; null when there is none. */
export function readSnapshot(dir: string): Schema | null {
  const file = snapshotPath(dir);
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Schema) : null;
}
