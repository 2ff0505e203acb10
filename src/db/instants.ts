/**
 * The drivers, taught microseconds (src/instant.ts). Sequelize 6 writes a
 * Date to the millisecond and reads SQLite's text into one; pg parses
 * PostgreSQL's `timestamptz` into one. Left so, two writes stamped within
 * one millisecond would be stored apart and read back equal: a cursor taken
 * at one of them would skip the other, and a version read back would no
 * longer name the row as stored. So an Instant is written with its
 * microseconds, and the stored text read back into one, on every path:
 * Sequelize's models and queries, and the compiled reads (which share the
 * drivers' parsers).
 */
import pg from 'pg';
import { DataTypes } from 'sequelize';
import { epochMicroseconds, Instant, readStoredTime, storedTimeText } from '../instant.js';

/** PostgreSQL's type id of `timestamptz`, what Sequelize's DATE makes. */
const TIMESTAMPTZ = 1184;

/** What the patches below reach of Sequelize's DATE type: its prototype's writer and change test, and SQLite's parser. */
interface DateTypePrototype {
  _stringify(date: unknown, options: unknown): string;
  _isChanged(value: unknown, original: unknown): boolean;
}
interface SqliteDateType {
  parse(text: string, options: unknown): unknown;
}

let taught = false;

/** Once per process, before any Sequelize instance is made (SQLite's parsers are taken from the types when it is). */
export function teachDriversMicroseconds(): void {
  if (taught) return;
  taught = true;
  const date = (DataTypes.DATE as unknown as { prototype: DateTypePrototype }).prototype;
  const stringify = date._stringify;
  date._stringify = function (this: DateTypePrototype, value: unknown, options: unknown): string {
    return value instanceof Instant ? storedTimeText(value) : stringify.call(this, value, options);
  };
  const isChanged = date._isChanged;
  date._isChanged = function (this: DateTypePrototype, value: unknown, original: unknown): boolean {
    if (value instanceof Date && original instanceof Date) return epochMicroseconds(value) !== epochMicroseconds(original);
    return isChanged.call(this, value, original);
  };
  const sqlite = (DataTypes as unknown as { sqlite: { DATE: SqliteDateType } }).sqlite.DATE;
  sqlite.parse = (text: string) => readStoredTime(text);
  const parse = pg.types.getTypeParser(TIMESTAMPTZ);
  pg.types.setTypeParser(TIMESTAMPTZ, (text: string) => {
    const parsed: unknown = parse(text);
    // Infinity and dates before the common era stay as pg gives them.
    return parsed instanceof Date && /^\d{4}-/.test(text) && !text.endsWith(' BC') ? readStoredTime(text) : parsed;
  });
}
