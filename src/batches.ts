/**
 * A whole list read a batch at a time, each batch a query of its own that
 * starts after the last row of the one before (keyset, see
 * pagination/keyset.ts), so that a list of any length costs the memory of one
 * batch and each batch starts where the ordering's index says. A batch is
 * cut by rows and, from the second on, by the text the rows before held, so
 * that a list of long texts is read fewer rows at a time.
 */
import { keysetAttributes, keysetCondition, positionOf } from './pagination/keyset.js';
import { alsoWhere } from './pagination/rows.js';
import type { OrderedQuery } from './pagination/types.js';
import type { FieldDeclaration } from './resource.js';
import type { PlainRow } from './types/rows.js';
import type { RowModel } from './types/rows.js';

/** Rows of the first query: a list shorter than this is read at once, and answered whole (viewsets.ts). */
export const FIRST_BATCH_ROWS = 100;
/** Rows per query at most: about 130 kB of JSON for comments of a few short texts. */
export const BATCH_ROWS = 1000;
/** About how much text a later batch holds, measured on the rows of the one before. */
const BATCH_TEXT = 256 * 1024;

type Fields = Readonly<Record<string, FieldDeclaration>>;

export interface BatchReading {
  model: RowModel;
  fields: Fields;
  query: OrderedQuery;
  /** Continue after the last row's values (see `canContinueAfter`), else by OFFSET. */
  keyset: boolean;
  /** Rows per query at most (BATCH_ROWS); the first reads FIRST_BATCH_ROWS of them at most. */
  size?: number;
}

/**
 * Whether batches can continue after the last row's values: when every
 * ordering column is a declared NOT NULL column (NULL defeats comparisons).
 * Times compare as the database's own text of them, so they continue too.
 * Other lists are read by OFFSET.
 */
export function canContinueAfter(fields: Fields, order: OrderedQuery['order']): boolean {
  return order.every(([name]) => {
    const field = fields[name];
    return field !== undefined && !field.nullable;
  });
}

/** The characters of a row's texts, and a few bytes for each other value: what its JSON will be about. */
function textOf(row: PlainRow): number {
  let length = 0;
  for (const value of Object.values(row)) {
    if (typeof value === 'string') length += value.length;
    else if (typeof value === 'object' && value !== null && !(value instanceof Date) && !Buffer.isBuffer(value)) length += textOf(value as PlainRow);
    else length += 8;
  }
  return length;
}

/** How many batch queries of whole lists run at once on one database; the others wait their turn, holding no rows. */
const READ_AT_ONCE = 2;

/**
 * Turns at the database for the batches of whole lists. A batch's answer is
 * held whole by the driver until it is shown: sixty lists asked at once must
 * not have sixty answers waiting (SQLite's driver keeps them outside the
 * JavaScript heap, and they cost the process tens of MB), nor hold every
 * pooled connection while the other requests wait for one.
 */
class Turns {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  async take<T>(work: () => Promise<T>): Promise<T> {
    if (this.running < READ_AT_ONCE) this.running += 1;
    // The turn is handed over by the read that ends.
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    try {
      return await work();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.running -= 1;
    }
  }
}

const turnsOf = new WeakMap<object, Turns>();

/** The turns of the database `model` reads from. */
function turns(model: RowModel): Turns {
  const database = model.sequelize ?? model;
  let found = turnsOf.get(database);
  if (!found) {
    found = new Turns();
    turnsOf.set(database, found);
  }
  return found;
}

/**
 * Every row of a query, a batch at a time, as plain values (model
 * instances would cost three times the CPU). It keeps no row but the last
 * one's place between two batches: a batch being written out is held only
 * by whoever writes it.
 */
export class BatchReader {
  private readonly attributes: ReturnType<typeof keysetAttributes>;
  private readonly maxRows: number;
  private rows: number;
  /** The place of the last row read, for the next batch to start after. */
  private place: ReturnType<typeof positionOf> | undefined;
  private offset = 0;
  private finished = false;

  /** Whether the batches read so far hold every row: the last one came short. */
  get done(): boolean {
    return this.finished;
  }

  constructor(private readonly reading: BatchReading) {
    const { model, query, fields, size = BATCH_ROWS } = reading;
    this.attributes = keysetAttributes(model, query.order, fields);
    this.maxRows = size;
    this.rows = Math.min(size, FIRST_BATCH_ROWS);
  }

  /** The rows of the next batch, or null after the last. */
  async next(): Promise<PlainRow[] | null> {
    if (this.finished) return null;
    const { model, query, fields, keyset } = this.reading;
    const limit = this.rows;
    const after = this.place && keyset ? keysetCondition(model, query.order, this.place) : undefined;
    const found = await turns(model).take(() => model.findAll({ ...query, where: alsoWhere(query, after), attributes: this.attributes, limit, offset: keyset ? 0 : this.offset, raw: true, nest: true }));
    const rows = found as unknown as PlainRow[];
    const last = rows.at(-1);
    this.finished = rows.length < limit;
    this.offset += rows.length;
    if (last) this.place = positionOf((name) => last[name], query.order, fields);
    if (rows.length > 0) this.rows = this.sizeAfter(rows);
    return rows.length > 0 ? rows : null;
  }

  /** The rows of the next batch: as many as hold about BATCH_TEXT, as the rows just read did, up to the most a batch reads. */
  private sizeAfter(rows: readonly PlainRow[]): number {
    let text = 0;
    for (const row of rows) text += textOf(row);
    const perRow = Math.max(1, text / rows.length);
    return Math.max(1, Math.min(this.maxRows, Math.floor(BATCH_TEXT / perRow)));
  }
}

/**
 * Whether the query's condition keeps more than `max` rows: whether a row
 * lies past the first `max`, found on whatever index is cheapest (no order),
 * a read that costs at most `max` index entries however long the list.
 */
export async function holdsMoreThan(model: RowModel, query: OrderedQuery, max: number): Promise<boolean> {
  // Without the includes: they only name related rows, never filter.
  const beyond = await model.findAll({ where: query.where, attributes: [model.primaryKeyAttribute], limit: 1, offset: max, raw: true });
  return beyond.length > 0;
}

/** Every row of the query, a batch at a time (see BatchReader). */
export async function* readInBatches(reading: BatchReading): AsyncGenerator<PlainRow[]> {
  const reader = new BatchReader(reading);
  for (let rows = await reader.next(); rows; rows = await reader.next()) yield rows;
}
