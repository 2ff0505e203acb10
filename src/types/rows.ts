/**
 * A row, in each form the layers pass it on: a model instance and its model,
 * the few reads a record must answer, a plain read row, a row as shown.
 * Types only, importing nothing of the framework, so that the declaration
 * language, the policies and the database code can all name them.
 */
import type { Model, ModelStatic } from 'sequelize';

export type Row = Model<Record<string, unknown>, Record<string, unknown>>;
export type RowModel = ModelStatic<Row>;

/** What permissions, names and the account code read of a row: a model instance, or a plain row seen as one (db/compiled.ts). */
export interface StoredRecord {
  get(name: string): unknown;
}

/** A row as the driver gives it (`raw: true, nest: true`): included rows nested under their alias. */
export type PlainRow = Record<string, unknown>;

/** A representation of one row, and the related rows shown with it, by relation name. */
export type Item = Record<string, unknown>;
